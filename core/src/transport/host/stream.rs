//! [`HostStream`]: the HTTP client transport for a host loop that drives its own client
//! session. The transport runs on the I/O runtime; bytes go in with [`HostStream::write`]
//! and come out with [`HostStream::take`], and the host is woken once for everything that
//! arrived while it was not looking.

use super::options::{host_http_client_options, OptionError, TimeUnit};
use super::runtime::io_runtime;
use crate::auth::client::{AuthorizationHandler, AuthorizationRequest, AuthorizeMode};
use crate::auth::client::{StoredClient, StoredTokens, TokenStore};
use crate::transport::http::client::{connect, HttpClientOptions};
use futures_util::future::{BoxFuture, FutureExt};
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

/// A call into the host's own credential store (the `auth` option with `token_store: true`):
/// answer it with [`HostStream::answer_store`].
#[derive(Debug, Clone)]
pub struct HostStoreOp {
    /// The id to answer with.
    pub id: u64,
    /// `load_client`, `save_client`, `load_tokens` or `save_tokens`.
    pub op: &'static str,
    /// The authorization server's issuer.
    pub issuer: String,
    /// The resource (the tokens' operations).
    pub resource: Option<String>,
    /// What to save (`null` for `save_tokens`: forget them).
    pub value: Option<Value>,
}

/// What arrived since the last [`HostStream::take`].
#[derive(Debug, Default, Clone)]
pub struct HostChunk {
    /// Authorizations to complete (see [`HostAuthorization`]).
    pub authorizations: Vec<HostAuthorization>,
    /// Credential store calls to answer (see [`HostStoreOp`]).
    pub store_ops: Vec<HostStoreOp>,
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
            let was_idle =
                c.data.is_empty() && c.end.is_none() && c.authorizations.is_empty() && c.store_ops.is_empty();
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
    store: Arc<HostStore>,
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
        let (options, host_store) = host_http_client_options(options, unit)?;
        Ok(Self::build(url, options, host_store, wake))
    }

    /// [`HostStream::new`] with options already parsed.
    pub fn with_options(
        url: String,
        options: HttpClientOptions,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> HostStream {
        Self::build(url, options, false, wake)
    }

    fn build(
        url: String,
        mut options: HttpClientOptions,
        host_store: bool,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> HostStream {
        let inbox = Arc::new(Inbox { chunk: Mutex::new(HostChunk::default()), wake: Box::new(wake) });
        let authorizer = Arc::new(HostAuthorizer {
            inbox: inbox.clone(),
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
        });
        let store =
            Arc::new(HostStore { inbox: inbox.clone(), pending: Mutex::new(HashMap::new()), next: AtomicU64::new(1) });
        if let Some(auth) = options.auth.as_mut() {
            if auth.authorize == AuthorizeMode::Host && auth.handler.is_none() {
                auth.handler = Some(authorizer.clone());
            }
            if host_store && auth.store.is_none() {
                auth.store = Some(store.clone());
            }
        }
        let (out_tx, out) = mpsc::unbounded_channel::<Vec<u8>>();
        let (abort_tx, abort) = oneshot::channel::<()>();
        HostStream {
            inbox,
            authorizer,
            store,
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
            store_ops: std::mem::take(&mut c.store_ops),
            connected: c.connected,
            data: std::mem::take(&mut c.data),
            end: c.end.clone(),
        }
    }

    /// Answers a [`HostStoreOp`]: what was loaded (`null`: nothing) or `null` after a save, or
    /// why it failed. False for an unknown (or already answered) id.
    pub fn answer_store(&self, id: u64, outcome: Result<Value, String>) -> bool {
        match lock(&self.store.pending).remove(&id) {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
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

/// The credential store of `token_store: true`: each call goes to the host loop (woken
/// through the inbox), which answers with [`HostStream::answer_store`].
struct HostStore {
    inbox: Arc<Inbox>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    next: AtomicU64,
}

impl HostStore {
    /// Asks the host; `Err` if it failed or went away.
    async fn call(
        &self,
        op: &'static str,
        issuer: &str,
        resource: Option<&str>,
        value: Option<Value>,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let (issuer, resource) = (issuer.to_string(), resource.map(str::to_string));
        self.inbox.update(|c| c.store_ops.push(HostStoreOp { id, op, issuer, resource, value }));
        match rx.await {
            Ok(outcome) => outcome.map_err(|e| format!("the token store's {op} failed: {e}")),
            Err(_) => Err("the client closed before the token store answered".into()),
        }
    }

    /// A loaded value: `null` is nothing; what does not parse is reported and ignored.
    fn loaded<T: serde::de::DeserializeOwned>(op: &str, v: Result<Value, String>) -> Option<T> {
        match v {
            Ok(Value::Null) => None,
            Ok(v) => serde_json::from_value(v)
                .map_err(|e| eprintln!("hypermcp: the token store's {op} returned something unusable: {e}"))
                .ok(),
            Err(e) => {
                eprintln!("hypermcp: {e}");
                None
            }
        }
    }
}

impl TokenStore for HostStore {
    fn load_client<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Option<StoredClient>> {
        Box::pin(async move { Self::loaded("load_client", self.call("load_client", issuer, None, None).await) })
    }
    fn save_client<'a>(&'a self, issuer: &'a str, client: StoredClient) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let v = serde_json::to_value(&client).map_err(|e| e.to_string())?;
            self.call("save_client", issuer, None, Some(v)).await.map(|_| ())
        })
    }
    fn load_tokens<'a>(&'a self, issuer: &'a str, resource: &'a str) -> BoxFuture<'a, Option<StoredTokens>> {
        Box::pin(
            async move { Self::loaded("load_tokens", self.call("load_tokens", issuer, Some(resource), None).await) },
        )
    }
    fn save_tokens<'a>(
        &'a self,
        issuer: &'a str,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let v = serde_json::to_value(&tokens).map_err(|e| e.to_string())?;
            self.call("save_tokens", issuer, Some(resource), Some(v)).await.map(|_| ())
        })
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

/// At most this many bytes, ready at once, are told in one update.
const READY_BATCH: usize = 1 << 20;

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
        let mut data = Vec::new();
        loop {
            // What the reader has ready now is told with the bytes just read, in one update:
            // an end right behind the answers it failed is seen together with them (a caller
            // failed by those answers finds the stream ended, and waits for the next one).
            let mut end = match reader.read(&mut buf).await {
                Ok(0) => Some(None),
                Ok(n) => {
                    data.extend_from_slice(&buf[..n]);
                    None
                }
                Err(e) => Some(Some(e.to_string())),
            };
            while end.is_none() && data.len() < READY_BATCH {
                match reader.read(&mut buf).now_or_never() {
                    None => break,
                    Some(Ok(0)) => end = Some(None),
                    Some(Ok(n)) => data.extend_from_slice(&buf[..n]),
                    Some(Err(e)) => end = Some(Some(e.to_string())),
                }
            }
            let done = end.is_some();
            s2.update(|c| {
                c.data.extend_from_slice(&data);
                if let Some(end) = end {
                    c.end = Some(end);
                }
            });
            if done {
                return;
            }
            data.clear();
        }
    };
    tokio::join!(write, read);
}
