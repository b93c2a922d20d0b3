//! `subscriptions/listen` fan-out (2026-07-28), for `httpload --listeners N`: N
//! streams open at once (one connection each, `notifications/tools/list_changed`
//! asked for), then a tool call on one more connection changes the server's tool
//! list, and the time until every stream has its notification is taken. With the
//! server's process group, its memory per idle listener is read too.
//!
//! All on one current_thread runtime: the listeners are tasks that parse their SSE
//! streams and report to the coordinator over a channel.

use crate::async_http::AsyncConn;
use crate::http::{check_echo, Body, Expect, HeadParser, ResponseParser, SseParser, Url};
use crate::procfs::tree_rss_kb;
use crate::request::{listen_request, Requests, MODERN_VERSION};

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch, Semaphore};

/// Streams being opened at once (connect until acknowledgement): more would overflow
/// the server's accept backlog, and a dropped SYN costs a second before its retry.
const OPENING: usize = 64;

/// What the fan-out is asked to do.
#[derive(Debug, Clone)]
pub struct ListenConfig {
    /// The MCP endpoint.
    pub url: Url,
    /// Streams to open.
    pub listeners: u64,
    /// Trigger calls, one after another.
    pub triggers: u32,
    /// The tool that changes the tool list.
    pub tool: String,
    /// Connect, acknowledgement and delivery timeout.
    pub timeout: Duration,
    /// The server's process, for its memory (with its descendants').
    pub pid: Option<u32>,
}

/// What it measured.
#[derive(Debug, Default)]
pub struct ListenReport {
    /// Streams acknowledged.
    pub acknowledged: u64,
    /// From the first connect until the last acknowledgement.
    pub open: Duration,
    /// VmRSS of the server's process group (kB) before and after the streams opened.
    pub rss_kb: Option<(u64, u64)>,
    /// Per trigger: the time until the last stream had its notification, and the median
    /// stream's.
    pub deliveries: Vec<(Duration, Duration)>,
    /// Failed streams, acknowledgements or triggers.
    pub failures: u64,
    /// The first failures, described.
    pub messages: Vec<String>,
}

impl ListenReport {
    fn fail(&mut self, m: String) {
        self.failures += 1;
        if self.messages.len() < 5 {
            self.messages.push(m);
        }
    }

    /// Bytes of server memory per listener.
    pub fn bytes_per_listener(&self) -> Option<f64> {
        let (a, b) = self.rss_kb?;
        (self.acknowledged > 0).then(|| (b as f64 - a as f64) * 1024.0 / self.acknowledged as f64)
    }

    /// Whether everything asked was done without a failure.
    fn ok(&self, triggers: u32) -> bool {
        self.failures == 0 && self.deliveries.len() >= triggers as usize
    }

    /// The medians over the triggers (ms): until the last stream, the median stream; and the
    /// slowest trigger's time until the last stream.
    fn times_ms(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let ms = |d: &Duration| Some(d.as_secs_f64() * 1e3);
        let all = crate::stats::median(self.deliveries.iter().map(|(a, _)| ms(a)).collect::<Vec<_>>());
        let p50 = crate::stats::median(self.deliveries.iter().map(|(_, p)| ms(p)).collect::<Vec<_>>());
        let max = self.deliveries.iter().filter_map(|(a, _)| ms(a)).reduce(f64::max);
        (all, p50, max)
    }

    /// One flat JSON object (the `--json` output of `httpload` and `loadgen --listeners`).
    fn to_json(&self, transport: &str, listeners: u64) -> String {
        let num = |x: Option<f64>, d: usize| x.map_or("null".to_owned(), |x| format!("{x:.d$}"));
        let (all, p50, max) = self.times_ms();
        let (before, after) = self.rss_kb.map_or((None, None), |(a, b)| (Some(a as f64), Some(b as f64)));
        format!(
            "{{\"mode\":\"listeners\",\"transport\":\"{transport}\",\"listeners\":{listeners},\"acknowledged\":{},\"open_ms\":{:.1},\"rss_kb_before\":{},\"rss_kb_after\":{},\"bytes_per_listener\":{},\"triggers\":{},\"all_ms\":{},\"p50_ms\":{},\"max_all_ms\":{},\"failures\":{}}}",
            self.acknowledged,
            self.open.as_secs_f64() * 1e3,
            num(before, 0),
            num(after, 0),
            num(self.bytes_per_listener(), 0),
            self.deliveries.len(),
            num(all, 2),
            num(p50, 2),
            num(max, 2),
            self.failures
        )
    }

