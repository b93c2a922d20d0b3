//! What crosses replicas: the records a server keeps beyond one request, behind traits with
//! in-memory implementations ([`tasks`]: the durable state of the Tasks extension;
//! [`sessions`]: legacy session records, resumable events and the bus of an HTTP server's
//! replicas; [`limits`]: rate limits' token buckets; [`responses`]: the response cache's
//! shared answers), and [`redis`], the implementation replicas share a Redis server through.

pub mod limits;
pub mod redis;
pub mod responses;
pub mod sessions;
pub mod tasks;

pub use sessions::{BusMessage, ClusterError, ClusterStore, MemoryHub, MemoryReplica, SessionRecord, Target};

/// A key for `subject` no longer than 200 bytes (a longer one is hashed).
pub(crate) fn short_key(subject: &str) -> std::borrow::Cow<'_, str> {
    if subject.len() <= 200 {
        return std::borrow::Cow::Borrowed(subject);
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(subject.as_bytes());
    let mut hex = String::from("h:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    std::borrow::Cow::Owned(hex)
}

/// The token buckets a URL names: `memory` (this process), or `redis://…` (shared by the
/// replicas on that server; connected on first use).
pub fn rates(url: &str) -> Result<std::sync::Arc<dyn limits::RateStore>, ClusterError> {
    if url == "memory" {
        return Ok(std::sync::Arc::new(limits::MemoryRates::new()));
    }
    if url.starts_with("redis://") || url.starts_with("redis+unix://") || url.starts_with("unix://") {
        return Ok(std::sync::Arc::new(redis::RedisRates::new(url)?));
    }
    Err(ClusterError(format!(
        "unsupported rate limit store {url:?}: give \"memory\" or a redis:// URL (redis://host:6379/0)"
    )))
}

/// Connects to the store a URL names: `redis://…` (see [`redis::RedisStore::connect`]).
pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn ClusterStore>, ClusterError> {
    if url.starts_with("redis://") || url.starts_with("redis+unix://") || url.starts_with("unix://") {
        let s: std::sync::Arc<dyn ClusterStore> = redis::RedisStore::connect(url).await?;
        return Ok(s);
    }
    Err(ClusterError(format!(
        "unsupported store {url:?}: give a redis:// URL (redis://host:6379/0), or leave the store unset to keep sessions in this process"
    )))
}
