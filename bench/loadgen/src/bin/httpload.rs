//! `httpload`: a load generator for MCP servers over Streamable HTTP.
//!
//! HTTP/1.1 keep-alive (plain, or over TLS with `https://` and `--ca-file`;
//! extra headers such as a bearer token with `--header` / `--bearer`), each
//! connection doing one request at a time. By
//! default the connections are tasks of current_thread tokio runtimes on
//! `--threads` worker threads (event-driven: a thread serves many sockets per
//! `epoll_wait`, which keeps httpload's own CPU per request low);
//! `--blocking` runs the former engine instead, one thread per connection over
//! `std::net::TcpStream` (with `--spin`, each connection's thread polls its
//! socket instead of sleeping until an answer comes). Both parse the answers
//! with the same `http::ResponseParser`. Per connection an MCP
//! handshake (`initialize`, then `notifications/initialized`; the session id is
//! used if the server hands one out), warm-up calls, then measured
//! `tools/call` requests of `echo`, every answer checked. Answers may be JSON
//! bodies or SSE streams. `--sessions N --idle-only` opens N sessions and
//! nothing else (for measuring the server's memory per idle session).
//!
//! Run `httpload --help` for the options.

use hypermcp_loadgen::async_http::{AsyncConn, Tls};
use hypermcp_loadgen::check::input_required;
use hypermcp_loadgen::http::{
    exchange, Answer, Conn, Expect, Failure, KnownAnswer, ResponseParser, Url, PROTOCOL_VERSION,
};
use hypermcp_loadgen::request::{
    mrtr_retry, Requests, ELICITATION_CAPABILITIES, INITIALIZE, INITIALIZED, MODERN_VERSION,
};
use hypermcp_loadgen::stats::{median_summary, percentile_us, Summary};

use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

const HELP: &str = "\
httpload - load generator for MCP servers over Streamable HTTP (HTTP/1.1 keep-alive)

USAGE:
    httpload --url http://127.0.0.1:PORT/mcp [OPTIONS]
    httpload --url https://127.0.0.1:PORT/mcp --ca-file CA.pem [OPTIONS]
    httpload --url URL --sessions N --idle-only [--connections C]

Opens --connections keep-alive connections: tasks spread over --threads worker
threads, each an event loop (tokio current_thread runtime), or with --blocking
one thread per connection (blocking I/O; the former engine, for comparison;
it costs several times more client CPU per request). On each, unless
--stateless: POST initialize, then notifications/initialized (with the
Mcp-Session-Id the server returned, if any; every later request carries it and
MCP-Protocol-Version). Then warm-up calls, then measured `tools/call` requests
of `echo {\"text\": ...}`, one at a time per connection, until --calls have
been made in all or --duration has passed. An answer may be a JSON body or an
SSE stream (events are read until the response with the request's id, whose
arrival ends the call's latency; the rest of the stream is then drained).
Every answer is checked: HTTP 200, JSON-RPC result with the request's id, not
isError, the echoed text. Failures are counted, the first few printed.

OPTIONS:
    --url URL          the MCP endpoint, http:// or https:// (TLS 1.2 or
                       1.3 by rustls; needs --ca-file)                  [required]
    --ca-file PATH     PEM file of the CA certificates that https:// trusts
                       (only those); the server's certificate must name
                       the URL's host
    --bearer TOKEN     send `Authorization: Bearer TOKEN` with every request
    --header 'NAME: VALUE'
                       send this header with every request (repeatable)
    --connections N    concurrent connections                           [default: 1]
    --threads T        worker threads of the event-driven engine (the
                       connections are spread over them; at most N)     [default: 1]
    --pause MS         each connection waits MS milliseconds (decimals ok)
                       after each measured call before the next: calls
                       with think time, as an agent makes them (the
                       figure to read is then p50, not calls/s)        [default: 0]
    --spin             with --blocking: each connection's thread polls its
                       socket in a loop (non-blocking reads) instead of
                       sleeping until the answer comes: its CPU never goes
                       idle, so no server's wake-ups can warm it (a lone
                       connection on a VM; costs one CPU per connection)
    --blocking         one thread per connection, blocking I/O (the
                       former engine) instead of the event-driven one;
                       plain http:// only
    --calls N          measured calls per run, over all connections     [default: 20000]
    --duration SECS    also stop a run after SECS seconds (decimals ok)  [default: none]
    --warmup N         unmeasured calls per run before measuring, over
                       all connections (stops after 2 s at most)        [default: 1000]
    --runs R           repeat R times (new connections and sessions each
                       time) and also report the median                 [default: 1]
    --stateless        no handshake: calls go out without a session
    --modern           the 2026-07-28 revision: no handshake, each call
                       carries its revision, capabilities and identity in
                       _meta and the MCP-Protocol-Version, Mcp-Method and
                       Mcp-Name headers (implies --stateless)
    --sessions N       with --idle-only: open N sessions over the
                       connections (initialize + notifications/initialized
                       each, nothing else) and exit, leaving them open
    --idle-only        see --sessions
    --mrtr             the 2026-07-28 multi round-trip scenario (implies
                       --modern; tool `ask` unless --tool): each measured
                       call is two requests, the call (declaring form
                       elicitation) answered `input_required` with
                       elicitations, then the retry that accepts each with
                       {\"name\": TEXT} and echoes requestState, answered
                       `hello TEXT`. Latency and calls/s count round trips
    --listeners N      the 2026-07-28 listen fan-out scenario (implies
                       --modern): open N `subscriptions/listen` streams
                       (tools list_changed), wait for every acknowledgement,
                       then --triggers times call the tool (`touch` unless
                       --tool) on one more connection and time until every
                       stream has its `notifications/tools/list_changed`.
                       With --pid, the server's memory per idle listener.
                       Plain http:// only, no --header or --bearer
    --triggers K       with --listeners: trigger calls                  [default: 5]
    --pid PID          with --listeners: the server's process; its VmRSS
                       (with its descendants') before and after the
                       listeners open
    --text STR         value of the `text` argument                     [default: hello]
    --tool NAME        tool to call                                     [default: echo]
    --timeout SECS     connect, socket read and write timeout           [default: 10]
    --json             one JSON object per run on stdout (plus the median
                       when --runs > 1); the last line is the result to use
    -h, --help         print this help

OUTPUT (--json): calls mode: {\"run\"|\"median_of\", \"connections\", \"mode\":\"http\",
\"calls\" (requested), \"inflight\" (= connections), \"calls_per_s\" (successful calls
per second of the measured phase), \"p50_us\", \"p99_us\", \"max_us\", \"init_ms\"
(median connect + initialize round trip), \"failures\", \"ok\" (successful measured
calls), \"requests\" (HTTP requests answered: handshakes, warm-up and measured calls;
on the median line, the total over all runs), \"client_cpu_us\" (httpload's own CPU
time per request, all threads, Linux only), over https:// \"tls\" (the protocol
version and cipher suite negotiated, e.g. \"TLSv1_3 TLS13_AES_256_GCM_SHA384\")}.
Sessions mode: {\"mode\":\"sessions\", \"sessions\", \"opened\", \"with_session_id\",
\"failures\", \"secs\", \"sessions_per_s\"}.

Listeners mode: {\"mode\":\"listeners\", \"listeners\", \"open_ms\" (all
acknowledged), \"rss_kb_before\", \"rss_kb_after\", \"bytes_per_listener\" (with
--pid), \"triggers\", \"all_ms\" (median over the triggers of the time until the
last stream got its notification), \"p50_ms\" (median per-stream delivery time),
\"max_all_ms\", \"failures\"}.

