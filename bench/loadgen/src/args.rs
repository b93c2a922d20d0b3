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
requests of the --scenario and then --calls measured ones, checks every
response and reports throughput (calls/s and MiB/s of responses) and latency.

OPTIONS:
    --scenario S     what every request is                          [default: echo]
                       echo: tools/call of --tool with {\"text\": --text}
                       list: tools/list; result.tools must be an array
                             of exactly --expect-tools entries
                       read: resources/read of --uri;
                             result.contents[0].text must be
                             --expect-bytes bytes long
    --expect-tools N tools a `list` answer must hold             [default: 50]
    --uri URI        resource read by `read`                 [default: bench://blob]
    --expect-bytes N length of the text a `read` answer holds  [default: 1048576]
    --rss-after MS   after the handshake, before any load, wait MS
                     milliseconds, then report the resident memory
                     (VmRSS) of the child and all its descendants as
                     rss_kb
    --calls N        measured requests per run                      [default: 20000]
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
    --json           print one flat JSON object per run on stdout
                     (plus a final median object when --runs > 1);
                     the last line is always the result to use
    --stderr         let the child's stderr through (default: /dev/null)
    --timeout SECS   kill the child when no response arrives for
                     SECS seconds                                   [default: 10]
    --listeners N    the 2026-07-28 listen fan-out instead of a scenario:
                     N `subscriptions/listen` requests (tools
                     list_changed) on the one connection, every
                     acknowledgement awaited, the child's memory read
                     (VmRSS with descendants), then --triggers calls of
                     --tool (default `touch` here), each timed until every
                     subscription has its list_changed. No handshake
    --triggers K     with --listeners: trigger calls                [default: 5]
    --gen-bench      only measure how fast request lines are generated
                     (no child is spawned)
    -h, --help       print this help

EXIT STATUS:
    0 all calls succeeded; 1 a call failed, the child died or timed out;
    2 usage error.

A call fails when its response is not JSON, has no integer id matching an
outstanding request, carries an `error`, lacks a `result`, or has a result
with \"isError\": true (echo) or not of the expected size (list, read).
Lines from the server that carry a `method` (server notifications and
requests) are skipped.

JSON OUTPUT (--json): {\"run\"|\"median_of\", \"scenario\", \"mib_per_s\"
(response bytes), \"rss_kb\" (null without --rss-after), \"mode\", \"calls\",
\"inflight\", \"calls_per_s\", \"p50_us\", \"p99_us\", \"max_us\", \"init_ms\"
(from just before the spawn to the initialize answer), \"failures\"}.
";

/// What every request of a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// `tools/call` of `--tool` with `{"text": --text}`.
    Echo,
    /// `tools/list`.
    List,
    /// `resources/read` of `--uri`.
    Read,
}

impl Scenario {
    /// The name used on the command line and in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Echo => "echo",
            Scenario::List => "list",
            Scenario::Read => "read",
        }
    }

    fn parse(s: &str) -> Result<Self, String> {
        match s {
            "echo" => Ok(Scenario::Echo),
            "list" => Ok(Scenario::List),
            "read" => Ok(Scenario::Read),
            _ => Err(format!("--scenario: expected echo, list or read, got {s:?}")),
        }
    }
}

/// Everything the command line selects.
#[derive(Debug, Clone)]
pub struct Config {
    /// What every request is.
    pub scenario: Scenario,
    /// Entries a `tools/list` answer must hold.
    pub expect_tools: usize,
    /// The resource `read` reads.
    pub uri: String,
    /// Length in bytes of the text a `resources/read` answer must hold.
    pub expect_bytes: usize,
    /// Wait this long after the handshake, then measure the child's resident memory.
    pub rss_after: Option<Duration>,
    /// Measured requests per run.
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
    /// The listen fan-out with this many subscriptions instead of a scenario.
    pub listeners: Option<u64>,
    /// Trigger calls of the fan-out.
    pub triggers: u32,
    /// The server command and its arguments.
    pub command: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            scenario: Scenario::Echo,
            expect_tools: 50,
            uri: "bench://blob".to_owned(),
            expect_bytes: 1 << 20,
            rss_after: None,
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
            listeners: None,
            triggers: 5,
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
    let mut tool = None;
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
            "--scenario" => cfg.scenario = Scenario::parse(&value(&flag)?)?,
            "--expect-tools" => cfg.expect_tools = number(&flag, &value(&flag)?)?,
            "--uri" => cfg.uri = value(&flag)?,
            "--expect-bytes" => cfg.expect_bytes = number(&flag, &value(&flag)?)?,
            "--rss-after" => cfg.rss_after = Some(Duration::from_millis(number(&flag, &value(&flag)?)?)),
            "--text" => cfg.text = value(&flag)?,
            "--tool" => tool = Some(value(&flag)?),
            "--listeners" => cfg.listeners = Some(number(&flag, &value(&flag)?)?),
            "--triggers" => cfg.triggers = number(&flag, &value(&flag)?)?,
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
    cfg.tool = tool.unwrap_or_else(|| if cfg.listeners.is_some() { "touch" } else { "echo" }.to_owned());
    if cfg.listeners == Some(0) || cfg.triggers == 0 {
        return Err("--listeners and --triggers must be at least 1".into());
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
        assert_eq!(c.scenario, Scenario::Echo);
        assert_eq!((c.expect_tools, c.expect_bytes), (50, 1_048_576));
        assert_eq!(c.uri, "bench://blob");
        assert_eq!(c.rss_after, None);
    }

    #[test]
    fn scenarios_and_rss() {
        let Parsed::Run(c) = p(&["--scenario", "list", "--expect-tools=49", "--rss-after", "500", "srv"]).unwrap()
        else {
            panic!("expected run")
        };
        assert_eq!(c.scenario, Scenario::List);
        assert_eq!(c.expect_tools, 49);
        assert_eq!(c.rss_after, Some(Duration::from_millis(500)));
        let Parsed::Run(c) =
            p(&["--scenario=read", "--uri", "x://y", "--expect-bytes", "1_024", "--", "srv", "--http"]).unwrap()
        else {
            panic!("expected run")
        };
        assert_eq!(c.scenario, Scenario::Read);
        assert_eq!((c.uri.as_str(), c.expect_bytes), ("x://y", 1024));
        assert_eq!(c.command, ["srv", "--http"]);
        for s in [Scenario::Echo, Scenario::List, Scenario::Read] {
            assert_eq!(Scenario::parse(s.name()), Ok(s));
        }
        assert!(p(&["--scenario", "call", "srv"]).is_err());
        assert!(p(&["--rss-after", "-1", "srv"]).is_err());
        assert!(p(&["--expect-tools", "many", "srv"]).is_err());
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
