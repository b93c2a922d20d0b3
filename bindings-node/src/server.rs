//! The server side: a shared `Registry` and one `ServerSession` per connection.

use crate::bridge::{common_event, invocation, parse};
use crate::errors::{definition_err, rpc_err};
use hypermcp::engine::{self, Event, Outcome, Request, RequestKey, RequestOptions};
use hypermcp::server::registry::{self, ListKind, RegistryChange};
use hypermcp::{CallToolResult, LoggingLevel, Prompt, Resource, ResourceTemplate, RpcError, Tool};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The catalogue of one server.
#[napi]
pub struct Registry {
    pub(crate) inner: Arc<registry::Registry>,
}

#[napi]
impl Registry {
    /// An empty registry.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Registry { inner: Arc::new(registry::Registry::new()) }
    }

    /// A resource changed: every HTTP session serving this registry, whichever `HttpServer`
    /// holds it, tells its client if it subscribed. (Sessions JS drives itself, over stdio or
    /// in memory, are told through their own `resourceUpdated`.)
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.inner.notify_resource_updated(&uri);
    }

    /// Adds or replaces a tool (JSON of the MCP `Tool` shape).
    #[napi]
    pub fn add_tool(&self, definition: String) -> napi::Result<()> {
        let t: Tool = parse(&definition, "tool definition")?;
        self.inner.add_tool(t).map_err(definition_err)
    }

    /// Removes a tool.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// Adds or replaces a resource.
    #[napi]
    pub fn add_resource(&self, definition: String) -> napi::Result<()> {
        let r: Resource = parse(&definition, "resource definition")?;
        self.inner.add_resource(r).map_err(definition_err)
    }

    /// Removes a resource.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Adds or replaces a resource template.
    #[napi]
    pub fn add_template(&self, definition: String) -> napi::Result<()> {
        let t: ResourceTemplate = parse(&definition, "resource template definition")?;
        self.inner.add_template(t).map_err(definition_err)
    }

    /// Removes a resource template.
    #[napi]
    pub fn remove_template(&self, uri_template: String) -> bool {
        self.inner.remove_template(&uri_template)
    }

    /// Adds or replaces a prompt.
    #[napi]
    pub fn add_prompt(&self, definition: String) -> napi::Result<()> {
        let p: Prompt = parse(&definition, "prompt definition")?;
        self.inner.add_prompt(p).map_err(definition_err)
    }

    /// Removes a prompt.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.inner.remove_prompt(&name)
    }

    /// Entries per list page.
    #[napi]
    pub fn set_page_size(&self, n: u32) {
        self.inner.set_page_size(n as usize);
    }
}

/// A server config from the JSON text JS sends (see `ServerSession`'s constructor).
pub(crate) fn server_config(config: &str) -> napi::Result<engine::ServerConfig> {
    let c: Value = parse(config, "server config")?;
    let s = |k: &str| c.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let b = |k: &str| c.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
    let mut info = hypermcp::Implementation::new(
        s("name").unwrap_or_else(|| "hypermcp-server".into()),
        s("version").unwrap_or_else(|| "0.0.0".into()),
    );
    info.title = s("title");
    info.description = s("description");
    info.website_url = s("websiteUrl");
    if let Some(icons) = c.get("icons") {
        info.icons = serde_json::from_value(icons.clone())
            .map_err(|e| napi::Error::from_reason(format!("invalid icons: {e}")))?;
    }
    let mut cfg = engine::ServerConfig::new(info);
    cfg.instructions = s("instructions");
    cfg.tools = b("tools");
    cfg.resources = b("resources");
    cfg.prompts = b("prompts");
    cfg.completions = b("completions");
    if let Some(n) = c.get("maxMessageSize").and_then(|v| v.as_u64()) {
        cfg.max_message_size = n as usize;
    }
    if let Some(t) = c.get("requestTimeout") {
        cfg.request_timeout = t.as_f64().map(Duration::from_secs_f64);
    }
    Ok(cfg)
}

/// One server-side event as JSON (see `ServerSession.pollEvents`); `None` for requests
/// JS has no handler kind for.
pub(crate) fn server_event(ev: &Event) -> Option<Value> {
    if let Some(v) = common_event(ev) {
        return Some(v);
    }
    let Event::Invoke(inv) = ev else { return None };
    Some(match &inv.request {
        Request::CallTool { name, arguments } => {
            invocation("tool", inv, vec![name.as_str().into(), Value::Object(arguments.clone())])
        }
        Request::ReadResource { uri, template, variables } => invocation(
            "resource",
            inv,
            vec![
                uri.as_str().into(),
                template.as_ref().map(|t| Value::from(t.template.uri_template.as_str())).unwrap_or(Value::Null),
                serde_json::to_value(variables).unwrap_or_default(),
            ],
        ),
        Request::GetPrompt { name, arguments } => {
            invocation("prompt", inv, vec![name.as_str().into(), serde_json::to_value(arguments).unwrap_or_default()])
        }
        Request::Complete(p) => invocation("complete", inv, vec![serde_json::to_value(p).unwrap_or_default()]),
        _ => return None,
    })
}

