//! What both ends of a session share: message intake (framing, parsing, batches), the table
//! of the peer's requests being served (cancellation, progress out), the table of our own
//! requests awaiting answers (timeouts, progress in), and the outbox.

use super::outbox::{Outbox, Route};
use super::{Event, Invocation, KeyMap, OutboundId, Request, RequestKey};
use crate::catalogue::ToolEntry;
use crate::jsonrpc::{self, codes, parse_message, Envelope, Frame, Incoming, LineCodec, RawJson, RequestId, RpcError};
use crate::protocol::{Feature, Meta, ProgressToken, ProtocolVersion};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options for a request this side sends.
#[derive(Clone, Debug, Default)]
pub struct RequestOptions {
    /// Give up (and send `notifications/cancelled`) after this long; `None` uses the
    /// session's default.
    pub timeout: Option<Duration>,
    /// Restart the timeout whenever the peer reports progress on the request.
    pub reset_timeout_on_progress: bool,
    /// The longest a request may take even when progress keeps resetting its timeout (the
    /// spec asks for such a cap). `None`: ten times the timeout.
    pub max_total_timeout: Option<Duration>,
    /// Ask the peer for progress (adds a `progressToken`).
    pub progress: bool,
    /// The peer's request this one is sent on behalf of (routes it to that request's
    /// stream on HTTP).
    pub related: Option<RequestKey>,
    /// A `tools/call` the server answers with a task (tasks extension) is followed to its
    /// end, its answer the task's result (what `call_tool` wants); otherwise the task itself
    /// is the answer.
    pub follow_task: bool,
}

pub(crate) struct Inflight {
    pub id: RequestId,
    pub batch: Option<u64>,
    pub token: Option<ProgressToken>,
    pub last_progress: Option<f64>,
    pub tool: Option<Arc<ToolEntry>>,
    /// The context of a request served statelessly (2026-07-28).
    pub modern: Option<Arc<super::modern::RequestContext>>,
    /// Its multi round-trip bookkeeping (modern calls that may end with `input_required`).
    pub round: Option<Box<super::mrtr::Round>>,
    /// A list that passes middleware: which, and the offset its cursor names.
    pub list: Option<(crate::catalogue::ListKind, u32)>,
}

struct Pending {
    deadline: Option<Instant>,
    timeout: Option<Duration>,
    reset_on_progress: bool,
    /// Progress never pushes the deadline past this.
    hard_deadline: Option<Instant>,
    token: Option<ProgressToken>,
    last_progress: Option<f64>,
    /// False for `initialize`, which must never be cancelled (cancellation spec).
    cancellable: bool,
}

struct Batch {
    open: usize,
    sealed: bool,
    parts: Vec<Vec<u8>>,
}

/// The role-specific half of a session: what to do with requests and notifications.
pub(crate) trait Role {
    fn on_request(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        params: Option<RawJson<'_>>,
        batch: Option<u64>,
        now: Instant,
    );
    fn on_notification(&mut self, peer: &mut Peer, method: &str, params: Option<RawJson<'_>>);
    /// A request may not be part of a batch (initialize).
    fn batchable(&self, method: &str) -> bool;
}

pub(crate) struct Peer {
    pub out: Outbox,
    pub events: VecDeque<Event>,
    pub codec: LineCodec,
    max_message: usize,
    pub version: Option<ProtocolVersion>,
    pub default_timeout: Option<Duration>,
    next_out_id: i64,
    pending: KeyMap<i64, Pending>,
    deadlines: BTreeSet<(Instant, i64)>,
    tokens_out: HashMap<ProgressToken, i64>,
    pub inflight: KeyMap<RequestKey, Inflight>,
    by_id: HashMap<RequestId, RequestKey>,
    next_key: u64,
    batches: KeyMap<u64, Batch>,
    next_batch: u64,
    pub closed: bool,
    /// The request the messages being handled came in ([`super::Origin`]).
    pub origin: Option<Arc<super::Origin>>,
}

#[derive(Deserialize)]
struct CancelledParams {
    #[serde(rename = "requestId")]
    request_id: RequestId,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct ProgressParams {
    #[serde(rename = "progressToken")]
    token: ProgressToken,
    progress: f64,
    #[serde(default)]
    total: Option<f64>,
    #[serde(default)]
    message: Option<String>,
}

/// Parses `params` into `T`, rejecting arrays (MCP params are objects) with -32602.
pub(crate) fn params<'a, T: Deserialize<'a>>(raw: Option<RawJson<'a>>) -> Result<T, RpcError> {
    let text = raw.map(|r| r.get()).unwrap_or("{}");
    if text.as_bytes().first() == Some(&b'[') {
        return Err(RpcError::invalid_params("params must be an object"));
    }
    serde_json::from_str(text).map_err(RpcError::invalid_params)
}

impl Peer {
    pub fn new(max_message: usize, default_timeout: Option<Duration>) -> Self {
        Peer {
            out: Outbox::default(),
            events: VecDeque::new(),
            codec: LineCodec::new(max_message),
            max_message,
            version: None,
            default_timeout,
            next_out_id: 1,
            pending: KeyMap::default(),
            deadlines: BTreeSet::new(),
            tokens_out: HashMap::new(),
            inflight: KeyMap::default(),
            by_id: HashMap::new(),
            next_key: 1,
            batches: KeyMap::default(),
            next_batch: 1,
            closed: false,
            origin: None,
        }
    }

