//! The tokio driver of a server session over a byte stream.
//!
//! One task owns the session and the stream. Handler futures run inside that task (in a
//! `FuturesUnordered`), so a handler that finishes without waiting costs no task spawn and
//! no wake-up; all answers ready at one moment go out in one write.

use crate::engine::{Event, InputAnswer, KeyMap, Outcome, RequestKey, ServerSession};
use crate::error::Result;
use crate::jsonrpc::RpcError;
use crate::runtime::{panicked_masked, ready, Answer, CancelState, Command, Context, Invoke, PeerInfo, Runtime, Sink};
use futures_util::future::{AbortHandle, Abortable, BoxFuture};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// How long in-flight calls may run after the client closed its input.
const EOF_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

type Task = BoxFuture<'static, (RequestKey, Option<Outcome>)>;

/// Serves one session of `server` over a byte stream until the reader ends and in-flight
/// work has finished.
pub(crate) async fn serve_stream<R, W>(server: &Runtime, mut reader: R, mut writer: W) -> Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let config = Arc::new(server.config());
    let registry = server.registry().clone();
    let mut session = ServerSession::new(config, registry.clone());
    let (tx, mut commands) = mpsc::unbounded_channel::<Command>();
    let (change_tx, mut changes) = mpsc::unbounded_channel();
    let listener = registry.add_listener(move |c| {
        let _ = change_tx.send(c.clone());
    });
    let mut peer_info = Arc::new(PeerInfo::default());
    let mut tasks: FuturesUnordered<Task> = FuturesUnordered::new();
    let mut running: KeyMap<RequestKey, (AbortHandle, Arc<CancelState>)> = KeyMap::default();
    let mut waiters: KeyMap<crate::engine::OutboundId, oneshot::Sender<std::result::Result<Answer, RpcError>>> =
        KeyMap::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(64 * 1024);
    let mut eof = false;
    // After the client's input ends, in-flight calls get this long to finish and be written.
    let mut drain_deadline: Option<tokio::time::Instant> = None;

    let result: Result<()> = loop {
        // 1. Events from the session.
        while let Some(ev) = session.poll_event() {
            match ev {
                Event::Invoke(inv) => {
                    if peer_info.protocol_version.is_none() {
                        peer_info = Arc::new(PeerInfo::of(&session));
                    }
                    let cancel = Arc::new(CancelState::default());
                    let key = inv.key;
                    let mask = server.handlers().masks();
                    let ctx = Context::new(&inv, Sink::Channel(tx.clone()), peer_info.clone(), cancel.clone());
                    // A handler may panic before it returns its future, too.
                    let mut fut = match std::panic::catch_unwind(AssertUnwindSafe(|| server.invoke(inv, ctx))) {
                        Ok(fut) => fut,
                        Err(p) => ready(panicked_masked(p, mask)),
                    };
                    // Most handlers finish without waiting: poll once here, with this task's
                    // waker, and answer at once. Only a handler that waits is kept (and can be
                    // cancelled); a Pending poll registered our waker, a spurious wake at worst.
                    let first = std::future::poll_fn(|cx| {
                        Poll::Ready(std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))))
                    })
                    .await;
                    match first {
                        Ok(Poll::Pending) => {}
                        Ok(Poll::Ready(o)) => {
                            drain_commands(&mut session, &mut commands, &mut waiters);
                            session.complete(key, o);
                            continue;
                        }
                        Err(p) => {
                            session.complete(key, panicked_masked(p, mask));
                            continue;
                        }
                    }
                    let (handle, reg) = AbortHandle::new_pair();
                    let fut = Abortable::new(AssertUnwindSafe(fut).catch_unwind(), reg);
                    running.insert(key, (handle, cancel));
                    tasks.push(Box::pin(fut.map(move |r| {
                        let outcome = match r {
                            Err(_aborted) => None,
                            Ok(Ok(o)) => Some(o),
                            Ok(Err(p)) => Some(panicked_masked(p, mask)),
                        };
                        (key, outcome)
                    })));
                }
                Event::Cancelled { key, .. } => {
                    if let Some((h, c)) = running.remove(&key) {
                        c.cancel();
                        h.abort();
                    }
                }
                Event::Response { id, result } => {
                    if let Some(w) = waiters.remove(&id) {
                        let _ = w.send(result.map(Answer::Value));
                    }
                }
                Event::Notification { method, params, .. } => server.notification(&method, params.as_ref()),
                Event::Initialized | Event::Progress { .. } | Event::Lost { .. } => {}
            }
        }
        // 2. Handlers that are already done answer before anything is written.
        while let Some(Some((key, outcome))) = tasks.next().now_or_never() {
            running.remove(&key);
            if let Some(o) = outcome {
                // What the handler queued (log messages) goes out before its answer.
                drain_commands(&mut session, &mut commands, &mut waiters);
                session.complete(key, o);
            }
        }
        if session.poll_event_pending() {
            continue;
        }
        // 3. Write everything queued in one go.
        session.take_output(&mut out);
        if !out.is_empty() {
            if let Err(e) = writer.write_all(&out).await {
                break Err(e.into());
            }
            if let Err(e) = writer.flush().await {
                break Err(e.into());
            }
            out.clear();
        }
        if eof && tasks.is_empty() {
            break Ok(());
        }
        // 4. Wait for input, a finished handler, a command, a registry change or a deadline.
        let deadline = session.next_deadline();
        tokio::select! {
            biased;
            Some((key, outcome)) = tasks.next(), if !tasks.is_empty() => {
                running.remove(&key);
                if let Some(o) = outcome {
                    drain_commands(&mut session, &mut commands, &mut waiters);
                    session.complete(key, o);
                }
            }
            n = reader.read(&mut buf), if !eof => match n {
                Ok(0) => {
                    eof = true;
                    session.input_closed();
                    drain_deadline = Some(tokio::time::Instant::now() + EOF_GRACE);
                }
                Ok(n) => session.feed(&buf[..n], Instant::now()),
                Err(e) => break Err(e.into()),
            },
            Some(cmd) = commands.recv() => apply(&mut session, cmd, &mut waiters),
            Some(change) = changes.recv() => session.registry_changed(&change),
            _ = sleep_until(deadline), if deadline.is_some() => session.handle_timeout(Instant::now()),
            _ = async { if let Some(d) = drain_deadline { tokio::time::sleep_until(d).await } }, if drain_deadline.is_some() => {
                break Ok(());
            }
        }
    };
    registry.remove_listener(listener);
    session.close();
    for (_, (h, _)) in running.drain() {
        h.abort();
    }
    result
}

