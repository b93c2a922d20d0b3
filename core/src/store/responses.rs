//! Where the response cache keeps the answers replicas share ([`ResponseStore`]): Redis
//! ([`RedisResponses`]). The in-process cache needs no store (it is the
//! [`ResponseCaching`](crate::middleware::ResponseCaching) itself).
//!
//! Answers are forgotten by scope, never one by one: each entry is kept under the
//! generations of the scopes it belongs to (`t`: every tool result; `r`: every resource's
//! contents; `u:<uri>`: one resource's), and forgetting a scope moves its generation on, so
//! what was kept under the old one is never read again (and expires with its TTL). A
//! replica whose tool list changes, or whose resource is updated, forgets for all of them.
//!
//! Keys: `hypermcp:rc:<entry>:<generations>` (an answer, for its TTL) and
//! `hypermcp:rcg:<scope>` (a generation, 30 days after it last moved).

use super::sessions::ClusterError;
use futures_util::future::BoxFuture;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What [`ResponseStore::get`] finds: the generations looked up under, and the answer.
pub type Found = (String, Option<Vec<u8>>);

/// Answers kept where replicas share them.
pub trait ResponseStore: Send + Sync + 'static {
    /// The answer kept under `entry` in `scopes` (`None`: none), with the generations it
    /// was looked up under (what [`ResponseStore::put`] keeps an answer under, so that one
    /// computed while its scope was forgotten is never read).
    fn get(&self, entry: &str, scopes: &[String]) -> BoxFuture<'_, Result<Found, ClusterError>>;
    /// Keeps `value` under `entry` and `generations` for `ttl_ms`; done in the background,
    /// from any thread.
    fn put(&self, entry: &str, generations: &str, value: Vec<u8>, ttl_ms: u64);
    /// Forgets every answer of `scope`; done in the background, from any thread.
    fn forget(&self, scope: &str);
    /// What it is, for messages (`redis://host:6379/0`).
    fn describe(&self) -> String;
}

/// How long a generation is kept after it last moved (far longer than any answer's TTL).
const GENERATION_TTL_MS: u64 = 30 * 24 * 3600 * 1000;

/// Reads the generations of `KEYS` and the answer kept under them (`ARGV[1]`: the entry's
/// key): `{generations, answer or false}`.
const GET: &str = r"
local g = ''
for i = 1, #KEYS do g = g .. (redis.call('GET', KEYS[i]) or '0') .. '.' end
return {g, redis.call('GET', ARGV[1] .. ':' .. g)}
";

/// What the background writer does.
enum Write {
    Put { key: String, value: Vec<u8>, ttl_ms: u64 },
    Forget(String),
}

/// Answers shared by the replicas on a Redis server: looked up with one script a call (on
/// the caller's runtime), written and forgotten by a thread of its own (the cache's writes
/// come from any thread, a host language's included, and never wait for Redis). Connects on
/// first use, and again after a failure.
pub struct RedisResponses {
    url: String,
    shown: String,
    conn: tokio::sync::OnceCell<ConnectionManager>,
    writer: Mutex<Option<SyncSender<Write>>>,
}

impl std::fmt::Debug for RedisResponses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisResponses").field("url", &self.shown).finish_non_exhaustive()
    }
}

/// When a write last failed (ms since the epoch): failures are logged once in ten seconds.
static WRITE_FAILED_AT: AtomicU64 = AtomicU64::new(0);

fn failed(what: &str, e: &dyn std::fmt::Display) {
    let now = crate::util::unix_ms();
    let last = WRITE_FAILED_AT.load(Ordering::Relaxed);
    if now.saturating_sub(last) >= 10_000
        && WRITE_FAILED_AT.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    {
        tracing::warn!(target: "hypermcp::session", error = %e, "response cache store: {what} failed; answers are computed meanwhile");
    }
}

impl RedisResponses {
    /// Answers on the Redis server at `url`; fails at once only when the URL is not one.
    pub fn new(url: &str) -> Result<RedisResponses, ClusterError> {
        let shown = super::redis::redact(url);
        redis::Client::open(url).map_err(|e| ClusterError(format!("cannot use Redis at {shown}: {e}")))?;
        Ok(RedisResponses { url: url.to_string(), shown, conn: tokio::sync::OnceCell::new(), writer: Mutex::new(None) })
    }

