//! `hypermcp bench`: a load test of any MCP server, over stdio or HTTP. Workers keep
//! `--inflight` calls of one tool in flight on one connection for `--duration` seconds (after
//! a `--warmup` not counted), then the calls per second and the latency percentiles are
//! printed. The latencies go to one histogram of fixed size (about 1.6% resolution), so a
//! long run holds no more memory than a short one.

use super::args::{parse, Opt, Takes};
use super::show::{self, Style};
use super::target::{connect, step, with_connect_opts, Target, CONNECT_HELP};
use super::{Failure, Host, Outcome};
use crate::Client;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const USAGE: &str = "Usage: hypermcp bench [OPTIONS] TARGET";
const HELP: &str = "A load test: calls one tool as fast as the server answers, with --inflight calls in flight on
one connection, and prints the calls per second and the latency percentiles (p50, p90, p99).

  --tool NAME              the tool to call (default: the server's first; none: ping)
  --args JSON              its arguments (default: a value of its type for each required one)
  --inflight N             calls in flight at once (default 1: one after another)
  --duration SECONDS       how long to measure (default 10)
  --warmup SECONDS         calls before measuring, not counted (default 1)
  --json                   the results as JSON
";

/// Latencies in microseconds, counted in buckets: exact below 128 µs, then 64 buckets per
/// power of two.
struct Histogram {
    counts: Vec<AtomicU64>,
}

const SUB: usize = 64;

impl Histogram {
    fn new() -> Histogram {
        Histogram { counts: (0..(64 - 6) * SUB + 2 * SUB).map(|_| AtomicU64::new(0)).collect() }
    }
    fn index(us: u64) -> usize {
        if us < 2 * SUB as u64 {
            return us as usize;
        }
        let msb = 63 - us.leading_zeros() as usize;
        let shift = msb - 6;
        shift * SUB + (us >> shift) as usize
    }
    /// The middle of bucket `i`, in microseconds.
    fn value(i: usize) -> f64 {
        if i < 2 * SUB {
            return i as f64;
        }
        let shift = i / SUB - 1;
        let top = (i - shift * SUB) as u64;
        ((top << shift) as f64) + ((1u64 << shift) as f64 - 1.0) / 2.0
    }
    fn record(&self, us: u64) {
        self.counts[Self::index(us)].fetch_add(1, Ordering::Relaxed);
    }
    /// The latency under which `q` of the calls fall (0 < q <= 1), in microseconds.
    fn quantile(&self, q: f64) -> f64 {
        let counts: Vec<u64> = self.counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::value(i);
            }
        }
        0.0
    }
    fn max(&self) -> f64 {
        self.counts.iter().rposition(|c| c.load(Ordering::Relaxed) > 0).map(Self::value).unwrap_or(0.0)
    }
}

/// What the workers share.
struct Shared {
    hist: Histogram,
    calls: AtomicU64,
    errors: AtomicU64,
    first_error: Mutex<Option<String>>,
    counting: AtomicBool,
    stop: AtomicBool,
}

pub(crate) async fn bench(args: &[String], host: &Host) -> Outcome {
    let extra = [
        Opt { name: "tool", takes: Takes::Value },
        Opt { name: "args", takes: Takes::Value },
        Opt { name: "inflight", takes: Takes::Value },
        Opt { name: "duration", takes: Takes::Value },
        Opt { name: "warmup", takes: Takes::Value },
        Opt { name: "json", takes: Takes::Nothing },
    ];
    let mut p = parse("bench", args, &with_connect_opts(&extra))?;
    if p.help {
        show::out(&format!("{USAGE}\n\n{HELP}\n{CONNECT_HELP}"));
        return Ok(());
    }
    let target = Target::take(&mut p, USAGE)?;
    if let Some(w) = p.positionals.first() {
        return Err(Failure::usage(format!("unexpected {w:?}\n{USAGE}")));
    }
    let inflight = p.number("inflight", 1.0, 1.0)?;
    if inflight.fract() != 0.0 || inflight > 10_000.0 {
        return Err(Failure::usage("--inflight takes a whole number from 1 to 10000"));
    }
    let inflight = inflight as usize;
    let duration = Duration::from_secs_f64(p.number("duration", 10.0, 0.1)?);
    let warmup = Duration::from_secs_f64(p.number("warmup", 1.0, 0.0)?);
    let given_args = match p.value("args") {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Some(m),
            Ok(_) => return Err(Failure::usage("--args takes a JSON object")),
            Err(e) => return Err(Failure::usage(format!("--args is not valid JSON: {e}"))),
        },
    };
    let client = connect(&target, &p, host).await?;
    let outcome = run(&client, &p, &target, inflight, duration, warmup, given_args).await;
    let _ = client.close().await;
    outcome
}

