//! The server side: a shared `Registry` and one `ServerSession` per connection, handles on
//! the engine's catalogue and on a `HostSession` (a byte stream the loop owns, or an HTTP
//! session). Events come out as tuples; outcomes go back as Python objects.

use crate::bridge::WakeSocket;
use crate::bridge::{event_list, from_py, from_py_as, from_py_opt, output, to_py, to_py_as, UNIT};
use crate::errors::{definition_err, option_err, rpc_err, state_err};
use hypermcp::catalogue::visibility::{Component, Filter, VisibilityChange};
use hypermcp::catalogue::{self, ListKind, RegistryChange};
use hypermcp::engine::{InputAnswer, InputRequired, Outcome, RequestKey, RequestOptions};
use hypermcp::transport::host::{options, HostMiddleware, HostSession, HostTasks};
use hypermcp::{CallToolResult, LoggingLevel, Prompt, Resource, ResourceTemplate, RpcError, Tool};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::sync::Arc;

/// The names of lists, as the host spells them.
fn names(lists: Vec<ListKind>) -> Vec<&'static str> {
    lists.into_iter().map(ListKind::name).collect()
}

/// A visibility filter from a dict; what is wrong with it is a `DefinitionError`.
fn visibility_filter(py: Python<'_>, filter: &Bound<'_, PyAny>) -> PyResult<Filter> {
    serde_json::from_value(from_py(filter)?).map_err(|e| definition_err(py, format!("visibility filter: {e}")))
}

/// The catalogue of tools, resources, templates and prompts one server offers.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct Registry {
    pub(crate) inner: Arc<catalogue::Registry>,
}

#[pymethods]
impl Registry {
    #[new]
    fn new() -> Self {
        Registry { inner: Arc::new(catalogue::Registry::new()) }
    }

    /// A resource changed: every HTTP session serving this registry, whichever `HttpServer`
    /// holds it, tells its client if it subscribed. (Sessions the loop drives over a byte
    /// stream are told through their own `resource_updated`.)
    fn notify_resource_updated(&self, py: Python<'_>, uri: &str) {
        py.detach(|| self.inner.notify_resource_updated(uri));
    }

    /// Adds or replaces a tool (a dict of the MCP `Tool` shape).
    fn add_tool(&self, py: Python<'_>, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let tool: Tool = from_py_as(definition, "tool definition")?;
        self.inner.add_tool(tool).map_err(|e| definition_err(py, e))
    }

    fn remove_tool(&self, name: &str) -> bool {
        self.inner.remove_tool(name)
    }

    /// How tool `name` runs as a task: "optional", "required", "manual", or None (never).
    #[pyo3(signature = (name, mode))]
    fn set_task_mode(&self, name: &str, mode: Option<&str>) -> PyResult<()> {
        let mode = match mode {
            None => None,
            Some(m) => {
                Some(serde_json::from_value::<catalogue::TaskMode>(serde_json::Value::from(m)).map_err(|_| {
                    PyValueError::new_err(format!(
                        "task mode must be \"optional\", \"required\" or \"manual\", not {m:?}"
                    ))
                })?)
            }
        };
        self.inner.set_task_mode(name, mode);
        Ok(())
    }

    /// The scopes a token needs for a `kind` ("tool", "resource", "prompt") of entry `key`.
    fn set_required_scopes(&self, kind: &str, key: &str, scopes: Vec<String>) -> PyResult<()> {
        let target = catalogue::ScopeTarget::new(kind, key).map_err(pyo3::exceptions::PyValueError::new_err)?;
        self.inner.set_required_scopes(target, scopes);
        Ok(())
    }