    /// Feeds stream bytes: every complete line is handled.
    pub fn feed<R: Role>(&mut self, role: &mut R, data: &[u8], now: Instant) {
        // The codec is moved out while its lines are dispatched, so each line is handled in
        // place (borrowed from the codec's buffer) instead of being copied first.
        let mut codec = std::mem::replace(&mut self.codec, LineCodec::new(0));
        codec.feed(data);
        while let Some(frame) = codec.next_frame() {
            match frame {
                Frame::Line(line) => self.handle_message(role, line, now),
                Frame::Oversize => self.write_error(None, None, Route::Standalone, &self.oversize_error()),
            }
        }
        self.codec = codec;
    }

    fn oversize_error(&self) -> RpcError {
        let max = self.max_message;
        RpcError::invalid_request(format!("message exceeds the maximum size of {max} bytes"))
            .with_data(serde_json::json!({ "maxBytes": max }))
    }

    /// Handles one complete message (a line, or an HTTP body).
    pub fn handle_message<R: Role>(&mut self, role: &mut R, bytes: &[u8], now: Instant) {
        self.handle_parsed(role, bytes, None, now);
    }

    /// [`Peer::handle_message`] of `bytes`, whose message the caller may have parsed already
    /// (`parsed`: [`crate::jsonrpc::parse_message`] of these bytes, a single message, as the
    /// HTTP server's classification of a body does): then it is not parsed again.
    pub fn handle_parsed<R: Role>(&mut self, role: &mut R, bytes: &[u8], parsed: Option<Envelope<'_>>, now: Instant) {
        if self.closed {
            return;
        }
        if bytes.len() > self.max_message {
            self.write_error(None, None, Route::Standalone, &self.oversize_error());
            return;
        }
        if let Some(env) = parsed {
            return self.dispatch(role, env, None, now);
        }
        match parse_message(bytes) {
            Err(f) => self.write_error(f.id.as_ref(), None, Route::Standalone, &f.error),
            Ok(Incoming::Single(env)) => self.dispatch(role, env, None, now),
            Ok(Incoming::Batch(items)) => {
                if !self.version.is_some_and(|v| v.supports(Feature::Batches)) {
                    let why = match self.version {
                        Some(v) => format!("batches are not supported by protocol revision {v}"),
                        None => "batches are not allowed before initialization".to_string(),
                    };
                    self.write_error(None, None, Route::Standalone, &RpcError::invalid_request(why));
                    return;
                }
                let b = self.next_batch;
                self.next_batch += 1;
                self.batches.insert(b, Batch { open: 0, sealed: false, parts: Vec::new() });
                for item in items {
                    match jsonrpc::message::parse_object_str(item.get()) {
                        Err(f) => {
                            self.open_in_batch(b);
                            self.write_error(f.id.as_ref(), Some(b), Route::Standalone, &f.error);
                        }
                        Ok(env) => {
                            if let (Some(m), Some(_)) = (&env.method, &env.id) {
                                self.open_in_batch(b);
                                if !role.batchable(m) {
                                    let err = RpcError::invalid_request(format!("{m} must not be part of a batch"));
                                    self.write_error(env.id.as_ref(), Some(b), Route::Standalone, &err);
                                    continue;
                                }
                            }
                            self.dispatch(role, env, Some(b), now);
                        }
                    }
                }
                if let Some(batch) = self.batches.get_mut(&b) {
                    batch.sealed = true;
                }
                self.flush_batch(b, Route::Answer);
            }
        }
    }

