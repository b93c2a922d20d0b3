//! HTTP serving for Python: the engine's HTTP service runs on a small tokio runtime (one
//! I/O thread, started on first use); calls reach the asyncio loop in batches.
//!
//! The I/O thread never takes the GIL. It queues each batch of session events and, when
//! the queue was empty, writes one byte to a socket the loop watches (`add_reader`): one
//! wake-up of the loop for everything ready at that moment. Handlers answer through
//! [`HttpSession`], which completes straight into the engine session from the loop's
//! thread.

use crate::bridge::{from_py, to_py};
use crate::errors::rpc_err;
use crate::server::{
    error_outcome, event_tuple, request_parts, result_outcome, server_config, text_outcome, tool_outcome, Registry,
};
use bytes::Bytes;
use http_body_util::BodyExt;
use hypermcp::engine::{Event, RequestKey};
use hypermcp::http::server::{serve_http, Dispatcher, HttpService, Session};
use hypermcp::http::HttpOptions;
use hypermcp::LoggingLevel;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The I/O runtime every HTTP server and client of the process shares.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    hypermcp::transport::io_runtime()
}

/// What the I/O thread hands the loop.
enum Item {
    Events(Arc<Session>, Vec<Event>),
    Closed(Arc<Session>),
    Head(u64, u16, Vec<(String, Vec<u8>)>),
    Chunk(u64, Bytes),
    End(u64),
    Stopped,
}

/// A queue the I/O thread fills and the loop drains, with the wake-up socket.
pub(crate) struct HostQueue {
    items: Mutex<Vec<Item>>,
    tx: UnixStream,
    rx: UnixStream,
}

impl HostQueue {
    fn new() -> std::io::Result<Arc<Self>> {
        let (tx, rx) = UnixStream::pair()?;
        tx.set_nonblocking(true)?;
        rx.set_nonblocking(true)?;
        Ok(Arc::new(HostQueue { items: Mutex::new(Vec::new()), tx, rx }))
    }

    fn push(&self, item: Item) {
        let first = {
            let mut q = self.items.lock().unwrap_or_else(|e| e.into_inner());
            q.push(item);
            q.len() == 1
        };
        if first {
            // A full socket buffer means a wake-up is already pending.
            let _ = (&self.tx).write(&[1]);
        }
    }

    fn take(&self) -> Vec<Item> {
        // One read: a wake-up writes one byte, and only while the queue was empty; a byte
        // left over (a rare second wake-up) just makes the loop look once more.
        let _ = (&self.rx).read(&mut [0u8; 256]);
        std::mem::take(&mut *self.items.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

struct PyDispatcher {
    queue: Arc<HostQueue>,
}

impl Dispatcher for PyDispatcher {
    fn events(&self, session: &Arc<Session>, mut events: Vec<Event>) {
        // The loop has nothing to do on "initialized": an idle session never wakes it.
        events.retain(|e| !matches!(e, Event::Initialized));
        if !events.is_empty() {
            self.queue.push(Item::Events(session.clone(), events));
        }
    }

    fn closed(&self, session: &Arc<Session>) {
        self.queue.push(Item::Closed(session.clone()));
    }
}

fn options_from(d: &serde_json::Value) -> PyResult<HttpOptions> {
    let mut o = HttpOptions::default();
    let Some(map) = d.as_object() else { return Ok(o) };
    let strings = |v: &serde_json::Value| -> PyResult<Vec<String>> {
        serde_json::from_value(v.clone()).map_err(|e| PyValueError::new_err(format!("expected a list of strings: {e}")))
    };
    let secs = |k: &str, v: &serde_json::Value| -> PyResult<Duration> {
        v.as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| PyValueError::new_err(format!("{k} must be a number of seconds")))
    };
    for (k, v) in map {
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "path" => o.path = v.as_str().unwrap_or("/mcp").to_string(),
            "stateless" => o.stateless = v.as_bool().unwrap_or(false),
            "json_response" => o.json_response = v.as_bool().unwrap_or(false),
            "allowed_hosts" => o.allowed_hosts = strings(v)?,
            "allowed_origins" => o.allowed_origins = strings(v)?,
            "max_body" => o.max_body = v.as_u64().unwrap_or(o.max_body as u64) as usize,
            "session_idle_timeout" => o.session_idle_timeout = secs(k, v)?,
            "max_sessions" => o.max_sessions = v.as_u64().unwrap_or(o.max_sessions as u64) as usize,
            "keep_alive" => o.keep_alive = Some(secs(k, v)?).filter(|d| !d.is_zero()),
            "retry" => o.retry = secs(k, v)?,
            "json_wait" => o.json_wait = secs(k, v)?,
            "legacy_sse" => o.legacy_sse = v.as_bool().unwrap_or(true),
            "sse_path" => o.sse_path = v.as_str().unwrap_or("/sse").to_string(),
            "messages_path" => o.messages_path = v.as_str().unwrap_or("/messages").to_string(),
            other => return Err(PyValueError::new_err(format!("unknown HTTP option {other:?}"))),
        }
    }
    Ok(o)
}

/// An HTTP server of one `Server`: the service, its queue to the loop, and the listener
/// task once started.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct HttpServer {
    service: Mutex<HttpService>,
    queue: Arc<HostQueue>,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    requests: Mutex<HashMap<u64, tokio::task::AbortHandle>>,
    next_request: std::sync::atomic::AtomicU64,
}