EXIT STATUS: 0 no failure; 1 a call, handshake or connection failed; 2 usage error.
";

/// How long the warm-up may take at most.
const WARMUP_MAX: Duration = Duration::from_secs(2);
/// Failure descriptions kept per run.
const KEEP_MESSAGES: usize = 5;

#[derive(Debug, Clone)]
struct Config {
    url: Url,
    /// With https://: the CA file, then (in `main`) the TLS configuration made of it.
    ca_file: Option<PathBuf>,
    tls: Option<Tls>,
    /// Extra header lines of every request, each ending in CRLF.
    headers: String,
    connections: u64,
    threads: usize,
    blocking: bool,
    spin: bool,
    /// The wait after each measured call (`--pause`).
    pause: Option<Duration>,
    calls: u64,
    duration: Option<Duration>,
    warmup: u64,
    runs: u32,
    stateless: bool,
    modern: bool,
    sessions: Option<u64>,
    idle_only: bool,
    mrtr: bool,
    listeners: Option<u64>,
    triggers: u32,
    pid: Option<u32>,
    text: String,
    tool: String,
    timeout: Duration,
    json: bool,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.replace('_', "").parse().map_err(|_| format!("{flag}: expected a non-negative integer, got {value:?}"))
}

enum Parsed {
    Run(Box<Config>),
    Help,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut url = None;
    let mut cfg = Config {
        url: Url { tls: false, host: String::new(), port: 0, path: String::new() },
        ca_file: None,
        tls: None,
        headers: String::new(),
        connections: 1,
        threads: 1,
        blocking: false,
        spin: false,
        pause: None,
        calls: 20_000,
        duration: None,
        warmup: 1_000,
        runs: 1,
        stateless: false,
        modern: false,
        sessions: None,
        idle_only: false,
        mrtr: false,
        listeners: None,
        triggers: 5,
        pid: None,
        text: "hello".into(),
        tool: "echo".into(),
        timeout: Duration::from_secs(10),
        json: false,
    };
    let mut tool = None;
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
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
            "--url" => url = Some(Url::parse(&value(&flag)?)?),
            "--ca-file" => cfg.ca_file = Some(PathBuf::from(value(&flag)?)),
            "--bearer" => {
                let token = value(&flag)?;
                if token.is_empty() || token.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
                    return Err("--bearer: the token must be non-empty, without spaces or control characters".into());
                }
                cfg.headers.push_str(&format!("Authorization: Bearer {token}\r\n"));
            }
            "--header" => {
                let h = value(&flag)?;
                let ok = h.split_once(':').is_some_and(|(name, _)| {
                    !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':')
                });
                if !ok || h.bytes().any(|b| b == b'\r' || b == b'\n') {
                    return Err(format!("--header: expected 'NAME: VALUE' on one line, got {h:?}"));
                }
                cfg.headers.push_str(&h);
                cfg.headers.push_str("\r\n");
            }
            "--connections" => cfg.connections = number(&flag, &value(&flag)?)?,
            "--threads" => cfg.threads = number(&flag, &value(&flag)?)?,
            "--calls" => cfg.calls = number(&flag, &value(&flag)?)?,
            "--duration" => {
                let v = value(&flag)?;
                let secs: f64 = v.parse().map_err(|_| format!("--duration: expected seconds, got {v:?}"))?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err("--duration must be positive".into());
                }
                cfg.duration = Some(Duration::from_secs_f64(secs));
            }
            "--pause" => {
                let v = value(&flag)?;
                let ms: f64 = v.parse().map_err(|_| format!("--pause: expected milliseconds, got {v:?}"))?;
                if !(ms.is_finite() && ms >= 0.0) {
                    return Err("--pause must be zero or more milliseconds".into());
                }
                cfg.pause = (ms > 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
            }
            "--warmup" => cfg.warmup = number(&flag, &value(&flag)?)?,
            "--runs" => cfg.runs = number(&flag, &value(&flag)?)?,
            "--sessions" => cfg.sessions = Some(number(&flag, &value(&flag)?)?),
            "--text" => cfg.text = value(&flag)?,
            "--tool" => tool = Some(value(&flag)?),
            "--listeners" => cfg.listeners = Some(number(&flag, &value(&flag)?)?),
            "--triggers" => cfg.triggers = number(&flag, &value(&flag)?)?,
            "--pid" => cfg.pid = Some(number(&flag, &value(&flag)?)?),
            "--timeout" => cfg.timeout = Duration::from_secs(number(&flag, &value(&flag)?)?),
            "--stateless" | "--modern" | "--mrtr" | "--idle-only" | "--json" | "--blocking" | "--spin"
                if inline.is_some() =>
            {
                return Err(format!("{flag} takes no value"));
            }
            "--stateless" => cfg.stateless = true,
            "--modern" => {
                cfg.modern = true;
                cfg.stateless = true;
            }
            "--mrtr" => cfg.mrtr = true,
            "--idle-only" => cfg.idle_only = true,
            "--json" => cfg.json = true,
            "--blocking" => cfg.blocking = true,
            "--spin" => cfg.spin = true,
            _ => return Err(format!("unknown option {arg:?} (see --help)")),
        }
    }
    cfg.url = url.ok_or("--url is required (see --help)")?;
    if cfg.url.tls != cfg.ca_file.is_some() {
        return Err("an https:// URL and --ca-file go together".into());
    }
    if cfg.spin && !cfg.blocking {
        return Err("--spin polls the sockets of the blocking engine: add --blocking".into());
    }
    if cfg.url.tls && cfg.blocking {
        return Err("https:// runs on the event-driven engine: not with --blocking".into());
    }
    if cfg.listeners.is_some() && (cfg.url.tls || !cfg.headers.is_empty()) {
        return Err("--listeners speaks plain http:// without extra headers".into());
    }
    if cfg.mrtr || cfg.listeners.is_some() {
        cfg.modern = true;
        cfg.stateless = true;
    }
    let default_tool = if cfg.mrtr {
        "ask"
    } else if cfg.listeners.is_some() {
        "touch"
    } else {
        "echo"
    };
    cfg.tool = tool.unwrap_or_else(|| default_tool.to_owned());
    if cfg.mrtr && (cfg.blocking || cfg.listeners.is_some() || cfg.sessions.is_some()) {
        return Err(
            "--mrtr runs calls on the event-driven engine: not with --blocking, --listeners or --sessions".into()
        );
    }
    if cfg.listeners == Some(0) || cfg.triggers == 0 {
        return Err("--listeners and --triggers must be at least 1".into());
    }
    if cfg.pid.is_some() && cfg.listeners.is_none() {
        return Err("--pid goes with --listeners".into());
    }
    if cfg.connections == 0 {
        return Err("--connections must be at least 1".into());
    }
    if cfg.threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    if cfg.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if cfg.timeout.is_zero() {
        return Err("--timeout must be at least 1".into());
    }
    if cfg.sessions.is_some() != cfg.idle_only {
        return Err("--sessions N and --idle-only go together".into());
    }
    if cfg.idle_only && cfg.stateless {
        return Err("--idle-only opens sessions; it cannot be --stateless".into());
    }
    Ok(Parsed::Run(Box::new(cfg)))
}