    /// Counts one more answer the batch must wait for (every element answered through
    /// `respond`, error or not, is counted first, so `respond` can uncount it).
    fn open_in_batch(&mut self, b: u64) {
        if let Some(batch) = self.batches.get_mut(&b) {
            batch.open += 1;
        }
    }

    fn dispatch<R: Role>(&mut self, role: &mut R, env: Envelope<'_>, batch: Option<u64>, now: Instant) {
        match (env.method, env.id) {
            (Some(method), Some(id)) => {
                crate::metrics::REQUESTS.inc();
                if self.by_id.contains_key(&id) {
                    let err = RpcError::invalid_request(format!(
                        "request id {id} is already in use by a request in progress"
                    ));
                    self.write_error(Some(&id), batch, Route::Standalone, &err);
                    return;
                }
                role.on_request(self, id, &method, env.params, batch, now);
            }
            (Some(method), None) => match &*method {
                "notifications/cancelled" => {
                    if let Ok(p) = params::<CancelledParams>(env.params) {
                        self.on_cancelled(&p.request_id, p.reason);
                    }
                }
                "notifications/progress" => {
                    if let Ok(p) = params::<ProgressParams>(env.params) {
                        self.on_progress(p, now);
                    }
                }
                _ => role.on_notification(self, &method, env.params),
            },
            (None, id) => self.on_response(id, env.result, env.error),
        }
    }

    // ---- the peer's requests -------------------------------------------------------------

    /// Registers a peer request that user code will serve.
    pub fn begin(
        &mut self,
        id: RequestId,
        batch: Option<u64>,
        token: Option<ProgressToken>,
        tool: Option<Arc<ToolEntry>>,
        modern: Option<Arc<super::modern::RequestContext>>,
    ) -> RequestKey {
        let key = RequestKey(self.next_key);
        self.next_key += 1;
        self.by_id.insert(id.clone(), key);
        self.inflight
            .insert(key, Inflight { id, batch, token, last_progress: None, tool, modern, round: None, list: None });
        key
    }

    /// Registers a peer request that user code will serve and queues its [`Event::Invoke`]
    /// (with the progress token from `_meta.progressToken`, if any).
    pub fn invoke(
        &mut self,
        id: RequestId,
        batch: Option<u64>,
        meta: Option<Meta>,
        request: Request,
        tool: Option<Arc<ToolEntry>>,
        modern: Option<Arc<super::modern::RequestContext>>,
    ) -> RequestKey {
        let token = meta.as_ref().and_then(|m| m.get("progressToken")).and_then(|t| RequestId::deserialize(t).ok());
        let mut meta = meta;
        if modern.is_some() {
            // What the revision's own keys said is in the request's context: handlers see the
            // caller's metadata only, as on a legacy session.
            if let Some(m) = meta.as_mut() {
                use crate::protocol::meta_keys::*;
                for k in [PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL] {
                    m.remove(k);
                }
            }
            meta = meta.filter(|m| !m.is_empty());
        }
        let key = self.begin(id.clone(), batch, token.clone(), tool, modern.clone());
        self.events.push_back(Event::Invoke(Invocation {
            key,
            id,
            request,
            progress_token: token,
            meta,
            context: modern,
            origin: self.origin.clone(),
            task: None,
        }));
        key
    }

    /// Marks the invocation just queued for `key` as a task call.
    pub(crate) fn set_task_plan(&mut self, key: RequestKey, plan: Option<super::TaskPlan>) {
        if let Some(Event::Invoke(inv)) = self.events.back_mut() {
            if inv.key == key {
                inv.task = plan;
            }
        }
    }

