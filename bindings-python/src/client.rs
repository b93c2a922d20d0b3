//! The client side: one `ClientSession` per connection, a thin handle on the engine.

use crate::bridge::{event_list, from_py, from_py_opt, output, to_py_as, UNIT};
use crate::errors::{option_err, rpc_err};
use hypermcp::engine::{self, RequestKey, RequestOptions};
use hypermcp::transport::host::options::ClientSettings;
use hypermcp::RpcError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::sync::Arc;
use std::time::Instant;

/// The client end of one connection.
#[pyclass(module = "hypermcp._core")]
pub struct ClientSession {
    inner: engine::ClientSession,
    out: Vec<u8>,
}

#[pymethods]
impl ClientSession {
    /// `name`/`version` of this client, its `features` (dict: what it answers and the
    /// extensions it names, `engine::ClientFeatures`; its capabilities follow), the legacy
    /// `protocol_version` to ask for, the default `timeout` in seconds (None: no timeout),
    /// the `mode` (`auto`, the default; `modern`; `legacy`) and `http`: the connection is
    /// HTTP (the `server/discover` probe then waits as long as any request).
    #[new]
    #[pyo3(signature = (name, version, features=None, protocol_version=None, timeout=None, mode=None, log_level=None, ping_interval=None, http=false))]
    #[allow(clippy::too_many_arguments)] // the Python constructor's keyword arguments
    fn new(
        py: Python<'_>,
        name: String,
        version: String,
        features: Option<&Bound<'_, PyAny>>,
        protocol_version: Option<String>,
        timeout: Option<f64>,
        mode: Option<String>,
        log_level: Option<String>,
        ping_interval: Option<f64>,
        http: bool,
    ) -> PyResult<Self> {
        let settings = ClientSettings {
            name,
            version,
            features: from_py_opt(features)?,
            protocol_version,
            timeout,
            mode,
            log_level,
            ping_interval,
            http,
        };
        let cfg = settings.into_config(UNIT).map_err(|e| option_err(py, e))?;
        Ok(ClientSession { inner: engine::ClientSession::new(Arc::new(cfg)), out: Vec::new() })
    }

    /// Whether the session speaks 2026-07-28 (the server answered `server/discover`).
    #[getter]
    fn modern(&self) -> bool {
        self.inner.is_modern()
    }

    /// Opens the session (`server/discover` first unless the mode is legacy); returns the
    /// id its failure is reported under.
    fn initialize(&mut self) -> i64 {
        self.inner.initialize(Instant::now()).0
    }

    fn feed(&mut self, data: &[u8]) {
        self.inner.feed(data, Instant::now());
    }

    fn handle_message(&mut self, data: &[u8]) {
        self.inner.handle_message(data, Instant::now());
    }