    /// Sets the tags of a `kind` ("tool", "resource", "template", "prompt") of component
    /// `key`; returns the lists whose visible entries changed.
    fn set_tags(&self, kind: &str, key: &str, tags: Vec<String>) -> PyResult<Vec<&'static str>> {
        let kind: Component = kind.parse().map_err(PyValueError::new_err)?;
        Ok(names(self.inner.set_tags(kind, key, tags)))
    }

    /// Enables (for every caller) what `filter` matches ({names, tags, components,
    /// match_all}); `only`: the allow-list form. Returns the lists that changed.
    fn enable(&self, py: Python<'_>, filter: &Bound<'_, PyAny>, only: bool) -> PyResult<Vec<&'static str>> {
        let filter = visibility_filter(py, filter)?;
        self.inner.enable(filter, only).map(names).map_err(|e| definition_err(py, e))
    }

    /// Disables (for every caller) what `filter` matches; returns the lists that changed.
    fn disable(&self, py: Python<'_>, filter: &Bound<'_, PyAny>) -> PyResult<Vec<&'static str>> {
        let filter = visibility_filter(py, filter)?;
        self.inner.disable(filter).map(names).map_err(|e| definition_err(py, e))
    }

    /// Drops the server's visibility rules; returns the lists that changed.
    fn reset_visibility(&self) -> Vec<&'static str> {
        names(self.inner.reset_visibility())
    }

    fn add_resource(&self, py: Python<'_>, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let r: Resource = from_py_as(definition, "resource definition")?;
        self.inner.add_resource(r).map_err(|e| definition_err(py, e))
    }

    fn remove_resource(&self, uri: &str) -> bool {
        self.inner.remove_resource(uri)
    }

    fn add_template(&self, py: Python<'_>, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let t: ResourceTemplate = from_py_as(definition, "resource template definition")?;
        self.inner.add_template(t).map_err(|e| definition_err(py, e))
    }

    fn remove_template(&self, uri_template: &str) -> bool {
        self.inner.remove_template(uri_template)
    }

    fn add_prompt(&self, py: Python<'_>, definition: &Bound<'_, PyAny>) -> PyResult<()> {
        let p: Prompt = from_py_as(definition, "prompt definition")?;
        self.inner.add_prompt(p).map_err(|e| definition_err(py, e))
    }

    fn remove_prompt(&self, name: &str) -> bool {
        self.inner.remove_prompt(name)
    }

    /// Serves a request method of the server's own (its params checked against `schema`,
    /// when given); refuses a name the spec owns.
    #[pyo3(signature = (method, schema=None))]
    fn add_method(&self, py: Python<'_>, method: &str, schema: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let schema = from_py_opt(schema)?;
        self.inner.add_method(method, schema).map_err(|e| definition_err(py, e))
    }

    fn remove_method(&self, method: &str) -> bool {
        self.inner.remove_method(method)
    }

    /// Hands the lists named ("tools", "resources", "resource_templates", "prompts") to the
    /// middleware (the others are served from cached pages).
    fn set_list_hooks(&self, lists: Vec<String>) -> PyResult<()> {
        let kinds = lists.iter().map(|l| l.parse::<ListKind>()).collect::<Result<Vec<_>, _>>();
        self.inner.set_list_hooks(&kinds.map_err(PyValueError::new_err)?);
        Ok(())
    }

    fn set_page_size(&self, n: usize) {
        self.inner.set_page_size(n);
    }

    /// Serves the skills of directory `path` (each directory under it holding a `SKILL.md`),
    /// replacing those served; returns the URIs of the files that changed. Raises
    /// `DefinitionError` naming the file and the rule broken.
    fn set_skills_dir(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<Vec<String>> {
        let catalog =
            py.detach(|| hypermcp::transport::skills_dir::read_skills_dir(&path)).map_err(|e| definition_err(py, e))?;
        Ok(py.detach(|| self.inner.set_skills(Some(catalog))))
    }

    /// Serves skills made in code: `[(path relative to the skills root, bytes)]`; returns the
    /// URIs of the files that changed.
    fn set_skill_files(&self, py: Python<'_>, files: Vec<(String, Vec<u8>)>) -> PyResult<Vec<String>> {
        let catalog = catalogue::skills::SkillCatalog::from_files(files).map_err(|e| definition_err(py, e))?;
        Ok(py.detach(|| self.inner.set_skills(Some(catalog))))
    }

    /// Serves an app's view (MCP Apps): `meta` is its `_meta.ui` (`csp`, `permissions`,
    /// `domain`, `prefersBorder`). Raises `DefinitionError` for a URI that is not `ui://` or
    /// declarations that are not origins.
    #[pyo3(signature = (uri, html, meta=None, name=None, description=None))]
    fn add_app(
        &self,
        py: Python<'_>,
        uri: &str,
        html: String,
        meta: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        description: Option<String>,
    ) -> PyResult<()> {
        let meta: hypermcp::UiResourceMeta = match meta {
            Some(m) => from_py_as(m, "app meta")?,
            None => Default::default(),
        };
        self.inner.add_app(uri, html, meta, name, description).map_err(|e| definition_err(py, e))
    }

    /// Stops serving skills; returns the URIs of the files no longer served.
    fn clear_skills(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| self.inner.set_skills(None))
    }
}

