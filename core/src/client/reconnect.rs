//! A client that survives its server: a supervisor between [`Client`] and the session driver
//! of the current connection. While connected it forwards the client's commands; when the
//! connection ends (the server exited, its HTTP session expired, it stopped answering pings)
//! it opens a new one under the [`Reconnect`] policy, holding the commands made meanwhile (or
//! failing them at once), and tells the application each step.

use super::{start_link, Client, ClientOptions, Cmd, Ended, Link};
use crate::engine::Reconnect;
use crate::error::{Error, Result};
use crate::jsonrpc::{codes, RpcError};
use crate::transport::child::{ChildProcess, StderrCallback, StderrTail};
use futures_util::future::BoxFuture;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};

/// A step of a reconnecting client's connection ([`ClientOptions::on_connection`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionEvent {
    /// The server went away; calls in flight failed.
    Disconnected {
        /// Why (the process exited, the session expired, a ping went unanswered...).
        reason: String,
    },
    /// A try is about to be made, after `delay`.
    Reconnecting {
        /// Which try (1 for the first).
        attempt: u32,
        /// The wait before it.
        delay: Duration,
        /// Why the last connection or try failed.
        reason: String,
    },
    /// A new session is ready; the calls held meanwhile are sent.
    Reconnected {
        /// The try that succeeded.
        attempt: u32,
    },
    /// The tries are spent: the client is closed.
    Failed {
        /// Why, with the last try's failure.
        reason: String,
        /// Tries made.
        attempts: u32,
    },
}

pub(super) type ConnectionFn = Arc<dyn Fn(&ConnectionEvent) + Send + Sync>;

/// A new connection to the server: its byte streams, and the process when it was spawned.
pub(crate) struct Conn {
    pub reader: Box<dyn AsyncRead + Unpin + Send>,
    pub writer: Box<dyn AsyncWrite + Unpin + Send>,
    pub child: Option<ChildProcess>,
}

/// Opens a new connection to the same server.
pub(crate) type Connector = Arc<dyn Fn() -> BoxFuture<'static, Result<Conn>> + Send + Sync>;

/// Commands held while reconnecting, at most (more fail at once).
const HELD_MAX: usize = 10_000;
/// How long a server that went away gets to exit before it is killed.
const LOST_GRACE: Duration = Duration::from_millis(500);
/// How long the server gets to exit when the client closes.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// A connector spawning `cmd` again each time (its program, arguments, environment changes
/// and working directory).
pub(super) fn spawner(cmd: tokio::process::Command, on_stderr: Option<StderrCallback>) -> Connector {
    let std = cmd.as_std();
    let program = std.get_program().to_owned();
    let args: Vec<OsString> = std.get_args().map(|a| a.to_owned()).collect();
    let envs: Vec<(OsString, Option<OsString>)> =
        std.get_envs().map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned()))).collect();
    let dir: Option<PathBuf> = std.get_current_dir().map(|d| d.to_owned());
    Arc::new(move || {
        let mut cmd = tokio::process::Command::new(&program);
        cmd.args(&args);
        for (k, v) in &envs {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(d) = &dir {
            cmd.current_dir(d);
        }
        let spawned = ChildProcess::spawn(cmd, on_stderr.clone());
        Box::pin(async move {
            let (child, stdout, stdin) = spawned?;
            Ok(Conn { reader: Box::new(stdout), writer: Box::new(stdin), child: Some(child) })
        })
    })
}

