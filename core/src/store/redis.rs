//! [`RedisStore`]: the [`ClusterStore`] of replicas that share a Redis server.
//!
//! Keys (every one with a time-to-live, so nothing outlives the sessions it serves):
//! - `hypermcp:s:<session>`: the session's [`SessionRecord`] (JSON), expiring after the
//!   session idle timeout unless touched;
//! - `hypermcp:e:<session>:<stream>`: a list of the stream's last events (`<seq>:<data>`),
//!   and `hypermcp:es:<session>`, the set of its streams (so a DELETE forgets them all);
//! - `hypermcp:q:<session>`: messages for the session's GET stream that wait for the replica
//!   holding (or next opening) it;
//! - `hypermcp:c:<change>:<session>`: a claim, so that one replica tells a session of a
//!   change (a few minutes);
//! - `hypermcp:replicas`: a counter that numbers replicas as they start;
//! - `hypermcp:rl:<key>`: a rate limit's token bucket ([`RedisRates`]), until it would be
//!   full again;
//! - `hypermcp:v:<subject>`: the own visibility rules of a caller without a session (a
//!   token's subject, at 2026-07-28 or over stateless HTTP), 30 days after their last change.
//!
//! The bus is Redis pub/sub on two channels a replica: `hypermcp:bus:<n>` (its own) and
//! `hypermcp:bus:all`; never one per session. Commands go through the redis crate's
//! connection manager (it reconnects by itself); the subscriber reconnects with backoff.

use super::sessions::{BusMessage, ClusterError, ClusterStore, Envelope, Receiver, SessionRecord, Target};
use super::tasks::{StoreError, TaskPage, TaskPatch, TaskRecord, TaskStore};
use crate::catalogue::visibility::{Rules, VisibilityChange};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::sync::{Arc, RwLock};
use std::time::Duration;

const PREFIX: &str = "hypermcp";

/// How long a command may take before the request that needed it fails.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Replicas sharing a Redis server (see the module docs for what is kept where).
pub struct RedisStore {
    url: String,
    conn: ConnectionManager,
    number: u32,
    receiver: Arc<RwLock<Option<Receiver>>>,
    subscriber: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("url", &self.url).field("replica", &self.number).finish_non_exhaustive()
    }
}

impl Drop for RedisStore {
    fn drop(&mut self) {
        self.subscriber.abort();
    }
}

pub(super) fn err(e: redis::RedisError) -> ClusterError {
    ClusterError(e.to_string())
}

/// A failure the connection manager mends by reconnecting (the first command after Redis
/// came back fails so): worth one more try.
fn transient(e: &redis::RedisError) -> bool {
    e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout()
}

/// Runs `cmd`, once more after 100 ms if the connection was lost.
pub(super) async fn run<T: redis::FromRedisValue>(
    conn: &ConnectionManager,
    cmd: redis::Cmd,
) -> Result<T, ClusterError> {
    match cmd.query_async(&mut conn.clone()).await {
        Err(e) if transient(&e) => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cmd.query_async(&mut conn.clone()).await.map_err(err)
        }
        r => r.map_err(err),
    }
}

/// [`run`] for a pipeline.
async fn run_pipe<T: redis::FromRedisValue>(
    conn: &ConnectionManager,
    pipe: redis::Pipeline,
) -> Result<T, ClusterError> {
    match pipe.query_async(&mut conn.clone()).await {
        Err(e) if transient(&e) => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            pipe.query_async(&mut conn.clone()).await.map_err(err)
        }
        r => r.map_err(err),
    }
}

/// The URL without its password, for messages.
pub(super) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…@{}", &url[..s], &url[at + 1..]),
        _ => url.to_string(),
    }
}