    /// A key for an invocation the session makes up itself (the input requests of a modern
    /// `input_required` result, answered through the same handlers as real requests).
    pub(crate) fn alloc_key(&mut self) -> RequestKey {
        let key = RequestKey(self.next_key);
        self.next_key += 1;
        key
    }

    /// Makes the ids of the requests this session sends start at `base` (replicas of one
    /// server number theirs apart, so a client's answer names the replica that waits for it).
    pub(crate) fn set_out_base(&mut self, base: i64) {
        self.next_out_id = self.next_out_id.max(base);
    }

    /// An id for an answer the session gives without sending anything (a cached list, a
    /// request the modern revision removed).
    pub(crate) fn alloc_out_id(&mut self) -> OutboundId {
        let n = self.next_out_id;
        self.next_out_id += 1;
        OutboundId(n)
    }

    /// Attaches the multi round-trip bookkeeping of a modern call.
    /// Marks a request as a list that passes middleware, its cursor at `offset`.
    pub(crate) fn set_list(&mut self, key: RequestKey, kind: crate::catalogue::ListKind, offset: usize) {
        if let Some(inf) = self.inflight.get_mut(&key) {
            inf.list = Some((kind, u32::try_from(offset).unwrap_or(u32::MAX)));
        }
    }

    pub(crate) fn set_round(&mut self, key: RequestKey, round: Box<super::mrtr::Round>) {
        if let Some(inf) = self.inflight.get_mut(&key) {
            inf.round = Some(round);
        }
    }

    /// Ends a peer request; `None` when it was cancelled or never existed.
    pub fn end(&mut self, key: RequestKey) -> Option<Inflight> {
        let inf = self.inflight.remove(&key)?;
        self.by_id.remove(&inf.id);
        Some(inf)
    }

    fn on_cancelled(&mut self, id: &RequestId, reason: Option<String>) {
        let Some(key) = self.by_id.get(id).copied() else { return };
        if let Some(inf) = self.end(key) {
            if let Some(b) = inf.batch {
                if let Some(batch) = self.batches.get_mut(&b) {
                    batch.open -= 1;
                }
                self.flush_batch(b, Route::Reply(key));
            }
            self.events.push_back(Event::Cancelled { key, reason });
        }
    }

    /// Writes a result response for a peer request.
    pub fn write_result_raw(&mut self, id: &RequestId, batch: Option<u64>, route: Route, result: &[u8]) {
        self.respond(batch, route, |out| jsonrpc::write_result_raw(out, id, result));
    }

    /// Writes a result response serialised from `value`.
    pub fn write_result<T: serde::Serialize + ?Sized>(
        &mut self,
        id: &RequestId,
        batch: Option<u64>,
        route: Route,
        value: &T,
    ) {
        self.respond(batch, route, |out| jsonrpc::write_result(out, id, value));
    }

    /// Writes an error response (`id` `None` means `id: null`).
    pub fn write_error(&mut self, id: Option<&RequestId>, batch: Option<u64>, route: Route, err: &RpcError) {
        crate::metrics::error_sent(err.code);
        if matches!(err.code, codes::PARSE_ERROR | codes::INVALID_REQUEST) {
            tracing::info!(target: "hypermcp::session", code = err.code, reason = %err.message, "message refused");
        } else {
            tracing::debug!(target: "hypermcp::session", code = err.code, reason = %err.message, "error response");
        }
        self.respond(batch, route, |out| jsonrpc::write_error(out, id, err));
    }

    /// Writes a response `write` produces (in its batch, if it belongs to one).
    pub fn respond(&mut self, batch: Option<u64>, route: Route, write: impl FnOnce(&mut Vec<u8>)) {
        // A response is never standalone: unless it answers a served request (`Reply`), it
        // answers the input being handled.
        let route = if route == Route::Standalone { Route::Answer } else { route };
        match batch.and_then(|b| self.batches.get_mut(&b).map(|batch| (b, batch))) {
            Some((b, batch)) => {
                let mut part = Vec::new();
                write(&mut part);
                batch.parts.push(part);
                batch.open = batch.open.saturating_sub(1);
                self.flush_batch(b, route);
            }
            None => {
                write(self.out.begin());
                self.out.finish(route);
            }
        }
    }

