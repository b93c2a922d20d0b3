//! How a client comes back after its server went away: the reconnect policy every host's
//! client follows (exponential backoff with jitter, a cap, a bound on tries), decided here
//! once. The hosts do the I/O (spawn the server again, open a new HTTP session) and ask the
//! policy how long to wait before each try.

use serde::Deserialize;
use std::time::Duration;

/// A client's reconnect policy. Deserializes from an object of these fields (snake_case, or
/// camelCase as JavaScript writes them; durations in the binding's unit: seconds in Python,
/// milliseconds in JavaScript).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Reconnect {
    /// Wait before the first try (default 0.5 s); each failed try multiplies it.
    #[serde(alias = "initialDelay", deserialize_with = "crate::util::units::duration")]
    pub initial_delay: Duration,
    /// Cap on the wait between tries (default 30 s).
    #[serde(alias = "maxDelay", deserialize_with = "crate::util::units::duration")]
    pub max_delay: Duration,
    /// Growth of the wait per failed try (default 2, at least 1).
    pub multiplier: f64,
    /// Share of each wait drawn at random, 0 to 1 (default 0.5: a wait of `d` becomes one
    /// between `d/2` and `d`), so that many clients of one server do not come back at once.
    pub jitter: f64,
    /// Tries before giving up for good (default 10); `0`: never give up.
    #[serde(alias = "maxAttempts")]
    pub max_attempts: u32,
    /// What a request made while reconnecting does: wait for the connection (within its own
    /// timeout; the default) or fail at once.
    pub wait: bool,
}

impl Default for Reconnect {
    fn default() -> Self {
        Reconnect {
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            multiplier: 2.0,
            jitter: 0.5,
            max_attempts: 10,
            wait: true,
        }
    }
}

impl Reconnect {
    /// Checks the values (a multiplier of at least 1, a jitter within 0 and 1).
    pub fn validate(&self) -> Result<(), String> {
        if !(self.multiplier.is_finite() && self.multiplier >= 1.0) {
            return Err(format!("reconnect multiplier must be a number of at least 1, not {}", self.multiplier));
        }
        if !(0.0..=1.0).contains(&self.jitter) {
            return Err(format!("reconnect jitter must be within 0 and 1, not {}", self.jitter));
        }
        Ok(())
    }

    /// The wait before try `attempt` (1 for the first), with `unit` a number in `[0, 1)`
    /// drawn at random (the jitter); `None` once the tries are spent.
    pub fn delay_with(&self, attempt: u32, unit: f64) -> Option<Duration> {
        if attempt == 0 || (self.max_attempts != 0 && attempt > self.max_attempts) {
            return None;
        }
        let base = self.initial_delay.as_secs_f64() * self.multiplier.powi(attempt.saturating_sub(1).min(64) as i32);
        let capped = base.min(self.max_delay.as_secs_f64());
        let jittered = capped * (1.0 - self.jitter * unit.clamp(0.0, 1.0));
        Some(Duration::try_from_secs_f64(jittered).unwrap_or(self.max_delay))
    }

    /// [`Reconnect::delay_with`] with a jitter drawn from the system's randomness.
    pub fn delay(&self, attempt: u32) -> Option<Duration> {
        let mut b = [0u8; 8];
        let unit = match getrandom::fill(&mut b) {
            Ok(()) => (u64::from_le_bytes(b) >> 11) as f64 / (1u64 << 53) as f64,
            Err(_) => 0.5,
        };
        self.delay_with(attempt, unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::host::options::{parse, TimeUnit};
    use serde_json::json;

    #[test]
    fn backs_off_exponentially_within_the_cap_and_gives_up() {
        let p = Reconnect { jitter: 0.0, max_attempts: 8, ..Default::default() };
        let waits: Vec<u128> = (1..=8).map(|a| p.delay_with(a, 0.3).unwrap().as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert_eq!(p.delay_with(9, 0.3), None);
        assert_eq!(p.delay_with(0, 0.3), None);
        let forever = Reconnect { max_attempts: 0, ..p };
        assert_eq!(forever.delay_with(1000, 0.0), Some(Duration::from_secs(30)));
    }

    #[test]
    fn jitter_draws_within_its_share() {
        let p = Reconnect::default();
        assert_eq!(p.delay_with(2, 0.0), Some(Duration::from_millis(1000)));
        assert_eq!(p.delay_with(2, 0.999_999).map(|d| d.as_millis()), Some(500));
        for _ in 0..200 {
            let d = p.delay(3).unwrap();
            assert!(d >= Duration::from_millis(1000) && d <= Duration::from_millis(2000), "{d:?}");
        }
    }

    #[test]
    fn parses_in_each_language_and_explains_bad_values() {
        let py: Reconnect = parse(
            json!({"initial_delay": 0.1, "max_attempts": 3, "wait": false}),
            TimeUnit::Seconds,
            "reconnect option",
        )
        .unwrap();
        assert_eq!((py.initial_delay, py.max_attempts, py.wait), (Duration::from_millis(100), 3, false));
        let js: Reconnect =
            parse(json!({"initialDelay": 100, "maxDelay": 2000}), TimeUnit::Milliseconds, "reconnect option").unwrap();
        assert_eq!((js.initial_delay, js.max_delay), (Duration::from_millis(100), Duration::from_secs(2)));
        let e = parse::<Reconnect>(json!({"tries": 3}), TimeUnit::Seconds, "reconnect option").unwrap_err();
        assert!(e.0.contains("unknown reconnect option `tries`"), "{e}");
        let bad = Reconnect { jitter: 2.0, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("jitter"));
        let bad = Reconnect { multiplier: 0.5, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("multiplier"));
    }
}