    /// The failures on stderr, then the report on stdout (one JSON object, or a line for
    /// people), both tagged `prog`; whether everything asked was done without a failure.
    pub fn print(&self, prog: &str, transport: &str, listeners: u64, json: bool, triggers: u32) -> bool {
        for m in &self.messages {
            eprintln!("{prog}: failure: {m}");
        }
        if json {
            println!("{}", self.to_json(transport, listeners));
        } else {
            println!("{prog}: {}", self.to_text(listeners));
        }
        self.ok(triggers)
    }

    /// One line for people.
    fn to_text(&self, listeners: u64) -> String {
        let num = |x: Option<f64>, d: usize| x.map_or("-".to_owned(), |x| format!("{x:.d$}"));
        let (all, p50, max) = self.times_ms();
        format!(
            "{}/{listeners} listeners acknowledged in {:.1} ms; {} bytes per listener; {} trigger(s): all notified in {} ms (median; max {} ms), median stream {} ms; {} failure(s)",
            self.acknowledged,
            self.open.as_secs_f64() * 1e3,
            num(self.bytes_per_listener(), 0),
            self.deliveries.len(),
            num(all, 2),
            num(max, 2),
            num(p50, 2),
            self.failures
        )
    }
}

/// A 2026-07-28 POST of `body` (method `method`, name `name`) to `url`, head and body.
fn post(url: &Url, method: &str, name: Option<&str>, body: &[u8]) -> Vec<u8> {
    let name = name.map_or(String::new(), |n| format!("Mcp-Name: {n}\r\n"));
    let mut request = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: {MODERN_VERSION}\r\nMcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n",
        url.path,
        url.authority(),
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

enum Event {
    Acked,
    Changed(u64, Instant),
    Failed(u64, String),
}

/// One stream: sends the listen request, then reports its acknowledgement and every
/// `list_changed` until `stop`.
async fn listener(
    id: u64,
    cfg: ListenConfig,
    opening: std::sync::Arc<Semaphore>,
    tx: mpsc::UnboundedSender<Event>,
    mut stop: watch::Receiver<bool>,
) {
    let mut permit = Some(opening.acquire_owned().await.expect("never closed"));
    let fail = |m: String| {
        let _ = tx.send(Event::Failed(id, m));
    };
    let mut stream = match tokio::time::timeout(cfg.timeout, TcpStream::connect(cfg.url.authority())).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return fail(format!("connect: {e}")),
        Err(_) => return fail("connect: timed out".into()),
    };
    let _ = stream.set_nodelay(true);
    let request = post(&cfg.url, "subscriptions/listen", None, &listen_request(id));
    if let Err(e) = stream.write_all(&request).await {
        return fail(format!("send: {e}"));
    }
    let mut heads = HeadParser::default();
    let mut state: Option<Body> = None;
    let (mut line, mut data, mut sse) = (Vec::new(), Vec::new(), SseParser::default());
    let mut buf = vec![0u8; 4096];
    let mut acked = false;
    loop {
        let n = tokio::select! {
            r = stream.read(&mut buf) => match r {
                Ok(0) => return fail(if acked { "the stream ended" } else { "closed before the acknowledgement" }.into()),
                Ok(n) => n,
                Err(e) => return fail(format!("read: {e}")),
            },
            _ = stop.changed() => return,
        };
        let mut input = &buf[..n];
        if state.is_none() {
            match heads.feed(input) {
                Ok((used, Some(head))) => {
                    if head.status != 200 || !head.is_sse() {
                        return fail(format!(
                            "HTTP {} {:?} instead of an event stream",
                            head.status, head.content_type
                        ));
                    }
                    state = Some(head.body());
                    input = &input[used..];
                }
                Ok((_, None)) => continue,
                Err(e) => return fail(format!("head: {e}")),
            }
        }
        let body = state.as_mut().expect("set above");
        if let Err(e) = body.decode(&mut line, input, &mut data) {
            return fail(format!("body: {e}"));
        }
        let mut bad = None;
        let now = Instant::now();
        let fed = sse.feed(&data, &mut |event| {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(event) else {
                bad = Some(format!("not JSON: {}", String::from_utf8_lossy(event)));
                return;
            };
            match v.get("method").and_then(|m| m.as_str()) {
                Some("notifications/subscriptions/acknowledged") if !acked => {
                    acked = true;
                    permit = None;
                    let _ = tx.send(Event::Acked);
                }
                Some("notifications/tools/list_changed") if acked => {
                    let _ = tx.send(Event::Changed(id, now));
                }
                _ => bad = Some(format!("unexpected message: {v}")),
            }
        });
        data.clear();
        if let Err(e) = fed {
            return fail(format!("SSE: {e}"));
        }
        if let Some(m) = bad {
            return fail(m);
        }
        if *body == Body::Done {
            return fail("the stream ended".into());
        }
    }
}