/// The request being sent: the head for the session (up to, not including,
/// Content-Length), the body, and both joined; the extra header lines every
/// head carries.
struct Request {
    head: Vec<u8>,
    body: Vec<u8>,
    bytes: Vec<u8>,
    headers: String,
}

impl Request {
    fn new(cfg: &Config) -> Self {
        let mut r = Request { head: Vec::new(), body: Vec::new(), bytes: Vec::new(), headers: cfg.headers.clone() };
        if cfg.modern {
            r.set_modern(&cfg.url, &cfg.tool);
        } else {
            r.set_session(&cfg.url, None, cfg.stateless);
        }
        r
    }

    /// The head of a 2026-07-28 `tools/call` of `tool`: no session, the revision and the
    /// routing headers the body must match.
    fn set_modern(&mut self, u: &Url, tool: &str) {
        self.set_session(u, None, false);
        self.head.extend_from_slice(
            format!("MCP-Protocol-Version: {MODERN_VERSION}\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n")
                .as_bytes(),
        );
    }

    /// Rebuilds the request head for this session (and protocol version).
    fn set_session(&mut self, u: &Url, session: Option<&str>, initialized: bool) {
        self.head.clear();
        self.head.extend_from_slice(
            format!(
                "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
                u.path,
                u.authority()
            )
            .as_bytes(),
        );
        self.head.extend_from_slice(self.headers.as_bytes());
        if let Some(s) = session {
            self.head.extend_from_slice(format!("Mcp-Session-Id: {s}\r\n").as_bytes());
        }
        if initialized {
            self.head.extend_from_slice(format!("MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n").as_bytes());
        }
    }

    /// The request for `self.body`.
    fn build(&mut self) {
        self.bytes.clear();
        self.bytes.extend_from_slice(&self.head);
        self.bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", self.body.len()).as_bytes());
        self.bytes.extend_from_slice(&self.body);
    }
}

/// The session id handed out by the answer to `initialize`, if any.
fn check_initialize(a: &Answer) -> Result<Option<String>, String> {
    match hypermcp_loadgen::check::classify(&a.message, false) {
        hypermcp_loadgen::check::Reply::Ok(0) => Ok(a.head.session_id.clone()),
        other => Err(format!("initialize: unexpected answer {other:?}")),
    }
}

/// A blocking engine's socket: blocking reads and writes, or with `spin` (`--spin`) a
/// non-blocking socket retried until it answers (or `timeout` passes with nothing).
struct Socket {
    tcp: TcpStream,
    spin: bool,
    timeout: Duration,
}

impl Socket {
    /// Runs `op` until it does not say "would block", at most `self.timeout` of trying.
    fn retry<T>(&mut self, mut op: impl FnMut(&mut TcpStream) -> std::io::Result<T>) -> std::io::Result<T> {
        let mut since = None;
        loop {
            match op(&mut self.tcp) {
                Err(e) if self.spin && e.kind() == std::io::ErrorKind::WouldBlock => {
                    let start = *since.get_or_insert_with(Instant::now);
                    if start.elapsed() > self.timeout {
                        return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer within --timeout"));
                    }
                    std::hint::spin_loop();
                }
                r => return r,
            }
        }
    }
}

impl std::io::Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.retry(|s| s.read(buf))
    }
}

impl std::io::Write for Socket {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.retry(|s| s.write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tcp.flush()
    }
}

/// One connection's client for the blocking engine: the connection (reopened
/// when the server closes it), the session, and the request buffers.
struct Client<'c> {
    cfg: &'c Config,
    conn: Option<Conn<Socket>>,
    /// Requests already answered on `conn`.
    used: u64,
    /// Requests answered in all (any status).
    answered: u64,
    rq: Request,
    parser: ResponseParser,
}

impl<'c> Client<'c> {
    fn new(cfg: &'c Config) -> Self {
        Client { cfg, conn: None, used: 0, answered: 0, rq: Request::new(cfg), parser: ResponseParser::default() }
    }

