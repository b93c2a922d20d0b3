//! For operators: the engine's log handed to JavaScript (`setLogger` in `ops.cjs`), its
//! counters, and the clients' connection events.

use crate::bridge::WakeFn;
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::Status;
use napi_derive::napi;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Records waiting for JavaScript, at most (more are dropped and counted).
const QUEUE: usize = 4096;

static RECORDS: Mutex<VecDeque<hypermcp::log::LogRecord>> = Mutex::new(VecDeque::new());
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Sends the engine's events at `level` and above (`"error"`, `"warn"`, `"info"`, `"debug"`,
/// `"trace"`) to JavaScript: `wake` is called (on Node's thread, never keeping it alive) when
/// records wait, which `takeLogRecords` hands over. `null` stops.
#[napi]
pub fn set_log_handler(
    level: Option<String>,
    // Spelled out: a type alias here would leak into the generated index.d.ts.
    wake: Option<
        napi::threadsafe_function::ThreadsafeFunction<
            (),
            napi::bindgen_prelude::Unknown<'static>,
            (),
            Status,
            false,
            true,
        >,
    >,
) -> napi::Result<()> {
    let max = match &level {
        Some(l) => hypermcp::log::parse_level(l).map_err(napi::Error::from_reason)?,
        None => hypermcp::log::LevelFilter::OFF,
    };
    let Some(wake) = wake.filter(|_| max != hypermcp::log::LevelFilter::OFF) else {
        return hypermcp::log::install(max, None).map_err(napi::Error::from_reason);
    };
    let wake: Arc<Mutex<WakeFn>> = Arc::new(Mutex::new(wake));
    let sink: hypermcp::log::Sink = Arc::new(move |r: &hypermcp::log::LogRecord| {
        let first = {
            let mut q = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
            if q.len() >= QUEUE {
                DROPPED.fetch_add(1, Ordering::Relaxed);
                return;
            }
            q.push_back(r.clone());
            q.len() == 1
        };
        if first {
            wake.lock().unwrap_or_else(|e| e.into_inner()).call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    });
    hypermcp::log::install(max, Some(sink)).map_err(napi::Error::from_reason)
}

/// The records waiting, as JSON text of `[[level, target, message], ...]` (`level`: "error",
/// "warn", "info", "debug" or "trace"); an empty string when there are none.
#[napi]
pub fn take_log_records() -> String {
    let records: Vec<hypermcp::log::LogRecord> = RECORDS.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
    let dropped = DROPPED.swap(0, Ordering::Relaxed);
    if records.is_empty() && dropped == 0 {
        return String::new();
    }
    let mut out: Vec<(String, &str, String)> = Vec::with_capacity(records.len() + 1);
    if dropped > 0 {
        out.push(("warn".into(), "hypermcp", format!("{dropped} log records dropped: JavaScript did not keep up")));
    }
    for r in &records {
        out.push((r.level.as_str().to_ascii_lowercase(), r.target.as_str(), r.message.clone()));
    }
    serde_json::to_string(&out).unwrap_or_default()
}

/// The engine's counters as JSON text (see `metrics()` in `ops.cjs`).
#[napi]
pub fn metrics_json() -> String {
    serde_json::to_string(&hypermcp::metrics::snapshot()).unwrap_or_default()
}

/// The engine's counters in the Prometheus text format.
#[napi]
pub fn metrics_text() -> String {
    hypermcp::metrics::prometheus()
}

/// A client's connection changed: counted and logged by the engine.
#[napi]
pub fn client_event(event: String, reason: String) {
    hypermcp::metrics::client_event(&event, &reason);
}

/// `HYPERMCP_LOG=info` (or debug...) sends the engine's events to stderr: `native.cjs` calls
/// this when the addon loads.
#[napi]
pub fn log_from_env() -> bool {
    hypermcp::log::from_env()
}

/// The W3C trace context of a request's `_meta` values as JSON text (`{traceparent,
/// traceId, parentId, flags, sampled, tracestate, baggage, baggageItems}`), or null without
/// a valid `traceparent` (the engine's reading: `hypermcp::trace`).
#[napi]
pub fn trace_context(traceparent: String, tracestate: Option<String>, baggage: Option<String>) -> Option<String> {
    hypermcp::trace::TraceContext::parse(&traceparent, tracestate.as_deref(), baggage.as_deref())
        .map(|tc| tc.to_host_json().to_string())
}