/// Opens the streams, measures memory, fires the triggers.
pub fn run(cfg: &ListenConfig) -> ListenReport {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("building a tokio runtime");
    rt.block_on(fan_out(cfg))
}

async fn fan_out(cfg: &ListenConfig) -> ListenReport {
    let mut report = ListenReport::default();
    let rss_before = cfg.pid.and_then(tree_rss_kb);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let start = Instant::now();
    let opening = std::sync::Arc::new(Semaphore::new(OPENING));
    let tasks: Vec<_> = (1..=cfg.listeners)
        .map(|id| tokio::spawn(listener(id, cfg.clone(), opening.clone(), tx.clone(), stop_rx.clone())))
        .collect();
    drop(tx);
    let mut changed_early = Vec::new();
    while report.acknowledged < cfg.listeners {
        match tokio::time::timeout(cfg.timeout, rx.recv()).await {
            Ok(Some(Event::Acked)) => report.acknowledged += 1,
            Ok(Some(Event::Failed(id, m))) => report.fail(format!("listener {id}: {m}")),
            Ok(Some(Event::Changed(id, _))) => changed_early.push(id),
            Ok(None) => break,
            Err(_) => {
                report.fail(format!(
                    "{} of {} streams acknowledged within {:?}",
                    report.acknowledged, cfg.listeners, cfg.timeout
                ));
                break;
            }
        }
        if report.acknowledged + report.failures >= cfg.listeners {
            break;
        }
    }
    report.open = start.elapsed();
    if !changed_early.is_empty() {
        report.fail(format!("{} list_changed before any trigger", changed_early.len()));
    }
    if report.failures == 0 {
        // Let the server settle (buffers allocated on the first write, etc.) before reading memory.
        tokio::time::sleep(Duration::from_millis(500)).await;
        report.rss_kb = rss_before.zip(cfg.pid.and_then(tree_rss_kb));
        trigger_all(cfg, &mut report, &mut rx).await;
    }
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    report
}

/// Calls the trigger tool `cfg.triggers` times; after each, waits until every stream
/// had its notification.
async fn trigger_all(cfg: &ListenConfig, report: &mut ListenReport, rx: &mut mpsc::UnboundedReceiver<Event>) {
    let mut conn = match AsyncConn::connect(&cfg.url.authority(), cfg.timeout).await {
        Ok(c) => c,
        Err(f) => return report.fail(format!("trigger connection: {f}")),
    };
    let requests = Requests::modern_call(&cfg.tool, "{}", "{}");
    let mut parser = ResponseParser::default();
    let n = report.acknowledged as usize;
    for k in 1..=u64::from(cfg.triggers) {
        let mut body = Vec::new();
        requests.push(&mut body, k);
        body.pop();
        let request = post(&cfg.url, "tools/call", Some(&cfg.tool), &body);
        let sent = Instant::now();
        match conn.exchange(&request, Expect::Response(k), &mut parser).await {
            Ok(a) => {
                if let Err(m) = check_echo(&a.message, k, "touched", "\"touched\"") {
                    return report.fail(format!("trigger {k}: {m}"));
                }
            }
            Err(f) => return report.fail(format!("trigger {k}: {f}")),
        }
        let mut seen = vec![false; cfg.listeners as usize + 1];
        let mut times = Vec::with_capacity(n);
        while times.len() < n {
            match tokio::time::timeout(cfg.timeout, rx.recv()).await {
                Ok(Some(Event::Changed(id, at))) if !seen[id as usize] => {
                    seen[id as usize] = true;
                    times.push(at.saturating_duration_since(sent));
                }
                Ok(Some(Event::Changed(..) | Event::Acked)) => {}
                Ok(Some(Event::Failed(id, m))) => return report.fail(format!("listener {id}: {m}")),
                Ok(None) => return report.fail("every listener is gone".into()),
                Err(_) => {
                    return report.fail(format!(
                        "trigger {k}: {} of {n} streams notified within {:?}",
                        times.len(),
                        cfg.timeout
                    ))
                }
            }
        }
        times.sort_unstable();
        report.deliveries.push((times[n - 1], times[n / 2]));
        // Notifications of one change that come late or twice are drained before the next.
        tokio::time::sleep(Duration::from_millis(100)).await;
        while let Ok(e) = rx.try_recv() {
            if let Event::Failed(id, m) = e {
                return report.fail(format!("listener {id}: {m}"));
            }
        }
    }
}

