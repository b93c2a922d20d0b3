//! For operators: the engine's log routed to a Python callable (`hypermcp.enable_logging`
//! wraps it for the `logging` module), its counters, and the clients' connection events.

use hypermcp::log::{Level, LevelFilter};
use pyo3::prelude::*;
use std::sync::mpsc::{sync_channel, TrySendError};
use std::sync::Arc;

/// Records waiting for the Python thread, at most (more are dropped and counted).
const QUEUE: usize = 4096;

/// Records handed to Python with one taking of the GIL, at most.
const BATCH: usize = 256;

/// Python's number for a level (`logging.ERROR`...).
fn levelno(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 40,
        Level::WARN => 30,
        Level::INFO => 20,
        Level::DEBUG => 10,
        _ => 5,
    }
}

/// Sends the engine's events at `level` and above (`"error"`, `"warn"`, `"info"`,
/// `"debug"`, `"trace"`) to `handler(levelno, target, message)`, called on a thread of its
/// own with the GIL (never from inside the engine, which may hold its locks). `None` stops.
#[pyfunction]
#[pyo3(signature = (level=None, handler=None))]
pub fn set_log_handler(py: Python<'_>, level: Option<&str>, handler: Option<Py<PyAny>>) -> PyResult<()> {
    let max = match level {
        Some(l) => hypermcp::log::parse_level(l).map_err(pyo3::exceptions::PyValueError::new_err)?,
        None => LevelFilter::OFF,
    };
    // A handler set before ends with its sink: its thread stops when its sender goes.
    let Some(handler) = handler.filter(|_| max != LevelFilter::OFF) else {
        return py.detach(|| hypermcp::log::install(max, None)).map_err(pyo3::exceptions::PyRuntimeError::new_err);
    };
    let (tx, rx) = sync_channel::<hypermcp::log::LogRecord>(QUEUE);
    let dropped = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let lost = dropped.clone();
    std::thread::Builder::new()
        .name("hypermcp-log".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                // What waits goes over in one batch: one taking of the GIL, not one a record
                // (a request log line a call would otherwise cost more than the call).
                let mut batch = vec![first];
                while batch.len() < BATCH {
                    match rx.try_recv() {
                        Ok(r) => batch.push(r),
                        Err(_) => break,
                    }
                }
                let skipped = lost.swap(0, std::sync::atomic::Ordering::Relaxed);
                Python::attach(|py| {
                    if skipped > 0 {
                        let m = format!("{skipped} log records dropped: the Python side did not keep up");
                        let _ = handler.call1(py, (30u8, "hypermcp", m));
                    }
                    for r in &batch {
                        let _ = handler.call1(py, (levelno(&r.level), r.target.as_str(), r.message.as_str()));
                    }
                });
            }
        })
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start the log thread: {e}")))?;
    let sink: hypermcp::log::Sink = Arc::new(move |r: &hypermcp::log::LogRecord| {
        if let Err(TrySendError::Full(_)) = tx.try_send(r.clone()) {
            dropped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    py.detach(|| hypermcp::log::install(max, Some(sink))).map_err(pyo3::exceptions::PyRuntimeError::new_err)
}

/// The engine's counters as a dict (see `hypermcp.metrics`).
#[pyfunction]
pub fn metrics<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(hypermcp::metrics::snapshot()).unwrap_or_default();
    crate::bridge::to_py(py, &v)
}

/// The engine's counters in the Prometheus text format.
#[pyfunction]
pub fn metrics_text() -> String {
    hypermcp::metrics::prometheus()
}

/// A client's connection changed: counted and logged by the engine.
#[pyfunction]
pub fn client_event(event: &str, reason: &str) {
    hypermcp::metrics::client_event(event, reason);
}

/// The W3C trace context of a request's `_meta` (a dict): `{traceparent, traceId,
/// parentId, flags, sampled, tracestate, baggage, baggageItems}`, or None without a valid
/// `traceparent` (the engine's reading: `hypermcp::trace`).
#[pyfunction]
pub fn trace_context<'py>(py: Python<'py>, meta: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    use hypermcp::trace::{TraceContext, BAGGAGE, TRACEPARENT, TRACESTATE};
    let Ok(meta) = meta.cast::<pyo3::types::PyDict>() else { return Ok(None) };
    let text = |key: &str| -> Option<String> { meta.get_item(key).ok().flatten().and_then(|v| v.extract().ok()) };
    let Some(traceparent) = text(TRACEPARENT) else { return Ok(None) };
    match TraceContext::parse(&traceparent, text(TRACESTATE).as_deref(), text(BAGGAGE).as_deref()) {
        Some(tc) => crate::bridge::to_py(py, &tc.to_host_json()).map(Some),
        None => Ok(None),
    }
}

/// Runs the `hypermcp` command line (`args` without the program name) with `python` as the
/// interpreter of Python server files, and returns its exit status. Blocks (the GIL is
/// released) until the command ends.
#[pyfunction]
#[pyo3(signature = (args, python=None))]
pub fn cli_main(py: Python<'_>, args: Vec<String>, python: Option<String>) -> i32 {
    let host =
        hypermcp::cli::Host { program: Some("hypermcp".into()), python: python.map(Into::into), ..Default::default() };
    py.detach(|| hypermcp::cli::main(args, host))
}
