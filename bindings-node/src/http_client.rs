//! The HTTP client transport for Node: the engine's Streamable HTTP (or legacy HTTP+SSE)
//! client runs on the I/O runtime as a newline-delimited byte stream; JS feeds what arrives
//! to its `ClientSession` and writes what the session queues.
//!
//! Bytes that arrive are appended to one buffer; JS is woken (one thread-safe call) only when
//! the buffer was empty, and takes everything at once. While the stream is open it keeps Node
//! alive, like a child process's pipes do for the stdio client.

use crate::http::runtime;
use hypermcp::http::client::{HttpClientOptions, HttpTransport};
use hypermcp::http::host::HostStream;
use napi::bindgen_prelude::{Buffer, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use serde_json::Value;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

type Wake = Arc<Mutex<ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>>>;

/// What `take` returns.
#[napi(object)]
pub struct HttpClientChunk {
    /// The connection to the server is established.
    pub connected: bool,
    /// Bytes received since the last `take`.
    pub data: Buffer,
    /// The stream ended.
    pub ended: bool,
    /// Why, when it ended on an error.
    pub error: Option<String>,
}

fn options_from(text: &str) -> napi::Result<HttpClientOptions> {
    let v: Value = crate::bridge::parse(text, "HTTP client options")?;
    let mut opts = HttpClientOptions::default();
    let Some(map) = v.as_object() else { return Ok(opts) };
    let bad = |k: &str, what: &str| napi::Error::new(Status::InvalidArg, format!("HTTP client option {k}: {what}"));
    for (k, v) in map {
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "headers" => {
                let h: std::collections::BTreeMap<String, String> =
                    serde_json::from_value(v.clone()).map_err(|_| bad(k, "expected an object of strings"))?;
                opts.headers = h.into_iter().collect();
            }
            "transport" => {
                opts.transport = match v.as_str() {
                    Some("auto") => HttpTransport::Auto,
                    Some("http") | Some("streamable-http") => HttpTransport::Streamable,
                    Some("sse") => HttpTransport::Sse,
                    _ => return Err(bad(k, "expected 'auto', 'http' or 'sse'")),
                }
            }
            "connectTimeout" => {
                let ms =
                    v.as_f64().filter(|s| s.is_finite() && *s > 0.0).ok_or_else(|| bad(k, "expected milliseconds"))?;
                opts.connect_timeout = Duration::from_secs_f64(ms / 1000.0);
            }
            "legacyFallback" => opts.legacy_fallback = v.as_bool().ok_or_else(|| bad(k, "expected a boolean"))?,
            "openGetStream" => opts.open_get_stream = v.as_bool().ok_or_else(|| bad(k, "expected a boolean"))?,
            "maxMessage" => opts.max_message = v.as_u64().ok_or_else(|| bad(k, "expected a byte count"))? as usize,
            other => return Err(bad(other, "unknown option")),
        }
    }
    Ok(opts)
}

/// One HTTP connection to an MCP server, as a byte stream JS drives.
#[napi]
pub struct HttpClientStream {
    stream: HostStream,
    wake: Wake,
    /// The stream still keeps Node alive.
    alive: Mutex<bool>,
}

#[napi]
impl HttpClientStream {
    /// Starts connecting to `url`; `options`: JSON text with `headers`, `transport`
    /// ("auto", "http", "sse"), `connectTimeout` (ms), `legacyFallback`, `openGetStream`,
    /// `maxMessage`. `wake` is called with no arguments when `take` has something.
    #[napi(constructor)]
    #[allow(deprecated)] // refer/unref: the documented way to make a weak function strong
    pub fn new(
        env: Env,
        url: String,
        options: String,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>,
    ) -> napi::Result<Self> {
        let opts = options_from(&options)?;
        let mut wake = wake;
        wake.refer(&env)?;
        let wake: Wake = Arc::new(Mutex::new(wake));
        let w = wake.clone();
        let stream = HostStream::spawn(runtime().handle(), url, opts, move || {
            lock(&w).call((), ThreadsafeFunctionCallMode::NonBlocking);
        });
        Ok(HttpClientStream { stream, wake, alive: Mutex::new(true) })
    }

    /// Sends newline-terminated messages (each becomes a POST).
    #[napi]
    pub fn write(&self, data: Buffer) -> bool {
        self.stream.write(data.to_vec())
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    #[napi]
    pub fn close(&self) {
        self.stream.close();
    }

    /// Everything received so far, and whether (and why) the stream ended. Once it ended,
    /// the stream no longer keeps Node alive.
    #[napi]
    #[allow(deprecated)]
    pub fn take(&self, env: Env) -> napi::Result<HttpClientChunk> {
        let c = self.stream.take();
        if c.end.is_some() {
            let mut alive = lock(&self.alive);
            if *alive {
                *alive = false;
                // The stream no longer keeps Node alive; the function stays callable.
                lock(&self.wake).unref(&env)?;
            }
        }
        Ok(HttpClientChunk {
            connected: c.connected,
            data: c.data.into(),
            ended: c.end.is_some(),
            error: c.end.flatten(),
        })
    }
}
