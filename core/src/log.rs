//! What the engine says about itself, for operators: events through [`tracing`] (sessions
//! opened and closed and why, messages and requests refused and why, evictions, limits hit,
//! clients losing their server), silent until something listens.
//!
//! A Rust application installs any `tracing` subscriber it likes (`tracing-subscriber`'s
//! `fmt()`, OpenTelemetry...): the events have the targets `hypermcp::http`,
//! `hypermcp::session` and `hypermcp::client`, and their fields. Without
//! one, [`install`] sets a small built-in subscriber that formats each event as one line and
//! hands it to a [`Sink`]: stderr ([`to_stderr`], or the `HYPERMCP_LOG` environment variable
//! read by [`from_env`]: `error`, `warn`, `info`, `debug` or `trace`), Python's `logging` or a
//! Node logger (the bindings install theirs). The sink and level can be changed at any time.

use std::sync::{Arc, OnceLock, RwLock};
use tracing::field::{Field, Visit};
pub use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record as SpanRecord};
pub use tracing::Level;
use tracing::{Event, Metadata, Subscriber};

/// One event, formatted: its level, its target (`hypermcp::http`...) and its message with
/// its fields (`session closed reason="idle" session=...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    /// How serious it is.
    pub level: Level,
    /// Where it comes from.
    pub target: String,
    /// The message, then each field as `name=value`.
    pub message: String,
}

/// Where [`install`]ed events go.
pub type Sink = Arc<dyn Fn(&LogRecord) + Send + Sync>;

struct Route {
    max: LevelFilter,
    sink: Option<Sink>,
}

static ROUTE: RwLock<Route> = RwLock::new(Route { max: LevelFilter::OFF, sink: None });
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// The built-in subscriber: formats events and hands them to the current sink.
struct SinkSubscriber;

impl Subscriber for SinkSubscriber {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= &current_max()
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(current_max())
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &SpanRecord<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let sink = {
            let route = ROUTE.read().unwrap_or_else(|e| e.into_inner());
            match &route.sink {
                Some(s) if event.metadata().level() <= &route.max => s.clone(),
                _ => return,
            }
        };
        let mut text = Text::default();
        event.record(&mut text);
        let record = LogRecord {
            level: *event.metadata().level(),
            target: event.metadata().target().to_string(),
            message: text.0,
        };
        sink(&record);
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

fn current_max() -> LevelFilter {
    ROUTE.read().unwrap_or_else(|e| e.into_inner()).max
}

/// The message first, then ` name=value` for each other field (strings quoted).
#[derive(Default)]
struct Text(String);

impl Visit for Text {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.insert_str(0, value);
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.insert_str(0, &format!("{value:?}"));
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }
}

/// Parses a level name (`off`, `error`, `warn`, `info`, `debug`, `trace`; any case).
pub fn parse_level(name: &str) -> Result<LevelFilter, String> {
    name.trim()
        .parse::<LevelFilter>()
        .map_err(|_| format!("unknown log level {name:?}: one of off, error, warn, info, debug, trace"))
}

/// Sends the engine's events at `max` and above to `sink` (replacing the sink before; `None`
/// or [`LevelFilter::OFF`] turns them off). Fails when the process already has another global
/// `tracing` subscriber (a Rust application's own: it receives the events instead).
pub fn install(max: LevelFilter, sink: Option<Sink>) -> Result<(), String> {
    let ours = *INSTALLED.get_or_init(|| tracing::subscriber::set_global_default(SinkSubscriber).is_ok());
    if !ours {
        return Err("another tracing subscriber is installed in this process: it receives hypermcp's events".into());
    }
    {
        let mut route = ROUTE.write().unwrap_or_else(|e| e.into_inner());
        route.max = if sink.is_some() { max } else { LevelFilter::OFF };
        route.sink = sink;
    }
    tracing::callsite::rebuild_interest_cache();
    Ok(())
}

/// A sink writing each event as one line to stderr: `hypermcp WARN hypermcp::http: ...`.
pub fn stderr_sink() -> Sink {
    Arc::new(|r: &LogRecord| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "hypermcp {:>5} {}: {}", r.level, r.target, r.message);
    })
}

/// [`install`] with [`stderr_sink`].
pub fn to_stderr(max: LevelFilter) -> Result<(), String> {
    install(max, Some(stderr_sink()))
}

/// Reads `HYPERMCP_LOG` (a level name): when set, the engine's events at that level and
/// above go to stderr. Returns whether it did (an unknown level, or another subscriber in
/// the way, is said on stderr once).
pub fn from_env() -> bool {
    let Some(value) = std::env::var_os("HYPERMCP_LOG") else { return false };
    let value = value.to_string_lossy();
    match parse_level(&value).and_then(|max| to_stderr(max).map(|()| max)) {
        Ok(max) => max != LevelFilter::OFF,
        Err(e) => {
            eprintln!("hypermcp: HYPERMCP_LOG: {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn events_reach_the_sink_at_its_level_and_the_sink_can_change() {
        let got = Arc::new(Mutex::new(Vec::<LogRecord>::new()));
        let g = got.clone();
        install(LevelFilter::INFO, Some(Arc::new(move |r: &LogRecord| g.lock().unwrap().push(r.clone())))).unwrap();
        tracing::info!(target: "hypermcp::session", session = "abc", reason = "idle", "session closed");
        tracing::debug!(target: "hypermcp::session", "not at info");
        {
            let got = got.lock().unwrap();
            assert_eq!(got.len(), 1, "{got:?}");
            assert_eq!(got[0].level, Level::INFO);
            assert_eq!(got[0].target, "hypermcp::session");
            assert_eq!(got[0].message, r#"session closed session="abc" reason="idle""#);
        }
        install(
            LevelFilter::DEBUG,
            Some(Arc::new({
                let g = got.clone();
                move |r: &LogRecord| g.lock().unwrap().push(r.clone())
            })),
        )
        .unwrap();
        tracing::debug!(target: "hypermcp::http", status = 408u16, "request refused");
        assert_eq!(got.lock().unwrap().last().unwrap().message, "request refused status=408");
        install(LevelFilter::INFO, None).unwrap();
        tracing::warn!(target: "hypermcp::http", "off now");
        assert_eq!(got.lock().unwrap().len(), 2);
        assert!(parse_level("WARN").is_ok() && parse_level("loud").unwrap_err().contains("unknown log level"));
    }
}
