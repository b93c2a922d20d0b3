//! The HTTP client transport for Python: the engine's Streamable HTTP (or legacy HTTP+SSE)
//! client runs on the I/O runtime as a newline-delimited byte stream; the asyncio loop
//! feeds what arrives to its `ClientSession` and writes what the session queues.
//!
//! Bytes that arrive are appended to one buffer; the loop is woken (one byte on a socket it
//! watches) only when the buffer was empty, and takes everything at once.

use crate::bridge::from_py;
use crate::http::runtime;
use hypermcp::http::client::{connect, HttpClientOptions, HttpTransport};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

#[derive(Default)]
struct Inbox {
    /// The connection to the server is established (set once).
    connected: bool,
    data: Vec<u8>,
    /// The stream ended: `Some(None)` cleanly, `Some(Some(why))` on an error.
    end: Option<Option<String>>,
}

struct Shared {
    inbox: Mutex<Inbox>,
    tx: UnixStream,
    rx: UnixStream,
}

impl Shared {
    fn update(&self, f: impl FnOnce(&mut Inbox)) {
        let wake = {
            let mut i = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
            let was_idle = i.data.is_empty() && i.end.is_none();
            let was_connected = i.connected;
            f(&mut i);
            was_idle || i.connected != was_connected
        };
        if wake {
            let _ = (&self.tx).write(&[1]);
        }
    }
}

fn options_from(headers: Vec<(String, String)>, o: &serde_json::Value) -> PyResult<HttpClientOptions> {
    let mut opts = HttpClientOptions { headers, ..Default::default() };
    let Some(map) = o.as_object() else { return Ok(opts) };
    for (k, v) in map {
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "transport" => {
                opts.transport = match v.as_str() {
                    Some("auto") => HttpTransport::Auto,
                    Some("streamable-http") | Some("http") => HttpTransport::Streamable,
                    Some("sse") => HttpTransport::Sse,
                    _ => return Err(PyValueError::new_err("transport must be 'auto', 'http' or 'sse'")),
                }
            }
            "connect_timeout" => {
                let s = v.as_f64().filter(|s| s.is_finite() && *s > 0.0);
                opts.connect_timeout =
                    Duration::from_secs_f64(s.ok_or_else(|| {
                        PyValueError::new_err("connect_timeout must be a positive number of seconds")
                    })?);
            }
            "legacy_fallback" => opts.legacy_fallback = v.as_bool().unwrap_or(true),
            "open_get_stream" => opts.open_get_stream = v.as_bool().unwrap_or(true),
            "max_message" => opts.max_message = v.as_u64().unwrap_or(opts.max_message as u64) as usize,
            other => return Err(PyValueError::new_err(format!("unknown HTTP client option {other:?}"))),
        }
    }
    Ok(opts)
}

/// One HTTP connection to an MCP server, as a byte stream the loop drives.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct HttpClientStream {
    shared: Arc<Shared>,
    out: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    /// Dropped by `close`: gives up connecting.
    abort: Mutex<Option<oneshot::Sender<()>>>,
}

#[pymethods]
impl HttpClientStream {
    /// Starts connecting to `url` with `headers` sent on every request; `options`: a dict
    /// with `transport` ("auto", "http", "sse"), `connect_timeout` (s), `legacy_fallback`,
    /// `open_get_stream`, `max_message`.
    #[new]
    fn new(url: String, headers: Vec<(String, String)>, options: &Bound<'_, PyAny>) -> PyResult<Self> {
        let opts = options_from(headers, &from_py(options)?)?;
        let (tx, rx) = UnixStream::pair().map_err(|e| PyValueError::new_err(e.to_string()))?;
        tx.set_nonblocking(true).map_err(|e| PyValueError::new_err(e.to_string()))?;
        rx.set_nonblocking(true).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let shared = Arc::new(Shared { inbox: Mutex::new(Inbox::default()), tx, rx });
        let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let (abort_tx, abort_rx) = oneshot::channel::<()>();
        let s = shared.clone();
        runtime().spawn(async move {
            let connected = tokio::select! {
                r = connect(&url, opts) => r,
                // Closed while connecting.
                _ = abort_rx => Err(hypermcp::Error::Message(format!("{url}: closed while connecting"))),
            };
            let (mut reader, mut writer) = match connected {
                Ok(pair) => pair,
                Err(e) => {
                    s.update(|i| i.end = Some(Some(e.to_string())));
                    return;
                }
            };
            s.update(|i| i.connected = true);
            let write = async move {
                let mut batch = Vec::new();
                while let Some(chunk) = out_rx.recv().await {
                    // Everything queued goes in one write; the flush hands every line to the
                    // transport (a write may leave lines buffered when its queue is full).
                    batch.clear();
                    batch.extend_from_slice(&chunk);
                    while let Ok(more) = out_rx.try_recv() {
                        batch.extend_from_slice(&more);
                    }
                    if writer.write_all(&batch).await.is_err() || writer.flush().await.is_err() {
                        break;
                    }
                }
                // The client closed: the session is ended (DELETE) and the reader finishes.
                let _ = writer.shutdown().await;
            };
            let s2 = s.clone();
            let read = async move {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match reader.read(&mut buf).await {
                        Ok(0) => {
                            s2.update(|i| i.end = Some(None));
                            return;
                        }
                        Ok(n) => s2.update(|i| i.data.extend_from_slice(&buf[..n])),
                        Err(e) => {
                            s2.update(|i| i.end = Some(Some(e.to_string())));
                            return;
                        }
                    }
                }
            };
            tokio::join!(write, read);
        });
        Ok(HttpClientStream { shared, out: Mutex::new(Some(out_tx)), abort: Mutex::new(Some(abort_tx)) })
    }

    /// The descriptor to watch for readability.
    fn fileno(&self) -> i32 {
        self.shared.rx.as_raw_fd()
    }

    /// Sends newline-terminated messages (each becomes a POST).
    fn write(&self, data: Vec<u8>) -> bool {
        match &*self.out.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(tx) => tx.send(data).is_ok(),
            None => false,
        }
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    fn close(&self) {
        self.out.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.abort.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Whether the connection is established (`connect` succeeded).
    #[getter]
    fn connected(&self) -> bool {
        self.shared.inbox.lock().unwrap_or_else(|e| e.into_inner()).connected
    }

    /// Everything received so far, and whether (and why) the stream ended:
    /// `(bytes, ended, error_or_None)`.
    fn take<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, bool, Option<String>) {
        let mut buf = [0u8; 256];
        while matches!((&self.shared.rx).read(&mut buf), Ok(n) if n > 0) {}
        let mut i = self.shared.inbox.lock().unwrap_or_else(|e| e.into_inner());
        let data = PyBytes::new(py, &i.data);
        i.data.clear();
        let (ended, error) = match &i.end {
            Some(e) => (true, e.clone()),
            None => (false, None),
        };
        (data, ended, error)
    }
}
