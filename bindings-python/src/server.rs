//! The server side: a shared `Registry` and one `ServerSession` per connection, both thin
//! handles on the engine. Events come out as tuples, outcomes go back as Python objects.

use crate::bridge::{from_py, from_py_as, map_to_py, to_py};
use crate::errors::{definition_err, rpc_err};
use hypermcp::engine::{self, Event, Outcome, Request, RequestKey, RequestOptions};
use hypermcp::server::registry::{self, ListKind, RegistryChange};
use hypermcp::{CallToolResult, LoggingLevel, Prompt, Resource, ResourceTemplate, RpcError, Tool};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The catalogue of tools, resources, templates and prompts one server offers.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct Registry {
    pub(crate) inner: Arc<registry::Registry>,
}

#[pymethods]
impl Registry {
    #[new]
    fn new() -> Self {
        Registry { inner: Arc::new(registry::Registry::new()) }
    }

    /// A resource changed: every HTTP session serving this registry, whichever `HttpServer`
    /// holds it, tells its client if it subscribed. (Sessions a host drives itself, over
    /// stdio or in memory, are told through their own `resource_updated`.)
    fn notify_resource_updated(&self, py: Python<'_>, uri: &str) {
        py.detach(|| self.inner.notify_resource_updated(uri));
    }

    /// Adds or replaces a tool (a dict of the MCP `Tool` shape).
    fn add_tool(&self, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let tool: Tool = from_py_as(definition, "tool definition")?;
        self.inner.add_tool(tool).map_err(definition_err)
    }

    fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove_tool(name)
    }

    fn add_resource(&self, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let r: Resource = from_py_as(definition, "resource definition")?;
        self.inner.add_resource(r).map_err(definition_err)
    }

    fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove_resource(uri)
    }

    fn add_template(&self, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let t: ResourceTemplate = from_py_as(definition, "resource template definition")?;
        self.inner.add_template(t).map_err(definition_err)
    }

    fn remove_template(&self, uri_template: &str) -> bool {
        self.inner.remove_template(uri_template)
    }

    fn add_prompt(&self, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let p: Prompt = from_py_as(definition, "prompt definition")?;
        self.inner.add_prompt(p).map_err(definition_err)
    }

    fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove_prompt(name)
    }

    fn set_page_size(&self, n: usize) {
        self.inner.set_page_size(n);
    }
}

/// Event tuples shared by both sides: cancelled, response, progress, initialized,
/// notification. `None` for `Invoke`, which each side encodes itself.
pub(crate) fn common_event<'py>(py: Python<'py>, ev: &Event) -> PyResult<Option<Bound<'py, PyTuple>>> {
    Ok(Some(match ev {
        Event::Invoke(_) => return Ok(None),
        Event::Cancelled { key, reason } => PyTuple::new(
            py,
            [
                "cancelled".into_pyobject(py)?.into_any(),
                key.0.into_pyobject(py)?.into_any(),
                reason.as_deref().into_pyobject(py)?.into_any(),
            ],
        )?,
        Event::Response { id, result } => {
            let (ok, value) = match result {
                Ok(v) => (true, to_py(py, v)?),
                Err(e) => (false, rpc_err(py, e).into_value(py).into_bound(py).into_any()),
            };
            PyTuple::new(
                py,
                [
                    "response".into_pyobject(py)?.into_any(),
                    id.0.into_pyobject(py)?.into_any(),
                    pyo3::types::PyBool::new(py, ok).to_owned().into_any(),
                    value,
                ],
            )?
        }
        Event::Progress { id, progress, total, message } => PyTuple::new(
            py,
            [
                "progress".into_pyobject(py)?.into_any(),
                id.0.into_pyobject(py)?.into_any(),
                progress.into_pyobject(py)?.into_any(),
                total.into_pyobject(py)?.into_any(),
                message.as_deref().into_pyobject(py)?.into_any(),
            ],
        )?,
        Event::Initialized => PyTuple::new(py, ["initialized".into_pyobject(py)?.into_any()])?,
        Event::Notification { method, params } => PyTuple::new(
            py,
            [
                "notification".into_pyobject(py)?.into_any(),
                method.into_pyobject(py)?.into_any(),
                match params {
                    Some(p) => to_py(py, p)?,
                    None => py.None().into_bound(py),
                },
            ],
        )?,
    }))
}