impl RedisStore {
    /// Connects to `url` (`redis://[user:password@]host[:port][/db]`, or `rediss://` is not
    /// supported: use a TLS tunnel), numbers this replica and subscribes to its channels.
    /// Fails with a message naming the URL when Redis cannot be reached within 5 s.
    pub async fn connect(url: &str) -> Result<Arc<RedisStore>, ClusterError> {
        let shown = redact(url);
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            ClusterError(format!("cannot {what} Redis at {shown}: {e} (is redis-server running? check HYPERMCP_STORE / the store option)"))
        };
        let client = redis::Client::open(url).map_err(|e| fail("use", &e))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(2));
        let mut conn =
            tokio::time::timeout(Duration::from_secs(6), ConnectionManager::new_with_config(client.clone(), config))
                .await
                .map_err(|_| fail("reach", &"timed out after 5 s"))?
                .map_err(|e| fail("reach", &e))?;
        let n: u64 = redis::cmd("INCR")
            .arg(format!("{PREFIX}:replicas"))
            .query_async(&mut conn)
            .await
            .map_err(|e| fail("use", &e))?;
        // Numbers wrap at 2^20 (they prefix 32-bit request counters in ids below 2^53).
        let number = (n % (1 << 20)) as u32 + 1;
        let receiver: Arc<RwLock<Option<Receiver>>> = Arc::new(RwLock::new(None));
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let subscriber = tokio::spawn(subscribe(client, number, receiver.clone(), ready_tx));
        match tokio::time::timeout(Duration::from_secs(6), ready_rx).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => return Err(fail("subscribe to", &e)),
            _ => return Err(fail("subscribe to", &"timed out after 5 s")),
        }
        Ok(Arc::new(RedisStore { url: shown, conn, number, receiver, subscriber }))
    }
}

fn channel(to: Target) -> String {
    match to {
        Target::Replica(n) => format!("{PREFIX}:bus:{n}"),
        Target::All => format!("{PREFIX}:bus:all"),
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Wire {
    from: u32,
    m: BusMessage,
}

/// Reads this replica's channels for as long as the store lives, reconnecting with backoff
/// (from 100 ms to 5 s) when Redis goes away. The first subscription is reported on `ready`.
async fn subscribe(
    client: redis::Client,
    number: u32,
    receiver: Arc<RwLock<Option<Receiver>>>,
    ready: tokio::sync::oneshot::Sender<Result<(), String>>,
) {
    let mut ready = Some(ready);
    let mut delay = Duration::from_millis(100);
    loop {
        let attempt = async {
            let mut ps = client.get_async_pubsub().await?;
            ps.subscribe(channel(Target::Replica(number))).await?;
            ps.subscribe(channel(Target::All)).await?;
            Ok::<_, redis::RedisError>(ps)
        };
        match tokio::time::timeout(Duration::from_secs(5), attempt).await {
            Ok(Ok(ps)) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Ok(()));
                } else {
                    eprintln!("hypermcp: the session store's bus is back (replica {number})");
                }
                delay = Duration::from_millis(100);
                let mut messages = ps.into_on_message();
                while let Some(msg) = messages.next().await {
                    let Ok(w) = serde_json::from_slice::<Wire>(msg.get_payload_bytes()) else {
                        continue; // not ours: another program on the channel
                    };
                    if w.from == number {
                        continue;
                    }
                    let f = receiver.read().unwrap_or_else(|e| e.into_inner()).clone();
                    if let Some(f) = f {
                        f(Envelope { from: w.from, message: w.m });
                    }
                }
                eprintln!("hypermcp: lost the session store's bus (replica {number}); reconnecting");
            }
            Ok(Err(e)) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Err(e.to_string()));
                    return;
                }
            }
            Err(_) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Err("timed out".into()));
                    return;
                }
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}

fn ms(d: Duration) -> u64 {
    (d.as_millis() as u64).max(1)
}

