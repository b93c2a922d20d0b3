//! Hand-written command-line parsing (no dependency on an argument parser).

use std::time::Duration;

/// Usage text printed by `--help`.
pub const HELP: &str = "\
loadgen - load generator for MCP servers over stdio (newline-delimited JSON-RPC 2.0)

USAGE:
    loadgen [OPTIONS] -- COMMAND [ARGS...]
    loadgen --gen-bench [--calls N] [--text STR] [--tool NAME]

Spawns COMMAND with piped stdin/stdout, performs the MCP handshake
(initialize + notifications/initialized), sends --warmup unmeasured
`tools/call` requests and then --calls measured ones, checks every response
and reports throughput and latency.

OPTIONS:
    --calls N        measured tools/call requests per run          [default: 20000]
    --warmup N       unmeasured requests sent before measuring      [default: 1000]
    --inflight W     requests kept in flight; 1 = strictly sequential
                     (write one line, read one line), >1 = pipelined
                     with a writer thread                           [default: 1]
    --runs R         repeat the whole run R times, a new child each
                     time, and also report the median               [default: 1]
    --text STR       value of the `text` argument                   [default: hello]
    --tool NAME      tool to call                                   [default: echo]
    --floor          COMMAND is a bare line echo such as `cat`: no
                     handshake, each line comes back verbatim and only
                     the echoed id is checked (the \"pipe floor\")
    --json           print one JSON object per run on stdout (plus a
                     final median object when --runs > 1); the last
                     line is always the result to use
    --stderr         let the child's stderr through (default: /dev/null)
    --timeout SECS   kill the child when no response arrives for
                     SECS seconds                                   [default: 10]
    --gen-bench      only measure how fast request lines are generated
                     (no child is spawned)
    -h, --help       print this help

EXIT STATUS:
    0 all calls succeeded; 1 a call failed, the child died or timed out;
    2 usage error.

A call fails when its response is not JSON, has no integer id matching an
outstanding request, carries an `error`, lacks a `result`, or has a result
with \"isError\": true.  Lines from the server that carry a `method` (server
notifications and requests) are skipped.
";

/// Everything the command line selects.
#[derive(Debug, Clone)]
pub struct Config {
    /// Measured `tools/call` requests per run.
    pub calls: u64,
    /// Unmeasured requests sent before the measured ones.
    pub warmup: u64,
    /// Requests kept in flight (1 = sequential).
    pub inflight: u64,
    /// Number of runs (a new child each).
    pub runs: u32,
    /// The `text` argument of each call.
    pub text: String,
    /// The tool name of each call.
    pub tool: String,
    /// Pipe-floor mode: the child echoes lines verbatim.
    pub floor: bool,
    /// Print JSON lines instead of human-readable text.
    pub json: bool,
    /// Pass the child's stderr through.
    pub stderr: bool,
    /// No-progress timeout after which the child is killed.
    pub timeout: Duration,
    /// Only benchmark request generation.
    pub gen_bench: bool,
    /// The server command and its arguments.
    pub command: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            calls: 20_000,
            warmup: 1_000,
            inflight: 1,
            runs: 1,
            text: "hello".to_owned(),
            tool: "echo".to_owned(),
            floor: false,
            json: false,
            stderr: false,
            timeout: Duration::from_secs(10),
            gen_bench: false,
            command: Vec::new(),
        }
    }
}

/// Result of parsing: either a configuration to run or a request for help.
#[derive(Debug)]
pub enum Parsed {
    /// Run with this configuration.
    Run(Config),
    /// `--help` was given.
    Help,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.replace('_', "").parse().map_err(|_| format!("{flag}: expected a non-negative integer, got {value:?}"))
}

/// Parses the arguments that follow the program name.
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Parsed, String> {
    let mut cfg = Config::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            cfg.command.extend(it.by_ref());
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            // First non-option word: the command starts here.
            cfg.command.push(arg);
            cfg.command.extend(it.by_ref());
            break;
        }
        // Accept both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--calls" => cfg.calls = number(&flag, &value(&flag)?)?,
            "--warmup" => cfg.warmup = number(&flag, &value(&flag)?)?,
            "--inflight" => cfg.inflight = number(&flag, &value(&flag)?)?,
            "--runs" => cfg.runs = number(&flag, &value(&flag)?)?,
            "--timeout" => cfg.timeout = Duration::from_secs(number(&flag, &value(&flag)?)?),
            "--text" => cfg.text = value(&flag)?,
            "--tool" => cfg.tool = value(&flag)?,
            "--floor" | "--json" | "--stderr" | "--gen-bench" if inline.is_some() => {
                return Err(format!("{flag} takes no value"));
            }
            "--floor" => cfg.floor = true,
            "--json" => cfg.json = true,
            "--stderr" => cfg.stderr = true,
            "--gen-bench" => cfg.gen_bench = true,
            _ => return Err(format!("unknown option {arg:?} (see --help)")),
        }
    }
    if cfg.inflight == 0 {
        return Err("--inflight must be at least 1".into());
    }
    if cfg.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if cfg.timeout.is_zero() {
        return Err("--timeout must be at least 1".into());
    }
    if cfg.command.is_empty() && !cfg.gen_bench {
        return Err("missing server command (loadgen [OPTIONS] -- COMMAND [ARGS...])".into());
    }
    Ok(Parsed::Run(cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Parsed, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults_and_command() {
        let Parsed::Run(c) = p(&["--", "cat", "-u"]).unwrap() else { panic!("expected run") };
        assert_eq!(c.calls, 20_000);
        assert_eq!(c.warmup, 1_000);
        assert_eq!(c.inflight, 1);
        assert_eq!(c.runs, 1);
        assert_eq!(c.tool, "echo");
        assert_eq!(c.text, "hello");
        assert_eq!(c.command, ["cat", "-u"]);
    }

    #[test]
    fn options() {
        let Parsed::Run(c) = p(&[
            "--calls=5",
            "--warmup",
            "0",
            "--inflight",
            "64",
            "--runs",
            "3",
            "--floor",
            "--json",
            "--text",
            "a \"q\"",
            "server",
            "--calls",
            "9",
        ])
        .unwrap() else {
            panic!("expected run")
        };
        assert_eq!((c.calls, c.warmup, c.inflight, c.runs), (5, 0, 64, 3));
        assert!(c.floor && c.json && !c.stderr);
        assert_eq!(c.text, "a \"q\"");
        // Everything from the first non-option word belongs to the command.
        assert_eq!(c.command, ["server", "--calls", "9"]);
    }

    #[test]
    fn errors() {
        assert!(p(&["--calls", "x", "--", "cat"]).is_err());
        assert!(p(&["--inflight", "0", "--", "cat"]).is_err());
        assert!(p(&["--bogus", "--", "cat"]).is_err());
        assert!(p(&["--calls"]).is_err());
        assert!(p(&["--floor"]).is_err());
        assert!(matches!(p(&["--help"]), Ok(Parsed::Help)));
    }
}