    /// Every pending event as a list of tuples (their fields: `hypermcp._events`).
    fn poll_events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        event_list(py, || self.inner.poll_event())
    }

    fn take_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        output(py, &mut self.out, |out| self.inner.take_output(out))
    }

    fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) for `filter` (a dict of the
    /// `SubscriptionFilter` shape); returns its id, which tags its notifications.
    fn listen(&mut self, py: Python<'_>, filter: &Bound<'_, PyAny>) -> PyResult<i64> {
        let filter: hypermcp::protocol::SubscriptionFilter = serde_json::from_value(from_py(filter)?)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("invalid listen filter: {e}")))?;
        self.inner.listen(&filter, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(py, &e))
    }

    /// Sends a request (capability-checked); returns its id.
    /// `follow_task`: a `tools/call` answered with a task is followed to its end.
    #[pyo3(signature = (method, params=None, timeout=None, progress=false, reset_timeout_on_progress=false, follow_task=false))]
    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
        progress: bool,
        reset_timeout_on_progress: bool,
        follow_task: bool,
    ) -> PyResult<i64> {
        let params = from_py_opt(params)?;
        let opts = RequestOptions {
            timeout: timeout.and_then(|t| UNIT.duration(t)),
            progress,
            reset_timeout_on_progress,
            follow_task,
            ..Default::default()
        };
        self.inner.request(method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(py, &e))
    }

    /// Follows task `task_id` (tasks extension) to its end; returns the id its answer comes
    /// under (`cancel_request` of it cancels the task).
    #[pyo3(signature = (task_id, timeout=None))]
    fn follow_task(&mut self, py: Python<'_>, task_id: &str, timeout: Option<f64>) -> PyResult<i64> {
        let timeout = timeout.and_then(|t| UNIT.duration(t));
        self.inner.follow_task(task_id, timeout, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(py, &e))
    }

    #[pyo3(signature = (method, params=None))]
    fn notify(&mut self, py: Python<'_>, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner.notify(method, from_py_opt(params)?).map_err(|e| rpc_err(py, &e))
    }

    /// Answers a server request with a result dict.
    fn respond(&mut self, key: u64, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = from_py(result)?;
        self.inner.respond(RequestKey(key), Ok(v), Instant::now());
        Ok(())
    }

    /// Answers a server request with a JSON-RPC error.
    #[pyo3(signature = (key, code, message, data=None))]
    fn respond_error(&mut self, key: u64, code: i32, message: String, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let e = RpcError { code, message, data: from_py_opt(data)? };
        self.inner.respond(RequestKey(key), Err(e), Instant::now());
        Ok(())
    }

    #[pyo3(signature = (id, reason=None))]
    fn cancel_request(&mut self, id: i64, reason: Option<&str>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason, Instant::now())
    }

    /// Seconds until `handle_timeout` is due, or None.
    fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| UNIT.amount(d.saturating_duration_since(Instant::now())))
    }

    fn handle_timeout(&mut self) {
        self.inner.handle_timeout(Instant::now());
    }

    fn close(&mut self) {
        self.inner.close();
    }

    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }

    #[getter]
    fn protocol_version(&self) -> Option<&'static str> {
        self.inner.protocol_version().map(|v| v.as_str())
    }

    /// The server's `initialize` result as a dict (None before the handshake).
    #[getter]
    fn server<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py_as(py, &self.inner.server())
    }

    #[getter]
    fn pending_requests(&self) -> usize {
        self.inner.pending_requests()
    }

    /// Whether the server declared `feature` (a capability, a dotted flag such as
    /// `resources.subscribe`, or an extension id).
    fn supports(&self, feature: &str) -> bool {
        self.inner.supports(feature)
    }
}

/// A client's reconnect policy (the engine's `Reconnect`): built from `True` or a dict of its
/// options, it says how long to wait before each try.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct ReconnectPolicy {
    inner: engine::Reconnect,
}

#[pymethods]
impl ReconnectPolicy {
    /// `True` (the defaults) or a dict of `initial_delay`, `max_delay` (s), `multiplier`,
    /// `jitter`, `max_attempts`, `wait`. Raises `OptionError` naming a bad option.
    #[new]
    fn new(py: Python<'_>, options: &Bound<'_, PyAny>) -> PyResult<Self> {
        match hypermcp::transport::host::options::reconnect(from_py(options)?, UNIT) {
            Ok(Some(inner)) => Ok(ReconnectPolicy { inner }),
            Ok(None) => Err(pyo3::exceptions::PyValueError::new_err("no reconnect policy (False or None)")),
            Err(e) => Err(option_err(py, e)),
        }
    }

    /// Seconds to wait before try `attempt` (1 for the first, jitter drawn), or None once
    /// the tries are spent.
    fn delay(&self, attempt: u32) -> Option<f64> {
        self.inner.delay(attempt).map(|d| UNIT.amount(d))
    }

    /// Whether requests made while reconnecting wait for it (else they fail at once).
    #[getter]
    fn wait(&self) -> bool {
        self.inner.wait
    }

    /// Tries before giving up (0: never).
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.inner.max_attempts
    }
}