impl ClusterStore for RedisStore {
    fn replica(&self) -> u32 {
        self.number
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn load(&self, session: &str) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>> {
        let key = format!("{PREFIX}:s:{session}");
        Box::pin(async move {
            let v: Option<Vec<u8>> = run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await?;
            match v {
                None => Ok(None),
                Some(b) => serde_json::from_slice(&b)
                    .map(Some)
                    .map_err(|e| ClusterError(format!("the record at {key} is not a session record: {e}"))),
            }
        })
    }

    fn save(
        &self,
        session: &str,
        old: Option<&SessionRecord>,
        record: &SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>> {
        let key = format!("{PREFIX}:s:{session}");
        let (old, record) = (old.cloned(), record.clone());
        Box::pin(async move {
            let Some(old) = old else {
                let body = serde_json::to_vec(&record).unwrap_or_default();
                run::<()>(&self.conn, redis::cmd("SET").arg(&key).arg(body).arg("PX").arg(ms(ttl)).to_owned()).await?;
                return Ok(Some(record));
            };
            // Merged into what the store holds, written only if nobody changed it meanwhile.
            for _ in 0..64 {
                let current: Option<Vec<u8>> = run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await?;
                let Some(current) = current else { return Ok(None) };
                let parsed: SessionRecord = serde_json::from_slice(&current)
                    .map_err(|e| ClusterError(format!("the record at {key} is not a session record: {e}")))?;
                let merged = record.merged_into(&old, &parsed);
                let body = serde_json::to_vec(&merged).unwrap_or_default();
                let set: i64 = run(
                    &self.conn,
                    redis::cmd("EVAL").arg(CAS_PX).arg(1).arg(&key).arg(current).arg(body).arg(ms(ttl)).to_owned(),
                )
                .await?;
                if set == 1 {
                    return Ok(Some(merged));
                }
            }
            Err(ClusterError(format!("the record at {key} kept changing: the change was not saved")))
        })
    }

    fn touch(&self, session: &str, ttl: Duration) -> BoxFuture<'_, Result<bool, ClusterError>> {
        let key = format!("{PREFIX}:s:{session}");
        let set = format!("{PREFIX}:es:{session}");
        Box::pin(async move {
            let pipe =
                redis::pipe().cmd("PEXPIRE").arg(&key).arg(ms(ttl)).cmd("PEXPIRE").arg(&set).arg(ms(ttl)).to_owned();
            let (alive, _): (bool, bool) = run_pipe(&self.conn, pipe).await?;
            Ok(alive)
        })
    }

    fn remove(&self, session: &str) -> BoxFuture<'_, Result<(), ClusterError>> {
        let key = format!("{PREFIX}:s:{session}");
        let set = format!("{PREFIX}:es:{session}");
        let session = session.to_string();
        Box::pin(async move {
            let streams: Vec<u64> = run(&self.conn, redis::cmd("SMEMBERS").arg(&set).to_owned()).await?;
            let mut del = redis::cmd("DEL");
            del.arg(&key).arg(&set).arg(format!("{PREFIX}:q:{session}"));
            for s in streams {
                del.arg(format!("{PREFIX}:e:{session}:{s}"));
            }
            run(&self.conn, del).await
        })
    }

