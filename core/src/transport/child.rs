//! A server run as a child process, spoken to over its stdin and stdout.
//!
//! Its stderr is captured (the last 64 KiB are kept for error messages, and each line is
//! passed to an optional callback). Shutdown closes its stdin, waits, then sends SIGTERM,
//! waits again, then SIGKILL.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const STDERR_KEEP: usize = 64 * 1024;

/// The tail of a child's stderr.
#[derive(Clone, Default, Debug)]
pub struct StderrTail(Arc<Mutex<VecDeque<u8>>>);

impl StderrTail {
    /// What the child printed last (up to 64 KiB), lossily decoded.
    pub fn text(&self) -> String {
        let q = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = q.as_slices();
        let mut v = a.to_vec();
        v.extend_from_slice(b);
        String::from_utf8_lossy(&v).into_owned()
    }
    fn push(&self, line: &str) {
        let mut q = self.0.lock().unwrap_or_else(|e| e.into_inner());
        q.extend(line.as_bytes());
        q.push_back(b'\n');
        while q.len() > STDERR_KEEP {
            q.pop_front();
        }
    }
}

/// A spawned server process.
#[derive(Debug)]
pub struct ChildProcess {
    child: Child,
    /// Its stderr tail.
    pub stderr: StderrTail,
}

/// Callback for each stderr line of a child.
pub type StderrCallback = Arc<dyn Fn(&str) + Send + Sync>;

impl ChildProcess {
    /// Spawns `command` with piped stdin/stdout and captured stderr.
    pub fn spawn(
        mut command: Command,
        on_stderr: Option<StderrCallback>,
    ) -> std::io::Result<(ChildProcess, ChildStdout, ChildStdin)> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin pipe"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout pipe"))?;
        let tail = StderrTail::default();
        if let Some(err) = child.stderr.take() {
            let tail = tail.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(err).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(cb) = &on_stderr {
                        cb(&line);
                    }
                    tail.push(&line);
                }
            });
        }
        Ok((ChildProcess { child, stderr: tail }, stdout, stdin))
    }

    /// The process id.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the child to exit after its stdin was closed; then SIGTERM, then SIGKILL,
    /// each after `grace`. Returns the exit status.
    pub async fn shutdown(&mut self, grace: Duration) -> std::io::Result<std::process::ExitStatus> {
        if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
            return status;
        }
        if let Some(pid) = self.child.id().and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            if let Ok(status) = tokio::time::timeout(grace, self.child.wait()).await {
                return status;
            }
        }
        self.child.start_kill()?;
        self.child.wait().await
    }

    /// Whether it has exited (without waiting).
    pub fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.child.try_wait()
    }
}