/// Checks a `resources/read` result of `uri`, a file of the skill `entry` (a `skills/list`
/// entry), and returns the file's bytes; raises `SkillVerificationError` (`reason`: unlisted,
/// size, digest, frontmatter or invalid) when the content must not be used.
#[pyfunction]
pub fn verify_skill_read<'py>(
    py: Python<'py>,
    entry: &Bound<'py, PyAny>,
    uri: &str,
    result: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (entry, result) = (from_py(entry)?, from_py(result)?);
    match catalogue::skills::verify_read(&entry, uri, &result) {
        Ok(bytes) => Ok(PyBytes::new(py, &bytes)),
        Err(e) => Err(crate::errors::skill_err(py, &e)),
    }
}

/// An app's view out of a `resources/read` result of `uri` (MCP Apps): `{uri, html, meta,
/// csp, allow}`; raises `ValueError` for a URI that is not `ui://` or contents that are not
/// `text/html;profile=mcp-app`.
#[pyfunction]
#[pyo3(signature = (uri, result, listed=None))]
pub fn read_app<'py>(
    py: Python<'py>,
    uri: &str,
    result: &Bound<'py, PyAny>,
    listed: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let listed = match listed {
        Some(l) => Some(from_py(l)?),
        None => None,
    };
    let app = hypermcp::read_app(uri, &from_py(result)?, listed.as_ref()).map_err(PyValueError::new_err)?;
    let v = serde_json::json!({"uri": app.uri, "html": app.html, "meta": app.meta, "csp": app.csp, "allow": app.allow});
    to_py(py, &v)
}

/// Checks a skill entry before anything of it is read (see `verify_skill_read`).
#[pyfunction]
pub fn check_skill_entry(py: Python<'_>, entry: &Bound<'_, PyAny>) -> PyResult<()> {
    catalogue::skills::check_entry(&from_py(entry)?).map_err(|e| crate::errors::skill_err(py, &e))
}

/// The server end of one connection, wherever its bytes go.
#[pyclass(module = "hypermcp._core")]
pub struct ServerSession {
    inner: HostSession,
    out: Vec<u8>,
    wake: Option<WakeSocket>,
}

impl ServerSession {
    pub(crate) fn wrap(inner: HostSession) -> Self {
        ServerSession { inner, out: Vec::new(), wake: None }
    }
}

#[pymethods]
impl ServerSession {
    /// A session over a byte stream the loop owns. `config`: `{"name", "version", "title"?,
    /// "description"?, "website_url"?, "icons"?, "instructions"?, "tools"?, "resources"?,
    /// "prompts"?, "completions"?, "max_message_size"?, "request_timeout"? (s)}`.
    #[new]
    fn new(py: Python<'_>, config: &Bound<'_, PyAny>, registry: &Registry) -> PyResult<Self> {
        let cfg = options::server_config(from_py(config)?, UNIT).map_err(|e| option_err(py, e))?;
        Ok(Self::wrap(HostSession::new(Arc::new(cfg), registry.inner.clone())))
    }

    /// Lets the server's task runtime take what is its own in this session (calls that run
    /// as tasks, `tasks/*` requests); None: they are answered -32601.
    fn set_tasks(&mut self, tasks: Option<&TaskRuntime>) {
        self.inner.set_tasks(tasks.map(|t| t.inner.clone()));
    }