#[pymethods]
impl HttpServer {
    /// `config` as for `ServerSession`; `options`: a dict of `HttpOptions` fields
    /// (durations in seconds).
    #[new]
    fn new(config: &Bound<'_, PyAny>, registry: &Registry, options: &Bound<'_, PyAny>) -> PyResult<Self> {
        let cfg = server_config(config)?;
        let opts = options_from(&from_py(options)?)?;
        let queue = HostQueue::new().map_err(|e| PyOSError::new_err(e.to_string()))?;
        let dispatcher = Arc::new(PyDispatcher { queue: queue.clone() });
        let service = HttpService::with_dispatcher(Arc::new(cfg), registry.inner.clone(), dispatcher, opts);
        Ok(HttpServer {
            service: Mutex::new(service),
            queue,
            stop: Mutex::new(None),
            requests: Mutex::new(HashMap::new()),
            next_request: std::sync::atomic::AtomicU64::new(1),
        })
    }

    /// The file descriptor the loop watches for wake-ups.
    fn fileno(&self) -> i32 {
        self.queue.rx.as_raw_fd()
    }

    /// Binds `host:port` (0: any free port) and starts serving; returns the bound
    /// `(host, port)`. A `("stopped",)` item arrives once `stop` has finished.
    fn listen(&self, py: Python<'_>, host: &str, port: u16) -> PyResult<(String, u16)> {
        let mut slot = self.stop.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return Err(PyRuntimeError::new_err("the server is already listening"));
        }
        let rt = runtime();
        let mut service = self.service.lock().unwrap_or_else(|e| e.into_inner());
        let mut options = service.options().clone();
        let addr = format!("{host}:{port}");
        let listener = py
            .detach(|| rt.block_on(hypermcp::http::server::bind(addr.as_str(), &mut options)))
            .map_err(|e| PyOSError::new_err(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr().map_err(|e| PyOSError::new_err(e.to_string()))?;
        // The DNS-rebinding lists may have been adapted to the address.
        if options.allowed_hosts != service.options().allowed_hosts {
            *service = service.with_options(options);
        }
        let service = service.clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        *slot = Some(tx);
        let queue = self.queue.clone();
        rt.spawn(async move {
            let _ = serve_http(service, listener, async {
                let _ = rx.await;
            })
            .await;
            queue.push(Item::Stopped);
        });
        Ok((local.ip().to_string(), local.port()))
    }

    /// Stops accepting, lets calls in progress finish (10 s at most), closes every session.
    fn stop(&self) -> bool {
        match self.stop.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(tx) => tx.send(()).is_ok(),
            None => false,
        }
    }

