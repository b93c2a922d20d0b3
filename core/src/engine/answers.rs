//! How a server session answers each request (the [`Role`] of a server): the `initialize`
//! handshake, lists from cached bytes (or through list middleware), tool calls with their
//! argument checks and task plans, reads, prompts, completion, the methods of the server's
//! own, subscriptions and the logging level; what it answers by itself, and what it hands
//! to user code as [`Event::Invoke`](super::Event::Invoke).

use super::modern::{self, RequestHeaders};
use super::outbox::Route;
use super::peer::{params, Peer, Role};
use super::server::{invalid_arguments, ServerRole};
use super::{Event, Request, State};
use crate::catalogue::visibility::Component;
use crate::catalogue::{Caller, ListKind, Resolved};
use crate::jsonrpc::{RawJson, RequestId, RpcError};
use crate::protocol::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct CallToolParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
    meta: Option<Meta>,
    /// 2025-11-25: run the call as a task (`{ttl?}`).
    #[serde(default)]
    task: Option<Value>,
}

impl<'a> CallToolParams<'a> {
    /// The params from what was read with a 2026-07-28 request's context; `None` when the
    /// caller's own `_meta` keys need the full read, or the fields do not read.
    fn preparsed(pre: &modern::Preparsed<'a>) -> Option<Self> {
        if pre.caller_meta {
            return None;
        }
        let name = crate::jsonrpc::message::json_str_text(pre.name?)?;
        let arguments = match pre.arguments {
            None => None,
            Some(a) => Some(serde_json::from_str::<Value>(a).ok()?),
        };
        Some(CallToolParams { name, arguments, meta: None, task: None })
    }
}

#[derive(Deserialize)]
struct CursorParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<HashMap<String, String>>,
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