    fn store_event(
        &self,
        session: &str,
        stream: u64,
        seq: u64,
        data: Bytes,
        keep: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>> {
        let key = format!("{PREFIX}:e:{session}:{stream}");
        let set = format!("{PREFIX}:es:{session}");
        let mut item = format!("{seq}:").into_bytes();
        item.extend_from_slice(&data);
        let keep = keep.max(1) as i64;
        Box::pin(async move {
            let pipe = redis::pipe()
                .atomic()
                .cmd("RPUSH")
                .arg(&key)
                .arg(item)
                .ignore()
                .cmd("LTRIM")
                .arg(&key)
                .arg(-keep)
                .arg(-1)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ms(ttl))
                .ignore()
                .cmd("SADD")
                .arg(&set)
                .arg(stream)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&set)
                .arg(ms(ttl))
                .ignore()
                .to_owned();
            run_pipe(&self.conn, pipe).await
        })
    }

    fn replay(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'_, Result<Option<super::sessions::Events>, ClusterError>> {
        let key = format!("{PREFIX}:e:{session}:{stream}");
        Box::pin(async move {
            let items: Vec<Vec<u8>> = run(&self.conn, redis::cmd("LRANGE").arg(&key).arg(0).arg(-1).to_owned()).await?;
            let events = items.into_iter().filter_map(|i| {
                let colon = i.iter().position(|b| *b == b':')?;
                let seq = std::str::from_utf8(&i[..colon]).ok()?.parse::<u64>().ok()?;
                Some((seq, Bytes::copy_from_slice(&i[colon + 1..])))
            });
            Ok(super::sessions::replay_from(events, after))
        })
    }

    fn queue(
        &self,
        session: &str,
        message: Bytes,
        cap: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>> {
        let key = format!("{PREFIX}:q:{session}");
        let cap = cap.max(1) as i64;
        Box::pin(async move {
            let pipe = redis::pipe()
                .atomic()
                .cmd("RPUSH")
                .arg(&key)
                .arg(message.as_ref())
                .ignore()
                .cmd("LTRIM")
                .arg(&key)
                .arg(-cap)
                .arg(-1)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ms(ttl))
                .ignore()
                .to_owned();
            run_pipe(&self.conn, pipe).await
        })
    }

    fn take_queued(&self, session: &str) -> BoxFuture<'_, Result<Vec<Bytes>, ClusterError>> {
        let key = format!("{PREFIX}:q:{session}");
        Box::pin(async move {
            let pipe =
                redis::pipe().atomic().cmd("LRANGE").arg(&key).arg(0).arg(-1).cmd("DEL").arg(&key).ignore().to_owned();
            let (items,): (Vec<Vec<u8>>,) = run_pipe(&self.conn, pipe).await?;
            Ok(items.into_iter().map(Bytes::from).collect())
        })
    }

    fn claim(&self, keys: Vec<String>, ttl: Duration) -> BoxFuture<'_, Result<Vec<bool>, ClusterError>> {
        Box::pin(async move {
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let mut pipe = redis::pipe();
            for k in &keys {
                pipe.cmd("SET").arg(format!("{PREFIX}:c:{k}")).arg(1).arg("NX").arg("PX").arg(ms(ttl));
            }
            let won: Vec<Option<String>> = run_pipe(&self.conn, pipe).await?;
            Ok(won.into_iter().map(|w| w.is_some()).collect())
        })
    }

    fn publish(&self, to: Target, message: &BusMessage) -> BoxFuture<'_, Result<(), ClusterError>> {
        let body = serde_json::to_vec(&Wire { from: self.number, m: message.clone() }).unwrap_or_default();
        Box::pin(async move {
            let heard: u64 = run(&self.conn, redis::cmd("PUBLISH").arg(channel(to)).arg(body).to_owned()).await?;
            if heard == 0 {
                if let Target::Replica(n) = to {
                    return Err(ClusterError(format!("replica {n} is gone")));
                }
            }
            Ok(())
        })
    }

    fn task_store(&self) -> Option<Arc<dyn TaskStore>> {
        Some(RedisStore::task_store(self))
    }

    fn set_receiver(&self, receiver: Receiver) {
        *self.receiver.write().unwrap_or_else(|e| e.into_inner()) = Some(receiver);
    }

    fn load_view(&self, subject: &str) -> BoxFuture<'_, Result<Rules, ClusterError>> {
        let key = format!("{PREFIX}:v:{}", super::short_key(subject));
        Box::pin(async move {
            let v: Option<Vec<u8>> = run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await?;
            v.map_or(Ok(Rules::new()), |b| parse_view(&key, &b))
        })
    }

    fn change_view(
        &self,
        subject: &str,
        change: &VisibilityChange,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(Rules, Rules), ClusterError>> {
        let key = format!("{PREFIX}:v:{}", super::short_key(subject));
        let change = change.clone();
        Box::pin(async move {
            // Applied to what the store holds, written only if nobody changed it meanwhile.
            for _ in 0..64 {
                let current: Option<Vec<u8>> = run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await?;
                let old = current.as_deref().map_or(Ok(Rules::new()), |b| parse_view(&key, b))?;
                let new = change.apply(&old).map_err(ClusterError)?;
                let body = if new.is_empty() { Vec::new() } else { serde_json::to_vec(&new).unwrap_or_default() };
                let cmd = redis::cmd("EVAL")
                    .arg(CAS_OR_DELETE)
                    .arg(1)
                    .arg(&key)
                    .arg(current.unwrap_or_default())
                    .arg(body)
                    .arg(ms(ttl))
                    .to_owned();
                if run::<i64>(&self.conn, cmd).await? == 1 {
                    return Ok((old, new));
                }
            }
            Err(ClusterError(format!("the rules at {key} kept changing: the change was not saved")))
        })
    }
}

fn parse_view(key: &str, body: &[u8]) -> Result<Rules, ClusterError> {
    serde_json::from_slice(body).map_err(|e| ClusterError(format!("the value at {key} is not visibility rules: {e}")))
}

/// Sets `KEYS[1]` to `ARGV[2]` for `ARGV[3]` ms, or deletes it when `ARGV[2]` is empty, if it
/// still holds `ARGV[1]` (empty: if it holds nothing).
const CAS_OR_DELETE: &str = "local cur = redis.call('GET', KEYS[1]) \
if (cur == false and ARGV[1] == '') or cur == ARGV[1] then \
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end \
return 1 end return 0";

/// The tasks of replicas sharing a Redis server ([`TaskStore`]): `hypermcp:t:<id>` holds a
/// task (JSON) until its time-to-live ends; `hypermcp:to:<owner>` orders an owner's tasks by
/// creation for `tasks/list` (entries of expired tasks are dropped as they are met, and the
/// index expires with its newest task). An update reads the task, applies the patch and
/// writes it back only if nobody changed it meanwhile (compare-and-set in one script), so
/// replicas never lose each other's changes.
pub struct RedisTaskStore {
    conn: ConnectionManager,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore").finish_non_exhaustive()
    }
}

fn task_key(id: &str) -> String {
    format!("{PREFIX}:t:{id}")
}

