//! Percentiles, medians and report formatting.

/// Summary numbers of one run (or the median of several).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Measured calls requested.
    pub calls: u64,
    /// Requests kept in flight.
    pub inflight: u64,
    /// Measured responses per second of wall time.
    pub calls_per_s: f64,
    /// Median latency in microseconds (`None` without any successful call).
    pub p50_us: Option<f64>,
    /// 99th percentile latency in microseconds.
    pub p99_us: Option<f64>,
    /// Largest latency in microseconds.
    pub max_us: Option<f64>,
    /// Spawn-to-initialize-response (or first echo) time in milliseconds.
    pub init_ms: Option<f64>,
    /// Failed or unanswered calls.
    pub failures: u64,
}

/// Nearest-rank percentile (`p` in 0..=1) of sorted nanosecond samples, in µs.
pub fn percentile_us(sorted_ns: &[u64], p: f64) -> Option<f64> {
    if sorted_ns.is_empty() {
        return None;
    }
    let rank = (p * sorted_ns.len() as f64).ceil() as usize;
    let idx = rank.clamp(1, sorted_ns.len()) - 1;
    Some(sorted_ns[idx] as f64 / 1e3)
}

/// Median of the values that are present (upper-middle average for even
/// counts); `None` if none is.
pub fn median(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().flatten().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Median of each field over several runs; failures are summed.
pub fn median_summary(runs: &[Summary]) -> Summary {
    Summary {
        calls: runs.first().map_or(0, |s| s.calls),
        inflight: runs.first().map_or(0, |s| s.inflight),
        calls_per_s: median(runs.iter().map(|s| Some(s.calls_per_s))).unwrap_or(0.0),
        p50_us: median(runs.iter().map(|s| s.p50_us)),
        p99_us: median(runs.iter().map(|s| s.p99_us)),
        max_us: median(runs.iter().map(|s| s.max_us)),
        init_ms: median(runs.iter().map(|s| s.init_ms)),
        failures: runs.iter().map(|s| s.failures).sum(),
    }
}

fn json_num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.decimals$}"),
        _ => "null".to_owned(),
    }
}

fn text_num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.decimals$}"),
        _ => "-".to_owned(),
    }
}

impl Summary {
    /// One JSON object (no newline). `extra` is inserted first, e.g.
    /// `"run":1,` (it must end with a comma if not empty).
    pub fn to_json(&self, extra: &str, mode: &str) -> String {
        format!(
            "{{{extra}\"mode\":\"{mode}\",\"calls\":{},\"inflight\":{},\"calls_per_s\":{},\"p50_us\":{},\"p99_us\":{},\"max_us\":{},\"init_ms\":{},\"failures\":{}}}",
            self.calls,
            self.inflight,
            json_num(Some(self.calls_per_s), 1),
            json_num(self.p50_us, 1),
            json_num(self.p99_us, 1),
            json_num(self.max_us, 1),
            json_num(self.init_ms, 3),
            self.failures,
        )
    }

    /// One human-readable line.
    pub fn to_text(&self) -> String {
        format!(
            "{:>10.0} calls/s  p50 {:>8} µs  p99 {:>8} µs  max {:>9} µs  init {:>7} ms  failures {}",
            self.calls_per_s,
            text_num(self.p50_us, 1),
            text_num(self.p99_us, 1),
            text_num(self.max_us, 1),
            text_num(self.init_ms, 2),
            self.failures
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let v: Vec<u64> = (1..=100).map(|x| x * 1000).collect();
        assert_eq!(percentile_us(&v, 0.5), Some(50.0));
        assert_eq!(percentile_us(&v, 0.99), Some(99.0));
        assert_eq!(percentile_us(&v, 1.0), Some(100.0));
        assert_eq!(percentile_us(&[5000], 0.5), Some(5.0));
        assert_eq!(percentile_us(&[], 0.5), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median([Some(3.0), Some(1.0), Some(2.0)]), Some(2.0));
        assert_eq!(median([Some(4.0), Some(1.0), None, Some(2.0), Some(3.0)]), Some(2.5));
        assert_eq!(median([None]), None);
    }

    #[test]
    fn json_line_parses() {
        let s = Summary {
            calls: 10,
            inflight: 4,
            calls_per_s: 1234.56,
            p50_us: Some(1.25),
            p99_us: None,
            max_us: Some(9.0),
            init_ms: Some(0.5),
            failures: 2,
        };
        let v: serde_json::Value = serde_json::from_str(&s.to_json("\"run\":1,", "mcp")).unwrap();
        assert_eq!(v["run"], 1);
        assert_eq!(v["calls"], 10);
        assert_eq!(v["inflight"], 4);
        assert_eq!(v["calls_per_s"].as_f64(), Some(1234.6));
        assert!(v["p99_us"].is_null());
        assert_eq!(v["failures"], 2);
    }
}
