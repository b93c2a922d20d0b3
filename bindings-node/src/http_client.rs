//! The HTTP client transport for Node: the engine's Streamable HTTP (or legacy HTTP+SSE)
//! client runs on the I/O runtime as a newline-delimited byte stream; JS feeds what arrives
//! to its `ClientSession` and writes what the session queues.
//!
//! Bytes that arrive are appended to one buffer; JS is woken (one thread-safe call) only when
//! the buffer was empty, and takes everything at once. While the stream is open it keeps Node
//! alive, like a child process's pipes do for the stdio client.

use crate::http::runtime;
use hypermcp::http::client::{connect, HttpClientOptions, HttpTransport};
use napi::bindgen_prelude::{Buffer, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use serde_json::Value;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

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
    wake: Mutex<ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>>,
}

impl Shared {
    fn update(&self, f: impl FnOnce(&mut Inbox)) {
        let wake = {
            let mut i = lock(&self.inbox);
            let was_idle = i.data.is_empty() && i.end.is_none();
            let was_connected = i.connected;
            f(&mut i);
            was_idle || i.connected != was_connected
        };
        if wake {
            lock(&self.wake).call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

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
    shared: Arc<Shared>,
    out: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    /// Dropped by `close`: gives up connecting.
    abort: Mutex<Option<oneshot::Sender<()>>>,
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
        let shared = Arc::new(Shared { inbox: Mutex::new(Inbox::default()), wake: Mutex::new(wake) });
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
                        Ok(0) => return s2.update(|i| i.end = Some(None)),
                        Ok(n) => s2.update(|i| i.data.extend_from_slice(&buf[..n])),
                        Err(e) => return s2.update(|i| i.end = Some(Some(e.to_string()))),
                    }
                }
            };
            tokio::join!(write, read);
        });
        Ok(HttpClientStream {
            shared,
            out: Mutex::new(Some(out_tx)),
            abort: Mutex::new(Some(abort_tx)),
            alive: Mutex::new(true),
        })
    }

    /// Sends newline-terminated messages (each becomes a POST).
    #[napi]
    pub fn write(&self, data: Buffer) -> bool {
        match &*lock(&self.out) {
            Some(tx) => tx.send(data.to_vec()).is_ok(),
            None => false,
        }
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    #[napi]
    pub fn close(&self) {
        lock(&self.out).take();
        lock(&self.abort).take();
    }

    /// Everything received so far, and whether (and why) the stream ended. Once it ended,
    /// the stream no longer keeps Node alive.
    #[napi]
    #[allow(deprecated)]
    pub fn take(&self, env: Env) -> napi::Result<HttpClientChunk> {
        let (connected, data, end) = {
            let mut i = lock(self.inbox());
            (i.connected, std::mem::take(&mut i.data), i.end.clone())
        };
        if end.is_some() {
            let mut alive = lock(&self.alive);
            if *alive {
                *alive = false;
                // The stream no longer keeps Node alive; the function stays callable.
                lock(&self.shared.wake).unref(&env)?;
            }
        }
        Ok(HttpClientChunk { connected, data: data.into(), ended: end.is_some(), error: end.flatten() })
    }
}

impl HttpClientStream {
    fn inbox(&self) -> &Mutex<Inbox> {
        &self.shared.inbox
    }
}