fn owner_key(owner: Option<&str>) -> String {
    format!("{PREFIX}:to:{}", owner.unwrap_or("-"))
}

fn backend(e: ClusterError) -> StoreError {
    StoreError::Backend(e.0)
}

/// Sets `KEYS[1]` to `ARGV[2]` for `ARGV[3]` ms if it still holds `ARGV[1]`.
const CAS_PX: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end";

/// Sets `KEYS[1]` to `ARGV[2]` (keeping its time-to-live) if it still holds `ARGV[1]`.
const CAS: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end";

impl RedisStore {
    /// The task store on the same Redis server (and connection).
    pub fn task_store(&self) -> Arc<RedisTaskStore> {
        Arc::new(RedisTaskStore { conn: self.conn.clone() })
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let body = serde_json::to_vec(&record).map_err(|e| StoreError::Backend(e.to_string()))?;
            let index = owner_key(record.owner.as_deref());
            let now = crate::util::unix_ms();
            let pipe = redis::pipe()
                .atomic()
                .cmd("SET")
                .arg(task_key(&record.id))
                .arg(body)
                .arg("PX")
                .arg(record.ttl_ms.max(1))
                .ignore()
                .cmd("ZADD")
                .arg(&index)
                .arg(record.created_ms)
                .arg(&record.id)
                .ignore()
                // Entries older than the longest time-to-live are gone for sure.
                .cmd("ZREMRANGEBYSCORE")
                .arg(&index)
                .arg("-inf")
                .arg(now.saturating_sub(record.ttl_ms) as f64 - 1.0)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&index)
                .arg(record.ttl_ms.max(1))
                .arg("GT")
                .ignore()
                .cmd("PEXPIRE")
                .arg(&index)
                .arg(record.ttl_ms.max(1))
                .arg("NX")
                .ignore()
                .to_owned();
            run_pipe::<()>(&self.conn, pipe).await.map_err(backend)
        })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        let key = task_key(id);
        Box::pin(async move {
            let v: Option<Vec<u8>> = run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await.map_err(backend)?;
            v.map(|b| serde_json::from_slice(&b).map_err(|e| StoreError::Backend(format!("the task at {key}: {e}"))))
                .transpose()
        })
    }

    fn update(&self, id: &str, patch: TaskPatch) -> BoxFuture<'_, Result<Option<(TaskRecord, bool)>, StoreError>> {
        let key = task_key(id);
        Box::pin(async move {
            // Compare-and-set, retried while other replicas change the task meanwhile.
            for _ in 0..64 {
                let old: Option<Vec<u8>> =
                    run(&self.conn, redis::cmd("GET").arg(&key).to_owned()).await.map_err(backend)?;
                let Some(old) = old else { return Ok(None) };
                let mut rec: TaskRecord =
                    serde_json::from_slice(&old).map_err(|e| StoreError::Backend(format!("the task at {key}: {e}")))?;
                let now = crate::util::unix_ms();
                if rec.expired(now) {
                    return Ok(None);
                }
                let changed = rec.apply(patch.clone(), now)?;
                if !changed {
                    return Ok(Some((rec, false)));
                }
                let new = serde_json::to_vec(&rec).map_err(|e| StoreError::Backend(e.to_string()))?;
                let set: i64 =
                    run(&self.conn, redis::cmd("EVAL").arg(CAS).arg(1).arg(&key).arg(old).arg(new).to_owned())
                        .await
                        .map_err(backend)?;
                if set == 1 {
                    return Ok(Some((rec, true)));
                }
            }
            Err(StoreError::Backend(format!("task {key} kept changing: the update was not applied")))
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        Box::pin(async move {
            let after = super::tasks::parse_cursor(cursor)?;
            let limit = limit.max(1);
            let index = owner_key(owner);
            let from = after.as_ref().map_or(0, |(ms, _)| *ms);
            let mut tasks: Vec<TaskRecord> = Vec::new();
            let mut offset = 0usize;
            let now = crate::util::unix_ms();
            // Pages of the index from the cursor's time on, skipping what the cursor passed
            // and tasks that expired, until the page (plus one, to know of a next) is full.
            loop {
                let batch = (limit + 1) * 2;
                let ids: Vec<(String, f64)> = run(
                    &self.conn,
                    redis::cmd("ZRANGE")
                        .arg(&index)
                        .arg(from)
                        .arg("+inf")
                        .arg("BYSCORE")
                        .arg("LIMIT")
                        .arg(offset)
                        .arg(batch)
                        .arg("WITHSCORES")
                        .to_owned(),
                )
                .await
                .map_err(backend)?;
                let got = ids.len();
                offset += got;
                let fresh: Vec<(String, u64)> = ids
                    .into_iter()
                    .map(|(id, ms)| (id, ms as u64))
                    .filter(|(id, ms)| after.as_ref().is_none_or(|(ams, aid)| (*ms, id) > (*ams, aid)))
                    .collect();
                if !fresh.is_empty() {
                    let mut mget = redis::cmd("MGET");
                    for (id, _) in &fresh {
                        mget.arg(task_key(id));
                    }
                    let found: Vec<Option<Vec<u8>>> = run(&self.conn, mget).await.map_err(backend)?;
                    let mut gone = Vec::new();
                    for ((id, _), body) in fresh.iter().zip(found) {
                        match body.and_then(|b| serde_json::from_slice::<TaskRecord>(&b).ok()) {
                            Some(t) if !t.expired(now) && t.owner.as_deref() == owner => tasks.push(t),
                            _ => gone.push(id.clone()),
                        }
                    }
                    if !gone.is_empty() {
                        let _ = run::<()>(&self.conn, redis::cmd("ZREM").arg(&index).arg(gone).to_owned()).await;
                    }
                }
                if tasks.len() > limit || got < batch {
                    break;
                }
            }
            let next = (tasks.len() > limit).then(|| super::tasks::cursor_after(&tasks[limit - 1]));
            tasks.truncate(limit);
            Ok(TaskPage { tasks, next })
        })
    }
}