/// Common invocation fields: (key, request id, progress token, meta).
pub(crate) fn invocation_head<'py>(py: Python<'py>, inv: &engine::Invocation) -> PyResult<[Bound<'py, PyAny>; 4]> {
    Ok([
        inv.key.0.into_pyobject(py)?.into_any(),
        to_py(py, &inv.id.to_value())?,
        match &inv.progress_token {
            Some(t) => to_py(py, &t.to_value())?,
            None => py.None().into_bound(py),
        },
        match &inv.meta {
            Some(m) => map_to_py(py, m)?.into_any(),
            None => py.None().into_bound(py),
        },
    ])
}

/// The engine's `ServerConfig` from the dict `Server._native_config()` builds.
pub(crate) fn server_config(config: &Bound<'_, PyAny>) -> PyResult<engine::ServerConfig> {
    let c = from_py(config)?;
    let s = |k: &str| c.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let b = |k: &str| c.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
    let mut info = hypermcp::Implementation::new(
        s("name").unwrap_or_else(|| "hypermcp-server".into()),
        s("version").unwrap_or_else(|| "0.0.0".into()),
    );
    info.title = s("title");
    info.description = s("description");
    info.website_url = s("website_url");
    if let Some(icons) = c.get("icons") {
        info.icons =
            serde_json::from_value(icons.clone()).map_err(|e| PyValueError::new_err(format!("invalid icons: {e}")))?;
    }
    let mut cfg = engine::ServerConfig::new(info);
    cfg.instructions = s("instructions");
    cfg.tools = b("tools");
    cfg.resources = b("resources");
    cfg.prompts = b("prompts");
    cfg.completions = b("completions");
    if let Some(n) = c.get("max_message_size").and_then(|v| v.as_u64()) {
        cfg.max_message_size = n as usize;
    }
    if let Some(t) = c.get("request_timeout") {
        cfg.request_timeout = t.as_f64().map(Duration::from_secs_f64);
    }
    Ok(cfg)
}

/// One server-side event as a tuple (see `ServerSession.poll_events`); `None` for events a
/// server never gets.
pub(crate) fn event_tuple<'py>(py: Python<'py>, ev: Event) -> PyResult<Option<Bound<'py, PyTuple>>> {
    if let Some(t) = common_event(py, &ev)? {
        return Ok(Some(t));
    }
    let Event::Invoke(inv) = ev else { return Ok(None) };
    let [key, id, token, meta] = invocation_head(py, &inv)?;
    let tuple = match &inv.request {
        Request::CallTool { name, arguments } => PyTuple::new(
            py,
            [
                "tool".into_pyobject(py)?.into_any(),
                key,
                id,
                token,
                meta,
                name.into_pyobject(py)?.into_any(),
                map_to_py(py, arguments)?.into_any(),
            ],
        )?,
        Request::ReadResource { uri, template, variables } => {
            let vars = pyo3::types::PyDict::new(py);
            for (k, v) in variables {
                vars.set_item(k, v)?;
            }
            PyTuple::new(
                py,
                [
                    "resource".into_pyobject(py)?.into_any(),
                    key,
                    id,
                    token,
                    meta,
                    uri.into_pyobject(py)?.into_any(),
                    template.as_ref().map(|t| t.template.uri_template.as_str()).into_pyobject(py)?.into_any(),
                    vars.into_any(),
                ],
            )?
        }
        Request::GetPrompt { name, arguments } => {
            let args = pyo3::types::PyDict::new(py);
            for (k, v) in arguments {
                args.set_item(k, v)?;
            }
            PyTuple::new(
                py,
                [
                    "prompt".into_pyobject(py)?.into_any(),
                    key,
                    id,
                    token,
                    meta,
                    name.into_pyobject(py)?.into_any(),
                    args.into_any(),
                ],
            )?
        }
        Request::Complete(p) => PyTuple::new(
            py,
            [
                "complete".into_pyobject(py)?.into_any(),
                key,
                id,
                token,
                meta,
                to_py(py, &serde_json::to_value(p).unwrap_or_default())?,
            ],
        )?,
        _ => return Ok(None),
    };
    Ok(Some(tuple))
}