    /// Runs the server's built-in middleware around this session's calls.
    fn set_middleware(&mut self, middleware: Option<&BuiltinMiddleware>) {
        self.inner.set_middleware(middleware.map(|m| m.inner.clone()));
    }

    /// The descriptor the loop watches for what reaches this stream session from other
    /// threads (a `tasks/result` answered when its task ends, the changes of the tasks it
    /// created): when readable, call `clear_wake()` and poll the session. Made on the
    /// first call; None for an HTTP session or the task session.
    fn wake_fileno(&mut self) -> PyResult<Option<i32>> {
        if self.wake.is_none() {
            let (wake, signal) = WakeSocket::new()?;
            if !self.inner.set_waker(signal) {
                return Ok(None);
            }
            self.wake = Some(wake);
        }
        Ok(self.wake.as_ref().map(WakeSocket::fileno))
    }

    /// Clears the wake-up (before the loop polls the session).
    fn clear_wake(&self) {
        if let Some(w) = &self.wake {
            w.clear();
        }
    }

    /// Turns call `key` into a task (`ctx.start_task()`): the call is answered with the
    /// task; returns `(task_id, key)`, the handler's key on the task session from now on,
    /// or None when the call cannot become a task.
    fn start_task(&mut self, py: Python<'_>, key: u64) -> PyResult<Option<(String, u64)>> {
        match self.inner.start_task(RequestKey(key)) {
            Ok(r) => Ok(r.map(|(id, k)| (id, k.0))),
            Err(e) => Err(rpc_err(py, &e)),
        }
    }

    /// Feeds bytes read from the stream.
    fn feed(&mut self, data: &[u8]) -> PyResult<()> {
        self.inner.feed(data).map_err(state_err)
    }

    /// Handles one complete message (an in-memory message).
    fn handle_message(&mut self, data: &[u8]) -> PyResult<()> {
        self.inner.handle_message(data).map_err(state_err)
    }