    /// Writes a finished batch's answer, routed like the answer that finished it.
    fn flush_batch(&mut self, b: u64, route: Route) {
        let done = self.batches.get(&b).is_some_and(|x| x.sealed && x.open == 0);
        if !done {
            return;
        }
        let Some(batch) = self.batches.remove(&b) else { return };
        if batch.parts.is_empty() {
            return;
        }
        let buf = self.out.begin();
        buf.push(b'[');
        for (i, p) in batch.parts.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(p);
        }
        buf.push(b']');
        self.out.finish(route);
    }

    /// Sends progress on a peer request. `Ok(false)` when the peer asked for none.
    pub fn send_progress(
        &mut self,
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, RpcError> {
        let with_message = self.version.is_none_or(|v| v.supports(Feature::ProgressMessage));
        let Some(inf) = self.inflight.get_mut(&key) else {
            return Err(RpcError::invalid_request("the request is no longer in progress"));
        };
        let Some(token) = inf.token.clone() else { return Ok(false) };
        if !progress.is_finite() {
            return Err(RpcError::invalid_params("progress must be a finite number"));
        }
        if let Some(last) = inf.last_progress {
            if progress <= last {
                return Err(RpcError::invalid_params(format!(
                    "progress must increase with each notification ({progress} after {last})"
                )));
            }
        }
        inf.last_progress = Some(progress);
        let mut p = serde_json::Map::new();
        p.insert("progressToken".into(), token.to_value());
        p.insert("progress".into(), progress.into());
        if let Some(t) = total {
            p.insert("total".into(), t.into());
        }
        if let (Some(m), true) = (message, with_message) {
            p.insert("message".into(), m.into());
        }
        self.notify(Route::Related(key), "notifications/progress", Some(&Value::Object(p)));
        Ok(true)
    }

    /// Sends a notification.
    pub fn notify<T: serde::Serialize + ?Sized>(&mut self, route: Route, method: &str, params: Option<&T>) {
        jsonrpc::write_notification(self.out.begin(), method, params);
        self.out.finish(route);
    }

    // ---- our requests --------------------------------------------------------------------

    /// Sends a request; its answer arrives as [`Event::Response`].
    pub fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        now: Instant,
    ) -> OutboundId {
        let n = self.next_out_id;
        self.next_out_id += 1;
        let id = RequestId::Number(n);
        let mut params = params;
        let mut token = None;
        if opts.progress {
            let t = RequestId::Number(n);
            let obj = params.get_or_insert_with(|| Value::Object(Default::default()));
            if let Value::Object(map) = obj {
                let meta = map.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
                if let Value::Object(meta) = meta {
                    meta.insert("progressToken".into(), t.to_value());
                }
            }
            self.tokens_out.insert(t.clone(), n);
            token = Some(t);
        }
        let timeout = opts.timeout.or(self.default_timeout);
        let deadline = timeout.map(|t| now + t);
        if let Some(d) = deadline {
            self.deadlines.insert((d, n));
        }
        self.pending.insert(
            n,
            Pending {
                deadline,
                timeout,
                reset_on_progress: opts.reset_timeout_on_progress,
                hard_deadline: timeout.map(|t| now + opts.max_total_timeout.unwrap_or(t * 10).max(t)),
                token,
                last_progress: None,
                cancellable: method != "initialize",
            },
        );
        jsonrpc::write_request(self.out.begin(), &id, method, params.as_ref());
        self.out.finish(opts.related.map(Route::Related).unwrap_or(Route::Standalone));
        OutboundId(n)
    }

    fn forget(&mut self, n: i64) -> Option<Pending> {
        let p = self.pending.remove(&n)?;
        if let Some(d) = p.deadline {
            self.deadlines.remove(&(d, n));
        }
        if let Some(t) = &p.token {
            self.tokens_out.remove(t);
        }
        Some(p)
    }

    /// Cancels one of our requests: the peer is told, no answer event follows. `initialize`
    /// is only forgotten: the peer is never told (clients MUST NOT cancel it).
    pub fn cancel(&mut self, id: OutboundId, reason: Option<&str>) -> bool {
        self.cancel_with_meta(id, reason, None)
    }

