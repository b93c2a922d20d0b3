//! Token buckets for rate limits ([`RateStore`]): in this process ([`MemoryRates`]), or
//! shared by replicas through Redis ([`super::redis::RedisRates`]), so that a client that
//! spreads its calls over replicas spends one bucket.
//!
//! A bucket holds at most `burst` tokens and gains `rate` a second; a call takes one. The
//! caller says what time it is (milliseconds since the epoch): the limiter's clock is
//! injectable, and replicas whose clocks disagree never refill a bucket backwards.

use super::sessions::ClusterError;
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;

/// A bucket's rule: `burst` tokens at most, `rate` more a second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    /// Tokens gained per second (> 0).
    pub rate: f64,
    /// Tokens held at most (>= 1): the calls a client may make at once.
    pub burst: f64,
}

impl Bucket {
    /// How long a bucket left with `tokens` takes to hold one again, in milliseconds.
    pub fn wait_ms(&self, tokens: f64) -> u64 {
        (((1.0 - tokens).max(0.0) * 1000.0 / self.rate).ceil() as u64).max(1)
    }

    /// How long an untouched bucket takes to fill: after that it need not be kept.
    pub fn idle_ms(&self) -> u64 {
        (self.burst * 1000.0 / self.rate).ceil() as u64 + 1000
    }

    /// One call on a bucket that held `tokens` at `last` (ms): `(tokens after, refused
    /// for how long)`.
    pub fn take(&self, tokens: f64, last: u64, now: u64) -> (f64, Option<u64>) {
        let gained = now.saturating_sub(last) as f64 * self.rate / 1000.0;
        let tokens = (tokens + gained).min(self.burst);
        if tokens >= 1.0 {
            (tokens - 1.0, None)
        } else {
            (tokens, Some(self.wait_ms(tokens)))
        }
    }
}

/// Where buckets are kept.
pub trait RateStore: Send + Sync + 'static {
    /// Takes a token from bucket `key` at `now_ms`: `Ok(None)` when the call may go on,
    /// `Ok(Some(ms))` when it is refused and a token comes back in `ms`.
    fn take(&self, key: &str, bucket: Bucket, now_ms: u64) -> BoxFuture<'_, Result<Option<u64>, ClusterError>>;

    /// What it is, for messages (`memory`, `redis://host:6379`).
    fn describe(&self) -> String;

    /// Whether [`RateStore::take`] is ready at once (no I/O).
    fn is_local(&self) -> bool {
        false
    }
}

/// Buckets kept at most by a [`MemoryRates`] (the full ones are dropped first, then the
/// longest untouched): a flood of new client identities cannot grow memory without bound.
pub const MAX_BUCKETS: usize = 100_000;

/// The buckets of this process.
#[derive(Debug, Default)]
pub struct MemoryRates {
    buckets: Mutex<HashMap<String, (f64, u64)>>,
}

impl MemoryRates {
    /// No bucket yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The buckets kept now.
    pub fn len(&self) -> usize {
        self.buckets.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn take_now(&self, key: &str, bucket: Bucket, now: u64) -> Option<u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(key) {
            let idle = bucket.idle_ms();
            buckets.retain(|_, (_, last)| now.saturating_sub(*last) < idle);
            if buckets.len() >= MAX_BUCKETS {
                // All busy: the oldest tenth goes (their clients start full again).
                let mut ages: Vec<u64> = buckets.values().map(|(_, last)| *last).collect();
                ages.sort_unstable();
                let cut = ages[ages.len() / 10];
                buckets.retain(|_, (_, last)| *last > cut);
            }
        }
        let (tokens, last) = buckets.get(key).copied().unwrap_or((bucket.burst, now));
        let (tokens, refused) = bucket.take(tokens, last, now);
        buckets.insert(key.to_string(), (tokens, now.max(last)));
        refused
    }
}

impl RateStore for MemoryRates {
    fn take(&self, key: &str, bucket: Bucket, now_ms: u64) -> BoxFuture<'_, Result<Option<u64>, ClusterError>> {
        let r = self.take_now(key, bucket, now_ms);
        Box::pin(std::future::ready(Ok(r)))
    }

    fn describe(&self) -> String {
        "memory".into()
    }

    fn is_local(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(f).expect("ready")
    }

    #[test]
    fn a_bucket_refuses_past_its_burst_and_refills_at_its_rate() {
        let rates = MemoryRates::new();
        let b = Bucket { rate: 2.0, burst: 3.0 };
        for _ in 0..3 {
            assert_eq!(block(rates.take("a", b, 1_000)).unwrap(), None);
        }
        // Empty: one token comes back in 500 ms.
        assert_eq!(block(rates.take("a", b, 1_000)).unwrap(), Some(500));
        assert_eq!(block(rates.take("a", b, 1_250)).unwrap(), Some(250));
        assert_eq!(block(rates.take("a", b, 1_500)).unwrap(), None);
        // Another key has its own bucket.
        assert_eq!(block(rates.take("b", b, 1_500)).unwrap(), None);
        // A clock that goes back refills nothing.
        assert_eq!(block(rates.take("a", b, 1_000)).unwrap(), Some(500));
        // Long idle: full again, never more than the burst.
        for _ in 0..3 {
            assert_eq!(block(rates.take("a", b, 60_000)).unwrap(), None);
        }
        assert!(block(rates.take("a", b, 60_000)).unwrap().is_some());
    }

    #[test]
    fn memory_stays_bounded_under_a_flood_of_identities() {
        let rates = MemoryRates::new();
        let b = Bucket { rate: 1.0, burst: 1.0 };
        for i in 0..(MAX_BUCKETS + 10) {
            block(rates.take(&format!("k{i}"), b, 1_000 + i as u64)).unwrap();
        }
        assert!(rates.len() <= MAX_BUCKETS, "{}", rates.len());
    }
}