    /// Every pending event as a list of tuples (their fields: `hypermcp._events`).
    fn poll_events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        event_list(py, || self.inner.poll_event())
    }

    /// Everything queued for the peer, newline-delimited (empty when nothing is, and always
    /// over HTTP, where the engine writes to the session's streams).
    fn take_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        output(py, &mut self.out, |out| self.inner.take_output(out))
    }

    /// Whether output is waiting.
    fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Answers a tool call with a `CallToolResult`-shaped dict.
    fn complete_tool(&mut self, key: u64, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), Outcome::Tool(from_py_as(result, "tool result")?));
        Ok(())
    }

    /// Answers a call whose handler raised unexpectedly (`kind`: tool, resource, prompt,
    /// completion, method, list; `name` what it names; `error` the message; `detail` the
    /// traceback): the engine says what the client reads (masked under
    /// `mask_error_details`).
    #[pyo3(signature = (key, kind, name, error, detail=None))]
    fn complete_failure(
        &mut self,
        key: u64,
        kind: &str,
        name: &str,
        error: &str,
        detail: Option<&str>,
    ) -> PyResult<()> {
        self.inner.complete_failure(RequestKey(key), kind, name, error, detail).map_err(PyValueError::new_err)
    }

    /// Answers a tool call with one text block (the common case, no dict built).
    fn complete_tool_text(&mut self, key: u64, text: String, is_error: bool) {
        let mut r = CallToolResult::text(text);
        if is_error {
            r.is_error = Some(true);
        }
        self.inner.complete(RequestKey(key), Outcome::Tool(r));
    }

    /// Answers a resource read, a prompt or a completion (`kind`: "resource", "prompt",
    /// "complete") with a dict of the result's shape.
    fn complete_result(&mut self, key: u64, kind: &str, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let outcome = match kind {
            "resource" => Outcome::Resource(from_py_as(result, "resource result")?),
            "prompt" => Outcome::Prompt(from_py_as(result, "prompt result")?),
            "complete" => Outcome::Completion(from_py_as(result, "completion result")?),
            "method" => Outcome::Json(from_py(result)?),
            other => return Err(PyValueError::new_err(format!("unknown result kind {other:?}"))),
        };
        self.inner.complete(RequestKey(key), outcome);
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
        let e = RpcError { code, message, data: from_py_opt(data)? };
        self.inner.complete(RequestKey(key), Outcome::Error(e));
        Ok(())
    }

    /// Answers a call whose handler is gone (`kind`: tool, resource or prompt) with the
    /// engine's error for an unknown name.
    fn complete_missing(&mut self, key: u64, kind: &str, name: &str) -> PyResult<()> {
        self.inner.complete_missing(RequestKey(key), kind, name).map_err(PyValueError::new_err)
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
        let opts = RequestOptions {
            timeout: timeout.and_then(|t| UNIT.duration(t)),
            related: related.map(RequestKey),
            progress,
            ..Default::default()
        };
        self.inner.request(method, from_py_opt(params)?, &opts).map_err(|e| rpc_err(py, &e))
    }

    /// Asks the client for input for the call `key`, in either era: `("sent", id)` (legacy:
    /// the answer arrives as a "response" event), `("answered", result)` (2026-07-28: the
    /// client already answered) or `("required", None)` (2026-07-28: stop the handler and
    /// `complete_input_required`). Raises McpError (-32021 when the client lacks the
    /// capability).
    #[pyo3(signature = (key, input_key, method, params=None, timeout=None))]
    fn request_input<'py>(
        &mut self,
        py: Python<'py>,
        key: u64,
        input_key: Option<&str>,
        method: &str,
        params: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
        let opts = RequestOptions { timeout: timeout.and_then(|t| UNIT.duration(t)), ..Default::default() };
        match self.inner.request_input(RequestKey(key), input_key, method, from_py_opt(params)?, &opts) {
            Ok(InputAnswer::Sent(id)) => Ok(("sent", id.0.into_pyobject(py)?.into_any())),
            Ok(InputAnswer::Answered(v)) => Ok(("answered", to_py(py, &v)?)),
            Ok(InputAnswer::Required) => Ok(("required", py.None().into_bound(py))),
            Err(e) => Err(rpc_err(py, &e)),
        }
    }

    /// Ends a 2026-07-28 call with `input_required`: what its handler asked and was not
    /// given, plus `requests` (`{key: {"method", "params"}}`) and `state` of its own (the
    /// low-level form; it comes back sealed on the retry).
    #[pyo3(signature = (key, requests=None, state=None))]
    fn complete_input_required(
        &mut self,
        key: u64,
        requests: Option<&Bound<'_, PyAny>>,
        state: Option<String>,
    ) -> PyResult<()> {
        let requests = match from_py_opt(requests)? {
            None | Some(serde_json::Value::Null) => serde_json::Map::new(),
            Some(serde_json::Value::Object(m)) => m,
            Some(_) => return Err(PyValueError::new_err("input requests must be a dict of {key: {method, params}}")),
        };
        self.inner.complete(RequestKey(key), Outcome::InputRequired(InputRequired { requests, state }));
        Ok(())
    }

    /// Stops waiting for a request sent with `request` and tells the client.
    #[pyo3(signature = (id, reason=None))]
    fn cancel_request(&mut self, id: i64, reason: Option<&str>) -> bool {
        self.inner.cancel_request(id, reason)
    }

    /// Answers a list that passed middleware with the entries to send (the engine pages them).
    fn complete_list(&mut self, key: u64, items: &Bound<'_, PyAny>) -> PyResult<()> {
        let items: Vec<serde_json::Value> = from_py_as(items, "list entries")?;
        self.inner.complete_list(RequestKey(key), items);
        Ok(())
    }

    /// Changes what this session's caller sees: `{"op": "enable" | "disable" | "reset",
    /// names?, tags?, components?, match_all?}`.
    fn change_visibility(&mut self, py: Python<'_>, change: &Bound<'_, PyAny>) -> PyResult<()> {
        let change: VisibilityChange =
            serde_json::from_value(from_py(change)?).map_err(|e| definition_err(py, format!("visibility: {e}")))?;
        self.inner.change_visibility(&change).map_err(|e| rpc_err(py, &e))
    }

    /// Tells the client a URL-mode elicitation finished.
    fn elicitation_complete(&mut self, py: Python<'_>, elicitation_id: &str) -> PyResult<()> {
        self.inner.elicitation_complete(elicitation_id).map_err(|e| rpc_err(py, &e))
    }

    /// Closes the HTTP SSE connection a call answers on (the client resumes it); False
    /// where there is none (stdio, JSON replies).
    fn close_stream(&mut self, key: u64) -> bool {
        self.inner.close_stream(RequestKey(key))
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
        self.inner.next_timeout().map(|d| UNIT.amount(d))
    }

    fn handle_timeout(&mut self) {
        self.inner.handle_timeout();
    }

    /// The client's input ended: requests to it fail, in-flight calls may still answer.
    fn input_closed(&mut self) {
        self.inner.input_closed();
    }

    /// The connection is gone: in-flight calls are cancelled.
    fn close(&mut self) {
        self.inner.close();
    }

    /// The `Mcp-Session-Id` of an HTTP session (None otherwise).
    #[getter]
    fn session_id(&self) -> Option<String> {
        self.inner.session_id()
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
        to_py_as(py, &self.inner.client_info())
    }

    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py_as(py, &self.inner.client_capabilities())
    }

    #[getter]
    fn log_level(&self) -> Option<&'static str> {
        self.inner.log_level().map(|l| l.as_str())
    }

    #[getter]
    fn in_flight(&self) -> usize {
        self.inner.in_flight()
    }
}

