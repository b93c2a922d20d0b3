//! One run: spawn the child, handshake, (measure its memory,) warm up, measure, shut down.

use crate::args::{Config, Scenario};
use crate::check::{classify_expect, Expect, Reply};
use crate::request::{Requests, INITIALIZE, INITIALIZED};
use crate::stats::{percentile_us, Summary};
use hypermcp_loadgen::procfs::tree_rss_kb;

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

/// How many failure descriptions are kept per run for printing.
const KEEP_MESSAGES: usize = 5;
/// Upper bound on the bytes written by one `write` of a pipelined batch, so a
/// batch fits in a pipe buffer and its send timestamp stays honest.
const MAX_BATCH_BYTES: usize = 32 * 1024;
/// How long the child gets to exit after its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Outcome of one run.
#[derive(Debug)]
pub struct RunOutcome {
    /// The numbers.
    pub summary: Summary,
    /// First few failure descriptions (not all failures are listed).
    pub messages: Vec<String>,
    /// Why the run could not complete (child died, timed out, bad handshake).
    pub fatal: Option<String>,
    /// Response bytes (lines with their newlines) per second of the measured phase, in MiB.
    pub mib_per_s: f64,
    /// Resident memory of the child and its descendants after the handshake (`--rss-after`).
    pub rss_kb: Option<u64>,
}

impl RunOutcome {
    /// Whether the run counts as failed.
    pub fn failed(&self) -> bool {
        self.fatal.is_some() || self.summary.failures > 0
    }
}

/// Failure bookkeeping for a run.
#[derive(Default)]
struct Failures {
    count: u64,
    messages: Vec<String>,
}

impl Failures {
    fn add(&mut self, msg: impl FnOnce() -> String) {
        self.count += 1;
        if self.messages.len() < KEEP_MESSAGES {
            self.messages.push(msg());
        }
    }
}

/// Why a phase stopped early.
enum Stop {
    /// The child closed its stdout (exited or crashed) in the named phase.
    Eof { phase: &'static str, got: u64, of: u64 },
    /// Reading or writing the pipes failed.
    Io(String),
    /// The handshake response was not acceptable.
    Handshake(String),
}

/// Result of a measured (or warmup) phase.
struct PhaseResult {
    /// Latencies of successful calls, nanoseconds.
    latencies: Vec<u64>,
    /// Responses received (successful or not).
    received: u64,
    /// Bytes of the lines received, newlines included.
    bytes: u64,
    elapsed: Duration,
    stop: Option<Stop>,
}

/// Pipes to the child plus what the reader needs between phases.
struct Io<'p> {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
    floor: bool,
    /// What each response's result must hold.
    expect: Expect,
    /// Response bytes read by `next_reply` since the last `take_bytes`.
    bytes: u64,
    /// Responses received so far in this run, watched by the watchdog.
    progress: &'p AtomicU64,
    /// Server-to-client messages skipped so far.
    skipped: u64,
}

impl Io<'_> {
    /// Reads the next line that is a response (server messages are skipped).
    /// `Ok(None)` on end of file.
    fn next_reply(&mut self) -> io::Result<Option<Reply>> {
        loop {
            self.line.clear();
            let n = self.stdout.read_until(b'\n', &mut self.line)?;
            if n == 0 {
                return Ok(None);
            }
            self.bytes += n as u64;
            let line = self.line.trim_ascii();
            if line.is_empty() {
                continue;
            }
            match classify_expect(line, self.floor, self.expect) {
                Reply::Message => self.skipped += 1,
                reply => return Ok(Some(reply)),
            }
        }
    }
}

