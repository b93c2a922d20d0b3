//! HTTP serving for Python: the engine's `HostHttpServer` on its I/O thread, handing calls
//! to the asyncio loop in batches. The I/O thread never takes the GIL: it queues work and,
//! when the queue was empty, writes one byte to a socket the loop watches; the loop then
//! takes everything queued with `poll`.

use crate::bridge::{event_tuple, from_py, WakeSocket, UNIT};
use crate::errors::{option_err, os_err};
use crate::server::{Registry, ServerSession};
use hypermcp::transport::host::options::http_options;
use hypermcp::transport::host::{HostHttpServer, HostItem};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

/// An HTTP server of one `Server`.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct HttpServer {
    host: HostHttpServer,
    wake: WakeSocket,
}

#[pymethods]
impl HttpServer {
    /// `config` as for `ServerSession`; `options`: a dict of HTTP options (durations in
    /// seconds; `None` values mean the default).
    #[new]
    fn new(
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
        registry: &Registry,
        options: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let (wake, signal) = WakeSocket::new()?;
        let host = HostHttpServer::new(from_py(config)?, registry.inner.clone(), from_py(options)?, UNIT, signal)
            .map_err(|e| option_err(py, e))?;
        Ok(HttpServer { host, wake })
    }

    /// Lets the server's task runtime take what is its own in every session.
    fn set_tasks(&self, tasks: Option<&crate::server::TaskRuntime>) {
        self.host.set_tasks(tasks.map(|t| t.inner.clone()));
    }

    /// Runs the server's built-in middleware around every session's calls.
    fn set_middleware(&self, middleware: Option<&crate::server::BuiltinMiddleware>) {
        self.host.set_middleware(middleware.map(|m| m.inner.clone()));
    }

    /// Raises `OptionError` for HTTP options the engine cannot take.
    #[staticmethod]
    fn check_options(py: Python<'_>, options: &Bound<'_, PyAny>) -> PyResult<()> {
        http_options(from_py(options)?, UNIT).map(drop).map_err(|e| option_err(py, e))
    }

    /// The Streamable HTTP endpoint's path.
    #[getter]
    fn path(&self) -> String {
        self.host.options().path
    }

    /// The legacy SSE endpoint's path (null when the legacy transport is not served).
    #[getter]
    fn sse_path(&self) -> Option<String> {
        self.host.options().legacy_paths().map(|(sse, _)| sse.to_string())
    }

    /// The legacy message endpoint's path (null when the legacy transport is not served).
    #[getter]
    fn messages_path(&self) -> Option<String> {
        self.host.options().legacy_paths().map(|(_, messages)| messages.to_string())
    }

    /// Whether requests for `path` are the server's to answer (others are for the app).
    fn serves(&self, path: String) -> bool {
        self.host.options().serves(&path)
    }

    /// The largest request body accepted, in bytes.
    #[getter]
    fn max_body(&self) -> usize {
        self.host.options().max_body
    }

    /// The file descriptor the loop watches for wake-ups.
    fn fileno(&self) -> i32 {
        self.wake.fileno()
    }

    /// Binds `host:port` (0: any free port) and starts serving; returns the bound
    /// `(host, port)`. A `("stopped",)` item arrives once `stop` has finished.
    fn listen(&self, py: Python<'_>, host: &str, port: u16) -> PyResult<(String, u16)> {
        let addr = py.detach(|| self.host.listen(host, port)).map_err(os_err)?;
        Ok((addr.ip().to_string(), addr.port()))
    }

    /// Stops accepting, lets calls in progress finish (10 s at most), closes every session.
    fn stop(&self) -> bool {
        self.host.stop()
    }

    /// Everything queued for the loop, as tuples: `("events", session, [event tuples])`,
    /// `("closed", session)`, `("head", request, status, [(name, value)])`,
    /// `("chunk", request, bytes)`, `("end", request)`, `("stopped",)`, `("verify", id, token)`.
    fn poll<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.wake.clear();
        let out = PyList::empty(py);
        let tag = |s: &str| PyString::intern(py, s).into_any();
        for item in self.host.take() {
            let t = match item {
                HostItem::Events { session, events } => {
                    let list = PyList::empty(py);
                    for ev in &events {
                        list.append(event_tuple(py, ev)?)?;
                    }
                    PyTuple::new(py, [tag("events"), session.into_pyobject(py)?.into_any(), list.into_any()])?
                }
                HostItem::Closed(session) => PyTuple::new(py, [tag("closed"), session.into_pyobject(py)?.into_any()])?,
                HostItem::Head { request, status, headers } => {
                    let hs = PyList::empty(py);
                    for (k, v) in headers {
                        hs.append((PyBytes::new(py, k.as_bytes()), PyBytes::new(py, &v)))?;
                    }
                    let (request, status) =
                        (request.into_pyobject(py)?.into_any(), status.into_pyobject(py)?.into_any());
                    PyTuple::new(py, [tag("head"), request, status, hs.into_any()])?
                }
                HostItem::Chunk { request, data } => PyTuple::new(
                    py,
                    [tag("chunk"), request.into_pyobject(py)?.into_any(), PyBytes::new(py, &data).into_any()],
                )?,
                HostItem::End(request) => PyTuple::new(py, [tag("end"), request.into_pyobject(py)?.into_any()])?,
                HostItem::Stopped => PyTuple::new(py, [tag("stopped")])?,
                HostItem::Verify { id, token } => PyTuple::new(
                    py,
                    [tag("verify"), id.into_pyobject(py)?.into_any(), PyString::new(py, &token).into_any()],
                )?,
            };
            out.append(t)?;
        }
        Ok(out)
    }

    /// The session an item names (None once it closed).
    fn session(&self, key: u64) -> Option<ServerSession> {
        self.host.session(key).map(ServerSession::wrap)
    }

    /// Serves one request that arrived through another HTTP stack (ASGI): returns a request
    /// id; the answer comes back as "head", "chunk"… and "end" items.
    fn handle(&self, method: &str, target: &str, headers: Vec<(Vec<u8>, Vec<u8>)>, body: Vec<u8>) -> PyResult<u64> {
        self.host.handle(method, target, headers, body).map_err(PyValueError::new_err)
    }

    /// The verdict on the token of a `("verify", id, token)` item: its claims (a dict), or
    /// `error`, why it is refused.
    #[pyo3(signature = (id, claims=None, error=None))]
    fn answer_verify(&self, id: u64, claims: Option<&Bound<'_, PyAny>>, error: Option<String>) -> PyResult<()> {
        let verdict = match (claims, error) {
            (Some(c), None) => Ok(crate::bridge::from_py_as::<serde_json::Value>(c, "token claims")?),
            (_, Some(e)) => Err(e),
            (None, None) => Err("the token was refused".to_string()),
        };
        self.host.answer_verify(id, verdict);
        Ok(())
    }

    /// The client of a request served with `handle` went away: its response stops.
    fn cancel(&self, request: u64) {
        self.host.cancel(request);
    }

    /// Closes every session now: their calls are cancelled, their streams end (the
    /// `("closed", key)` items follow).
    fn close_all(&self, py: Python<'_>) {
        py.detach(|| self.host.close_all());
    }

    /// Open sessions.
    #[getter]
    fn session_count(&self) -> usize {
        self.host.session_count()
    }
}
