//! The list answers of the registry: pages of what a caller sees, built from the entries
//! (and cached as bytes for callers that see what every caller sees), the whole list for
//! list middleware, and the paging of what middleware hands back.

use super::{Caller, Component, Inner, ListKind, Registry, TaskMode};
use crate::jsonrpc::RpcError;
use crate::protocol::{edge, ProtocolVersion};
use crate::util::{decode_cursor, encode_cursor};
use serde_json::Value;
use std::sync::Arc;

impl Registry {
    /// The `result` bytes of one list page for revision `v`: served from cache, built once
    /// per change. A cursor that was not made here (or points past the end) is -32602.
    pub fn list_page(&self, kind: ListKind, v: ProtocolVersion, cursor: Option<&str>) -> Result<Arc<[u8]>, RpcError> {
        self.list_page_for(kind, v, cursor, Caller::default())
    }

    /// [`Registry::list_page`] for a caller with its own visibility rules `caller`: its own
    /// view of the list, built for it (pages of the server's view are cached).
    pub fn list_page_for(
        &self,
        kind: ListKind,
        v: ProtocolVersion,
        cursor: Option<&str>,
        caller: Caller<'_>,
    ) -> Result<Arc<[u8]>, RpcError> {
        let plain = self.plain(caller);
        let offset = cursor_offset(cursor)?;
        let key = (kind, v, offset);
        if plain {
            if let Some(bytes) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
                return Ok(bytes.clone());
            }
        }
        let page_size = self.page_size.load(std::sync::atomic::Ordering::Relaxed);
        let (items, total) = {
            let inner = self.read();
            let total = self.visible_total(&inner, kind, caller);
            check_offset(offset, total, cursor)?;
            (self.items(&inner, kind, v, caller, offset, page_size.min(total - offset)), total)
        };
        let next = offset + items.len();
        let bytes: Arc<[u8]> = page_bytes(kind, items, (next < total).then_some(next)).into();
        if plain {
            self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, bytes.clone());
        }
        Ok(bytes)
    }

    /// Every entry of a list a caller with its own rules `caller` sees, shaped for revision
    /// `v` (what list middleware is handed).
    pub fn list_items(&self, kind: ListKind, v: ProtocolVersion, caller: Caller<'_>) -> Vec<Value> {
        let inner = self.read();
        self.items(&inner, kind, v, caller, 0, usize::MAX)
    }

    /// The `result` bytes of the page at `offset` of `items` (a list as middleware left it);
    /// -32602 for an offset past its end.
    pub fn page_of(&self, kind: ListKind, mut items: Vec<Value>, offset: usize) -> Result<Vec<u8>, RpcError> {
        let total = items.len();
        check_offset(offset, total, None)?;
        let end = (offset + self.page_size()).min(total);
        items.truncate(end);
        let page: Vec<Value> = items.drain(offset..).collect();
        Ok(page_bytes(kind, page, (end < total).then_some(end)))
    }

    /// Hands the lists `kinds` to middleware: a request for one of them is built in full,
    /// passed through the chain and paged after it (the others are served from cached pages).
    pub fn set_list_hooks(&self, kinds: &[ListKind]) {
        let bits = kinds.iter().fold(0u8, |b, k| b | 1 << (*k as u8));
        self.list_hooks.store(bits, std::sync::atomic::Ordering::Release);
    }

    /// Whether list `kind` passes middleware ([`Registry::set_list_hooks`]).
    pub fn list_hooked(&self, kind: ListKind) -> bool {
        self.list_hooks.load(std::sync::atomic::Ordering::Acquire) & (1 << (kind as u8)) != 0
    }

    /// How many entries of list `kind` a caller with its own rules `caller` sees.
    fn visible_total(&self, inner: &Inner, kind: ListKind, caller: Caller<'_>) -> usize {
        let all = self.plain(caller) && !self.filtered.load(std::sync::atomic::Ordering::Acquire);
        if all {
            return match kind {
                ListKind::Tools => inner.tools.len(),
                ListKind::Resources => inner.resources.len() + inner.skills.as_ref().map_or(0, |c| c.len()),
                ListKind::ResourceTemplates => inner.templates.len(),
                ListKind::Prompts => inner.prompts.len(),
            };
        }
        let seen = |c: Component, k: &str| inner.visible(c, k, caller);
        match kind {
            ListKind::Tools => inner.tools.keys().filter(|k| seen(Component::Tool, k)).count(),
            ListKind::Resources => {
                let skills = inner.skills.iter().flat_map(|c| c.skills().map(|s| c.resource(s).uri));
                inner.resources.keys().cloned().chain(skills).filter(|k| seen(Component::Resource, k)).count()
            }
            ListKind::ResourceTemplates => inner.templates.keys().filter(|k| seen(Component::Template, k)).count(),
            ListKind::Prompts => inner.prompts.keys().filter(|k| seen(Component::Prompt, k)).count(),
        }
    }

    /// `take` entries from `offset` of what a caller sees of list `kind`, shaped for `v`.
    fn items(
        &self,
        inner: &Inner,
        kind: ListKind,
        v: ProtocolVersion,
        caller: Caller<'_>,
        offset: usize,
        take: usize,
    ) -> Vec<Value> {
        let all = self.plain(caller) && !self.filtered.load(std::sync::atomic::Ordering::Acquire);
        let seen = |c: Component, k: &str| all || inner.visible(c, k, caller);
        match kind {
            ListKind::Tools => inner
                .tools
                .values()
                .filter(|t| seen(Component::Tool, &t.tool.name))
                .skip(offset)
                .take(take)
                .map(|t| {
                    let mut tool = edge::tool(&t.tool, v);
                    // 2025-11-25: how the tool runs as a task ("forbidden", the default, unsaid).
                    if let (true, Some(mode), Value::Object(obj)) = (
                        v.supports(crate::protocol::Feature::LegacyTasks),
                        inner.task_modes.get(&t.tool.name),
                        &mut tool,
                    ) {
                        let support = match mode {
                            TaskMode::Required => "required",
                            TaskMode::Optional | TaskMode::Manual => "optional",
                        };
                        obj.entry("execution")
                            .or_insert_with(|| Value::Object(serde_json::Map::new()))
                            .as_object_mut()
                            .map(|e| e.insert("taskSupport".into(), Value::from(support)));
                    }
                    tool
                })
                .collect(),
            // The static resources, then each skill's SKILL.md.
            ListKind::Resources => {
                let skills = inner.skills.iter().flat_map(|c| c.skills().map(|s| Arc::new(c.resource(s))));
                inner
                    .resources
                    .values()
                    .cloned()
                    .chain(skills)
                    .filter(|r| seen(Component::Resource, &r.uri))
                    .skip(offset)
                    .take(take)
                    .map(|r| edge::resource(&r, v))
                    .collect()
            }
            ListKind::ResourceTemplates => inner
                .templates
                .values()
                .filter(|t| seen(Component::Template, &t.template.uri_template))
                .skip(offset)
                .take(take)
                .map(|t| edge::resource_template(&t.template, v))
                .collect(),
            ListKind::Prompts => inner
                .prompts
                .values()
                .filter(|p| seen(Component::Prompt, &p.name))
                .skip(offset)
                .take(take)
                .map(|p| edge::prompt(p, v))
                .collect(),
        }
    }
}