/// The task runtime of one `Server` (`io.modelcontextprotocol/tasks`): the tasks' states
/// (in memory), and the session their handlers run on ([`TaskRuntime::session`]), whose
/// events the loop takes when `fileno` is readable.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct TaskRuntime {
    pub(crate) inner: Arc<HostTasks>,
    wake: WakeSocket,
}

#[pymethods]
impl TaskRuntime {
    /// `options`: `{"ttl", "poll_interval", "max_tasks", "cancel_grace"}` (durations in
    /// seconds, each optional).
    #[new]
    fn new(py: Python<'_>, options: &Bound<'_, PyAny>, registry: &Registry) -> PyResult<Self> {
        let opts = options::task_options(from_py(options)?, UNIT).map_err(|e| option_err(py, e))?;
        let (wake, signal) = WakeSocket::new()?;
        Ok(TaskRuntime { inner: HostTasks::new(opts, registry.inner.clone(), signal), wake })
    }

    /// The session the tasks' handlers run on (one per loop that runs them).
    fn session(&self) -> ServerSession {
        ServerSession::wrap(self.inner.session())
    }

    /// The descriptor the loop watches: readable when the task session has events.
    fn fileno(&self) -> i32 {
        self.wake.fileno()
    }

    /// Clears the wake-up (before the loop polls the task session).
    fn clear(&self) {
        self.wake.clear();
    }

    /// Handlers running as tasks.
    #[getter]
    fn running(&self) -> usize {
        self.inner.running()
    }
}

/// The built-in middleware of one server (rate limiting, timing, logging): the engine runs it
/// around the calls of every session it is set on; Python never sees a call pass it.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct BuiltinMiddleware {
    pub(crate) inner: Arc<HostMiddleware>,
}

#[pymethods]
impl BuiltinMiddleware {
    /// The built-ins of the server of `registry` (None: only to check options).
    #[new]
    #[pyo3(signature = (registry=None))]
    fn new(registry: Option<&Registry>) -> Self {
        BuiltinMiddleware { inner: HostMiddleware::new(registry.map(|r| r.inner.clone())) }
    }

    /// Adds built-in `kind` (`rate_limiting`, `timing`, `logging`) with its options (camelCase
    /// keys); raises `OptionError` naming the option that is wrong.
    fn add(&self, py: Python<'_>, kind: &str, options: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.add(kind, &from_py(options)?).map_err(|e| option_err(py, e))
    }

    /// Calls being timed or logged now.
    fn running(&self) -> usize {
        self.inner.running()
    }
}