/// Connects through `connector` and performs the handshake; the client then reconnects under
/// `policy` whenever the connection ends.
pub(crate) async fn connect(connector: Connector, options: ClientOptions, policy: Reconnect) -> Result<Client> {
    let conn = connector().await?;
    let tail = conn.child.as_ref().map(|c| c.stderr.clone());
    let link = match start_link(conn.reader, conn.writer, options.clone()).await {
        Ok(link) => link,
        Err(e) => return Err(failed_start(e, conn.child).await),
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let (done_tx, done) = oneshot::channel::<()>();
    let stderr = Arc::new(Mutex::new(tail));
    let client = Client {
        tx,
        server: Arc::new(link.server.clone()),
        version: link.version,
        child: None,
        stderr: stderr.clone(),
        done: Arc::new(Mutex::new(Some(Box::pin(async move {
            let _ = done.await;
        })))),
        interceptors: options.interceptors.clone().into(),
    };
    let supervisor = Supervisor { connector, options, policy, stderr, held: VecDeque::new() };
    tokio::spawn(async move {
        supervisor.run(link, conn.child, rx).await;
        let _ = done_tx.send(());
    });
    Ok(client)
}

/// A handshake that failed: the process is stopped, and its stderr joins the error.
async fn failed_start(e: Error, child: Option<ChildProcess>) -> Error {
    let Some(mut child) = child else { return e };
    let _ = child.shutdown(Duration::from_millis(200)).await;
    let stderr = child.stderr.text();
    if stderr.trim().is_empty() {
        e
    } else {
        Error::Message(format!("{e}; server stderr:\n{}", stderr.trim_end()))
    }
}

struct Supervisor {
    connector: Connector,
    options: ClientOptions,
    policy: Reconnect,
    stderr: Arc<Mutex<Option<StderrTail>>>,
    /// Commands made while reconnecting, with when each stops waiting.
    held: VecDeque<(Cmd, Option<Instant>)>,
}

/// What a command made while reconnecting came to.
enum Held {
    Kept,
    Closing,
}

impl Supervisor {
    fn tell(&self, ev: ConnectionEvent) {
        match &ev {
            ConnectionEvent::Disconnected { .. } => {} // said by the driver
            ConnectionEvent::Reconnecting { attempt, delay, reason } => crate::metrics::client_event(
                "reconnecting",
                &format!("try {attempt} in {} ms after: {reason}", delay.as_millis()),
            ),
            ConnectionEvent::Reconnected { .. } => crate::metrics::client_event("reconnected", ""),
            ConnectionEvent::Failed { reason, .. } => crate::metrics::client_event("failed", reason),
        }
        if let Some(f) = &self.options.on_connection {
            f(&ev);
        }
    }

    async fn run(mut self, first: Link, mut child: Option<ChildProcess>, mut rx: mpsc::UnboundedReceiver<Cmd>) {
        let mut link = first;
        loop {
            // Connected: forward the client's commands until the connection ends.
            let reason = loop {
                tokio::select! {
                    ended = &mut link.done => match ended {
                        Ok(Ended { why, mut unsent }) => {
                            // Given to the driver but never read: held for the next connection.
                            while let Ok(cmd) = unsent.try_recv() {
                                self.hold(cmd, 0);
                            }
                            break why;
                        }
                        Err(_) => break "the connection ended".to_string(),
                    },
                    cmd = rx.recv() => match cmd {
                        None | Some(Cmd::Close(_)) => {
                            let grace = if let Some(Cmd::Close(g)) = cmd { g } else { Duration::ZERO };
                            let _ = link.tx.send(Cmd::Close(grace));
                            let _ = (&mut link.done).await;
                            stop(child.take(), CLOSE_GRACE).await;
                            return;
                        }
                        Some(cmd) => {
                            if let Err(mpsc::error::SendError(cmd)) = link.tx.send(cmd) {
                                // The driver just ended: held for the next connection.
                                self.hold(cmd, 0);
                            }
                        }
                    },
                }
            };
            stop(child.take(), LOST_GRACE).await;
            self.tell(ConnectionEvent::Disconnected { reason: reason.clone() });
            match self.reconnect(reason, &mut rx).await {
                Some((next, next_child, attempt)) => {
                    link = next;
                    child = next_child;
                    *self.stderr.lock().unwrap_or_else(|e| e.into_inner()) = child.as_ref().map(|c| c.stderr.clone());
                    self.tell(ConnectionEvent::Reconnected { attempt });
                    for (cmd, _) in self.held.drain(..) {
                        let _ = link.tx.send(cmd);
                    }
                }
                None => return,
            }
        }
    }

    /// Tries until a new session is ready (`None`: the client closed, or the tries are
    /// spent and it is closed now).
    async fn reconnect(
        &mut self,
        reason: String,
        rx: &mut mpsc::UnboundedReceiver<Cmd>,
    ) -> Option<(Link, Option<ChildProcess>, u32)> {
        let mut last = reason;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let Some(delay) = self.policy.delay(attempt) else {
                let tries = attempt - 1;
                let message = format!("the server went away and {tries} tries to reconnect failed; the last: {last}");
                self.tell(ConnectionEvent::Failed { reason: message.clone(), attempts: tries });
                self.fail_held(&message);
                // Closed for good: later commands fail the same way.
                while let Some(cmd) = rx.recv().await {
                    if matches!(cmd, Cmd::Close(_)) {
                        return None;
                    }
                    answer(cmd, RpcError::new(codes::CONNECTION_CLOSED, message.clone()));
                }
                return None;
            };
            self.tell(ConnectionEvent::Reconnecting { attempt, delay, reason: last.clone() });
            let wake = tokio::time::Instant::now() + delay;
            if !self.serve_until(rx, attempt, tokio::time::sleep_until(wake)).await {
                return None;
            }
            let connector = self.connector.clone();
            let options = self.options.clone();
            let open = async move {
                let conn = connector().await?;
                let tail = conn.child;
                match start_link(conn.reader, conn.writer, options).await {
                    Ok(link) => Ok((link, tail)),
                    Err(e) => Err(failed_start(e, tail).await),
                }
            };
            let mut outcome = None;
            let opened = self
                .serve_until(rx, attempt, async {
                    outcome = Some(open.await);
                })
                .await;
            match outcome {
                Some(Ok((link, child))) if opened => return Some((link, child, attempt)),
                Some(Ok((link, child))) => {
                    // The client closed while the try succeeded.
                    let mut link = link;
                    let _ = link.tx.send(Cmd::Close(Duration::ZERO));
                    let _ = (&mut link.done).await;
                    stop(child, CLOSE_GRACE).await;
                    return None;
                }
                Some(Err(e)) => last = e.to_string(),
                None => return None,
            }
        }
    }

    /// Serves the client's commands (holding or failing them) until `until` completes;
    /// false when the client closed meanwhile (the held commands then failed).
    async fn serve_until(
        &mut self,
        rx: &mut mpsc::UnboundedReceiver<Cmd>,
        attempt: u32,
        until: impl std::future::Future<Output = ()>,
    ) -> bool {
        tokio::pin!(until);
        loop {
            let expiry = self.held.iter().filter_map(|(_, d)| *d).min();
            tokio::select! {
                _ = &mut until => return true,
                cmd = rx.recv() => match cmd {
                    None => { self.fail_held("the client closed the connection"); return false; }
                    Some(cmd) => if let Held::Closing = self.hold(cmd, attempt) {
                        self.fail_held("the client closed the connection");
                        return false;
                    },
                },
                _ = async { if let Some(d) = expiry { tokio::time::sleep_until(d.into()).await } }, if expiry.is_some() => {
                    self.expire(Instant::now());
                }
            }
        }
    }

    /// A command made while reconnecting: held (within its timeout) or failed at once.
    fn hold(&mut self, cmd: Cmd, attempt: u32) -> Held {
        let timeout = match &cmd {
            Cmd::Close(_) => return Held::Closing,
            Cmd::Unlisten(_) => return Held::Kept, // its stream ended with the connection
            Cmd::Request { opts, .. } => opts.timeout.or(self.options.timeout),
            Cmd::FollowTask { timeout, .. } => timeout.or(self.options.timeout),
            _ => self.options.timeout,
        };
        if !self.policy.wait || self.held.len() >= HELD_MAX {
            let m = format!("the connection to the server was lost; reconnecting (try {attempt})");
            answer(cmd, RpcError::new(codes::CONNECTION_CLOSED, m));
        } else {
            self.held.push_back((cmd, timeout.map(|t| Instant::now() + t)));
        }
        Held::Kept
    }

    /// Fails the held commands whose wait is over.
    fn expire(&mut self, now: Instant) {
        let mut kept = VecDeque::with_capacity(self.held.len());
        for (cmd, deadline) in self.held.drain(..) {
            match deadline {
                Some(d) if d <= now => {
                    let waited = match &cmd {
                        Cmd::Request { opts, .. } => opts.timeout.or(self.options.timeout),
                        _ => self.options.timeout,
                    };
                    let ms = waited.unwrap_or_default().as_millis();
                    let m = format!("still reconnecting to the server after {ms} ms");
                    answer(cmd, RpcError::new(codes::REQUEST_TIMEOUT, m));
                }
                _ => kept.push_back((cmd, deadline)),
            }
        }
        self.held = kept;
    }

    fn fail_held(&mut self, message: &str) {
        for (cmd, _) in self.held.drain(..) {
            answer(cmd, RpcError::new(codes::CONNECTION_CLOSED, message));
        }
    }
}

/// Answers a command with an error.
fn answer(cmd: Cmd, e: RpcError) {
    match cmd {
        Cmd::Request { reply, .. } | Cmd::FollowTask { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Cmd::Listen { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Cmd::Notify { reply, .. } => {
            let _ = reply.send(Err(e));
        }
        Cmd::Unlisten(_) | Cmd::Close(_) => {}
    }
}

async fn stop(child: Option<ChildProcess>, grace: Duration) {
    if let Some(mut child) = child {
        let _ = child.shutdown(grace).await;
    }
}
