//! `loadgen`: a load generator for MCP servers over stdio.
//!
//! It spawns a server command with piped stdin/stdout, performs the MCP
//! handshake, then sends `tools/call` requests as newline-delimited JSON-RPC
//! 2.0, either strictly sequentially (`--inflight 1`) or pipelined with a
//! fixed number of requests in flight, checks every response and reports
//! throughput and latency percentiles. `--floor` measures a bare line echo
//! such as `cat` with the same request lines: the cost of the pipes alone,
//! which servers are compared with.
//!
//! Run `loadgen --help` for the options.

mod args;
mod session;

// Shared with `httpload` through the library target.
use hypermcp_loadgen::{check, request, stats};

use std::process::ExitCode;

use args::{Config, Parsed};
use request::Requests;
use stats::median_summary;

fn main() -> ExitCode {
    let cfg = match args::parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(cfg)) => cfg,
        Ok(Parsed::Help) => {
            print!("{}", args::HELP);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("loadgen: {e}");
            return ExitCode::from(2);
        }
    };
    let req = Requests::new(&cfg.tool, &cfg.text);
    if cfg.gen_bench {
        let (lines, bytes) = request::gen_bench(&req, cfg.calls.max(1));
        println!("generated {} request lines: {:.2} M lines/s, {:.0} MB/s", cfg.calls.max(1), lines / 1e6, bytes / 1e6);
        return ExitCode::SUCCESS;
    }
    run(&cfg, &req)
}

fn run(cfg: &Config, req: &Requests) -> ExitCode {
    let mode = if cfg.floor { "floor" } else { "mcp" };
    if !cfg.json {
        println!(
            "loadgen: {mode} {:?}: {} calls (+{} warmup), inflight {}, {} run(s)",
            cfg.command.join(" "),
            cfg.calls,
            cfg.warmup,
            cfg.inflight,
            cfg.runs
        );
    }
    let mut summaries = Vec::with_capacity(cfg.runs as usize);
    let mut failed = false;
    for run in 1..=cfg.runs {
        let out = session::run_once(cfg, req);
        for msg in &out.messages {
            eprintln!("loadgen: run {run}: failure: {msg}");
        }
        if out.summary.failures > out.messages.len() as u64 && !out.messages.is_empty() {
            eprintln!("loadgen: run {run}: ... {} failures in total", out.summary.failures);
        }
        if let Some(fatal) = &out.fatal {
            eprintln!("loadgen: run {run}: {fatal}");
        }
        failed |= out.failed();
        if cfg.json {
            println!("{}", out.summary.to_json(&format!("\"run\":{run},"), mode));
        } else {
            println!("run {run}/{}: {}", cfg.runs, out.summary.to_text());
        }
        summaries.push(out.summary);
        if out.fatal.as_deref().is_some_and(|f| f.starts_with("cannot spawn")) {
            break;
        }
    }
    if summaries.len() > 1 {
        let med = median_summary(&summaries);
        if cfg.json {
            println!("{}", med.to_json(&format!("\"median_of\":{},", summaries.len()), mode));
        } else {
            println!("median of {}: {}", summaries.len(), med.to_text());
        }
    }
    if failed {
        eprintln!("loadgen: FAILED (see messages above)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