/// What one call is: a tool and its arguments, or a ping.
#[derive(Clone)]
enum Call {
    Tool(String, Value),
    Ping,
}

async fn run(
    client: &Client,
    p: &super::args::Parsed,
    target: &Target,
    inflight: usize,
    duration: Duration,
    warmup: Duration,
    given_args: Option<Map<String, Value>>,
) -> Outcome {
    let tools = if client.server().capabilities.tools.is_some() {
        step(p, "tools/list", client.list_tools()).await?
    } else {
        Vec::new()
    };
    let call = match (p.value("tool"), tools.first()) {
        (Some(name), _) => {
            let Some(tool) = tools.iter().find(|t| t.name == name) else {
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                return Err(Failure::usage(format!(
                    "the server has no tool {name:?}; its tools: {}",
                    names.join(", ")
                )));
            };
            Call::Tool(name.to_string(), Value::Object(given_args.unwrap_or_else(|| sample_args(&tool.input_schema))))
        }
        (None, Some(tool)) => {
            Call::Tool(tool.name.clone(), Value::Object(given_args.unwrap_or_else(|| sample_args(&tool.input_schema))))
        }
        (None, None) => Call::Ping,
    };
    // One call first: a tool that fails every time is told now, not after the run.
    once(client, &call).await.map_err(|e| Failure::failed(format!("the first call failed: {e}")))?;
    let what = match &call {
        Call::Tool(name, args) => format!("tools/call {name} {args}"),
        Call::Ping => "ping (the server has no tools)".to_string(),
    };
    let shared = Arc::new(Shared {
        hist: Histogram::new(),
        calls: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        first_error: Mutex::new(None),
        counting: AtomicBool::new(warmup.is_zero()),
        stop: AtomicBool::new(false),
    });
    let mut workers = Vec::with_capacity(inflight);
    for _ in 0..inflight {
        let (client, call, shared) = (client.clone(), call.clone(), shared.clone());
        workers.push(tokio::spawn(async move {
            while !shared.stop.load(Ordering::Relaxed) {
                let t0 = Instant::now();
                let r = once(&client, &call).await;
                if !shared.counting.load(Ordering::Relaxed) {
                    continue;
                }
                match r {
                    Ok(()) => {
                        shared.hist.record(t0.elapsed().as_micros() as u64);
                        shared.calls.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        shared.errors.fetch_add(1, Ordering::Relaxed);
                        shared.first_error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                    }
                }
            }
        }));
    }
    let label = target.label();
    let started = Instant::now();
    while started.elapsed() < warmup {
        show::status(&format!(
            "warming up ({:.1}/{:.1} s) {label}",
            started.elapsed().as_secs_f64(),
            warmup.as_secs_f64()
        ));
        tokio::time::sleep(Duration::from_millis(100).min(warmup)).await;
    }
    shared.counting.store(true, Ordering::Relaxed);
    let t0 = Instant::now();
    loop {
        let elapsed = t0.elapsed();
        if elapsed >= duration {
            break;
        }
        let calls = shared.calls.load(Ordering::Relaxed);
        show::status(&progress(elapsed, duration, calls));
        tokio::time::sleep(Duration::from_millis(200).min(duration - elapsed)).await;
    }
    shared.counting.store(false, Ordering::Relaxed);
    let seconds = t0.elapsed().as_secs_f64();
    shared.stop.store(true, Ordering::Relaxed);
    show::clear_status();
    for w in workers {
        let _ = w.await;
    }
    let calls = shared.calls.load(Ordering::Relaxed);
    let errors = shared.errors.load(Ordering::Relaxed);
    let first_error = shared.first_error.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let ms = |us: f64| (us / 10.0).round() / 100.0;
    let (p50, p90, p99, max) = (
        ms(shared.hist.quantile(0.5)),
        ms(shared.hist.quantile(0.9)),
        ms(shared.hist.quantile(0.99)),
        ms(shared.hist.max()),
    );
    let rate = calls as f64 / seconds;
    if p.flag("json") {
        show::json(&json!({
            "target": label, "call": what, "protocolVersion": client.protocol_version().to_string(),
            "inflight": inflight, "seconds": (seconds * 1000.0).round() / 1000.0,
            "calls": calls, "errors": errors, "callsPerSecond": rate.round(),
            "latencyMs": {"p50": p50, "p90": p90, "p99": p99, "max": max},
            "firstError": first_error,
        }));
    } else {
        let out = Style::stdout();
        show::out(&format!(
            "{}\n  {what}, {inflight} in flight, {seconds:.1} s (protocol {})\n\n  {}  {}\n  {}  p50 {p50} ms   p90 {p90} ms   p99 {p99} ms   max {max} ms\n  {}  {errors}{}\n",
            out.bold(&label),
            client.protocol_version(),
            out.bold("calls/s"),
            out.green(&group(rate.round() as u64)),
            out.bold("latency"),
            out.bold("errors "),
            first_error.as_deref().map(|e| format!(" (the first: {e})")).unwrap_or_default(),
        ));
    }
    if calls == 0 {
        return Err(Failure::failed(format!(
            "no call succeeded{}",
            first_error.map(|e| format!(": {e}")).unwrap_or_default()
        )));
    }
    Ok(())
}

