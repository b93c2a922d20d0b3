//! `enginebench`: what one request costs inside the sans-IO engine, no I/O.
//!
//! Builds the benchmark server of `bench/servers/hypermcp_server.rs` in-process, opens a
//! [`ServerSession`] on it, performs the handshake, then times, per iteration, feeding one
//! request line into the session until its answer bytes are taken out (what the stdio driver
//! does between a read and a write):
//!
//! - `engine-tools-list`: one `tools/list` (50 tools);
//! - `engine-tools-list-cold`: the same right after the registry changed (the page is built
//!   again: set_page_size drops the built pages as adding or removing a tool does);
//! - `engine-tools-call`: one `tools/call echo`, the handler being the server's Rust echo
//!   code run inline (the invocation event is taken, the result built and completed).
//!
//! Prints one JSON line per scenario:
//! `{"scenario":"engine-tools-list","tools":50,"iterations":..,"p50_us":..,"p99_us":..,"mean_us":..}`.
//!
//! Usage: `enginebench [--iterations N] [--warmup N] [--scenario list|call|all]`.

#[allow(dead_code)]
#[path = "../../../servers/hypermcp_server.rs"]
mod bench_server;

use hypermcp::engine::{Event, Outcome, Request, ServerSession};
use hypermcp::CallToolResult;
use hypermcp_loadgen::request::{INITIALIZE, INITIALIZED};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let mut iterations = 20_000usize;
    let mut warmup = 2_000usize;
    let mut scenario = "all".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{a} needs a value")));
        match a.as_str() {
            "--iterations" => iterations = value().parse().unwrap_or_else(|_| usage("--iterations: a number")),
            "--warmup" => warmup = value().parse().unwrap_or_else(|_| usage("--warmup: a number")),
            "--scenario" => scenario = value(),
            "-h" | "--help" => usage(""),
            _ => usage(&format!("unknown option {a:?}")),
        }
    }
    let iterations = iterations.max(1);
    if !matches!(scenario.as_str(), "list" | "call" | "all") {
        usage("--scenario: list, call or all");
    }
    let server = bench_server::build();
    if scenario != "call" {
        let mut s = session(&server);
        let lines =
            lines(iterations + warmup, |id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n"));
        let mut out = Vec::with_capacity(64 * 1024);
        // Check the answer once.
        s.feed(lines[0].as_bytes(), Instant::now());
        s.take_output(&mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("tools/list answer is JSON");
        let tools = v["result"]["tools"].as_array().map_or(0, Vec::len);
        assert_eq!(tools, 50, "tools/list answered {v}");
        let bytes = out.len();
        let times = measure(&lines, warmup, |line| {
            out.clear();
            s.feed(line, Instant::now());
            s.take_output(&mut out);
            black_box(out.len());
        });
        report("engine-tools-list", &format!("\"tools\":{tools},\"answer_bytes\":{bytes},"), times);
        // The first listing after a registry change builds the page (later ones reuse it):
        // `set_page_size` drops the built pages, as adding or removing a tool does.
        let cold = lines.len().min(2_000);
        let times = measure(&lines[..cold], cold / 10, |line| {
            s.registry().set_page_size(hypermcp::catalogue::DEFAULT_PAGE_SIZE);
            out.clear();
            s.feed(line, Instant::now());
            s.take_output(&mut out);
            black_box(out.len());
        });
        report("engine-tools-list-cold", &format!("\"tools\":{tools},"), times);
    }
    if scenario != "list" {
        let mut s = session(&server);
        let lines = lines(iterations + warmup, |id| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hello\"}}}}}}\n")
        });
        let mut out = Vec::with_capacity(4096);
        let call = |s: &mut ServerSession, line: &[u8], out: &mut Vec<u8>| {
            s.feed(line, Instant::now());
            while let Some(ev) = s.poll_event() {
                if let Event::Invoke(inv) = ev {
                    let Request::CallTool { arguments, .. } = inv.request else { panic!("not a tool call") };
                    let text = arguments.get("text").and_then(|t| t.as_str()).unwrap_or_default();
                    s.complete(inv.key, Outcome::Tool(CallToolResult::text(text)));
                }
            }
            s.take_output(out);
        };
        call(&mut s, lines[0].as_bytes(), &mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("tools/call answer is JSON");
        assert_eq!(v["result"]["content"][0]["text"], "hello", "tools/call answered {v}");
        let times = measure(&lines, warmup, |line| {
            out.clear();
            call(&mut s, line, &mut out);
            black_box(out.len());
        });
        report("engine-tools-call", "\"tool\":\"echo\",", times);
    }
}

fn usage(msg: &str) -> ! {
    if !msg.is_empty() {
        eprintln!("enginebench: {msg}");
    }
    eprintln!("usage: enginebench [--iterations N] [--warmup N] [--scenario list|call|all]");
    std::process::exit(if msg.is_empty() { 0 } else { 2 })
}

/// A session of `server`, past the handshake.
fn session(server: &hypermcp::Server) -> ServerSession {
    let mut s = ServerSession::new(Arc::new(server.config()), server.registry().clone());
    let mut out = Vec::new();
    s.feed(INITIALIZE, Instant::now());
    s.feed(INITIALIZED, Instant::now());
    s.take_output(&mut out);
    while s.poll_event().is_some() {}
    assert!(out.starts_with(b"{"), "initialize answered {}", String::from_utf8_lossy(&out));
    s
}

/// Request lines with ids 1..=n (built before timing).
fn lines(n: usize, f: impl Fn(usize) -> String) -> Vec<String> {
    (1..=n).map(f).collect()
}

/// Runs `f` on every line, the first `warmup` unmeasured; returns the sorted times in ns.
fn measure(lines: &[String], warmup: usize, mut f: impl FnMut(&[u8])) -> Vec<u64> {
    let mut times = Vec::with_capacity(lines.len() - warmup);
    for (i, line) in lines.iter().enumerate() {
        let t = Instant::now();
        f(line.as_bytes());
        let ns = t.elapsed().as_nanos() as u64;
        if i >= warmup {
            times.push(ns);
        }
    }
    times.sort_unstable();
    times
}

fn report(scenario: &str, extra: &str, sorted: Vec<u64>) {
    let pct = |p: f64| sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1] as f64 / 1e3;
    let mean = sorted.iter().sum::<u64>() as f64 / sorted.len() as f64 / 1e3;
    println!(
        "{{\"scenario\":\"{scenario}\",{extra}\"iterations\":{},\"p50_us\":{:.3},\"p99_us\":{:.3},\"mean_us\":{:.3}}}",
        sorted.len(),
        pct(0.50),
        pct(0.99),
        mean
    );
}