impl ServerRole {
    pub(super) fn build_capabilities(&self) -> ServerCapabilities {
        let c = &self.config;
        let r = &self.registry;
        let list = ListChangedCapability { list_changed: Some(true) };
        ServerCapabilities {
            experimental: c.experimental.clone(),
            logging: Some(Map::new()),
            completions: c.completions.then(Map::new),
            prompts: (c.prompts || r.has(ListKind::Prompts)).then(|| list.clone()),
            resources: (c.resources || r.has(ListKind::Resources) || r.has(ListKind::ResourceTemplates))
                .then(|| ResourcesCapability { subscribe: Some(c.subscriptions), list_changed: Some(true) }),
            tools: (c.tools || r.has(ListKind::Tools)).then_some(list),
            // 2025-11-25 only (the edge leaves it out of other revisions).
            tasks: (c.legacy_tasks && c.extensions.contains_key(crate::store::tasks::TASKS_EXTENSION))
                .then(|| serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})),
            extensions: {
                // Skills and apps served declare their extensions (unless the app named them).
                let mut all = c.extensions.clone();
                if let Some(skills) = self.skills_settings() {
                    all.entry(crate::catalogue::skills::SKILLS_EXTENSION).or_insert(skills);
                }
                if r.has_apps() {
                    all.entry(crate::protocol::UI_EXTENSION).or_insert_with(|| Value::Object(Map::new()));
                }
                (!all.is_empty()).then_some(all)
            },
        }
    }

    fn initialize(&mut self, peer: &mut Peer, id: RequestId, raw: Option<RawJson<'_>>) {
        if self.state != State::Uninitialized {
            peer.write_error(
                Some(&id),
                None,
                Route::Standalone,
                &RpcError::invalid_request("the session is already initialized"),
            );
            return;
        }
        let p: InitializeParams = match params(raw) {
            Ok(p) => p,
            Err(e) => {
                peer.write_error(Some(&id), None, Route::Standalone, &e);
                return;
            }
        };
        let v = ProtocolVersion::negotiate(&p.protocol_version, &self.config.versions);
        peer.version = Some(v);
        self.client_caps = p.capabilities;
        self.client_info = Some(p.client_info);
        self.capabilities = self.build_capabilities();
        self.state = State::Initializing;
        self.record_changes += 1;
        let result = InitializeResult {
            protocol_version: v.as_str().to_string(),
            capabilities: edge::server_capabilities(&self.capabilities, v).into_owned(),
            server_info: edge::implementation(&self.config.info, v).into_owned(),
            instructions: self.config.instructions.clone(),
            meta: None,
        };
        peer.write_result(&id, None, Route::Standalone, &result);
    }

    fn list(&self, peer: &mut Peer, id: RequestId, kind: ListKind, raw: Option<RawJson<'_>>, batch: Option<u64>) {
        let v = peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        if self.registry.list_hooked(kind) {
            return self.list_through_middleware(peer, id, kind, v, raw, batch, None);
        }
        let page = params::<CursorParams>(raw)
            .and_then(|p| self.registry.list_page_for(kind, v, p.cursor.as_deref(), self.caller(peer)));
        match page {
            Ok(bytes) => peer.write_result_raw(&id, batch, Route::Standalone, &bytes),
            Err(e) => peer.write_error(Some(&id), batch, Route::Standalone, &e),
        }
    }

    pub(super) fn call_tool(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        stateless: Option<(&Arc<modern::RequestContext>, &modern::Preparsed<'_>)>,
    ) -> Result<(), RpcError> {
        let ctx = stateless.map(|(c, _)| c);
        // A 2026-07-28 call's name and arguments were read with its context: its params are
        // not read again unless its `_meta` holds keys of the caller's own (or the fast read
        // fails, for the full one to say why).
        let pre = stateless.and_then(|(_, pre)| CallToolParams::preparsed(pre));
        let p: CallToolParams<'_> = match pre {
            Some(p) => p,
            None => params(raw)?,
        };
        let Some(entry) = self.registry.tool(&p.name).filter(|_| self.sees(peer, Component::Tool, &p.name)) else {
            return Err(RpcError::unknown_tool(&p.name));
        };
        let arguments = match p.arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a) => a,
        };
        if let (Some(_), Some(h)) = (ctx, &self.headers) {
            modern::check_param_headers(&entry, &arguments, h)?;
        }
        if let Err(errors) = entry.validate_arguments(&arguments) {
            let v = ctx.map_or(peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY), |c| c.version);
            let result = invalid_arguments(v, &p.name, errors)?;
            match ctx {
                Some(_) => self.write_modern(peer, &id, batch, Route::Standalone, None, &result),
                None => peer.write_result(&id, batch, Route::Standalone, &result),
            }
            return Ok(());
        }
        let Value::Object(arguments) = arguments else { unreachable!("the input schema requires an object") };
        let task = match ctx {
            Some(c) => self.task_plan(&p.name, c)?,
            None => self.legacy_task_plan(&p.name, p.task.is_some(), peer.version)?,
        };
        let name = p.name.into_owned();
        let key = peer.invoke(id, batch, p.meta, Request::CallTool { name, arguments }, Some(entry), ctx.cloned());
        if task.is_some() {
            peer.set_task_plan(key, task);
        }
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("tools/call", raw));
        }
        Ok(())
    }

    /// Whether a call of tool `name` runs as a task: only at 2026-07-28, when the server
    /// declares the tasks extension and the client declared it with the request. A tool
    /// that runs only as tasks refuses other calls with -32021. (A legacy session's calls:
    /// [`ServerRole::legacy_task_plan`].)
    fn task_plan(&self, name: &str, ctx: &modern::RequestContext) -> Result<Option<super::TaskPlan>, RpcError> {
        use crate::catalogue::TaskMode;
        use crate::store::tasks::TASKS_EXTENSION;
        let Some(mode) = self.registry.task_mode(name) else { return Ok(None) };
        if !self.config.extensions.contains_key(TASKS_EXTENSION) {
            return Ok(None);
        }
        let declared = ctx.client_capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        Ok(match (mode, declared) {
            (TaskMode::Required, false) => return Err(super::missing_extension(TASKS_EXTENSION)),
            (_, false) => None,
            (TaskMode::Optional | TaskMode::Required, true) => Some(super::TaskPlan::Start),
            (TaskMode::Manual, true) => Some(super::TaskPlan::Allowed),
        })
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` of 2025-11-25: the task
    /// runtime answers (the session's client owns the tasks it may see, as at 2026-07-28).
    fn legacy_task_request(
        &self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct P {
            #[serde(default)]
            task_id: Option<String>,
            #[serde(default)]
            cursor: Option<String>,
        }
        let p: P = params(raw)?;
        let task_id = || p.task_id.clone().ok_or_else(|| RpcError::invalid_params(format!("{method} needs a taskId")));
        let op = match method {
            "tasks/get" => super::TaskOp::LegacyGet { task_id: task_id()? },
            "tasks/result" => super::TaskOp::Result { task_id: task_id()? },
            "tasks/cancel" => super::TaskOp::LegacyCancel { task_id: task_id()? },
            _ => super::TaskOp::List { cursor: p.cursor.clone() },
        };
        peer.invoke(id, batch, None, Request::Task(op), None, None);
        Ok(())
    }

    /// Whether a 2025-11-25 call runs as a task: when the client asked (`params.task`) for a
    /// tool that runs as one (`execution.taskSupport`); a tool that runs only as a task
    /// refuses other calls with -32601, as one that never does refuses `params.task`.
    fn legacy_task_plan(
        &self,
        name: &str,
        wants_task: bool,
        version: Option<ProtocolVersion>,
    ) -> Result<Option<super::TaskPlan>, RpcError> {
        use crate::catalogue::TaskMode;
        let mode = self.registry.task_mode(name);
        let tasks_on = self.config.extensions.contains_key(crate::store::tasks::TASKS_EXTENSION);
        let served = self.capabilities.tasks.is_some()
            && version.is_some_and(|v| v.supports(crate::protocol::Feature::LegacyTasks));
        let not_found = |m: String| RpcError::new(crate::jsonrpc::codes::METHOD_NOT_FOUND, m);
        match (served, mode, wants_task) {
            (true, Some(_), true) => Ok(Some(super::TaskPlan::Start)),
            (true, None, true) => Err(not_found(format!(
                "tool {name} does not run as a task (its execution.taskSupport is forbidden): call it without params.task"
            ))),
            (true, Some(TaskMode::Required), false) => {
                Err(not_found(format!("tool {name} runs only as a task: call it with params.task")))
            }
            (false, Some(TaskMode::Required), _) if tasks_on => Err(not_found(format!(
                "tool {name} runs only as a task: call it at 2026-07-28 with the tasks extension"
            ))),
            _ => Ok(None),
        }
    }

    pub(super) fn read_resource(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        let listed = self.sees(peer, Component::Resource, &p.uri);
        if let Some(file) = super::skills::skill_file(&self.registry, &p.uri).filter(|_| listed) {
            self.read_skill_file(peer, &id, batch, ctx.is_some(), &file);
            return Ok(());
        }
        if let Some(app) = self.registry.app(&p.uri).filter(|_| listed) {
            self.read_app(peer, &id, batch, ctx.is_some(), &p.uri, &app);
            return Ok(());
        }
        let (template, variables) = match self.registry.resolve_for(&p.uri, self.caller(peer)) {
            // 2026-07-28 reports an unknown resource as invalid params.
            None if ctx.is_some() => {
                return Err(RpcError::invalid_params(format!("Resource not found: {}", p.uri))
                    .with_data(serde_json::json!({ "uri": p.uri })))
            }
            None => return Err(RpcError::resource_not_found(&p.uri)),
            Some(Resolved::Static(_)) => (None, HashMap::new()),
            Some(Resolved::Template(t, vars)) => (Some(t), vars),
        };
        let key = peer.invoke(
            id,
            batch,
            p.meta,
            Request::ReadResource { uri: p.uri, template, variables },
            None,
            ctx.cloned(),
        );
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("resources/read", raw));
        }
        Ok(())
    }

    pub(super) fn get_prompt(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: GetPromptParams = params(raw)?;
        let Some(prompt) = self.registry.prompt(&p.name).filter(|_| self.sees(peer, Component::Prompt, &p.name)) else {
            return Err(RpcError::unknown_prompt(&p.name));
        };
        let arguments = p.arguments.unwrap_or_default();
        let missing: Vec<&str> = prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(RpcError::invalid_params(format!(
                "prompt {} is missing required argument(s): {}",
                p.name,
                missing.join(", ")
            ))
            .with_data(serde_json::json!({ "prompt": p.name, "missing": missing })));
        }
        let key = peer.invoke(id, batch, p.meta, Request::GetPrompt { name: p.name, arguments }, None, ctx.cloned());
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("prompts/get", raw));
        }
        Ok(())
    }

    pub(super) fn complete(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: CompleteParams = params(raw)?;
        match &p.reference {
            CompletionReference::Prompt { name } => {
                let Some(prompt) = self.registry.prompt(name).filter(|_| self.sees(peer, Component::Prompt, name))
                else {
                    return Err(RpcError::unknown_prompt(name));
                };
                let known = prompt.arguments.iter().flatten().any(|a| a.name == p.argument.name);
                if !known {
                    return Err(RpcError::invalid_params(format!(
                        "prompt {name} has no argument {:?}",
                        p.argument.name
                    ))
                    .with_data(serde_json::json!({ "argument": p.argument.name })));
                }
            }
            CompletionReference::Resource { uri } => {
                let template = self.registry.template(uri).filter(|_| self.sees(peer, Component::Template, uri));
                let resource = self.registry.resource(uri).filter(|_| self.sees(peer, Component::Resource, uri));
                if template.is_none() && resource.is_none() {
                    return Err(RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                        .with_data(serde_json::json!({ "uri": uri })));
                }
            }
        }
        let meta = params::<MetaOnly>(raw).ok().and_then(|m| m.meta);
        peer.invoke(id, batch, meta, Request::Complete(p), None, ctx.cloned());
        Ok(())
    }

    /// A list some middleware hook sees: built whole for the caller, handed to the chain
    /// ([`Request::List`]), paged when it comes back ([`Outcome::Listed`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn list_through_middleware(
        &self,
        peer: &mut Peer,
        id: RequestId,
        kind: ListKind,
        v: ProtocolVersion,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) {
        let offset = params::<CursorParams>(raw).and_then(|p| crate::catalogue::cursor_offset(p.cursor.as_deref()));
        let offset = match offset {
            Ok(o) => o,
            Err(e) => return peer.write_error(Some(&id), batch, Route::Standalone, &e),
        };
        let meta = params::<MetaOnly>(raw).ok().and_then(|m| m.meta);
        let items = self.registry.list_items(kind, v, self.caller(peer));
        let key = peer.invoke(id, batch, meta, Request::List { kind, items }, None, ctx.cloned());
        peer.set_list(key, kind, offset);
    }

    /// A request method of the server's own: its params (an object, or none) without
    /// `_meta` go to its handler.
    pub(super) fn custom(
        &self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let mut params = match raw.map(|r| serde_json::from_str::<Value>(r.get())) {
            None | Some(Ok(Value::Null)) => Map::new(),
            Some(Ok(Value::Object(m))) => m,
            Some(Ok(_)) => return Err(RpcError::invalid_params(format!("{method}: params must be an object"))),
            Some(Err(e)) => return Err(RpcError::invalid_params(format!("{method}: {e}"))),
        };
        let meta = match params.remove("_meta") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(RpcError::invalid_params(format!("{method}: _meta must be an object"))),
        };
        let params = Value::Object(params);
        if let Err(errors) = self.registry.check_method_params(method, &params) {
            return Err(RpcError::invalid_params(format!("{method}: {}", errors.join("; ")))
                .with_data(serde_json::json!({ "method": method, "errors": errors })));
        }
        let Value::Object(params) = params else { unreachable!("made an object above") };
        let request = Request::Custom { method: method.to_string(), params };
        peer.invoke(id, batch, meta, request, None, ctx.cloned());
        Ok(())
    }

    /// The page a list that passed middleware answers with.
    pub(super) fn listed_page(&self, inf: &super::peer::Inflight, items: Vec<Value>) -> Result<Vec<u8>, RpcError> {
        let Some((kind, offset)) = inf.list else {
            return Err(RpcError::internal("a list outcome for a request that was not a list"));
        };
        self.registry.page_of(kind, items, offset as usize)
    }

    /// Whether this session's caller sees a component (the server's rules, then its own).
    pub(super) fn sees(&self, peer: &Peer, kind: Component, key: &str) -> bool {
        self.registry.visible(kind, key, self.caller(peer))
    }

    /// Who asks the request at hand: this session's own rules and, when the HTTP server
    /// hides what a token may not use, the scopes of the request's token.
    pub(super) fn caller<'a>(&'a self, peer: &'a Peer) -> Caller<'a> {
        let scopes = peer
            .origin
            .as_deref()
            .filter(|o| o.hide_unauthorized)
            .and_then(|o| o.auth.as_deref())
            .map(|a| a.scopes.as_slice());
        Caller { rules: Some(&self.visibility), scopes }
    }

    fn subscription(&mut self, peer: &mut Peer, raw: Option<RawJson<'_>>, subscribe: bool) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        if subscribe {
            let skill = super::skills::skill_file(&self.registry, &p.uri)
                .filter(|_| self.sees(peer, Component::Resource, &p.uri));
            if self.registry.resolve_for(&p.uri, self.caller(peer)).is_none() && skill.is_none() {
                return Err(RpcError::resource_not_found(&p.uri));
            }
            if self.subscriptions.insert(p.uri) {
                self.record_changes += 1;
            }
        } else if self.subscriptions.remove(&p.uri) {
            self.record_changes += 1;
        }
        let _ = peer;
        Ok(())
    }
}

impl Role for ServerRole {
    fn on_request(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        _now: Instant,
    ) {
        // The version header first: when it names 2026-07-28 the params need no probing.
        if self.headers.as_ref().is_some_and(RequestHeaders::declares_modern) || modern::is_modern(method, raw) {
            return self.modern_request(peer, id, method, raw, batch);
        }
        if method == "initialize" {
            return self.initialize(peer, id, raw);
        }
        if method == "ping" {
            return peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
        }
        if self.state == State::Uninitialized {
            let err = RpcError::invalid_request(format!("received {method} before initialize: send initialize first"));
            return peer.write_error(Some(&id), batch, Route::Standalone, &err);
        }
        if let Some(r) = self.skills_request(peer, &id, method, raw, batch, false) {
            if let Err(e) = r {
                peer.write_error(Some(&id), batch, Route::Standalone, &e);
            }
            return;
        }
        let caps = &self.capabilities;
        let result: Result<(), RpcError> = match method {
            "tools/list" if caps.tools.is_some() => {
                self.list(peer, id, ListKind::Tools, raw, batch);
                return;
            }
            "tools/call" if caps.tools.is_some() => self.call_tool(peer, id.clone(), raw, batch, None),
            "resources/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::Resources, raw, batch);
                return;
            }
            "resources/templates/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::ResourceTemplates, raw, batch);
                return;
            }
            "resources/read" if caps.resources.is_some() => self.read_resource(peer, id.clone(), raw, batch, None),
            "resources/subscribe" | "resources/unsubscribe"
                if caps.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)) =>
            {
                match self.subscription(peer, raw, method == "resources/subscribe") {
                    Ok(()) => {
                        peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
                        return;
                    }
                    Err(e) => Err(e),
                }
            }
            "prompts/list" if caps.prompts.is_some() => {
                self.list(peer, id, ListKind::Prompts, raw, batch);
                return;
            }
            "prompts/get" if caps.prompts.is_some() => self.get_prompt(peer, id.clone(), raw, batch, None),
            "completion/complete" if caps.completions.is_some() => self.complete(peer, id.clone(), raw, batch, None),
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
                if caps.tasks.is_some()
                    && peer.version.is_some_and(|v| v.supports(crate::protocol::Feature::LegacyTasks)) =>
            {
                self.legacy_task_request(peer, id.clone(), method, raw, batch)
            }
            "logging/setLevel" => match params::<SetLevelParams>(raw) {
                Ok(p) => {
                    if self.log_level != Some(p.level) {
                        self.log_level = Some(p.level);
                        self.record_changes += 1;
                    }
                    peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
                    return;
                }
                Err(e) => Err(e),
            },
            _ if self.registry.has_method(method) => self.custom(peer, id.clone(), method, raw, batch, None),
            _ => Err(RpcError::method_not_found(method)),
        };
        if let Err(e) = result {
            peer.write_error(Some(&id), batch, Route::Standalone, &e);
        }
    }

    fn on_notification(&mut self, peer: &mut Peer, method: &str, raw: Option<RawJson<'_>>) {
        match method {
            "notifications/initialized" => {
                if self.state == State::Initializing {
                    self.state = State::Operating;
                    self.record_changes += 1;
                    peer.events.push_back(Event::Initialized);
                }
            }
            _ => {
                // Before the handshake only a notification of the server's own (a 2026-07-28
                // connection has no handshake): the spec's would be out of place.
                let own = || crate::protocol::methods::check_custom(method).is_ok();
                if self.state == State::Uninitialized && !own() {
                    return;
                }
                let params = raw.and_then(|r| serde_json::from_str(r.get()).ok());
                peer.events.push_back(Event::Notification { method: method.to_string(), params, subscription: None });
            }
        }
    }

    fn batchable(&self, method: &str) -> bool {
        method != "initialize"
    }
}