    fn connect(&self) -> Result<Conn<Socket>, Failure> {
        let io = |err| Failure::Io { err, nothing_received: false };
        let addr = self.cfg.url.authority();
        let mut last = None;
        for a in addr.to_socket_addrs().map_err(io)? {
            match TcpStream::connect_timeout(&a, self.cfg.timeout) {
                Ok(s) => {
                    s.set_nodelay(true).map_err(io)?;
                    s.set_read_timeout(Some(self.cfg.timeout)).map_err(io)?;
                    s.set_write_timeout(Some(self.cfg.timeout)).map_err(io)?;
                    s.set_nonblocking(self.cfg.spin).map_err(io)?;
                    return Ok(Conn::new(Socket { tcp: s, spin: self.cfg.spin, timeout: self.cfg.timeout }));
                }
                Err(e) => last = Some(e),
            }
        }
        Err(Failure::Bad(format!(
            "cannot connect to {addr}: {}",
            last.map_or("no address".to_owned(), |e| e.to_string())
        )))
    }

    /// POSTs `self.rq.body` and reads the answer. A request on a reused
    /// connection that the server closed before answering anything is retried
    /// once on a new connection.
    fn post(&mut self, expect: Expect) -> Result<Answer, Failure> {
        self.rq.build();
        for attempt in 0..2 {
            if self.conn.is_none() {
                self.conn = Some(self.connect()?);
                self.used = 0;
            }
            let conn = self.conn.as_mut().expect("connected above");
            let outcome = exchange(conn, &self.rq.bytes, expect, &mut self.parser);
            if let Some(r) = settle(&mut self.conn, outcome, attempt, &mut self.used, &mut self.answered) {
                return r;
            }
        }
        unreachable!("the second attempt returns")
    }

    /// initialize + notifications/initialized; returns whether the server
    /// handed out a session id.
    fn handshake(&mut self) -> Result<bool, String> {
        self.rq.set_session(&self.cfg.url, None, false);
        self.rq.body.clear();
        self.rq.body.extend_from_slice(INITIALIZE.trim_ascii_end());
        let a = self.post(Expect::Response(0)).map_err(|f| format!("initialize: {f}"))?;
        let sid = check_initialize(&a)?;
        self.rq.set_session(&self.cfg.url, sid.as_deref(), true);
        self.rq.body.clear();
        self.rq.body.extend_from_slice(INITIALIZED.trim_ascii_end());
        self.post(Expect::Accepted).map_err(|f| format!("notifications/initialized: {f}"))?;
        Ok(sid.is_some())
    }
}

/// Settles one exchange for either engine: counts what the server answered, keeps or
/// drops the connection, and returns the outcome, or `None` when the server closed a
/// reused connection before answering anything (the request goes again on a new one).
fn settle<C>(
    conn: &mut Option<C>,
    outcome: Result<Answer, Failure>,
    attempt: u32,
    used: &mut u64,
    answered: &mut u64,
) -> Option<Result<Answer, Failure>> {
    match outcome {
        Ok(a) => {
            *answered += 1;
            *used += 1;
            if a.head.close {
                *conn = None;
            }
            Some(Ok(a))
        }
        Err(Failure::Io { nothing_received: true, .. }) if attempt == 0 && *used > 0 => {
            *conn = None;
            None
        }
        Err(f) => {
            if matches!(f, Failure::Bad(_)) {
                *answered += 1;
            }
            *conn = None;
            Some(Err(f))
        }
    }
}

/// One connection's client for the event-driven engine (a tokio task): the
/// same as [`Client`] over an [`AsyncConn`].
struct AsyncClient {
    sh: Arc<Shared>,
    conn: Option<AsyncConn>,
    used: u64,
    answered: u64,
    rq: Request,
    parser: ResponseParser,
}

impl AsyncClient {
    fn new(sh: Arc<Shared>) -> Self {
        let rq = Request::new(&sh.cfg);
        AsyncClient { sh, conn: None, used: 0, answered: 0, rq, parser: ResponseParser::default() }
    }

    /// [`Client::post`].
    async fn post(&mut self, expect: Expect) -> Result<Answer, Failure> {
        self.rq.build();
        for attempt in 0..2 {
            if self.conn.is_none() {
                let cfg = &self.sh.cfg;
                self.conn = Some(AsyncConn::connect_with(&cfg.url.authority(), cfg.timeout, cfg.tls.as_ref()).await?);
                self.used = 0;
            }
            let conn = self.conn.as_mut().expect("connected above");
            let outcome = conn.exchange(&self.rq.bytes, expect, &mut self.parser).await;
            if let Some(r) = settle(&mut self.conn, outcome, attempt, &mut self.used, &mut self.answered) {
                return r;
            }
        }
        unreachable!("the second attempt returns")
    }

    /// [`Client::handshake`].
    async fn handshake(&mut self) -> Result<bool, String> {
        self.rq.set_session(&self.sh.cfg.url, None, false);
        self.rq.body.clear();
        self.rq.body.extend_from_slice(INITIALIZE.trim_ascii_end());
        let a = self.post(Expect::Response(0)).await.map_err(|f| format!("initialize: {f}"))?;
        let sid = check_initialize(&a)?;
        self.rq.set_session(&self.sh.cfg.url, sid.as_deref(), true);
        self.rq.body.clear();
        self.rq.body.extend_from_slice(INITIALIZED.trim_ascii_end());
        self.post(Expect::Accepted).await.map_err(|f| format!("notifications/initialized: {f}"))?;
        Ok(sid.is_some())
    }
}

/// What one connection brings back.
#[derive(Default)]
struct ThreadOut {
    /// When it started and stopped measuring (None: never started).
    window: Option<(Instant, Instant)>,
    latencies: Vec<u64>,
    failures: u64,
    messages: Vec<String>,
    init: Option<Duration>,
    /// HTTP requests answered (handshakes, warm-up and measured calls).
    requests: u64,
    /// The answer its connection last checked in full.
    known: KnownAnswer,
}

impl ThreadOut {
    fn fail(&mut self, msg: impl FnOnce() -> String) {
        self.failures += 1;
        if self.messages.len() < KEEP_MESSAGES {
            self.messages.push(msg());
        }
    }
}

/// What all the connections of a run share.
struct Shared {
    cfg: Config,
    req: Requests,
    /// The text every answer carries, and as a JSON string.
    expected: String,
    text_json: String,
    warmup_tickets: AtomicU64,
    /// Measured calls (sessions mode: sessions).
    call_tickets: AtomicU64,
    /// Between the warm-up and the measured calls: the connections' threads
    /// (blocking engine) or the worker threads.
    barrier: Barrier,
    /// Sessions mode: sessions opened, and of those with a session id.
    opened: AtomicU64,
    with_sid: AtomicU64,
}