/// The offset a list request's cursor names (0 without one); -32602 for a cursor that was
/// not made here.
pub fn cursor_offset(cursor: Option<&str>) -> Result<usize, RpcError> {
    match cursor {
        None => Ok(0),
        Some(c) => decode_cursor(c).ok_or_else(|| {
            RpcError::invalid_params(format!("invalid cursor {c:?}")).with_data(serde_json::json!({ "cursor": c }))
        }),
    }
}

/// -32602 for an offset past the end of a list of `total` entries (the first page of an
/// empty list is fine), naming the cursor as sent (or as made for the offset).
fn check_offset(offset: usize, total: usize, cursor: Option<&str>) -> Result<(), RpcError> {
    if offset > total || (offset == total && offset != 0) {
        let cursor = cursor.map_or_else(|| encode_cursor(offset), str::to_string);
        return Err(RpcError::invalid_params(format!("invalid cursor {cursor:?}: past the end of the list"))
            .with_data(serde_json::json!({ "cursor": cursor })));
    }
    Ok(())
}

/// A list page's `result`: `{field: items, nextCursor?}`.
fn page_bytes(kind: ListKind, items: Vec<Value>, next: Option<usize>) -> Vec<u8> {
    let mut result = serde_json::Map::new();
    result.insert(kind.field().into(), Value::Array(items));
    if let Some(n) = next {
        result.insert("nextCursor".into(), Value::String(encode_cursor(n)));
    }
    serde_json::to_vec(&result).unwrap_or_default()
}
