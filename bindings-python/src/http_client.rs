//! The HTTP client transport for Python: the engine's Streamable HTTP (or legacy HTTP+SSE)
//! client runs on the I/O runtime as a byte stream ([`HostStream`]); the asyncio loop feeds
//! what arrives to its `ClientSession` and writes what the session queues. The loop is woken
//! by one byte on a socket it watches, once for everything that arrived meanwhile.

use crate::bridge::from_py;
use crate::http::runtime;
use hypermcp::http::client::{HttpClientOptions, HttpTransport};
use hypermcp::http::host::HostStream;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::time::Duration;

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
    stream: HostStream,
    rx: UnixStream,
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
        let stream = HostStream::spawn(runtime().handle(), url, opts, move || {
            // A full socket buffer means a wake-up is already pending.
            let _ = (&tx).write(&[1]);
        });
        Ok(HttpClientStream { stream, rx })
    }

    /// The descriptor to watch for readability.
    fn fileno(&self) -> i32 {
        self.rx.as_raw_fd()
    }

    /// Sends newline-terminated messages (each becomes a POST).
    fn write(&self, data: Vec<u8>) -> bool {
        self.stream.write(data)
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    fn close(&self) {
        self.stream.close();
    }

    /// Whether the connection is established (`connect` succeeded).
    #[getter]
    fn connected(&self) -> bool {
        self.stream.connected()
    }

    /// Everything received so far, and whether (and why) the stream ended:
    /// `(bytes, ended, error_or_None)`.
    fn take<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, bool, Option<String>) {
        // One read: a wake-up writes one byte, and only while the queue was empty; a byte
        // left over (a rare second wake-up) just makes the loop look once more.
        let _ = (&self.rx).read(&mut [0u8; 256]);
        let c = self.stream.take();
        (PyBytes::new(py, &c.data), c.end.is_some(), c.end.flatten())
    }
}