/// Runs the whole thing once with a fresh child.
pub fn run_once(cfg: &Config, req: &Requests) -> RunOutcome {
    let mut outcome = RunOutcome {
        summary: Summary { calls: cfg.calls, inflight: cfg.inflight, failures: cfg.calls, ..Summary::default() },
        messages: Vec::new(),
        fatal: None,
        mib_per_s: 0.0,
        rss_kb: None,
    };

    let mut command = Command::new(&cfg.command[0]);
    command.args(&cfg.command[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(if cfg.stderr {
        Stdio::inherit()
    } else {
        Stdio::null()
    });
    // init_ms runs from here to the moment the initialize answer has been read.
    let spawned_at = Instant::now();
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            outcome.fatal = Some(format!("cannot spawn {:?}: {e}", cfg.command[0]));
            return outcome;
        }
    };
    let pid = child.id();
    let progress = AtomicU64::new(0);
    let line_capacity = match cfg.scenario {
        Scenario::Echo => 4096,
        Scenario::List => 64 * 1024,
        // One buffer that holds a whole answer from the start: no regrowth per line.
        Scenario::Read => cfg.expect_bytes + 4096,
    };
    let mut io = Io {
        stdin: child.stdin.take().expect("stdin is piped"),
        stdout: BufReader::with_capacity(1 << 16, child.stdout.take().expect("stdout is piped")),
        line: Vec::with_capacity(line_capacity),
        floor: cfg.floor,
        // The initialize answer is checked like a call; the scenario's check comes after.
        expect: Expect::Call,
        bytes: 0,
        progress: &progress,
        skipped: 0,
    };
    let child = Mutex::new(child);
    let finished = AtomicBool::new(false);
    let timed_out = AtomicBool::new(false);
    let mut failures = Failures::default();

    let session = thread::scope(|s| {
        let watchdog = s.spawn(|| watchdog(&child, &progress, &finished, &timed_out, cfg.timeout));
        let r = session(cfg, req, &mut io, spawned_at, pid, &mut failures);
        finished.store(true, Ordering::Release);
        watchdog.thread().unpark();
        r
    });

    // Close stdin and give the child EXIT_GRACE to exit.
    let Io { stdin, stdout, skipped, .. } = io;
    drop(stdin);
    let mut child = child.into_inner().unwrap_or_else(|p| p.into_inner());
    let (status, killed) = shutdown(&mut child);
    drop(stdout);
    let status_text = match &status {
        Ok(st) => st.to_string(),
        Err(e) => format!("unknown ({e})"),
    };

    let timed_out = timed_out.load(Ordering::Acquire);
    match session {
        Ok((init, rss_kb, phase)) => {
            outcome.summary.init_ms = Some(init.as_secs_f64() * 1e3);
            outcome.rss_kb = rss_kb;
            outcome.mib_per_s = if phase.elapsed.is_zero() {
                0.0
            } else {
                phase.bytes as f64 / (1024.0 * 1024.0) / phase.elapsed.as_secs_f64()
            };
            let mut lat = phase.latencies;
            lat.sort_unstable();
            let missing = cfg.calls - phase.received;
            outcome.summary.failures = failures.count + missing;
            outcome.summary.calls_per_s =
                if phase.elapsed.is_zero() { 0.0 } else { phase.received as f64 / phase.elapsed.as_secs_f64() };
            outcome.summary.p50_us = percentile_us(&lat, 0.50);
            outcome.summary.p99_us = percentile_us(&lat, 0.99);
            outcome.summary.max_us = lat.last().map(|&ns| ns as f64 / 1e3);
            if let Some(stop) = phase.stop {
                outcome.fatal = Some(describe(stop, timed_out, skipped, cfg, &status_text));
            } else if !killed {
                if let Ok(st) = &status {
                    if !st.success() {
                        outcome.fatal = Some(format!("child exited unsuccessfully after its stdin was closed ({st})"));
                    }
                }
            }
        }
        Err(stop) => outcome.fatal = Some(describe(stop, timed_out, skipped, cfg, &status_text)),
    }
    if killed && outcome.fatal.is_none() {
        eprintln!("loadgen: note: child did not exit within {}s of stdin closing; killed it", EXIT_GRACE.as_secs());
    }
    outcome.messages = failures.messages;
    outcome
}