/// Takes a token from bucket `KEYS[1]` (`ARGV`: rate a second, burst, now in ms): returns
/// -1 when the call may go on, else the milliseconds until a token comes back. The bucket
/// keeps its tokens and time in a hash that expires once it would be full again.
const TAKE_TOKEN: &str = r"
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'ms')
local tokens, last = tonumber(b[1]) or burst, tonumber(b[2]) or now
if now > last then
  tokens = math.min(burst, tokens + (now - last) * rate / 1000)
  last = now
end
local wait = -1
if tokens >= 1 then tokens = tokens - 1 else wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate)) end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ms', tostring(last))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return wait
";

/// Token buckets shared by the replicas of a Redis server ([`super::limits::RateStore`]):
/// one script a call, so replicas never lose each other's calls. Connects on first use, and
/// again when Redis comes back.
pub struct RedisRates {
    url: String,
    shown: String,
    conn: tokio::sync::OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for RedisRates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRates").field("url", &self.shown).finish_non_exhaustive()
    }
}

impl RedisRates {
    /// Buckets on the Redis server at `url` (`redis://[user:password@]host[:port][/db]`);
    /// fails at once only when the URL is not one. The connection is made on the first call.
    pub fn new(url: &str) -> Result<RedisRates, ClusterError> {
        redis::Client::open(url).map_err(|e| ClusterError(format!("cannot use Redis at {}: {e}", redact(url))))?;
        Ok(RedisRates { url: url.to_string(), shown: redact(url), conn: tokio::sync::OnceCell::new() })
    }

    async fn conn(&self) -> Result<&ConnectionManager, ClusterError> {
        self.conn
            .get_or_try_init(|| async {
                let client = redis::Client::open(self.url.as_str()).map_err(err)?;
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(2)))
                    .set_response_timeout(Some(RESPONSE_TIMEOUT))
                    .set_number_of_retries(1);
                ConnectionManager::new_with_config(client, config)
                    .await
                    .map_err(|e| ClusterError(format!("cannot reach Redis at {}: {e}", self.shown)))
            })
            .await
    }
}

impl super::limits::RateStore for RedisRates {
    fn take(
        &self,
        key: &str,
        bucket: super::limits::Bucket,
        now_ms: u64,
    ) -> BoxFuture<'_, Result<Option<u64>, ClusterError>> {
        let key = format!("{PREFIX}:rl:{key}");
        Box::pin(async move {
            let conn = self.conn().await?;
            let cmd = redis::cmd("EVAL")
                .arg(TAKE_TOKEN)
                .arg(1)
                .arg(&key)
                .arg(bucket.rate)
                .arg(bucket.burst)
                .arg(now_ms)
                .to_owned();
            let wait: i64 = run(conn, cmd).await?;
            Ok((wait >= 0).then_some(wait as u64))
        })
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn urls_are_shown_without_passwords() {
        assert_eq!(super::redact("redis://user:secret@db:6379/0"), "redis://…@db:6379/0");
        assert_eq!(super::redact("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }
}