    /// Everything queued for the loop, as tuples:
    /// `("events", session_key, HttpSession, [event tuples])`, `("closed", session_key)`,
    /// `("head", request, status, [(name, value)])`, `("chunk", request, bytes)`,
    /// `("end", request)`, `("stopped",)`.
    fn poll<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for item in self.queue.take() {
            let t = match item {
                Item::Events(session, events) => {
                    let list = PyList::empty(py);
                    for ev in events {
                        if let Some(t) = event_tuple(py, ev)? {
                            list.append(t)?;
                        }
                    }
                    let key = Arc::as_ptr(&session) as usize;
                    PyTuple::new(
                        py,
                        [
                            "events".into_pyobject(py)?.into_any(),
                            key.into_pyobject(py)?.into_any(),
                            Bound::new(py, HttpSession { inner: session })?.into_any(),
                            list.into_any(),
                        ],
                    )?
                }
                Item::Closed(session) => {
                    let key = Arc::as_ptr(&session) as usize;
                    PyTuple::new(py, ["closed".into_pyobject(py)?.into_any(), key.into_pyobject(py)?.into_any()])?
                }
                Item::Head(id, status, headers) => {
                    let hs = PyList::empty(py);
                    for (k, v) in headers {
                        hs.append((PyBytes::new(py, k.as_bytes()), PyBytes::new(py, &v)))?;
                    }
                    PyTuple::new(
                        py,
                        [
                            "head".into_pyobject(py)?.into_any(),
                            id.into_pyobject(py)?.into_any(),
                            status.into_pyobject(py)?.into_any(),
                            hs.into_any(),
                        ],
                    )?
                }
                Item::Chunk(id, data) => PyTuple::new(
                    py,
                    [
                        "chunk".into_pyobject(py)?.into_any(),
                        id.into_pyobject(py)?.into_any(),
                        PyBytes::new(py, &data).into_any(),
                    ],
                )?,
                Item::End(id) => {
                    self.requests.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                    PyTuple::new(py, ["end".into_pyobject(py)?.into_any(), id.into_pyobject(py)?.into_any()])?
                }
                Item::Stopped => PyTuple::new(py, ["stopped".into_pyobject(py)?.into_any()])?,
            };
            out.append(t)?;
        }
        Ok(out)
    }

    /// Serves one request that arrived through another HTTP stack (ASGI): returns a request
    /// id; the answer comes back as "head", "chunk"… and "end" items.
    fn handle(&self, method: &str, target: &str, headers: Vec<(Vec<u8>, Vec<u8>)>, body: Vec<u8>) -> PyResult<u64> {
        let mut req = http::Request::builder().method(method).uri(target);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let req = req
            .body(http_body_util::Full::new(Bytes::from(body)))
            .map_err(|e| PyValueError::new_err(format!("invalid request: {e}")))?;
        let id = self.next_request.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let service = self.service.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let queue = self.queue.clone();
        let task = runtime().spawn(async move {
            let resp = service.handle(req).await;
            let (parts, mut body) = resp.into_parts();
            let headers = parts.headers.iter().map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec())).collect();
            queue.push(Item::Head(id, parts.status.as_u16(), headers));
            while let Some(frame) = body.frame().await {
                if let Ok(Some(data)) = frame.map(|f| f.into_data().ok()) {
                    queue.push(Item::Chunk(id, data));
                }
            }
            queue.push(Item::End(id));
        });
        self.requests.lock().unwrap_or_else(|e| e.into_inner()).insert(id, task.abort_handle());
        Ok(id)
    }

    /// The client of a request served with `handle` went away: its response stops.
    fn cancel(&self, request: u64) {
        if let Some(t) = self.requests.lock().unwrap_or_else(|e| e.into_inner()).remove(&request) {
            t.abort();
        }
    }

    /// Closes every session now: their calls are cancelled, their streams end (the
    /// `("closed", key)` items follow).
    fn close_all(&self, py: Python<'_>) {
        let service = self.service.lock().unwrap_or_else(|e| e.into_inner()).clone();
        py.detach(|| service.close_all());
    }

    /// Open sessions.
    #[getter]
    fn session_count(&self) -> usize {
        self.service.lock().unwrap_or_else(|e| e.into_inner()).session_count()
    }
}