async fn sleep_until(deadline: Option<Instant>) {
    if let Some(d) = deadline {
        tokio::time::sleep_until(d.into()).await;
    }
}

/// Applies every command already queued (handlers send log messages without waiting, so a
/// handler's last messages may still be queued when it finishes).
fn drain_commands(
    session: &mut ServerSession,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    waiters: &mut KeyMap<crate::engine::OutboundId, oneshot::Sender<std::result::Result<Answer, RpcError>>>,
) {
    while let Ok(cmd) = commands.try_recv() {
        apply(session, cmd, waiters);
    }
}

pub(crate) fn apply(
    session: &mut ServerSession,
    cmd: Command,
    waiters: &mut KeyMap<crate::engine::OutboundId, oneshot::Sender<std::result::Result<Answer, RpcError>>>,
) {
    match cmd {
        Command::Progress { key, progress, total, message, reply } => {
            let _ = reply.send(session.progress(key, progress, total, message.as_deref()));
        }
        Command::Log { level, logger, data, related } => {
            session.log(level, logger.as_deref(), data, related);
        }
        Command::Request { key, input_key, method, params, opts, reply } => {
            match session.request_input(key, input_key.as_deref(), &method, params, &opts, Instant::now()) {
                Ok(InputAnswer::Sent(id)) => {
                    waiters.insert(id, reply);
                }
                Ok(InputAnswer::Answered(v)) => {
                    let _ = reply.send(Ok(Answer::Value(v)));
                }
                Ok(InputAnswer::Required) => {
                    let _ = reply.send(Ok(Answer::Required));
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        Command::ElicitationComplete(id) => {
            let _ = session.elicitation_complete(&id);
        }
        // A byte stream has no SSE connection to close.
        Command::CloseStream(_) => {}
        Command::Visibility { change, reply } => {
            let _ = reply.send(session.change_visibility(&change).map(drop).map_err(RpcError::invalid_params));
        }
    }
}
