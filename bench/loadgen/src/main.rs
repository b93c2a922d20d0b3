//! `loadgen`: a load generator for MCP servers over stdio.
//!
//! It spawns a server command with piped stdin/stdout, performs the MCP
//! handshake, then sends the requests of a scenario (`tools/call echo`,
//! `tools/list` or `resources/read`) as newline-delimited JSON-RPC 2.0, either
//! strictly sequentially (`--inflight 1`) or pipelined with a fixed number of
//! requests in flight, checks every response and reports throughput, latency
//! percentiles and, with `--rss-after`, the server's resident memory. `--floor` measures a bare line echo
//! such as `cat` with the same request lines: the cost of the pipes alone,
//! which servers are compared with.
//!
//! Run `loadgen --help` for the options.

mod args;
mod session;

// Shared with `httpload` through the library target.
use hypermcp_loadgen::{check, request, stats};

use std::process::ExitCode;

use args::{Config, Parsed, Scenario};
use request::Requests;
use stats::{median, median_summary};

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
    let req = match cfg.scenario {
        Scenario::Echo => Requests::new(&cfg.tool, &cfg.text),
        Scenario::List => Requests::list(),
        Scenario::Read => Requests::read(&cfg.uri),
    };
    if let Some(n) = cfg.listeners {
        return listeners(&cfg, n);
    }
    if cfg.gen_bench {
        let (lines, bytes) = request::gen_bench(&req, cfg.calls.max(1));
        println!("generated {} request lines: {:.2} M lines/s, {:.0} MB/s", cfg.calls.max(1), lines / 1e6, bytes / 1e6);
        return ExitCode::SUCCESS;
    }
    run(&cfg, &req)
}

/// `--listeners N`: the listen fan-out over stdio.
fn listeners(cfg: &Config, n: u64) -> ExitCode {
    let r = hypermcp_loadgen::listen::run_stdio(&cfg.command, n, cfg.triggers, &cfg.tool, cfg.timeout);
    if r.print("loadgen", "stdio", n, cfg.json, cfg.triggers) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run(cfg: &Config, req: &Requests) -> ExitCode {
    let mode = if cfg.floor { "floor" } else { "mcp" };
    if !cfg.json {
        println!(
            "loadgen: {mode} {:?}: {} {} calls (+{} warmup), inflight {}, {} run(s)",
            cfg.command.join(" "),
            cfg.scenario.name(),
            cfg.calls,
            cfg.warmup,
            cfg.inflight,
            cfg.runs
        );
    }
    let mut summaries = Vec::with_capacity(cfg.runs as usize);
    let mut mibs = Vec::with_capacity(cfg.runs as usize);
    let mut rss = Vec::with_capacity(cfg.runs as usize);
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
        let extra = extra_fields(cfg.scenario, Some(out.mib_per_s), out.rss_kb.map(|kb| kb as f64));
        if cfg.json {
            println!("{}", out.summary.to_json(&format!("\"run\":{run},{}", extra.json), mode));
        } else {
            println!("run {run}/{}: {}{}", cfg.runs, out.summary.to_text(), extra.text);
        }
        summaries.push(out.summary);
        mibs.push(Some(out.mib_per_s));
        rss.push(out.rss_kb.map(|kb| kb as f64));
        if out.fatal.as_deref().is_some_and(|f| f.starts_with("cannot spawn")) {
            break;
        }
    }
    if summaries.len() > 1 {
        let med = median_summary(&summaries);
        let extra = extra_fields(cfg.scenario, median(mibs), median(rss));
        if cfg.json {
            println!("{}", med.to_json(&format!("\"median_of\":{},{}", summaries.len(), extra.json), mode));
        } else {
            println!("median of {}: {}{}", summaries.len(), med.to_text(), extra.text);
        }
    }
    if failed {
        eprintln!("loadgen: FAILED (see messages above)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The fields loadgen adds to the shared summary: JSON members (ending with a comma, to go
/// first in the object) and a text suffix.
struct Extra {
    json: String,
    text: String,
}

fn extra_fields(scenario: Scenario, mib_per_s: Option<f64>, rss_kb: Option<f64>) -> Extra {
    let num = |v: Option<f64>, d: usize| v.filter(|x| x.is_finite()).map_or("null".to_owned(), |x| format!("{x:.d$}"));
    let mut text = format!("  {:.1} MiB/s", mib_per_s.unwrap_or(0.0));
    if let Some(kb) = rss_kb {
        text.push_str(&format!("  rss {kb:.0} KiB"));
    }
    Extra {
        json: format!(
            "\"scenario\":\"{}\",\"mib_per_s\":{},\"rss_kb\":{},",
            scenario.name(),
            num(mib_per_s, 2),
            num(rss_kb, 0)
        ),
        text,
    }
}
