//! What a Rust handler gets besides its arguments: the [`Context`] (progress, logging,
//! requests to the client, cancellation), and the commands it sends to the session's driver.

use crate::engine::{RequestKey, RequestOptions};
use crate::error::{Error, Result};
use crate::jsonrpc::{RequestId, RpcError};
use crate::protocol::*;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, Notify};

/// Commands a [`Context`] sends to the session driver.
pub(crate) enum Command {
    Progress {
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
        reply: oneshot::Sender<std::result::Result<bool, RpcError>>,
    },
    Log {
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
        related: Option<RequestKey>,
    },
    Request {
        method: String,
        params: Option<Value>,
        opts: RequestOptions,
        reply: oneshot::Sender<std::result::Result<Value, RpcError>>,
    },
    ElicitationComplete(String),
    /// Close the HTTP SSE connection the call answers on (the client resumes it).
    CloseStream(RequestKey),
}

/// Where a [`Context`] sends its commands: the channel of a stream driver's task, or an
/// HTTP session, which applies them at once.
#[derive(Clone)]
pub(crate) enum Sink {
    Channel(mpsc::UnboundedSender<Command>),
    Http(std::sync::Weak<crate::transport::http::server::Session>),
}

impl Sink {
    /// Fails when the session is gone.
    pub(crate) fn send(&self, cmd: Command) -> std::result::Result<(), ()> {
        match self {
            Sink::Channel(tx) => tx.send(cmd).map_err(|_| ()),
            Sink::Http(session) => match session.upgrade() {
                Some(s) => s.apply(cmd),
                None => Err(()),
            },
        }
    }
}

/// Facts about the connected client, shared by every handler context of a session.
#[derive(Debug, Default)]
pub struct PeerInfo {
    /// The client's name and version.
    pub client: Option<Implementation>,
    /// Its capabilities.
    pub capabilities: ClientCapabilities,
    /// The negotiated revision.
    pub protocol_version: Option<ProtocolVersion>,
}

#[derive(Default)]
pub(crate) struct CancelState {
    pub flag: AtomicBool,
    pub notify: Notify,
}

/// What a handler gets besides its arguments: progress, logging, requests to the client
/// (sampling, elicitation, roots), the request id, the client, and cancellation.
#[derive(Clone)]
pub struct Context {
    pub(crate) key: RequestKey,
    pub(crate) id: RequestId,
    pub(crate) meta: Option<Meta>,
    pub(crate) tx: Sink,
    pub(crate) peer: Arc<PeerInfo>,
    pub(crate) cancel: Arc<CancelState>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("request_id", &self.id).finish()
    }
}

impl Context {
    /// The JSON-RPC id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }
    /// The request's `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }
    /// The client's name and version.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.peer.client.as_ref()
    }
    /// The client's capabilities.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.peer.capabilities
    }
    /// The negotiated revision.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.protocol_version
    }
    /// Whether the client cancelled this request. (The handler's future is also dropped at
    /// its next await point; this is for work spawned elsewhere.)
    pub fn is_cancelled(&self) -> bool {
        self.cancel.flag.load(Ordering::Acquire)
    }
    /// Resolves when the client cancels this request.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.cancel.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// Reports progress; `Ok(false)` when the client asked for none. Values must increase.
    pub async fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> Result<bool> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Command::Progress { key: self.key, progress, total, message: message.map(str::to_string), reply })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?.map_err(Error::Request)
    }

    /// Sends a log message tied to this request (filtered by the client's level).
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        let _ = self.tx.send(Command::Log {
            level,
            logger: logger.map(str::to_string),
            data: data.into(),
            related: Some(self.key),
        });
    }

    /// Sends a request to the client on behalf of this request and awaits the answer.
    pub async fn request(&self, method: &str, params: Option<Value>, timeout: Option<Duration>) -> Result<Value> {
        let (reply, rx) = oneshot::channel();
        let opts = RequestOptions { timeout, related: Some(self.key), ..Default::default() };
        self.tx
            .send(Command::Request { method: method.to_string(), params, opts, reply })
            .map_err(|_| Error::Closed)?;
        match rx.await {
            Err(_) => Err(Error::Closed),
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) if e.code == crate::jsonrpc::codes::CONNECTION_CLOSED => Err(Error::Closed),
            Ok(Err(e)) => Err(Error::Request(e)),
        }
    }

    /// Asks the user for input through the client (form or URL mode).
    pub async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult> {
        let v = self.request("elicitation/create", Some(serde_json::to_value(params)?), None).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Tells the client a URL-mode elicitation finished.
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        let _ = self.tx.send(Command::ElicitationComplete(elicitation_id.to_string()));
    }

    /// Closes the SSE connection this call answers on, after a `retry` hint; the client
    /// reconnects with `Last-Event-ID` and gets the rest (2025-11-25 SSE polling). Does
    /// nothing on stdio or when the call has no resumable stream.
    pub fn close_sse_stream(&self) {
        let _ = self.tx.send(Command::CloseStream(self.key));
    }

    /// Asks the client's model for a completion.
    pub async fn sample(&self, params: CreateMessageParams) -> Result<CreateMessageResult> {
        let v = self.request("sampling/createMessage", Some(serde_json::to_value(params)?), None).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Asks the client for its roots.
    pub async fn list_roots(&self) -> Result<Vec<Root>> {
        let v = self.request("roots/list", None, None).await?;
        Ok(serde_json::from_value::<ListRootsResult>(v)?.roots)
    }

    /// Pings the client.
    pub async fn ping(&self) -> Result<()> {
        self.request("ping", None, None).await.map(|_| ())
    }
}
