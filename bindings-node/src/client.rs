//! The client side: one `ClientSession` per connection (sans-IO).

use crate::bridge::{common_event, invocation, parse};
use crate::errors::rpc_err;
use hypermcp::engine::{self, Event, Request, RequestKey, RequestOptions};
use hypermcp::{ClientCapabilities, Implementation, ProtocolVersion, RpcError};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The client end of one connection.
#[napi]
pub struct ClientSession {
    inner: engine::ClientSession,
    out: Vec<u8>,
}

#[napi]
impl ClientSession {
    /// `capabilities` as JSON text; `timeout` in seconds.
    #[napi(constructor)]
    pub fn new(
        name: String,
        version: String,
        capabilities: Option<String>,
        protocol_version: Option<String>,
        timeout: Option<f64>,
    ) -> napi::Result<Self> {
        let mut cfg = engine::ClientConfig::new(Implementation::new(name, version));
        if let Some(c) = capabilities {
            cfg.capabilities = parse::<ClientCapabilities>(&c, "client capabilities")?;
        }
        if let Some(v) = protocol_version {
            let v: ProtocolVersion = v
                .parse()
                .map_err(|e: hypermcp::protocol::version::UnknownVersion| napi::Error::from_reason(e.to_string()))?;
            if !ProtocolVersion::LEGACY.contains(&v) {
                return Err(napi::Error::from_reason(format!("protocol {v} is not served yet")));
            }
            cfg.protocol_version = v;
        }
        cfg.request_timeout = timeout.map(Duration::from_secs_f64);
        Ok(ClientSession { inner: engine::ClientSession::new(Arc::new(cfg)), out: Vec::new() })
    }

    /// Sends `initialize`; returns its request id.
    #[napi]
    pub fn initialize(&mut self) -> i64 {
        self.inner.initialize(Instant::now()).0
    }

    /// Feeds bytes read from the stream.
    #[napi]
    pub fn feed(&mut self, data: Buffer) {
        self.inner.feed(&data, Instant::now());
    }

    /// Handles one complete message.
    #[napi]
    pub fn handle_message(&mut self, data: Buffer) {
        self.inner.handle_message(&data, Instant::now());
    }

    /// Pending events as JSON text (see `ServerSession.pollEvents`), plus
    /// `["sampling", key, id, token, meta, params]`, `["elicitation", ...]`, `["roots", key,
    /// id, token, meta]`.
    #[napi]
    pub fn poll_events(&mut self) -> String {
        let mut events = Vec::new();
        while let Some(ev) = self.inner.poll_event() {
            if let Some(v) = common_event(&ev) {
                events.push(v);
                continue;
            }
            let Event::Invoke(inv) = &ev else { continue };
            let v = match &inv.request {
                Request::CreateMessage(p) => {
                    invocation("sampling", inv, vec![serde_json::to_value(p).unwrap_or_default()])
                }
                Request::Elicit(p) => invocation("elicitation", inv, vec![serde_json::to_value(p).unwrap_or_default()]),
                Request::ListRoots => invocation("roots", inv, vec![]),
                _ => continue,
            };
            events.push(v);
        }
        if events.is_empty() {
            return String::new();
        }
        Value::Array(events).to_string()
    }

    /// Everything queued for the peer.
    #[napi]
    pub fn take_output(&mut self) -> Buffer {
        self.out.clear();
        self.inner.take_output(&mut self.out);
        Buffer::from(std::mem::take(&mut self.out))
    }

    /// Sends a request (params as JSON text); returns its id. Throws when the server lacks
    /// the capability.
    #[napi]
    pub fn request(
        &mut self,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
        progress: Option<bool>,
        reset_timeout_on_progress: Option<bool>,
    ) -> napi::Result<i64> {
        let params = match params {
            Some(p) => Some(parse::<Value>(&p, "request params")?),
            None => None,
        };
        let opts = RequestOptions {
            timeout: timeout.map(Duration::from_secs_f64),
            progress: progress.unwrap_or(false),
            reset_timeout_on_progress: reset_timeout_on_progress.unwrap_or(false),
            ..Default::default()
        };
        self.inner.request(&method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(&e))
    }

    /// Sends a notification (params as JSON text).
    #[napi]
    pub fn notify(&mut self, method: String, params: Option<String>) -> napi::Result<()> {
        let params = match params {
            Some(p) => Some(parse::<Value>(&p, "notification params")?),
            None => None,
        };
        self.inner.notify(&method, params).map_err(|e| rpc_err(&e))
    }

    /// Answers a server request with a result (JSON text).
    #[napi]
    pub fn respond(&mut self, key: i64, result: String) -> napi::Result<()> {
        let v: Value = parse(&result, "result")?;
        self.inner.respond(RequestKey(key as u64), Ok(v));
        Ok(())
    }

    /// Answers a server request with a JSON-RPC error.
    #[napi]
    pub fn respond_error(&mut self, key: i64, code: i32, message: String, data: Option<String>) -> napi::Result<()> {
        let mut e = RpcError::new(code, message);
        if let Some(d) = data {
            e.data = Some(parse(&d, "error data")?);
        }
        self.inner.respond(RequestKey(key as u64), Err(e));
        Ok(())
    }

    /// Stops waiting for a request and tells the server.
    #[napi]
    pub fn cancel_request(&mut self, id: i64, reason: Option<String>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason.as_deref())
    }

    /// Milliseconds until `handleTimeout` is due, or null.
    #[napi]
    pub fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64() * 1000.0)
    }

    /// Expires timed-out requests.
    #[napi]
    pub fn handle_timeout(&mut self) {
        self.inner.handle_timeout(Instant::now());
    }

    /// Closes the session: pending requests fail.
    #[napi]
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// Lifecycle state.
    #[napi(getter)]
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The negotiated revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(|v| v.as_str().to_string())
    }

    /// JSON text of the server's `initialize` result (or null).
    #[napi(getter)]
    pub fn server(&self) -> Option<String> {
        self.inner.server().map(|r| serde_json::to_string(r).unwrap_or_default())
    }

    /// Requests awaiting answers.
    #[napi(getter)]
    pub fn pending_requests(&self) -> u32 {
        self.inner.pending_requests() as u32
    }
}