/// One HTTP session, with the methods of `ServerSession` that handlers use.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct HttpSession {
    inner: Arc<Session>,
}

#[pymethods]
impl HttpSession {
    fn complete_tool(&self, key: u64, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), tool_outcome(result)?);
        Ok(())
    }

    fn complete_tool_text(&self, key: u64, text: String, is_error: bool) {
        self.inner.complete(RequestKey(key), text_outcome(text, is_error));
    }

    fn complete_result(&self, key: u64, kind: &str, result: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), result_outcome(kind, result)?);
        Ok(())
    }

    #[pyo3(signature = (key, code, message, data=None))]
    fn complete_error(&self, key: u64, code: i32, message: String, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.inner.complete(RequestKey(key), error_outcome(code, message, data)?);
        Ok(())
    }

    #[pyo3(signature = (key, progress, total=None, message=None))]
    fn progress(
        &self,
        py: Python<'_>,
        key: u64,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> PyResult<bool> {
        self.inner.progress(RequestKey(key), progress, total, message).map_err(|e| rpc_err(py, &e))
    }

    #[pyo3(signature = (level, data, logger=None, related=None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<&str>, related: Option<u64>) -> PyResult<bool> {
        let lvl: LoggingLevel = level.parse().map_err(PyValueError::new_err)?;
        Ok(self.inner.log(lvl, logger, from_py(data)?, related.map(RequestKey)))
    }

    #[pyo3(signature = (method, params=None, timeout=None, related=None, progress=false))]
    fn request(
        &self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
        related: Option<u64>,
        progress: bool,
    ) -> PyResult<i64> {
        let (params, opts) = request_parts(params, timeout, related, progress)?;
        self.inner.request(method, params, &opts).map(|id| id as i64).map_err(|e| rpc_err(py, &e))
    }

    #[pyo3(signature = (id, reason=None))]
    fn cancel_request(&self, id: i64, reason: Option<&str>) -> bool {
        self.inner.cancel_request(id as u64, reason)
    }

    fn elicitation_complete(&self, py: Python<'_>, elicitation_id: &str) -> PyResult<()> {
        self.inner.elicitation_complete(elicitation_id).map_err(|e| rpc_err(py, &e))
    }

    /// Closes the SSE connection a call answers on (the client resumes it).
    fn close_stream(&self, key: u64) -> bool {
        self.inner.close_stream(RequestKey(key))
    }

    /// List changes reach HTTP sessions from the registry itself.
    fn list_changed(&self, _kind: &str) {}

    /// Resource updates reach HTTP sessions from the registry too
    /// (`Registry.notify_resource_updated`), including sessions that never woke the loop.
    fn resource_updated(&self, _uri: &str) {}

    /// Nothing to write: messages go out on the HTTP streams.
    fn take_output<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, b"")
    }

    fn has_output(&self) -> bool {
        false
    }

    /// Timers run on the I/O thread.
    fn next_timeout(&self) -> Option<f64> {
        None
    }

    fn handle_timeout(&self) {}

    fn input_closed(&self) {}

    fn close(&self) {
        self.inner.close();
    }

    /// Events are delivered by `HttpServer.poll`.
    fn poll_events<'py>(&self, py: Python<'py>) -> Bound<'py, PyList> {
        PyList::empty(py)
    }

    #[getter]
    fn session_id(&self) -> Option<String> {
        self.inner.id().map(str::to_string)
    }

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