    /// [`Peer::cancel`], the notification carrying `meta` (a 2026-07-28 session's per-message
    /// metadata: over HTTP the transport then closes the request's stream instead of posting it).
    pub fn cancel_with_meta(
        &mut self,
        id: OutboundId,
        reason: Option<&str>,
        meta: Option<&serde_json::Map<String, Value>>,
    ) -> bool {
        let Some(pending) = self.forget(id.0) else { return false };
        if !pending.cancellable {
            return true;
        }
        let mut p = serde_json::Map::new();
        if let Some(m) = meta {
            p.insert("_meta".into(), Value::Object(m.clone()));
        }
        p.insert("requestId".into(), id.0.into());
        if let Some(r) = reason {
            p.insert("reason".into(), r.into());
        }
        self.notify(Route::Standalone, "notifications/cancelled", Some(&Value::Object(p)));
        true
    }

    fn on_response(&mut self, id: Option<RequestId>, result: Option<RawJson<'_>>, error: Option<RpcError>) {
        let Some(RequestId::Number(n)) = id else { return };
        if self.forget(n).is_none() {
            return; // late (timed out or cancelled) or never ours: ignored
        }
        let result = match (error, result) {
            (Some(e), _) => Err(e),
            (None, Some(r)) => serde_json::from_str(r.get()).map_err(|e| RpcError::parse_error(format!("result: {e}"))),
            (None, None) => Ok(Value::Null),
        };
        self.events.push_back(Event::Response { id: OutboundId(n), result });
    }

    fn on_progress(&mut self, p: ProgressParams, now: Instant) {
        let Some(&n) = self.tokens_out.get(&p.token) else { return };
        let Some(pending) = self.pending.get_mut(&n) else { return };
        if pending.last_progress.is_some_and(|last| p.progress <= last) {
            return; // progress must increase; a stale or repeated value is dropped
        }
        pending.last_progress = Some(p.progress);
        if pending.reset_on_progress {
            if let (Some(old), Some(t)) = (pending.deadline, pending.timeout) {
                self.deadlines.remove(&(old, n));
                let d = pending.hard_deadline.map_or(now + t, |hard| (now + t).min(hard));
                pending.deadline = Some(d);
                self.deadlines.insert((d, n));
            }
        }
        self.events.push_back(Event::Progress {
            id: OutboundId(n),
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.first().map(|(d, _)| *d)
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(&(d, n)) = self.deadlines.first() {
            if d > now {
                break;
            }
            let timeout = self.pending.get(&n).and_then(|p| p.timeout).unwrap_or_default();
            self.cancel(OutboundId(n), Some("request timed out"));
            self.events.push_back(Event::Response {
                id: OutboundId(n),
                result: Err(RpcError::new(
                    codes::REQUEST_TIMEOUT,
                    format!("request timed out after {} ms", timeout.as_millis()),
                )),
            });
        }
    }

    /// Closes the session: our pending requests fail, the peer's in-flight ones are
    /// cancelled.
    pub fn close(&mut self) {
        self.close_because("connection closed");
    }

    /// [`Peer::close`], saying why (the error our pending requests fail with).
    pub fn close_because(&mut self, why: &str) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.fail_pending(why);
        let mut keys: Vec<RequestKey> = self.inflight.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            self.end(key);
            self.events.push_back(Event::Cancelled { key, reason: Some(why.into()) });
        }
    }

    /// The peer can no longer send (its input ended): our pending requests fail, while the
    /// peer's in-flight requests may still be answered.
    pub fn input_closed(&mut self) {
        self.fail_pending("the peer closed its side of the connection");
    }

    /// Fails every request of ours still awaiting an answer, oldest first.
    fn fail_pending(&mut self, why: &str) {
        let mut ids: Vec<i64> = self.pending.keys().copied().collect();
        ids.sort_unstable();
        for n in ids {
            self.forget(n);
            self.events.push_back(Event::Response {
                id: OutboundId(n),
                result: Err(RpcError::new(codes::CONNECTION_CLOSED, why)),
            });
        }
    }

    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }
}
