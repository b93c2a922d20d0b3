//! Duration histograms: per method and per tool, filled by the timing middleware
//! ([`crate::middleware::Timing`]) and written in the Prometheus text format beside
//! the counters (`hypermcp_request_duration_seconds`, `hypermcp_tool_duration_seconds`).
//!
//! A series is a few relaxed atomics; finding it takes a read lock and a map lookup. The
//! number of series is bounded: the methods and tools that reach a handler are the ones a
//! server registered, and past [`MAX_SERIES`] names a family counts under `other`.

use super::Counter;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// The upper bounds of the buckets, in seconds (Prometheus' `le`).
pub const BOUNDS: [f64; 15] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// Names a family keeps a series of, at most (the rest count under `other`).
pub const MAX_SERIES: usize = 1024;

/// One series: a count per bucket, the sum (in nanoseconds) and the count of all.
#[derive(Debug, Default)]
struct Histogram {
    buckets: [Counter; BOUNDS.len()],
    sum_ns: AtomicU64,
    count: Counter,
}

impl Histogram {
    fn observe(&self, nanos: u64) {
        let secs = nanos as f64 / 1e9;
        if let Some(i) = BOUNDS.iter().position(|b| secs <= *b) {
            self.buckets[i].inc();
        }
        self.sum_ns.fetch_add(nanos, Ordering::Relaxed);
        self.count.inc();
    }
}

/// The series of one label (`method`, `tool`).
struct Family {
    series: RwLock<BTreeMap<String, Arc<Histogram>>>,
}

impl Family {
    const fn new() -> Self {
        Family { series: RwLock::new(BTreeMap::new()) }
    }

    fn observe(&self, name: &str, nanos: u64) {
        let found = self.series.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned();
        let h = match found {
            Some(h) => h,
            None => {
                let mut series = self.series.write().unwrap_or_else(|e| e.into_inner());
                let name = if series.len() >= MAX_SERIES && !series.contains_key(name) { "other" } else { name };
                series.entry(name.to_string()).or_default().clone()
            }
        };
        h.observe(nanos);
    }

    fn write(&self, out: &mut String, metric: &str, label: &str, help: &str) {
        let series = self.series.read().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "# HELP hypermcp_{metric} {help}\n# TYPE hypermcp_{metric} histogram");
        for (name, h) in series.iter() {
            let name = escape(name);
            let mut cumulative = 0;
            for (bound, n) in BOUNDS.iter().zip(&h.buckets) {
                cumulative += n.get();
                let _ = writeln!(out, "hypermcp_{metric}_bucket{{{label}=\"{name}\",le=\"{bound}\"}} {cumulative}");
            }
            let count = h.count.get();
            let sum = h.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
            let _ = writeln!(out, "hypermcp_{metric}_bucket{{{label}=\"{name}\",le=\"+Inf\"}} {count}");
            let _ = writeln!(out, "hypermcp_{metric}_sum{{{label}=\"{name}\"}} {sum}");
            let _ = writeln!(out, "hypermcp_{metric}_count{{{label}=\"{name}\"}} {count}");
        }
    }
}

/// A label value as Prometheus' text format quotes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

static METHODS: Family = Family::new();
static TOOLS: Family = Family::new();

/// A request of `method` took `nanos`; a tool call also counts under its tool.
pub(crate) fn observe(method: &str, tool: Option<&str>, nanos: u64) {
    METHODS.observe(method, nanos);
    if let Some(tool) = tool {
        TOOLS.observe(tool, nanos);
    }
}

/// The histograms in the Prometheus text format (nothing for a family with no series).
pub(super) fn write(out: &mut String) {
    for (family, metric, label, help) in [
        (&METHODS, "request_duration_seconds", "method", "Time requests took in middleware and handlers, by method."),
        (&TOOLS, "tool_duration_seconds", "tool", "Time tool calls took, by tool."),
    ] {
        if !family.series.read().unwrap_or_else(|e| e.into_inner()).is_empty() {
            family.write(out, metric, label, help);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn observations_land_in_cumulative_buckets() {
        super::observe("x/test-method", Some("t\"est"), 300_000); // 0.3 ms
        super::observe("x/test-method", None, 2_000_000_000); // 2 s
        let mut out = String::new();
        super::write(&mut out);
        assert!(out.contains("# TYPE hypermcp_request_duration_seconds histogram"), "{out}");
        assert!(
            out.contains("hypermcp_request_duration_seconds_bucket{method=\"x/test-method\",le=\"0.00025\"} 0"),
            "{out}"
        );
        assert!(
            out.contains("hypermcp_request_duration_seconds_bucket{method=\"x/test-method\",le=\"0.0005\"} 1"),
            "{out}"
        );
        assert!(
            out.contains("hypermcp_request_duration_seconds_bucket{method=\"x/test-method\",le=\"2.5\"} 2"),
            "{out}"
        );
        assert!(out.contains("hypermcp_request_duration_seconds_count{method=\"x/test-method\"} 2"), "{out}");
        assert!(out.contains("hypermcp_tool_duration_seconds_count{tool=\"t\\\"est\"} 1"), "{out}");
    }
}