fn describe(stop: Stop, timed_out: bool, skipped: u64, cfg: &Config, status: &str) -> String {
    let what = match stop {
        Stop::Eof { phase, got, of } => {
            format!("child closed its stdout after {got} of {of} responses in the {phase} phase")
        }
        Stop::Io(e) => e,
        Stop::Handshake(e) => format!("handshake failed: {e}"),
    };
    let mut msg = if timed_out {
        format!("timed out: no response for {}s, so loadgen killed the child ({what})", cfg.timeout.as_secs())
    } else {
        what
    };
    if skipped > 0 {
        msg.push_str(&format!("; {skipped} server-to-client message(s) (lines with a \"method\") were skipped"));
    }
    msg.push_str(&format!("; child exit status: {status}"));
    msg
}

/// Handshake, memory measurement (`--rss-after`), warmup and measured phase.
/// Returns the init time, the resident memory and the measured phase.
fn session(
    cfg: &Config,
    req: &Requests,
    io: &mut Io<'_>,
    spawned_at: Instant,
    pid: u32,
    failures: &mut Failures,
) -> Result<(Duration, Option<u64>, PhaseResult), Stop> {
    // Handshake (floor mode: the initialize line simply comes back).
    io.stdin.write_all(INITIALIZE).map_err(|e| Stop::Io(format!("writing initialize failed: {e}")))?;
    let init = match io.next_reply() {
        Err(e) => return Err(Stop::Io(format!("reading initialize response failed: {e}"))),
        Ok(None) => return Err(Stop::Handshake("child closed its stdout before answering initialize".into())),
        Ok(Some(Reply::Ok(0))) => spawned_at.elapsed(),
        Ok(Some(Reply::Ok(id))) => {
            return Err(Stop::Handshake(format!("initialize answered with id {id} instead of 0")))
        }
        Ok(Some(Reply::Bad(_, msg))) => return Err(Stop::Handshake(msg)),
        Ok(Some(Reply::Message)) => unreachable!("next_reply skips messages"),
    };
    io.progress.fetch_add(1, Ordering::Relaxed);
    if !cfg.floor {
        io.stdin
            .write_all(INITIALIZED)
            .map_err(|e| Stop::Io(format!("writing notifications/initialized failed: {e}")))?;
    }
    io.expect = match cfg.scenario {
        Scenario::Echo => Expect::Call,
        Scenario::List => Expect::Tools(cfg.expect_tools),
        Scenario::Read => Expect::TextBytes(cfg.expect_bytes),
    };
    let rss_kb = match cfg.rss_after {
        Some(wait) => {
            // Sleep in slices that count as progress, so the watchdog leaves the child alone.
            let until = Instant::now() + wait;
            while let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
                thread::sleep(left.min(Duration::from_millis(100)));
                io.progress.fetch_add(1, Ordering::Relaxed);
            }
            tree_rss_kb(pid)
        }
        None => None,
    };

    // Ids: 1..=warmup for the warmup, then the measured calls.
    let warm = phase(cfg, req, io, "warmup", 1, cfg.warmup, failures);
    if let Some(stop) = warm.stop {
        return Err(stop);
    }
    let measured = phase(cfg, req, io, "measured", 1 + cfg.warmup, cfg.calls, failures);
    Ok((init, rss_kb, measured))
}

/// Sends `n` calls with ids `first..first + n` and reads their responses.
fn phase(
    cfg: &Config,
    req: &Requests,
    io: &mut Io<'_>,
    name: &'static str,
    first: u64,
    n: u64,
    failures: &mut Failures,
) -> PhaseResult {
    if cfg.inflight <= 1 {
        sequential(req, io, name, first, n, failures)
    } else {
        pipelined(req, io, name, first, n, cfg.inflight, failures)
    }
}