/// A tool result dict as an outcome.
pub(crate) fn tool_outcome(result: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    Ok(Outcome::Tool(from_py_as(result, "tool result")?))
}

/// One text block as a tool outcome.
pub(crate) fn text_outcome(text: String, is_error: bool) -> Outcome {
    let mut r = CallToolResult::text(text);
    if is_error {
        r.is_error = Some(true);
    }
    Outcome::Tool(r)
}

/// A resource, prompt or completion result dict as an outcome.
pub(crate) fn result_outcome(kind: &str, result: &Bound<'_, PyAny>) -> PyResult<Outcome> {
    Ok(match kind {
        "resource" => Outcome::Resource(from_py_as(result, "resource result")?),
        "prompt" => Outcome::Prompt(from_py_as(result, "prompt result")?),
        "complete" => Outcome::Completion(from_py_as(result, "completion result")?),
        other => return Err(PyValueError::new_err(format!("unknown result kind {other:?}"))),
    })
}

/// A JSON-RPC error as an outcome.
pub(crate) fn error_outcome(code: i32, message: String, data: Option<&Bound<'_, PyAny>>) -> PyResult<Outcome> {
    let mut e = RpcError::new(code, message);
    if let Some(d) = data {
        if !d.is_none() {
            e.data = Some(from_py(d)?);
        }
    }
    Ok(Outcome::Error(e))
}

/// Params and options of a request to the client.
pub(crate) fn request_parts(
    params: Option<&Bound<'_, PyAny>>,
    timeout: Option<f64>,
    related: Option<u64>,
    progress: bool,
) -> PyResult<(Option<serde_json::Value>, RequestOptions)> {
    let params = match params {
        Some(p) if !p.is_none() => Some(from_py(p)?),
        _ => None,
    };
    let opts = RequestOptions {
        timeout: timeout.map(Duration::from_secs_f64),
        related: related.map(RequestKey),
        progress,
        ..Default::default()
    };
    Ok((params, opts))
}

/// The server end of one connection.
#[pyclass(module = "hypermcp._core")]
pub struct ServerSession {
    inner: engine::ServerSession,
    out: Vec<u8>,
}

#[pymethods]
impl ServerSession {
    /// `config`: `{"name", "version", "title"?, "instructions"?, "tools"?, "resources"?,
    /// "prompts"?, "completions"?, "page_size"?, "max_message_size"?, "request_timeout"?}`.
    #[new]
    fn new(config: &Bound<'_, PyAny>, registry: &Registry) -> PyResult<Self> {
        let cfg = server_config(config)?;
        Ok(ServerSession { inner: engine::ServerSession::new(Arc::new(cfg), registry.inner.clone()), out: Vec::new() })
    }

    /// Feeds bytes read from the stream.
    fn feed(&mut self, data: &[u8]) {
        self.inner.feed(data, Instant::now());
    }

    /// Handles one complete message (an HTTP body, an in-memory message).
    fn handle_message(&mut self, data: &[u8]) {
        self.inner.handle_message(data, Instant::now());
    }