async fn once(client: &Client, call: &Call) -> Result<(), String> {
    match call {
        Call::Tool(name, args) => match client.call_tool(name, args.clone()).await {
            Ok(r) if r.failed() => {
                Err(format!("the tool answered with an error: {}", show::contents(Style::plain(), &r.content).trim()))
            }
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        },
        Call::Ping => client.ping().await.map_err(|e| e.to_string()),
    }
}

/// `[█████░░░░░] 5.0/10.0 s  12,345 calls/s`.
fn progress(elapsed: Duration, total: Duration, calls: u64) -> String {
    let frac = (elapsed.as_secs_f64() / total.as_secs_f64()).clamp(0.0, 1.0);
    let filled = (frac * 20.0).round() as usize;
    let rate = if elapsed.as_secs_f64() > 0.0 { calls as f64 / elapsed.as_secs_f64() } else { 0.0 };
    format!(
        "[{}{}] {:.1}/{:.1} s  {} calls/s",
        "█".repeat(filled),
        "░".repeat(20 - filled),
        elapsed.as_secs_f64(),
        total.as_secs_f64(),
        group(rate.round() as u64)
    )
}

/// 1234567 as "1,234,567".
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Arguments for a tool when none are given: a value of its type for each required
/// parameter (the first of an enum; "hypermcp bench" for text).
fn sample_args(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or(Value::Null);
        out.insert(name.to_string(), sample(&prop));
    }
    out
}

fn sample(prop: &Value) -> Value {
    if let Some(v) = prop.get("default").or_else(|| prop.get("examples").and_then(|e| e.get(0))) {
        return v.clone();
    }
    if let Some(first) = prop.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    let ty = match prop.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("string"),
        _ => "string",
    };
    match ty {
        "integer" | "number" => json!(prop.get("minimum").cloned().unwrap_or(json!(1))),
        "boolean" => json!(true),
        "array" => json!([]),
        "object" => Value::Object(sample_args(prop)),
        "null" => Value::Null,
        _ => json!("hypermcp bench"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_two_percent() {
        let h = Histogram::new();
        for us in 1..=100_000u64 {
            h.record(us);
        }
        for (q, want) in [(0.5, 50_000.0), (0.9, 90_000.0), (0.99, 99_000.0)] {
            let got = h.quantile(q);
            assert!((got - want).abs() / want < 0.02, "q{q}: {got} vs {want}");
        }
        assert!((h.max() - 100_000.0).abs() / 100_000.0 < 0.02);
        // Every index maps back into its own bucket, up to the largest values.
        for us in [0u64, 1, 127, 128, 129, 1_000, 65_535, 1 << 40, u64::MAX / 2] {
            let i = Histogram::index(us);
            assert!(i < h.counts.len());
            let v = Histogram::value(i);
            assert!((v - us as f64).abs() <= (us as f64) * 0.016 + 0.5, "{us} -> {i} -> {v}");
        }
    }

    #[test]
    fn sample_arguments_and_numbers() {
        let schema = json!({"type": "object", "properties": {
            "text": {"type": "string"}, "n": {"type": "integer", "minimum": 3}, "mode": {"enum": ["fast", "slow"]},
            "opt": {"type": "string"}
        }, "required": ["text", "n", "mode"]});
        assert_eq!(Value::Object(sample_args(&schema)), json!({"text": "hypermcp bench", "n": 3, "mode": "fast"}));
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(12), "12");
        assert!(progress(Duration::from_secs(5), Duration::from_secs(10), 50_000).contains("10,000 calls/s"));
    }
}