    async fn conn(&self) -> Result<&ConnectionManager, ClusterError> {
        self.conn
            .get_or_try_init(|| async {
                let client = redis::Client::open(self.url.as_str()).map_err(super::redis::err)?;
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(2)))
                    .set_response_timeout(Some(Duration::from_secs(2)))
                    .set_number_of_retries(1);
                ConnectionManager::new_with_config(client, config)
                    .await
                    .map_err(|e| ClusterError(format!("cannot reach Redis at {}: {e}", self.shown)))
            })
            .await
    }

    /// Hands `w` to the writer thread (started on the first write). The queue is bounded
    /// (4,096): past it a write is dropped, which costs a recomputed answer, or, for a
    /// forget, answers kept until their TTL (logged).
    fn write(&self, w: Write) {
        let mut g = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let tx = g.get_or_insert_with(|| {
            let (tx, rx) = sync_channel::<Write>(4096);
            let url = self.url.clone();
            let spawned = std::thread::Builder::new().name("hypermcp-cache-writer".into()).spawn(move || {
                let mut conn: Option<redis::Connection> = None;
                while let Ok(w) = rx.recv() {
                    if conn.is_none() {
                        let made = redis::Client::open(url.as_str())
                            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(2)));
                        match made {
                            Ok(c) => {
                                let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
                                let _ = c.set_write_timeout(Some(Duration::from_secs(2)));
                                conn = Some(c);
                            }
                            Err(e) => {
                                failed("connecting", &e);
                                continue;
                            }
                        }
                    }
                    let Some(c) = conn.as_mut() else { continue };
                    let done = match &w {
                        Write::Put { key, value, ttl_ms } => {
                            redis::cmd("SET").arg(key).arg(value.as_slice()).arg("PX").arg(*ttl_ms).query::<()>(c)
                        }
                        Write::Forget(scope) => redis::pipe()
                            .cmd("INCR")
                            .arg(scope)
                            .ignore()
                            .cmd("PEXPIRE")
                            .arg(scope)
                            .arg(GENERATION_TTL_MS)
                            .ignore()
                            .query::<()>(c),
                    };
                    if let Err(e) = done {
                        failed(if matches!(w, Write::Put { .. }) { "keeping an answer" } else { "forgetting" }, &e);
                        conn = None;
                    }
                }
            });
            if let Err(e) = spawned {
                failed("starting its writer", &e);
            }
            tx
        });
        if tx.try_send(w).is_err() {
            failed("writing", &"its queue is full");
        }
    }
}

fn entry_key(entry: &str) -> String {
    format!("hypermcp:rc:{entry}")
}

fn scope_key(scope: &str) -> String {
    format!("hypermcp:rcg:{}", super::short_key(scope))
}

impl ResponseStore for RedisResponses {
    fn get(&self, entry: &str, scopes: &[String]) -> BoxFuture<'_, Result<Found, ClusterError>> {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(GET).arg(scopes.len());
        for s in scopes {
            cmd.arg(scope_key(s));
        }
        cmd.arg(entry_key(entry));
        Box::pin(async move {
            let conn = self.conn().await?;
            super::redis::run::<Found>(conn, cmd).await
        })
    }

    fn put(&self, entry: &str, generations: &str, value: Vec<u8>, ttl_ms: u64) {
        self.write(Write::Put { key: format!("{}:{generations}", entry_key(entry)), value, ttl_ms });
    }

    fn forget(&self, scope: &str) {
        self.write(Write::Forget(scope_key(scope)));
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }
}

/// The store a URL names: `redis://…`.
pub fn responses(url: &str) -> Result<Arc<dyn ResponseStore>, ClusterError> {
    if url.starts_with("redis://") || url.starts_with("redis+unix://") || url.starts_with("unix://") {
        return Ok(Arc::new(RedisResponses::new(url)?));
    }
    Err(ClusterError(format!(
        "unsupported response cache store {url:?}: give a redis:// URL (redis://host:6379/0), or none to keep answers in this process"
    )))
}