/// A tool call's outcome from JSON text of a `CallToolResult`.
pub(crate) fn tool_outcome(result: &str) -> napi::Result<Outcome> {
    Ok(Outcome::Tool(parse::<CallToolResult>(result, "tool result")?))
}

/// A tool call's outcome: one text block.
pub(crate) fn text_outcome(text: String, is_error: bool) -> Outcome {
    let mut r = CallToolResult::text(text);
    if is_error {
        r.is_error = Some(true);
    }
    Outcome::Tool(r)
}

/// A resource read answered with one text content (a handler that returned a string): the
/// text goes straight in, with no JSON text of the result built in JS and parsed here.
pub(crate) fn resource_text_outcome(uri: String, mime_type: &str, text: String) -> Outcome {
    Outcome::Resource(hypermcp::ReadResourceResult::text(uri, text, Some(mime_type)))
}

/// A resource read's, prompt's or completion's outcome from JSON text.
pub(crate) fn result_outcome(kind: &str, result: &str) -> napi::Result<Outcome> {
    Ok(match kind {
        "resource" => Outcome::Resource(parse(result, "resource result")?),
        "prompt" => Outcome::Prompt(parse(result, "prompt result")?),
        "complete" => Outcome::Completion(parse(result, "completion result")?),
        other => return Err(napi::Error::from_reason(format!("unknown result kind {other:?}"))),
    })
}

/// A JSON-RPC error outcome (`data` as JSON text).
pub(crate) fn error_outcome(code: i32, message: String, data: Option<String>) -> napi::Result<Outcome> {
    let mut e = RpcError::new(code, message);
    if let Some(d) = data {
        e.data = Some(parse(&d, "error data")?);
    }
    Ok(Outcome::Error(e))
}

/// The params (JSON text) and options of a request to the client (`timeout` in seconds).
pub(crate) fn request_parts(
    params: Option<String>,
    timeout: Option<f64>,
    related: Option<i64>,
) -> napi::Result<(Option<Value>, RequestOptions)> {
    let params = match params {
        Some(p) => Some(parse::<Value>(&p, "request params")?),
        None => None,
    };
    let opts = RequestOptions {
        timeout: timeout.filter(|t| t.is_finite() && *t >= 0.0).map(Duration::from_secs_f64),
        related: related.map(|k| RequestKey(k as u64)),
        ..Default::default()
    };
    Ok((params, opts))
}

/// The server end of one connection (sans-IO).
#[napi]
pub struct ServerSession {
    inner: engine::ServerSession,
    out: Vec<u8>,
}

#[napi]
impl ServerSession {
    /// `config` is JSON: `{name, version, title?, description?, websiteUrl?, icons?,
    /// instructions?, tools?, resources?, prompts?, completions?, maxMessageSize?,
    /// requestTimeout? (seconds)}`.
    #[napi(constructor)]
    pub fn new(config: String, registry: &Registry) -> napi::Result<Self> {
        let cfg = server_config(&config)?;
        Ok(ServerSession { inner: engine::ServerSession::new(Arc::new(cfg), registry.inner.clone()), out: Vec::new() })
    }

    /// Feeds bytes read from the stream.
    #[napi]
    pub fn feed(&mut self, data: Buffer) {
        self.inner.feed(&data, Instant::now());
    }

    /// Handles one complete message.
    #[napi]
    pub fn handle_message(&mut self, data: Buffer) {
        self.inner.handle_message(&data, Instant::now());
    }

    /// Pending events as JSON text of an array (empty string when there are none):
    /// `["tool", key, id, token, meta, name, args]`, `["resource", key, id, token, meta, uri,
    /// template|null, vars]`, `["prompt", key, id, token, meta, name, args]`,
    /// `["complete", key, id, token, meta, params]`, `["cancelled", key, reason]`,
    /// `["response", id, ok, result|error]`, `["progress", id, progress, total, message]`,
    /// `["initialized"]`, `["notification", method, params]`.
    #[napi]
    pub fn poll_events(&mut self) -> String {
        let mut events = Vec::new();
        while let Some(ev) = self.inner.poll_event() {
            if let Some(v) = server_event(&ev) {
                events.push(v);
            }
        }
        if events.is_empty() {
            return String::new();
        }
        Value::Array(events).to_string()
    }