/// Write one line, block until its response line arrives, repeat.
fn sequential(
    req: &Requests,
    io: &mut Io<'_>,
    name: &'static str,
    first: u64,
    n: u64,
    failures: &mut Failures,
) -> PhaseResult {
    let mut latencies = Vec::with_capacity(n as usize);
    let mut buf = Vec::with_capacity(req.line_len(first + n));
    io.bytes = 0;
    let start = Instant::now();
    for k in 0..n {
        let id = first + k;
        buf.clear();
        req.push(&mut buf, id);
        let sent = Instant::now();
        if let Err(e) = io.stdin.write_all(&buf) {
            return PhaseResult {
                latencies,
                received: k,
                bytes: io.bytes,
                elapsed: start.elapsed(),
                stop: Some(Stop::Io(format!("write to child stdin failed: {e}"))),
            };
        }
        let reply = io.next_reply();
        let latency = sent.elapsed();
        match reply {
            Ok(Some(Reply::Ok(got))) if got == id => latencies.push(latency.as_nanos() as u64),
            Ok(Some(Reply::Ok(got))) => failures.add(|| format!("expected response id {id}, got id {got}")),
            Ok(Some(Reply::Bad(_, msg))) => failures.add(|| format!("call {id}: {msg}")),
            Ok(Some(Reply::Message)) => unreachable!("next_reply skips messages"),
            Ok(None) => {
                return PhaseResult {
                    latencies,
                    received: k,
                    bytes: io.bytes,
                    elapsed: start.elapsed(),
                    stop: Some(Stop::Eof { phase: name, got: k, of: n }),
                }
            }
            Err(e) => {
                return PhaseResult {
                    latencies,
                    received: k,
                    bytes: io.bytes,
                    elapsed: start.elapsed(),
                    stop: Some(Stop::Io(format!("read from child stdout failed: {e}"))),
                }
            }
        }
        io.progress.fetch_add(1, Ordering::Relaxed);
    }
    PhaseResult { latencies, received: n, bytes: io.bytes, elapsed: start.elapsed(), stop: None }
}