    /// Every pending event as a list of tuples:
    /// `("tool", key, id, token, meta, name, arguments)`,
    /// `("resource", key, id, token, meta, uri, template_or_None, variables)`,
    /// `("prompt", key, id, token, meta, name, arguments)`,
    /// `("complete", key, id, token, meta, params)`,
    /// `("cancelled", key, reason)`, `("response", id, ok, value_or_exception)`,
    /// `("progress", id, progress, total, message)`, `("initialized",)`,
    /// `("notification", method, params)`.
    fn poll_events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        while let Some(ev) = self.inner.poll_event() {
            if let Some(t) = event_tuple(py, ev)? {
                list.append(t)?;
            }
        }
        Ok(list)
    }

    /// Everything queued for the peer, newline-delimited (empty when nothing is).
    fn take_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.out.clear();
        self.inner.take_output(&mut self.out);
        PyBytes::new(py, &self.out)
    }

    /// Whether output is waiting.
    fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Answers a tool call with a `CallToolResult`-shaped dict.
    fn complete_tool(&mut self, key: u64, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), tool_outcome(result)?);
        Ok(())
    }

    /// Answers a tool call with one text block (the common case, no dict built).
    fn complete_tool_text(&mut self, key: u64, text: String, is_error: bool) {
        self.inner.complete(RequestKey(key), text_outcome(text, is_error));
    }

    /// Answers a resource read, a prompt or a completion (`kind`: "resource", "prompt",
    /// "complete") with a dict of the result's shape.
    fn complete_result(&mut self, key: u64, kind: &str, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), result_outcome(kind, result)?);
        Ok(())
    }

    /// Answers with a JSON-RPC error.
    #[pyo3(signature = (key, code, message, data=None))]
    fn complete_error(
        &mut self,
        key: u64,
        code: i32,
        message: String,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.inner.complete(RequestKey(key), error_outcome(code, message, data)?);
        Ok(())
    }

    /// Sends progress; False when the client asked for none. Raises on a non-increasing value.
    #[pyo3(signature = (key, progress, total=None, message=None))]
    fn progress(
        &mut self,
        py: Python<'_>,
        key: u64,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> PyResult<bool> {
        self.inner.progress(RequestKey(key), progress, total, message).map_err(|e| rpc_err(py, &e))
    }

    /// Sends a log message if the client's level lets it through.
    #[pyo3(signature = (level, data, logger=None, related=None))]
    fn log(
        &mut self,
        level: &str,
        data: &Bound<'_, PyAny>,
        logger: Option<&str>,
        related: Option<u64>,
    ) -> PyResult<bool> {
        let lvl: LoggingLevel = level.parse().map_err(PyValueError::new_err)?;
        Ok(self.inner.log(lvl, logger, from_py(data)?, related.map(RequestKey)))
    }

    /// Sends a request to the client; returns its id (the answer arrives as a "response"
    /// event). Raises McpError when the client lacks the capability.
    #[pyo3(signature = (method, params=None, timeout=None, related=None, progress=false))]
    fn request(
        &mut self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
        related: Option<u64>,
        progress: bool,
    ) -> PyResult<i64> {
        let (params, opts) = request_parts(params, timeout, related, progress)?;
        self.inner.request(method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(py, &e))
    }

    /// Stops waiting for a request sent with `request` and tells the client.
    #[pyo3(signature = (id, reason=None))]
    fn cancel_request(&mut self, id: i64, reason: Option<&str>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason)
    }

    /// Tells the client a URL-mode elicitation finished.
    fn elicitation_complete(&mut self, py: Python<'_>, elicitation_id: &str) -> PyResult<()> {
        self.inner.elicitation_complete(elicitation_id).map_err(|e| rpc_err(py, &e))
    }

    /// A list of the registry changed ("tools", "resources", "resource_templates", "prompts").
    fn list_changed(&mut self, kind: &str) -> PyResult<()> {
        let kind: ListKind = kind.parse().map_err(PyValueError::new_err)?;
        self.inner.registry_changed(&RegistryChange::ListChanged(kind));
        Ok(())
    }

    /// A resource's contents changed (subscribed clients are told).
    fn resource_updated(&mut self, uri: &str) {
        self.inner.registry_changed(&RegistryChange::ResourceUpdated(uri.to_string()));
    }

    /// Seconds until `handle_timeout` is due, or None.
    fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64())
    }

    fn handle_timeout(&mut self) {
        self.inner.handle_timeout(Instant::now());
    }

    /// The client's input ended: requests to it fail, in-flight calls may still answer.
    fn input_closed(&mut self) {
        self.inner.input_closed();
    }

    /// The connection is gone: in-flight calls are cancelled.
    fn close(&mut self) {
        self.inner.close();
    }

    /// "uninitialized", "initializing", "operating" or "closed".
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }

    #[getter]
    fn protocol_version(&self) -> Option<&'static str> {
        self.inner.protocol_version().map(|v| v.as_str())
    }

    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.client_info() {
            Some(i) => to_py(py, &serde_json::to_value(i).unwrap_or_default()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &serde_json::to_value(self.inner.client_capabilities()).unwrap_or_default())
    }

    #[getter]
    fn log_level(&self) -> Option<String> {
        self.inner.log_level().map(|l| l.as_str().to_string())
    }

    #[getter]
    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }
}
