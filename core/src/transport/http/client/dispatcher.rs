//! The dispatcher: the task that takes the writer's lines in order and sends each (holding
//! the next one back while the order matters to the server), then ends the session when the
//! writer shuts down.

use super::ends::{Cmd, Item};
use super::response::drain;
use super::state::{Mode, Req, Shared};
use bytes::Bytes;
use http::Method;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};

/// How long a notification or a response may hold back the next line (waiting for its 202).
const ORDER_WAIT: Duration = Duration::from_secs(10);
/// How long `DELETE` may take at shutdown.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

impl Shared {
    /// Handles one written line (in order).
    async fn handle_line(self: &Arc<Self>, line: Bytes, tx: &mpsc::Sender<Item>, closing: &mut watch::Receiver<bool>) {
        let out = self.note_outgoing(&line);
        if out.local {
            return;
        }
        let mode = self.state().mode.clone();
        let legacy = match mode {
            // Only `initialize` decides between Streamable HTTP and the legacy transport (a
            // 2026-07-28 probe before it goes to the MCP endpoint as it is).
            Mode::Undecided if out.initialize => return self.probe(line, out, tx, closing).await,
            Mode::Undecided => None,
            Mode::Streamable => None,
            Mode::Legacy(target) => Some(target),
        };
        let wait = out.keys.is_empty() || out.initialize;
        let limit = if out.initialize { None } else { Some(ORDER_WAIT) };
        let (head_tx, head_rx) = oneshot::channel();
        self.spawn(self.clone().post(legacy, line, out, tx.clone(), head_tx));
        if wait && !*closing.borrow() {
            let sleep = async {
                match limit {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = head_rx => {}
                _ = closing.wait_for(|c| *c) => {}
                _ = sleep => {}
            }
        }
    }

    /// Ends the session (`DELETE`, when there is one) and stops every task.
    async fn shutdown(&self) {
        let session = {
            let st = self.state();
            matches!((&st.mode, &st.session, &st.fatal), (Mode::Streamable, Some(_), None))
        };
        if session {
            let req = self.request(Method::DELETE, &self.base, Bytes::new(), Req::default());
            let _ = tokio::time::timeout(SHUTDOWN_WAIT, async {
                if let Ok((resp, lease)) = self.pool.send(req).await {
                    drain(resp.into_body(), lease).await;
                }
            })
            .await;
        }
        self.stop.send_replace(true);
    }
}

/// Takes the written lines in order and POSTs them.
pub(super) async fn dispatch(shared: Arc<Shared>, mut rx: mpsc::Receiver<Cmd>, tx: mpsc::Sender<Item>) {
    let mut closing = shared.closing.subscribe();
    let mut stop = shared.stop.subscribe();
    loop {
        let cmd = tokio::select! {
            c = rx.recv() => c,
            // A fatal error: drop the reader's sender too.
            _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                drop(tx);
                // Keep taking commands so the writer's shutdown completes.
                while let Some(cmd) = rx.recv().await {
                    if let Cmd::Shutdown(ack) = cmd {
                        let _ = ack.send(());
                        return;
                    }
                }
                return;
            }
        };
        match cmd {
            Some(Cmd::Line(line)) => shared.handle_line(line, &tx, &mut closing).await,
            Some(Cmd::Shutdown(ack)) => {
                shared.shutdown().await;
                let _ = ack.send(());
                return;
            }
            None => {
                shared.shutdown().await;
                return;
            }
        }
    }
}