/// The same fan-out over stdio, where every stream shares the one connection: spawns
/// `command`, sends `listeners` `subscriptions/listen` requests, waits for every
/// acknowledgement (matched by `io.modelcontextprotocol/subscriptionId`), reads the
/// child's memory, then calls `tool` `triggers` times and times each until every
/// subscription has its `list_changed`. The memory is the child's VmRSS, with its
/// descendants'.
pub fn run_stdio(command: &[String], listeners: u64, triggers: u32, tool: &str, timeout: Duration) -> ListenReport {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let mut report = ListenReport::default();
    let mut child = match Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            report.fail(format!("cannot start {:?}: {e}", command[0]));
            return report;
        }
    };
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    // Lines in, events out: (subscription id or response id, what, when).
    let (tx, rx) = std::sync::mpsc::channel::<(u64, &'static str, Instant)>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let now = Instant::now();
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
            let sub = v.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId").and_then(|s| s.as_u64());
            let what = match (v.get("method").and_then(|m| m.as_str()), sub) {
                (Some("notifications/subscriptions/acknowledged"), Some(_)) => "ack",
                (Some("notifications/tools/list_changed"), Some(_)) => "changed",
                (None, _) if v.get("error").is_some() => "error",
                (None, _) => "response",
                _ => continue,
            };
            let id = sub.or_else(|| v.get("id").and_then(|i| i.as_u64())).unwrap_or(0);
            if tx.send((id, what, now)).is_err() {
                break;
            }
        }
    });
    let call = |id: u64, name: &str, arguments: &str| {
        let mut line = Vec::new();
        Requests::modern_call(name, arguments, "{}").push(&mut line, id);
        line
    };
    // Warm: one call answered (the process is up and the engine built).
    let first = 10_000_000;
    let go = (|| -> Result<(), String> {
        stdin.write_all(&call(first, "echo", "{\"text\":\"warm\"}")).map_err(|e| format!("write: {e}"))?;
        stdin.flush().map_err(|e| format!("write: {e}"))?;
        match rx.recv_timeout(timeout * 3) {
            Ok((id, "response", _)) if id == first => {}
            Ok(other) => return Err(format!("warm-up call: unexpected {other:?}")),
            Err(_) => return Err("warm-up call: no answer".into()),
        }
        std::thread::sleep(Duration::from_millis(300));
        let before = tree_rss_kb(pid);
        let start = Instant::now();
        let mut batch = Vec::new();
        for id in 1..=listeners {
            batch.extend_from_slice(&listen_request(id));
            batch.push(b'\n');
        }
        stdin.write_all(&batch).and_then(|()| stdin.flush()).map_err(|e| format!("write: {e}"))?;
        while report.acknowledged < listeners {
            match rx.recv_timeout(timeout) {
                Ok((_, "ack", _)) => report.acknowledged += 1,
                Ok((id, what, _)) => return Err(format!("while opening: {what} for {id}")),
                Err(_) => return Err(format!("{} of {listeners} acknowledged", report.acknowledged)),
            }
        }
        report.open = start.elapsed();
        std::thread::sleep(Duration::from_millis(500));
        report.rss_kb = before.zip(tree_rss_kb(pid));
        for k in 1..=u64::from(triggers) {
            let id = first + k;
            let sent = Instant::now();
            stdin.write_all(&call(id, tool, "{}")).and_then(|()| stdin.flush()).map_err(|e| format!("write: {e}"))?;
            let mut seen = vec![false; listeners as usize + 1];
            let mut times = Vec::with_capacity(listeners as usize);
            let mut answered = false;
            while times.len() < listeners as usize || !answered {
                match rx.recv_timeout(timeout) {
                    Ok((sub, "changed", at)) if sub >= 1 && sub <= listeners && !seen[sub as usize] => {
                        seen[sub as usize] = true;
                        times.push(at.saturating_duration_since(sent));
                    }
                    Ok((_, "changed", _)) => {}
                    Ok((rid, "response", _)) if rid == id => answered = true,
                    Ok(other) => return Err(format!("trigger {k}: unexpected {other:?}")),
                    Err(_) => return Err(format!("trigger {k}: {} of {listeners} notified", times.len())),
                }
            }
            times.sort_unstable();
            let n = times.len();
            report.deliveries.push((times[n - 1], times[n / 2]));
            std::thread::sleep(Duration::from_millis(100));
            while rx.try_recv().is_ok() {}
        }
        Ok(())
    })();
    if let Err(m) = go {
        report.fail(m);
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    report
}
