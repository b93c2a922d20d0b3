//! [`HostStream`]: the HTTP client transport for a host loop that drives its own client
//! session. The transport runs on the I/O runtime; bytes go in with [`HostStream::write`]
//! and come out with [`HostStream::take`], and the host is woken once for everything that
//! arrived while it was not looking.

use super::options::{http_client_options, OptionError, TimeUnit};
use super::runtime::io_runtime;
use crate::auth::client::{AuthorizationHandler, AuthorizationRequest, AuthorizeMode};
use crate::transport::http::client::{connect, HttpClientOptions};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// An authorization the host must have the user complete (the `auth` option with
/// `authorize: "host"`): answer it with [`HostStream::answer_authorization`].
#[derive(Debug, Clone)]
pub struct HostAuthorization {
    /// The id to answer with.
    pub id: u64,
    /// Where to send the user.
    pub url: String,
    /// The redirect URI the authorization server sends the user back to.
    pub redirect_uri: String,
}

/// What arrived since the last [`HostStream::take`].
#[derive(Debug, Default, Clone)]
pub struct HostChunk {
    /// Authorizations to complete (see [`HostAuthorization`]).
    pub authorizations: Vec<HostAuthorization>,
    /// The connection is established (`connect` succeeded).
    pub connected: bool,
    /// Newline-delimited messages from the server.
    pub data: Vec<u8>,
    /// The stream ended: `Some(None)` cleanly, `Some(Some(why))` on an error.
    pub end: Option<Option<String>>,
}

struct Inbox {
    chunk: Mutex<HostChunk>,
    wake: Box<dyn Fn() + Send + Sync>,
}

impl Inbox {
    /// Changes the inbox; wakes the host if it had nothing to take (or on connecting).
    fn update(&self, f: impl FnOnce(&mut HostChunk)) {
        let wake = {
            let mut c = lock(&self.chunk);
            let was_idle = c.data.is_empty() && c.end.is_none() && c.authorizations.is_empty();
            let was_connected = c.connected;
            f(&mut c);
            was_idle || c.connected != was_connected
        };
        if wake {
            (self.wake)();
        }
    }
}

/// The parts of a connection not started yet.
struct Unstarted {
    url: String,
    options: HttpClientOptions,
    out: mpsc::UnboundedReceiver<Vec<u8>>,
    abort: oneshot::Receiver<()>,
}

/// An HTTP client transport (Streamable HTTP, or the legacy HTTP+SSE transport) run for a
/// host loop. Dropping it (or [`HostStream::close`]) ends the session with `DELETE`.
pub struct HostStream {
    inbox: Arc<Inbox>,
    authorizer: Arc<HostAuthorizer>,
    out: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    abort: Mutex<Option<oneshot::Sender<()>>>,
    unstarted: Mutex<Option<Unstarted>>,
}

impl std::fmt::Debug for HostStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostStream").finish_non_exhaustive()
    }
}

impl HostStream {
    /// A connection to `url` with `options` (see [`HttpClientOptions`]; durations in `unit`),
    /// not started yet: options are checked now, the connection opens with
    /// [`HostStream::start`]. `wake` is called (from the I/O thread) when
    /// [`HostStream::take`] has something new.
    pub fn new(
        url: String,
        options: Value,
        unit: TimeUnit,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> Result<HostStream, OptionError> {
        Ok(Self::with_options(url, http_client_options(options, unit)?, wake))
    }

    /// [`HostStream::new`] with options already parsed.
    pub fn with_options(
        url: String,
        options: HttpClientOptions,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> HostStream {
        let inbox = Arc::new(Inbox { chunk: Mutex::new(HostChunk::default()), wake: Box::new(wake) });
        let authorizer = Arc::new(HostAuthorizer {
            inbox: inbox.clone(),
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
        });
        let mut options = options;
        if let Some(auth) = options.auth.as_mut() {
            if auth.authorize == AuthorizeMode::Host && auth.handler.is_none() {
                auth.handler = Some(authorizer.clone());
            }
        }
        let (out_tx, out) = mpsc::unbounded_channel::<Vec<u8>>();
        let (abort_tx, abort) = oneshot::channel::<()>();
        HostStream {
            inbox,
            authorizer,
            out: Mutex::new(Some(out_tx)),
            abort: Mutex::new(Some(abort_tx)),
            unstarted: Mutex::new(Some(Unstarted { url, options, out, abort })),
        }
    }

    /// Starts connecting, on the I/O runtime (once; later calls do nothing). What was
    /// written before goes out once connected.
    pub fn start(&self) {
        if let Some(u) = lock(&self.unstarted).take() {
            io_runtime().spawn(run(u, self.inbox.clone()));
        }
    }

    /// Sends newline-terminated messages (each becomes a POST). False once closed.
    pub fn write(&self, data: Vec<u8>) -> bool {
        match &*lock(&self.out) {
            Some(tx) => tx.send(data).is_ok(),
            None => false,
        }
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    pub fn close(&self) {
        lock(&self.out).take();
        lock(&self.abort).take();
    }

    /// Whether the connection is established.
    pub fn connected(&self) -> bool {
        lock(&self.inbox.chunk).connected
    }

    /// Everything received since the last call, and whether (and why) the stream ended.
    pub fn take(&self) -> HostChunk {
        let mut c = lock(&self.inbox.chunk);
        HostChunk {
            authorizations: std::mem::take(&mut c.authorizations),
            connected: c.connected,
            data: std::mem::take(&mut c.data),
            end: c.end.clone(),
        }
    }

    /// Answers an authorization: the URL the authorization server redirected to, or why the
    /// user could not authorize. False for an unknown (or already answered) id.
    pub fn answer_authorization(&self, id: u64, outcome: Result<String, String>) -> bool {
        match lock(&self.authorizer.pending).remove(&id) {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
        }
    }
}

/// The authorization handler of `authorize: "host"`: each authorization goes to the host
/// loop (woken through the inbox), which answers with [`HostStream::answer_authorization`].
struct HostAuthorizer {
    inbox: Arc<Inbox>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<String, String>>>>,
    next: AtomicU64,
}

impl AuthorizationHandler for HostAuthorizer {
    fn authorize(&self, request: AuthorizationRequest) -> BoxFuture<'_, Result<String, String>> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        self.inbox.update(|c| {
            c.authorizations.push(HostAuthorization { id, url: request.url, redirect_uri: request.redirect_uri })
        });
        Box::pin(async move {
            match rx.await {
                Ok(outcome) => outcome,
                Err(_) => Err("the client closed before the authorization was answered".into()),
            }
        })
    }
}

/// Connects, then moves bytes both ways until either side ends.
async fn run(u: Unstarted, s: Arc<Inbox>) {
    let Unstarted { url, options, out: mut out_rx, abort: abort_rx } = u;
    let connected = tokio::select! {
        r = connect(&url, options) => r,
        // Closed while connecting.
        _ = abort_rx => Err(crate::Error::Message(format!("{url}: closed while connecting"))),
    };
    let (mut reader, mut writer) = match connected {
        Ok(pair) => pair,
        Err(e) => return s.update(|c| c.end = Some(Some(e.to_string()))),
    };
    s.update(|c| c.connected = true);
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
        // The host closed: the session is ended (DELETE) and the reader finishes.
        let _ = writer.shutdown().await;
    };
    let s2 = s.clone();
    let read = async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) => return s2.update(|c| c.end = Some(None)),
                Ok(n) => s2.update(|c| c.data.extend_from_slice(&buf[..n])),
                Err(e) => return s2.update(|c| c.end = Some(Some(e.to_string()))),
            }
        }
    };
    tokio::join!(write, read);
}
