//! The HTTP client transport for Python: the engine's `HostStream` (Streamable HTTP, or the
//! legacy HTTP+SSE transport) on the I/O thread as a byte stream; the asyncio loop feeds
//! what arrives to its `ClientSession` and writes what the session queues. The loop is woken
//! by one byte on a socket it watches, once for everything that arrived meanwhile.

use crate::bridge::{from_py, to_py, WakeSocket, UNIT};
use crate::errors::option_err;
use hypermcp::transport::host::HostStream;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One HTTP connection to an MCP server, as a byte stream the loop drives.
#[pyclass(module = "hypermcp._core", frozen)]
pub struct HttpClientStream {
    stream: HostStream,
    wake: WakeSocket,
}

#[pymethods]
impl HttpClientStream {
    /// A connection to `url` (not yet started); `options`: a dict with `headers` (a dict or
    /// a list of pairs), `transport` ("auto", "http", "sse"), `connect_timeout` (s),
    /// `legacy_fallback`, `open_get_stream`, `max_message`. Raises `OptionError` at once.
    #[new]
    fn new(py: Python<'_>, url: String, options: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (wake, signal) = WakeSocket::new()?;
        let stream = HostStream::new(url, from_py(options)?, UNIT, signal).map_err(|e| option_err(py, e))?;
        Ok(HttpClientStream { stream, wake })
    }

    /// Starts connecting.
    fn start(&self) {
        self.stream.start();
    }

    /// The descriptor to watch for readability.
    fn fileno(&self) -> i32 {
        self.wake.fileno()
    }

    /// Sends newline-terminated messages (each becomes a POST).
    fn write(&self, data: Vec<u8>) -> bool {
        self.stream.write(data)
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    fn close(&self) {
        self.stream.close();
    }

    /// Whether the connection is established.
    #[getter]
    fn connected(&self) -> bool {
        self.stream.connected()
    }

    /// Everything received so far, whether (and why) the stream ended, the authorizations
    /// the user must complete and the calls into the app's token store: `(bytes, ended,
    /// error_or_None, [(id, url, redirect_uri)], [(id, op, issuer, resource, value)])`.
    #[allow(clippy::type_complexity)]
    fn take<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        bool,
        Option<String>,
        Vec<(u64, String, String)>,
        Vec<(u64, &'static str, String, Option<String>, Bound<'py, PyAny>)>,
    )> {
        self.wake.clear();
        let c = self.stream.take();
        let auth = c.authorizations.into_iter().map(|a| (a.id, a.url, a.redirect_uri)).collect();
        let mut ops = Vec::with_capacity(c.store_ops.len());
        for o in c.store_ops {
            let value = match &o.value {
                Some(v) => to_py(py, v)?,
                None => py.None().into_bound(py),
            };
            ops.push((o.id, o.op, o.issuer, o.resource, value));
        }
        Ok((PyBytes::new(py, &c.data), c.end.is_some(), c.end.flatten(), auth, ops))
    }

    /// Answers a token store call `id`: what was loaded (None: nothing; None after a save),
    /// or `error`, why it failed.
    #[pyo3(signature = (id, value=None, error=None))]
    fn answer_store(&self, id: u64, value: Option<&Bound<'_, PyAny>>, error: Option<String>) -> PyResult<bool> {
        let outcome = match (value, error) {
            (_, Some(e)) => Err(e),
            (Some(v), None) => Ok(from_py(v)?),
            (None, None) => Ok(serde_json::Value::Null),
        };
        Ok(self.stream.answer_store(id, outcome))
    }

    /// Answers authorization `id`: the URL the authorization server redirected to, or (with
    /// `redirect` None) the reason the user could not authorize.
    #[pyo3(signature = (id, redirect, error=None))]
    fn answer_authorization(&self, id: u64, redirect: Option<String>, error: Option<String>) -> bool {
        let outcome = match redirect {
            Some(r) => Ok(r),
            None => Err(error.unwrap_or_else(|| "the authorization was not completed".into())),
        };
        self.stream.answer_authorization(id, outcome)
    }
}