impl Shared {
    fn new(cfg: &Config, parties: usize) -> Self {
        Shared {
            cfg: cfg.clone(),
            req: if cfg.mrtr {
                Requests::modern_call(&cfg.tool, "{}", ELICITATION_CAPABILITIES)
            } else if cfg.modern {
                Requests::modern(&cfg.tool, &cfg.text)
            } else {
                Requests::new(&cfg.tool, &cfg.text)
            },
            expected: expected_text(cfg),
            text_json: serde_json::to_string(&expected_text(cfg)).expect("string serializes"),
            warmup_tickets: AtomicU64::new(0),
            call_tickets: AtomicU64::new(0),
            barrier: Barrier::new(parties),
            opened: AtomicU64::new(0),
            with_sid: AtomicU64::new(0),
        }
    }
}

/// The text of the answer: the echo, or in MRTR mode the greeting of the name given.
fn expected_text(cfg: &Config) -> String {
    if cfg.mrtr {
        format!("hello {}", cfg.text)
    } else {
        cfg.text.clone()
    }
}

/// A phase of calls: warm-up or measured.
struct Phase<'a> {
    /// Shared ticket counter; ticket `t` is call id `first + t`.
    tickets: &'a AtomicU64,
    /// Tickets available (calls in the phase, over all connections).
    limit: u64,
    first: u64,
    deadline: Option<Instant>,
    /// Record latencies.
    measure: bool,
    /// The wait after each call (`--pause`; measured calls only).
    pause: Option<Duration>,
}

impl Phase<'_> {
    fn warmup(sh: &Shared) -> Phase<'_> {
        let deadline = Some(Instant::now() + WARMUP_MAX);
        Phase { tickets: &sh.warmup_tickets, limit: sh.cfg.warmup, first: 1, deadline, measure: false, pause: None }
    }

    fn measured(sh: &Shared, start: Instant) -> Phase<'_> {
        let deadline = sh.cfg.duration.map(|d| start + d);
        Phase {
            tickets: &sh.call_tickets,
            limit: sh.cfg.calls,
            first: 1 + sh.cfg.warmup,
            deadline,
            measure: true,
            pause: sh.cfg.pause,
        }
    }

    /// The id of the next call, if the phase goes on; its request in `body`.
    fn next(&self, sh: &Shared, body: &mut Vec<u8>) -> Option<u64> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let t = self.tickets.fetch_add(1, Ordering::Relaxed);
        if t >= self.limit {
            return None;
        }
        let id = self.first + t;
        body.clear();
        sh.req.push(body, id);
        body.pop(); // the newline
        Some(id)
    }

    /// Checks the answer to call `id`; `false`: stop (the server is gone, no
    /// point spinning through the tickets).
    fn record(&self, sh: &Shared, out: &mut ThreadOut, id: u64, sent: Instant, r: Result<Answer, Failure>) -> bool {
        match r {
            Ok(a) => match out.known.check(&a.message, id, &sh.expected, &sh.text_json) {
                Ok(()) => {
                    if self.measure {
                        out.latencies.push(a.at.duration_since(sent).as_nanos() as u64);
                    }
                }
                Err(m) => out.fail(|| format!("call {id}: {m}")),
            },
            Err(f) => {
                let fatal = matches!(&f, Failure::Bad(m) if m.starts_with("cannot connect"));
                out.fail(|| format!("call {id}: {f}"));
                return !fatal;
            }
        }
        true
    }
}

/// Makes calls while tickets last (and before the deadline).
fn calls(client: &mut Client<'_>, sh: &Shared, phase: Phase<'_>, out: &mut ThreadOut) {
    while let Some(id) = phase.next(sh, &mut client.rq.body) {
        let sent = Instant::now();
        let r = client.post(Expect::Response(id));
        if !phase.record(sh, out, id, sent, r) {
            return;
        }
        if let Some(p) = phase.pause {
            thread::sleep(p);
        }
    }
}

/// [`calls`] on the event-driven engine.
async fn calls_async(client: &mut AsyncClient, sh: &Shared, phase: Phase<'_>, out: &mut ThreadOut) {
    while let Some(id) = phase.next(sh, &mut client.rq.body) {
        let sent = Instant::now();
        let mut r = client.post(Expect::Response(id)).await;
        if sh.cfg.mrtr {
            r = retry_with_input(client, sh, id, r).await;
        }
        if !phase.record(sh, out, id, sent, r) {
            return;
        }
        if let Some(p) = phase.pause {
            tokio::time::sleep(p).await;
        }
    }
}

/// MRTR: the answer to the first round must be `input_required`; the retry answering
/// its elicitations goes out on the same connection, and its answer is the call's.
async fn retry_with_input(
    client: &mut AsyncClient,
    sh: &Shared,
    id: u64,
    first: Result<Answer, Failure>,
) -> Result<Answer, Failure> {
    let (keys, state) = input_required(&first?.message, id).map_err(|m| Failure::Bad(format!("first round: {m}")))?;
    mrtr_retry(&mut client.rq.body, id, &sh.cfg.tool, &keys, state.as_deref(), &sh.cfg.text);
    client.post(Expect::Response(id)).await
}

/// Blocking engine: one connection, on its own thread.
fn connection_thread(sh: &Shared) -> ThreadOut {
    let cfg = &sh.cfg;
    let mut out = ThreadOut { latencies: Vec::with_capacity(4096), ..ThreadOut::default() };
    let mut client = Client::new(cfg);
    let t0 = Instant::now();
    let ready = if cfg.stateless { Ok(false) } else { client.handshake().inspect(|_| out.init = Some(t0.elapsed())) };
    if let Err(m) = &ready {
        out.fail(|| format!("handshake: {m}"));
    } else {
        calls(&mut client, sh, Phase::warmup(sh), &mut out);
    }
    sh.barrier.wait();
    if ready.is_err() {
        out.requests = client.answered;
        return out;
    }
    let start = Instant::now();
    calls(&mut client, sh, Phase::measured(sh, start), &mut out);
    out.window = Some((start, Instant::now()));
    out.requests = client.answered;
    out
}

/// Event-driven engine, one connection's task, first part: handshake and
/// warm-up. Returns the client and whether it is ready for the measured calls.
async fn warmup_task(sh: Arc<Shared>) -> (AsyncClient, ThreadOut, bool) {
    let mut out = ThreadOut { latencies: Vec::with_capacity(4096), ..ThreadOut::default() };
    let mut client = AsyncClient::new(sh.clone());
    let t0 = Instant::now();
    let ready =
        if sh.cfg.stateless { Ok(false) } else { client.handshake().await.inspect(|_| out.init = Some(t0.elapsed())) };
    if let Err(m) = &ready {
        out.fail(|| format!("handshake: {m}"));
    } else {
        calls_async(&mut client, &sh, Phase::warmup(&sh), &mut out).await;
    }
    (client, out, ready.is_ok())
}

