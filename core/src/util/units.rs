//! Durations in options, read in the unit of whoever wrote them.
//!
//! Options cross from host languages as JSON: Python speaks seconds, JavaScript
//! milliseconds. Every duration field of an option struct deserializes through [`duration`]
//! (or [`optional_duration`]), which reads the unit [`with_unit`] set for the parse on this
//! thread: each option is declared once, with its unit a property of the language.

use serde::{Deserialize, Deserializer};
use std::cell::Cell;
use std::time::Duration;

/// The unit a number of a duration option is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeUnit {
    /// Seconds (Python, Rust configuration files). The default.
    #[default]
    Seconds,
    /// Milliseconds (JavaScript).
    Milliseconds,
}

impl TimeUnit {
    /// `n` of this unit as a duration; `None` unless `n` is finite and not negative.
    pub fn duration(self, n: f64) -> Option<Duration> {
        if !n.is_finite() || n < 0.0 {
            return None;
        }
        let secs = match self {
            TimeUnit::Seconds => n,
            TimeUnit::Milliseconds => n / 1000.0,
        };
        Duration::try_from_secs_f64(secs).ok()
    }

    /// A duration as a number of this unit.
    pub fn amount(self, d: Duration) -> f64 {
        match self {
            TimeUnit::Seconds => d.as_secs_f64(),
            TimeUnit::Milliseconds => d.as_secs_f64() * 1000.0,
        }
    }

    /// How the unit is named in error messages.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "seconds",
            TimeUnit::Milliseconds => "milliseconds",
        }
    }
}

thread_local! {
    static UNIT: Cell<TimeUnit> = const { Cell::new(TimeUnit::Seconds) };
}

/// Runs `f` (a deserialization) with durations read in `unit`.
pub(crate) fn with_unit<R>(unit: TimeUnit, f: impl FnOnce() -> R) -> R {
    struct Restore(TimeUnit);
    impl Drop for Restore {
        fn drop(&mut self) {
            UNIT.with(|u| u.set(self.0));
        }
    }
    let _restore = Restore(UNIT.with(|u| u.replace(unit)));
    f()
}

/// The unit of the parse in progress on this thread.
pub(crate) fn current() -> TimeUnit {
    UNIT.with(Cell::get)
}

fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let unit = current();
    let n =
        f64::deserialize(d).map_err(|_| serde::de::Error::custom(format!("expected a number of {}", unit.name())))?;
    unit.duration(n)
        .ok_or_else(|| serde::de::Error::custom(format!("expected a non-negative number of {}, got {n}", unit.name())))
}

/// A required duration: a non-negative number of the parse's unit.
pub(crate) fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    read(d)
}

/// A duration that can be turned off: `false`, `0` or `null` mean none.
pub(crate) fn optional_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Off {
        Flag(bool),
        Amount(serde_json::Value),
    }
    match Option::<Off>::deserialize(d)? {
        None | Some(Off::Flag(false)) => Ok(None),
        Some(Off::Flag(true)) => {
            Err(serde::de::Error::custom(format!("expected a number of {}, or false", current().name())))
        }
        Some(Off::Amount(v)) => {
            let d = read(v).map_err(serde::de::Error::custom)?;
            Ok(Some(d).filter(|d| !d.is_zero()))
        }
    }
}
