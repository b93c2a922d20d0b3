//! The client side: one `ClientSession` per connection, a thin handle on the engine.

use crate::bridge::{from_py, from_py_as, to_py};
use crate::errors::rpc_err;
use crate::server::{common_event, invocation_head};
use hypermcp::engine::{self, Event, Request, RequestKey, RequestOptions};
use hypermcp::{ClientCapabilities, Implementation, ProtocolVersion, RpcError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The client end of one connection.
#[pyclass(module = "hypermcp._core")]
pub struct ClientSession {
    inner: engine::ClientSession,
    out: Vec<u8>,
}

#[pymethods]
impl ClientSession {
    /// `name`/`version` of this client, its `capabilities` (dict), the `protocol_version` to
    /// ask for and the default `timeout` in seconds.
    #[new]
    #[pyo3(signature = (name, version, capabilities=None, protocol_version=None, timeout=None))]
    fn new(
        name: &str,
        version: &str,
        capabilities: Option<&Bound<'_, PyAny>>,
        protocol_version: Option<&str>,
        timeout: Option<f64>,
    ) -> PyResult<Self> {
        let mut cfg = engine::ClientConfig::new(Implementation::new(name, version));
        if let Some(c) = capabilities {
            if !c.is_none() {
                cfg.capabilities = from_py_as::<ClientCapabilities>(c, "client capabilities")?;
            }
        }
        if let Some(v) = protocol_version {
            cfg.protocol_version =
                v.parse::<ProtocolVersion>().map_err(|e| PyValueError::new_err(e.to_string())).and_then(|v| {
                    if ProtocolVersion::LEGACY.contains(&v) {
                        Ok(v)
                    } else {
                        Err(PyValueError::new_err(format!("protocol {v} is not served yet")))
                    }
                })?;
        }
        cfg.request_timeout = timeout.map(Duration::from_secs_f64);
        Ok(ClientSession { inner: engine::ClientSession::new(Arc::new(cfg)), out: Vec::new() })
    }

    /// Sends `initialize`; returns its request id.
    fn initialize(&mut self) -> i64 {
        self.inner.initialize(Instant::now()).0
    }

    fn feed(&mut self, data: &[u8]) {
        self.inner.feed(data, Instant::now());
    }

    fn handle_message(&mut self, data: &[u8]) {
        self.inner.handle_message(data, Instant::now());
    }

    /// Every pending event as a list of tuples: the common ones (see `ServerSession`) and
    /// `("sampling", key, id, token, meta, params)`, `("elicitation", key, id, token, meta,
    /// params)`, `("roots", key, id, token, meta)`.
    fn poll_events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        while let Some(ev) = self.inner.poll_event() {
            if let Some(t) = common_event(py, &ev)? {
                list.append(t)?;
                continue;
            }
            let Event::Invoke(inv) = ev else { continue };
            let [key, id, token, meta] = invocation_head(py, &inv)?;
            let tuple = match &inv.request {
                Request::CreateMessage(p) => PyTuple::new(
                    py,
                    [
                        "sampling".into_pyobject(py)?.into_any(),
                        key,
                        id,
                        token,
                        meta,
                        to_py(py, &serde_json::to_value(p).unwrap_or_default())?,
                    ],
                )?,
                Request::Elicit(p) => PyTuple::new(
                    py,
                    [
                        "elicitation".into_pyobject(py)?.into_any(),
                        key,
                        id,
                        token,
                        meta,
                        to_py(py, &serde_json::to_value(p).unwrap_or_default())?,
                    ],
                )?,
                Request::ListRoots => PyTuple::new(py, ["roots".into_pyobject(py)?.into_any(), key, id, token, meta])?,
                _ => continue,
            };
            list.append(tuple)?;
        }
        Ok(list)
    }

    fn take_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.out.clear();
        self.inner.take_output(&mut self.out);
        PyBytes::new(py, &self.out)
    }

    fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Sends a request (capability-checked); returns its id.
    #[pyo3(signature = (method, params=None, timeout=None, progress=false, reset_timeout_on_progress=false))]
    fn request(
        &mut self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
        progress: bool,
        reset_timeout_on_progress: bool,
    ) -> PyResult<i64> {
        let params = match params {
            Some(p) if !p.is_none() => Some(from_py(p)?),
            _ => None,
        };
        let opts = RequestOptions {
            timeout: timeout.map(Duration::from_secs_f64),
            progress,
            reset_timeout_on_progress,
            ..Default::default()
        };
        self.inner.request(method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(py, &e))
    }

    #[pyo3(signature = (method, params=None))]
    fn notify(&mut self, py: Python<'_>, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let params = match params {
            Some(p) if !p.is_none() => Some(from_py(p)?),
            _ => None,
        };
        self.inner.notify(method, params).map_err(|e| rpc_err(py, &e))
    }

    /// Answers a server request with a result dict.
    fn respond(&mut self, key: u64, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = from_py(result)?;
        self.inner.respond(RequestKey(key), Ok(v));
        Ok(())
    }

    /// Answers a server request with a JSON-RPC error.
    #[pyo3(signature = (key, code, message, data=None))]
    fn respond_error(&mut self, key: u64, code: i32, message: String, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let mut e = RpcError::new(code, message);
        if let Some(d) = data {
            if !d.is_none() {
                e.data = Some(from_py(d)?);
            }
        }
        self.inner.respond(RequestKey(key), Err(e));
        Ok(())
    }

    #[pyo3(signature = (id, reason=None))]
    fn cancel_request(&mut self, id: i64, reason: Option<&str>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason)
    }

    fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64())
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
        match self.inner.server() {
            Some(r) => to_py(py, &serde_json::to_value(r).unwrap_or_default()),
            None => Ok(py.None().into_bound(py)),
        }
    }

    #[getter]
    fn pending_requests(&self) -> usize {
        self.inner.pending_requests()
    }
}