/// Second part, after all the connections are warm: the measured calls.
async fn measured_task(mut client: AsyncClient, mut out: ThreadOut, ready: bool) -> ThreadOut {
    if ready {
        let sh = client.sh.clone();
        let start = Instant::now();
        calls_async(&mut client, &sh, Phase::measured(&sh, start), &mut out).await;
        out.window = Some((start, Instant::now()));
    }
    out.requests = client.answered;
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("building a tokio runtime")
}

/// Event-driven engine: one worker thread running `conns` connections as
/// tasks of a current_thread runtime.
fn worker_thread(sh: &Arc<Shared>, conns: usize) -> Vec<ThreadOut> {
    let rt = runtime();
    let warm = rt.block_on(async {
        let tasks: Vec<_> = (0..conns).map(|_| tokio::spawn(warmup_task(sh.clone()))).collect();
        let mut warm = Vec::with_capacity(conns);
        for t in tasks {
            warm.push(t.await.expect("connection task panicked"));
        }
        warm
    });
    sh.barrier.wait();
    rt.block_on(async {
        let tasks: Vec<_> =
            warm.into_iter().map(|(client, out, ready)| tokio::spawn(measured_task(client, out, ready))).collect();
        let mut outs = Vec::with_capacity(conns);
        for t in tasks {
            outs.push(t.await.expect("connection task panicked"));
        }
        outs
    })
}

/// How many of `n` connections worker `k` of `threads` runs.
fn share(n: u64, threads: usize, k: usize) -> usize {
    let (n, t) = (n as usize, threads);
    n / t + usize::from(k < n % t)
}

/// Worker threads of the event-driven engine (no more than connections).
fn workers(cfg: &Config) -> usize {
    cfg.threads.min(cfg.connections as usize)
}

/// One run: the summary, successful calls, HTTP requests answered and the
/// first failure messages.
struct RunResult {
    summary: Summary,
    ok: u64,
    requests: u64,
    /// httpload's own CPU time (all threads, user + system) per request, µs.
    client_cpu_us: Option<f64>,
    messages: Vec<String>,
}

/// User + system CPU time of this process so far, in µs (Linux: `/proc/self/stat`,
/// in USER_HZ = 100 ticks per second).
fn self_cpu_us() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_ascii_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 * 1e4)
}

fn run_once(cfg: &Config) -> RunResult {
    let cpu_before = self_cpu_us();
    let threads = workers(cfg);
    let sh = Arc::new(Shared::new(cfg, if cfg.blocking { cfg.connections as usize } else { threads }));
    let outs: Vec<ThreadOut> = thread::scope(|s| {
        if cfg.blocking {
            let handles: Vec<_> = (0..cfg.connections)
                .map(|_| thread::Builder::new().stack_size(256 * 1024).spawn_scoped(s, || connection_thread(&sh)))
                .collect::<Result<_, _>>()
                .expect("spawning a connection thread");
            handles.into_iter().map(|h| h.join().expect("connection thread panicked")).collect()
        } else {
            let sh = &sh;
            let handles: Vec<_> =
                (0..threads).map(|k| s.spawn(move || worker_thread(sh, share(cfg.connections, threads, k)))).collect();
            handles.into_iter().flat_map(|h| h.join().expect("worker thread panicked")).collect()
        }
    });
    let mut lat: Vec<u64> = Vec::new();
    let mut failures = 0;
    let mut messages = Vec::new();
    let mut inits = Vec::new();
    let mut requests = 0;
    let (mut first, mut last): (Option<Instant>, Option<Instant>) = (None, None);
    for o in outs {
        lat.extend_from_slice(&o.latencies);
        failures += o.failures;
        requests += o.requests;
        for m in o.messages {
            if messages.len() < KEEP_MESSAGES {
                messages.push(m);
            }
        }
        inits.push(o.init.map(|d| d.as_secs_f64() * 1e3));
        if let Some((a, b)) = o.window {
            first = Some(first.map_or(a, |f| f.min(a)));
            last = Some(last.map_or(b, |l| l.max(b)));
        }
    }
    lat.sort_unstable();
    let ok = lat.len() as u64;
    // Calls neither answered nor failed (every connection gave up early).
    if cfg.duration.is_none() {
        let made = sh.call_tickets.load(Ordering::Relaxed).min(cfg.calls);
        failures += cfg.calls - made.max(ok);
    }
    let secs = match (first, last) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    };
    let summary = Summary {
        calls: cfg.calls,
        inflight: cfg.connections,
        calls_per_s: if secs > 0.0 { ok as f64 / secs } else { 0.0 },
        p50_us: percentile_us(&lat, 0.50),
        p99_us: percentile_us(&lat, 0.99),
        max_us: lat.last().map(|&ns| ns as f64 / 1e3),
        init_ms: hypermcp_loadgen::stats::median(inits),
        failures,
    };
    let client_cpu_us = match (cpu_before, self_cpu_us()) {
        (Some(a), Some(b)) if requests > 0 => Some((b - a) / requests as f64),
        _ => None,
    };
    RunResult { summary, ok, requests, client_cpu_us, messages }
}

/// Appends `,"name":value` members (values already JSON) to a JSON object.
fn with_members(json: String, members: &[(&str, String)]) -> String {
    let mut j = json;
    j.pop();
    for (name, value) in members {
        j.push_str(&format!(",\"{name}\":{value}"));
    }
    j.push('}');
    j
}

/// Over https://, the `"tls"` member: the protocol version and cipher suite negotiated.
fn tls_member(cfg: &Config) -> Option<(&'static str, String)> {
    let n = cfg.tls.as_ref()?.negotiated().unwrap_or("?");
    Some(("tls", serde_json::to_string(n).expect("string serializes")))
}