/// Keeps `window` requests in flight: a writer thread sends batches as the
/// window allows, the calling thread reads and checks responses.
///
/// Send times live in an array indexed by `id - first` (nanoseconds since the
/// phase start, plus one so that zero means "not sent yet"). A batch is
/// formatted into one buffer, its send time is stamped, and it goes out in a
/// single `write` (batches are capped at [`MAX_BATCH_BYTES`]); only after the
/// write returns does it count as in flight.
fn pipelined(
    req: &Requests,
    io: &mut Io<'_>,
    name: &'static str,
    first: u64,
    n: u64,
    window: u64,
    failures: &mut Failures,
) -> PhaseResult {
    let line_len = req.line_len(first + n);
    let max_batch = ((MAX_BATCH_BYTES / line_len) as u64).max(1);
    let stamps: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    // Responses received, published by the reader for the writer's window.
    let done = AtomicU64::new(0);
    let stop_writer = AtomicBool::new(false);
    // Publish progress at least every this many responses (and whenever the
    // read buffer runs dry), so the writer can refill the window in batches.
    let publish_every = (window / 4).max(1);
    let start = Instant::now();
    let stamp = || start.elapsed().as_nanos() as u64 + 1;

    let Io { stdin, stdout, line, floor, expect, progress, skipped, .. } = io;
    let (floor, expect) = (*floor, *expect);

    thread::scope(|s| {
        let writer = s.spawn(|| -> Result<(), String> {
            let mut buf = Vec::with_capacity(line_len * max_batch as usize);
            let mut sent = 0u64;
            while sent < n {
                if stop_writer.load(Ordering::Acquire) {
                    return Ok(());
                }
                let limit = (done.load(Ordering::Acquire) + window).min(n);
                if limit <= sent {
                    thread::park();
                    continue;
                }
                let batch = (limit - sent).min(max_batch);
                buf.clear();
                for k in sent..sent + batch {
                    req.push(&mut buf, first + k);
                }
                let t = stamp();
                for slot in &stamps[sent as usize..(sent + batch) as usize] {
                    slot.store(t, Ordering::Release);
                }
                stdin.write_all(&buf).map_err(|e| format!("write to child stdin failed: {e}"))?;
                sent += batch;
            }
            Ok(())
        });
        let writer_thread = writer.thread().clone();

        let mut latencies = Vec::with_capacity(n as usize);
        let mut answered = vec![false; n as usize];
        let mut received = 0u64;
        let mut bytes = 0u64;
        let mut unpublished = 0u64;
        let mut stop = None;
        while received < n {
            line.clear();
            match stdout.read_until(b'\n', line) {
                Ok(0) => {
                    stop = Some(Stop::Eof { phase: name, got: received, of: n });
                    break;
                }
                Ok(len) => bytes += len as u64,
                Err(e) => {
                    stop = Some(Stop::Io(format!("read from child stdout failed: {e}")));
                    break;
                }
            }
            let now = stamp();
            let text = line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let slot = |id: u64| id.checked_sub(first).filter(|&i| i < n).map(|i| i as usize);
            match classify_expect(text, floor, expect) {
                Reply::Message => {
                    *skipped += 1;
                    continue;
                }
                Reply::Ok(id) => match slot(id) {
                    Some(i) if !answered[i] => {
                        answered[i] = true;
                        let sent = stamps[i].load(Ordering::Acquire);
                        if sent == 0 {
                            failures.add(|| format!("response for id {id} before it was sent"));
                        } else {
                            latencies.push(now.saturating_sub(sent));
                        }
                    }
                    Some(_) => failures.add(|| format!("duplicate response for id {id}")),
                    None => failures.add(|| format!("response with unexpected id {id}")),
                },
                Reply::Bad(id, msg) => {
                    if let Some(i) = id.and_then(slot) {
                        answered[i] = true;
                    }
                    failures.add(|| match id {
                        Some(id) => format!("call {id}: {msg}"),
                        None => msg,
                    });
                }
            }
            received += 1;
            unpublished += 1;
            if unpublished >= publish_every || stdout.buffer().is_empty() {
                done.fetch_add(unpublished, Ordering::Release);
                progress.fetch_add(unpublished, Ordering::Relaxed);
                unpublished = 0;
                writer_thread.unpark();
            }
        }
        let elapsed = start.elapsed();
        progress.fetch_add(unpublished, Ordering::Relaxed);
        stop_writer.store(true, Ordering::Release);
        writer_thread.unpark();
        let written = writer.join().expect("writer thread panicked");
        if stop.is_none() {
            if let Err(e) = written {
                stop = Some(Stop::Io(e));
            }
        }
        PhaseResult { latencies, received, bytes, elapsed, stop }
    })
}

/// Kills the child when no response arrives for `timeout`, so that a hung
/// server cannot hang the benchmark.
fn watchdog(
    child: &Mutex<Child>,
    progress: &AtomicU64,
    finished: &AtomicBool,
    timed_out: &AtomicBool,
    timeout: Duration,
) {
    let mut last = progress.load(Ordering::Relaxed);
    let mut last_change = Instant::now();
    loop {
        thread::park_timeout(Duration::from_millis(100));
        if finished.load(Ordering::Acquire) {
            return;
        }
        let now = progress.load(Ordering::Relaxed);
        if now != last {
            last = now;
            last_change = Instant::now();
        } else if last_change.elapsed() >= timeout {
            timed_out.store(true, Ordering::Release);
            let mut c = child.lock().unwrap_or_else(|p| p.into_inner());
            let _ = c.kill();
            return;
        }
    }
}

/// Waits up to [`EXIT_GRACE`] for the child to exit (its stdin must already
/// be closed), then kills it. Returns the status and whether it was killed.
fn shutdown(child: &mut Child) -> (io::Result<ExitStatus>, bool) {
    let deadline = Instant::now() + EXIT_GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return (Ok(st), false),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                return (child.wait(), true);
            }
            Err(e) => return (Err(e), false),
        }
    }
}
