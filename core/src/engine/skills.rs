//! The skills extension (`io.modelcontextprotocol/skills`) answered by the engine from the
//! registry's [`SkillCatalog`](crate::catalogue::skills::SkillCatalog), with no host round
//! trip: `skills/list`, `skills/get`, `resources/directory/read` and `resources/read` of skill
//! files, in both eras (the caching hints the extension requires on every result). The views
//! of MCP Apps are read from memory the same way.

use super::modern::{identify, stamp, write_stamped};
use super::outbox::Route;
use super::peer::{params, Peer};
use super::server::ServerRole;
use crate::catalogue::skills::{self, read_contents, DirectoryError, SkillFile, SKILLS_EXTENSION};
use crate::jsonrpc::{RawJson, RequestId, RpcError};
use crate::protocol::ReadResourceResult;
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct GetParams {
    uri: String,
}

#[derive(Deserialize)]
struct DirectoryParams {
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

impl ServerRole {
    /// The settings the server declares for the skills extension: the app's own when it
    /// named the extension, else `{"directoryRead": true}` while it serves skills.
    pub(super) fn skills_settings(&self) -> Option<Value> {
        match self.config.extensions.get(SKILLS_EXTENSION) {
            Some(v) => Some(v.clone()),
            None => self.registry.skills().map(|_| json!({ "directoryRead": true })),
        }
    }

    /// Serves `method` if it is one of the extension's (and the server declares it): `None`
    /// when it is not.
    pub(super) fn skills_request(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        modern: bool,
    ) -> Option<Result<(), RpcError>> {
        if !matches!(method, "skills/list" | "skills/get" | "resources/directory/read") {
            return None;
        }
        let settings = self.skills_settings()?;
        let catalog = self.registry.skills().unwrap_or_default();
        let result = match method {
            "skills/list" => params::<ListParams>(raw).and_then(|p| {
                let (page, next) = catalog
                    .list(p.cursor.as_deref(), self.registry.page_size())
                    .map_err(|e| RpcError::invalid_params(e).with_data(json!({ "cursor": p.cursor })))?;
                let mut body = Map::new();
                body.insert("skills".into(), Value::Array(page));
                if let Some(n) = next {
                    body.insert("nextCursor".into(), Value::String(n));
                }
                Ok(body)
            }),
            "skills/get" => {
                params::<GetParams>(raw).and_then(|p| match catalog.get(&p.uri) {
                    Some(s) => Ok(Map::from_iter([("skill".to_string(), catalog.entry(s))])),
                    None => Err(RpcError::invalid_params(format!("Skill not found: {}", p.uri))
                        .with_data(json!({ "uri": p.uri }))),
                })
            }
            _ if settings.get("directoryRead") != Some(&Value::Bool(true)) => return None,
            _ => params::<DirectoryParams>(raw).and_then(|p| {
                match catalog.directory_page(&p.uri, p.cursor.as_deref(), self.registry.page_size()) {
                    Ok((page, next)) => {
                        let mut body = Map::new();
                        body.insert("resources".into(), Value::Array(page));
                        if let Some(n) = next {
                            body.insert("nextCursor".into(), Value::String(n));
                        }
                        Ok(body)
                    }
                    Err(DirectoryError::NotADirectory) => {
                        Err(RpcError::invalid_params(format!("Not a directory resource: {}", p.uri))
                            .with_data(json!({ "uri": p.uri })))
                    }
                    Err(DirectoryError::Cursor(c)) => {
                        Err(RpcError::invalid_params(format!("invalid cursor {c:?}")).with_data(json!({ "cursor": c })))
                    }
                }
            }),
        };
        Some(result.map(|body| self.write_cacheable(peer, id, batch, modern, body)))
    }

    /// Writes a skills result with the extension's caching hints (and, in the stateless
    /// revision, `resultType` and the server's identity).
    fn write_cacheable(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        batch: Option<u64>,
        modern: bool,
        mut body: Map<String, Value>,
    ) {
        let hints = self.config.cache.skills();
        if modern {
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            let fields = stamp(Some(hints), self.identity().json());
            peer.respond(batch, Route::Standalone, |out| write_stamped(out, id, &fields, &bytes));
        } else {
            body.insert("ttlMs".into(), hints.ttl_ms.into());
            body.insert("cacheScope".into(), hints.cache_scope.as_str().into());
            peer.write_result(id, batch, Route::Standalone, &body);
        }
    }

    /// `resources/read` of a skill file, from memory.
    pub(super) fn read_skill_file(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        batch: Option<u64>,
        modern: bool,
        file: &SkillFile,
    ) {
        let mut result =
            ReadResourceResult { contents: vec![read_contents(file)], ttl_ms: None, cache_scope: None, meta: None };
        if modern {
            identify(&mut result.meta, &self.identity().value);
            self.write_modern(peer, id, batch, Route::Standalone, Some(self.config.cache.skills()), &result);
        } else {
            peer.write_result(id, batch, Route::Standalone, &result);
        }
    }
}

impl ServerRole {
    /// `resources/read` of an app's view (MCP Apps), from memory: its HTML with its
    /// `_meta.ui`.
    pub(super) fn read_app(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        batch: Option<u64>,
        modern: bool,
        uri: &str,
        app: &crate::catalogue::AppEntry,
    ) {
        let ui = serde_json::to_value(&app.meta).unwrap_or_default();
        let meta = ui.as_object().is_some_and(|m| !m.is_empty()).then(|| Map::from_iter([("ui".to_string(), ui)]));
        let mut result = ReadResourceResult {
            contents: vec![crate::protocol::ResourceContents::Text {
                uri: uri.to_string(),
                mime_type: Some(crate::protocol::APP_MIME.into()),
                text: app.html.clone(),
                meta,
            }],
            ttl_ms: None,
            cache_scope: None,
            meta: None,
        };
        if modern {
            identify(&mut result.meta, &self.identity().value);
            self.write_modern(peer, id, batch, Route::Standalone, Some(self.config.cache.resource_reads()), &result);
        } else {
            peer.write_result(id, batch, Route::Standalone, &result);
        }
    }
}

/// The file `uri` of the registry's skills, if it is one.
pub(super) fn skill_file(registry: &crate::catalogue::Registry, uri: &str) -> Option<SkillFile> {
    let catalog = registry.skills()?;
    skills::SkillCatalog::file(&catalog, uri).cloned()
}