fn run_calls(cfg: &Config) -> ExitCode {
    if !cfg.json {
        println!(
            "httpload: {} {}://{}{}: {} calls{} (+{} warmup), {} connection(s) ({}), {} run(s){}",
            cfg.tool,
            if cfg.url.tls { "https" } else { "http" },
            cfg.url.authority(),
            cfg.url.path,
            cfg.calls,
            cfg.duration.map_or(String::new(), |d| format!(" or {:.1} s", d.as_secs_f64())),
            cfg.warmup,
            cfg.connections,
            if cfg.spin {
                "blocking, a thread each, spinning".to_owned()
            } else if cfg.blocking {
                "blocking, a thread each".to_owned()
            } else {
                format!("event-driven, {} thread(s)", workers(cfg))
            },
            cfg.runs,
            if cfg.mrtr {
                ", 2026-07-28, multi round-trip"
            } else if cfg.modern {
                ", 2026-07-28"
            } else if cfg.stateless {
                ", stateless"
            } else {
                ""
            }
        );
    }
    let mut summaries = Vec::new();
    let mut oks = Vec::new();
    let mut total_requests = 0;
    let mut cpus = Vec::new();
    let mut failed = false;
    for run in 1..=cfg.runs {
        let RunResult { summary: s, ok, requests, client_cpu_us, messages } = run_once(cfg);
        let cpu_json = client_cpu_us.map_or("null".to_owned(), |c| format!("{c:.1}"));
        for m in &messages {
            eprintln!("httpload: run {run}: failure: {m}");
        }
        if s.failures > messages.len() as u64 {
            eprintln!("httpload: run {run}: {} failures in total", s.failures);
        }
        failed |= s.failures > 0 || ok == 0;
        if ok == 0 {
            eprintln!("httpload: run {run}: no successful call");
        }
        if cfg.json {
            let json = s.to_json(&format!("\"run\":{run},\"connections\":{},", cfg.connections), "http");
            let mut members =
                vec![("ok", ok.to_string()), ("requests", requests.to_string()), ("client_cpu_us", cpu_json)];
            members.extend(tls_member(cfg));
            println!("{}", with_members(json, &members));
        } else {
            println!("run {run}/{}: {}  ok {ok}  client CPU {cpu_json} µs/request", cfg.runs, s.to_text());
        }
        summaries.push(s);
        oks.push(Some(ok as f64));
        total_requests += requests;
        cpus.push(client_cpu_us);
    }
    if summaries.len() > 1 {
        let med = median_summary(&summaries);
        let ok = hypermcp_loadgen::stats::median(oks).unwrap_or(0.0) as u64;
        if cfg.json {
            println!(
                "{}",
                with_members(
                    med.to_json(
                        &format!("\"median_of\":{},\"connections\":{},", summaries.len(), cfg.connections),
                        "http"
                    ),
                    &[
                        ("ok", ok.to_string()),
                        ("requests", total_requests.to_string()),
                        (
                            "client_cpu_us",
                            hypermcp_loadgen::stats::median(cpus).map_or("null".to_owned(), |c| format!("{c:.1}"))
                        ),
                    ]
                    .into_iter()
                    .chain(tls_member(cfg))
                    .collect::<Vec<_>>()
                )
            );
        } else {
            println!("median of {}: {}", summaries.len(), med.to_text());
        }
    }
    if failed {
        eprintln!("httpload: FAILED (see messages above)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Counts a session handshake; `false`: stop (the server is gone).
fn session_done(sh: &Shared, out: &mut ThreadOut, r: Result<bool, String>) -> bool {
    match r {
        Ok(sid) => {
            sh.opened.fetch_add(1, Ordering::Relaxed);
            if sid {
                sh.with_sid.fetch_add(1, Ordering::Relaxed);
            }
            true
        }
        Err(m) => {
            let fatal = m.contains("cannot connect");
            out.fail(|| m);
            !fatal
        }
    }
}

/// Event-driven engine, sessions mode: one worker thread opening sessions on
/// `conns` connections.
fn sessions_worker(sh: &Arc<Shared>, n: u64, conns: usize) -> Vec<ThreadOut> {
    runtime().block_on(async {
        let tasks: Vec<_> = (0..conns)
            .map(|_| {
                let sh = sh.clone();
                tokio::spawn(async move {
                    let mut out = ThreadOut::default();
                    let mut client = AsyncClient::new(sh.clone());
                    while sh.call_tickets.fetch_add(1, Ordering::Relaxed) < n {
                        if !session_done(&sh, &mut out, client.handshake().await) {
                            break;
                        }
                    }
                    out
                })
            })
            .collect();
        let mut outs = Vec::with_capacity(conns);
        for t in tasks {
            outs.push(t.await.expect("session task panicked"));
        }
        outs
    })
}

fn run_sessions(cfg: &Config, n: u64) -> ExitCode {
    let threads = workers(cfg);
    let sh = Arc::new(Shared::new(cfg, 1));
    let start = Instant::now();
    let outs: Vec<ThreadOut> = thread::scope(|s| {
        let sh = &sh;
        if cfg.blocking {
            let handles: Vec<_> = (0..cfg.connections)
                .map(|_| {
                    s.spawn(move || {
                        let mut out = ThreadOut::default();
                        let mut client = Client::new(cfg);
                        while sh.call_tickets.fetch_add(1, Ordering::Relaxed) < n {
                            if !session_done(sh, &mut out, client.handshake()) {
                                break;
                            }
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("session thread panicked")).collect()
        } else {
            let handles: Vec<_> = (0..threads)
                .map(|k| s.spawn(move || sessions_worker(sh, n, share(cfg.connections, threads, k))))
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("worker thread panicked")).collect()
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let opened = sh.opened.load(Ordering::Relaxed);
    let with_sid = sh.with_sid.load(Ordering::Relaxed);
    let failures = n - opened;
    for m in outs.iter().flat_map(|o| &o.messages).take(KEEP_MESSAGES) {
        eprintln!("httpload: failure: {m}");
    }
    if cfg.json {
        println!(
            "{{\"mode\":\"sessions\",\"sessions\":{n},\"opened\":{opened},\"with_session_id\":{with_sid},\"failures\":{failures},\"secs\":{secs:.3},\"sessions_per_s\":{:.1}}}",
            opened as f64 / secs.max(1e-9)
        );
    } else {
        println!(
            "httpload: opened {opened}/{n} sessions ({with_sid} with a session id) in {secs:.2} s ({:.0}/s), {failures} failures",
            opened as f64 / secs.max(1e-9)
        );
    }
    if with_sid < opened {
        eprintln!("httpload: note: {} session(s) got no Mcp-Session-Id (a stateless server?)", opened - with_sid);
    }
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_listeners(cfg: &Config, n: u64) -> ExitCode {
    use hypermcp_loadgen::listen::{run, ListenConfig};
    let lc = ListenConfig {
        url: cfg.url.clone(),
        listeners: n,
        triggers: cfg.triggers,
        tool: cfg.tool.clone(),
        timeout: cfg.timeout,
        pid: cfg.pid,
    };
    if run(&lc).print("httpload", "http", n, cfg.json, cfg.triggers) {
        ExitCode::SUCCESS
    } else {
        eprintln!("httpload: FAILED (see messages above)");
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let mut cfg = match parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(cfg)) => cfg,
        Ok(Parsed::Help) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("httpload: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(ca) = &cfg.ca_file {
        match Tls::new(ca, &cfg.url.host) {
            Ok(tls) => cfg.tls = Some(tls),
            Err(e) => {
                eprintln!("httpload: {e}");
                return ExitCode::from(2);
            }
        }
    }
    match (cfg.sessions, cfg.listeners) {
        (Some(n), _) => run_sessions(&cfg, n),
        (None, Some(n)) => run_listeners(&cfg, n),
        (None, None) => run_calls(&cfg),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Parsed, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn options() {
        let Parsed::Run(c) = p(&["--url", "http://127.0.0.1:9/mcp"]).unwrap() else { panic!() };
        assert_eq!((c.connections, c.calls, c.warmup, c.runs), (1, 20_000, 1_000, 1));
        assert!(c.duration.is_none() && !c.stateless && !c.json && c.sessions.is_none());
        let Parsed::Run(c) = p(&[
            "--url=http://localhost:8/x",
            "--connections",
            "50",
            "--calls=1_000",
            "--duration",
            "2.5",
            "--warmup",
            "0",
            "--runs",
            "3",
            "--stateless",
            "--json",
        ])
        .unwrap() else {
            panic!()
        };
        assert_eq!((c.connections, c.calls, c.warmup, c.runs), (50, 1000, 0, 3));
        assert_eq!(c.duration, Some(Duration::from_millis(2500)));
        assert!(c.stateless && c.json);
        assert_eq!(c.url.port, 8);
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--sessions", "2000", "--idle-only"]).unwrap() else {
            panic!()
        };
        assert_eq!(c.sessions, Some(2000));
        assert!(!c.blocking && c.threads == 1);
        let Parsed::Run(c) =
            p(&["--url", "http://h:1/", "--threads", "2", "--blocking", "--connections", "3"]).unwrap()
        else {
            panic!()
        };
        assert!(c.blocking && c.threads == 2 && !c.spin);
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--blocking", "--spin"]).unwrap() else { panic!() };
        assert!(c.blocking && c.spin && c.pause.is_none());
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--pause", "2.5"]).unwrap() else { panic!() };
        assert_eq!(c.pause, Some(Duration::from_micros(2500)));
        assert!(p(&["--url", "http://h:1/", "--pause", "-1"]).is_err());
        assert!(p(&["--url", "http://h:1/", "--spin"]).is_err_and(|e| e.contains("--blocking")));
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--threads", "8", "--connections", "3"]).unwrap() else {
            panic!()
        };
        assert_eq!(workers(&c), 3);
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--mrtr"]).unwrap() else { panic!() };
        assert!(c.modern && c.stateless && c.tool == "ask");
        let Parsed::Run(c) = p(&["--url", "http://h:1/", "--listeners", "10", "--pid", "7", "--tool", "t"]).unwrap()
        else {
            panic!()
        };
        assert!(c.modern && c.listeners == Some(10) && c.pid == Some(7) && c.tool == "t");
        let Parsed::Run(c) = p(&[
            "--url",
            "https://127.0.0.1:8443/mcp",
            "--ca-file",
            "ca.pem",
            "--bearer",
            "a.b.c",
            "--header=X-Trace: 1",
        ])
        .unwrap() else {
            panic!()
        };
        assert!(c.url.tls && c.ca_file == Some(PathBuf::from("ca.pem")));
        assert_eq!(c.headers, "Authorization: Bearer a.b.c\r\nX-Trace: 1\r\n");
        let mut rq = Request::new(&c);
        rq.set_session(&c.url, Some("s1"), true);
        let head = String::from_utf8(rq.head).unwrap();
        assert!(head.contains("Host: 127.0.0.1:8443\r\n"), "{head}");
        assert!(head.contains("\r\nAuthorization: Bearer a.b.c\r\nX-Trace: 1\r\nMcp-Session-Id: s1\r\n"), "{head}");
    }

    #[test]
    fn connections_spread_over_workers() {
        for (n, t) in [(1, 1), (50, 1), (50, 2), (50, 3), (7, 7), (5, 2)] {
            let shares: Vec<usize> = (0..t).map(|k| share(n, t, k)).collect();
            assert_eq!(shares.iter().sum::<usize>(), n as usize, "{n} over {t}");
            assert!(shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 1);
        }
    }

    #[test]
    fn errors() {
        for bad in [
            &["--calls", "1"][..],
            &["--url", "https://h/"],
            &["--url", "http://h:1/", "--ca-file", "ca.pem"],
            &["--url", "https://h/", "--ca-file", "ca.pem", "--blocking"],
            &["--url", "http://h:1/", "--listeners", "5", "--bearer", "t"],
            &["--url", "http://h:1/", "--bearer", "two words"],
            &["--url", "http://h:1/", "--bearer", ""],
            &["--url", "http://h:1/", "--header", "no colon"],
            &["--url", "http://h:1/", "--header", ": empty name"],
            &["--url", "http://h:1/", "--header", "A: b\r\nC: d"],
            &["--url", "http://h:1/", "--connections", "0"],
            &["--url", "http://h:1/", "--sessions", "5"],
            &["--url", "http://h:1/", "--idle-only"],
            &["--url", "http://h:1/", "--sessions", "5", "--idle-only", "--stateless"],
            &["--url", "http://h:1/", "--duration", "0"],
            &["--url", "http://h:1/", "--json=1"],
            &["--url", "http://h:1/", "--blocking=yes"],
            &["--url", "http://h:1/", "--threads", "0"],
            &["--url", "http://h:1/", "--bogus"],
            &["--url", "http://h:1/", "--mrtr", "--blocking"],
            &["--url", "http://h:1/", "--listeners", "0"],
            &["--url", "http://h:1/", "--pid", "1"],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(p(&["-h"]), Ok(Parsed::Help)));
    }
}