    /// Everything queued for the peer (newline-delimited), or an empty buffer.
    #[napi]
    pub fn take_output(&mut self) -> Buffer {
        self.out.clear();
        self.inner.take_output(&mut self.out);
        Buffer::from(std::mem::take(&mut self.out))
    }

    /// Whether output is waiting.
    #[napi]
    pub fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Answers a tool call with a `CallToolResult` (JSON text).
    #[napi]
    pub fn complete_tool(&mut self, key: i64, result: String) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), tool_outcome(&result)?);
        Ok(())
    }

    /// Answers a tool call with one text block.
    #[napi]
    pub fn complete_tool_text(&mut self, key: i64, text: String, is_error: bool) {
        self.inner.complete(RequestKey(key as u64), text_outcome(text, is_error));
    }

    /// Answers a resource read with one text content.
    #[napi]
    pub fn complete_resource_text(&mut self, key: i64, uri: String, mime_type: String, text: String) {
        self.inner.complete(RequestKey(key as u64), resource_text_outcome(uri, &mime_type, text));
    }

    /// Answers a resource read, prompt or completion (`kind`: "resource", "prompt",
    /// "complete") with JSON text of the result.
    #[napi]
    pub fn complete_result(&mut self, key: i64, kind: String, result: String) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), result_outcome(&kind, &result)?);
        Ok(())
    }

    /// Answers with a JSON-RPC error (`data` as JSON text, or null).
    #[napi]
    pub fn complete_error(&mut self, key: i64, code: i32, message: String, data: Option<String>) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), error_outcome(code, message, data)?);
        Ok(())
    }

    /// Sends progress; false when the client asked for none. Throws on a non-increasing value.
    #[napi]
    pub fn progress(
        &mut self,
        key: i64,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> napi::Result<bool> {
        self.inner.progress(RequestKey(key as u64), progress, total, message.as_deref()).map_err(|e| rpc_err(&e))
    }

    /// Sends a log message (`data` as JSON text) if the client's level lets it through.
    #[napi]
    pub fn log(
        &mut self,
        level: String,
        data: String,
        logger: Option<String>,
        related: Option<i64>,
    ) -> napi::Result<bool> {
        let lvl: LoggingLevel = level.parse().map_err(napi::Error::from_reason)?;
        let data: Value = parse(&data, "log data")?;
        Ok(self.inner.log(lvl, logger.as_deref(), data, related.map(|k| RequestKey(k as u64))))
    }

    /// Sends a request to the client (params as JSON text); returns its id. Throws when the
    /// client lacks the capability.
    #[napi]
    pub fn request(
        &mut self,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
        related: Option<i64>,
    ) -> napi::Result<i64> {
        let (params, opts) = request_parts(params, timeout, related)?;
        self.inner.request(&method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(&e))
    }

    /// Stops waiting for a request and tells the client.
    #[napi]
    pub fn cancel_request(&mut self, id: i64, reason: Option<String>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason.as_deref())
    }

    /// Tells the client a URL-mode elicitation finished.
    #[napi]
    pub fn elicitation_complete(&mut self, elicitation_id: String) -> napi::Result<()> {
        self.inner.elicitation_complete(&elicitation_id).map_err(|e| rpc_err(&e))
    }

    /// A list changed ("tools", "resources", "resource_templates", "prompts").
    #[napi]
    pub fn list_changed(&mut self, kind: String) -> napi::Result<()> {
        let kind: ListKind = kind.parse().map_err(napi::Error::from_reason)?;
        self.inner.registry_changed(&RegistryChange::ListChanged(kind));
        Ok(())
    }

    /// A resource's contents changed.
    #[napi]
    pub fn resource_updated(&mut self, uri: String) {
        self.inner.registry_changed(&RegistryChange::ResourceUpdated(uri));
    }

    /// Milliseconds until `handleTimeout` is due, or null.
    #[napi]
    pub fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64() * 1000.0)
    }

    /// Expires timed-out requests.
    #[napi]
    pub fn handle_timeout(&mut self) {
        self.inner.handle_timeout(Instant::now());
    }

    /// The client's input ended: requests to it fail; in-flight calls may still answer.
    #[napi]
    pub fn input_closed(&mut self) {
        self.inner.input_closed();
    }

    /// The connection is gone.
    #[napi]
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// "uninitialized", "initializing", "operating" or "closed".
    #[napi(getter)]
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The negotiated revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(|v| v.as_str().to_string())
    }

    /// JSON text of the client's `{name, version, ...}` (or null).
    #[napi(getter)]
    pub fn client_info(&self) -> Option<String> {
        self.inner.client_info().map(|i| serde_json::to_string(i).unwrap_or_default())
    }

    /// JSON text of the client's capabilities.
    #[napi(getter)]
    pub fn client_capabilities(&self) -> String {
        serde_json::to_string(self.inner.client_capabilities()).unwrap_or_default()
    }
}
