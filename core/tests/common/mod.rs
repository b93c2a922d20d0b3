//! Shared helpers of the integration tests:
//!
//! - [`bounded`]: every test body runs under a timeout;
//! - [`connect_tapped`]: a [`Client`] connected to a [`Server`] through two in-memory duplex
//!   pairs with a forwarding task in between that records every line in both directions;
//! - [`assert_valid`] / [`assert_valid_result`]: validation of wire messages against the
//!   official JSON Schema of a revision (`tests/fixtures/schema/<rev>.json`).
//!
//! Each test binary uses a subset of this module.
#![allow(dead_code)]

use hypermcp::transport::duplex;
use hypermcp::{Client, ClientOptions, ProtocolVersion, Server};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Notify};
use tokio::task::JoinHandle;

/// Upper bound of one test body.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs a test body under [`TEST_TIMEOUT`]; panics when it takes longer.
pub async fn bounded<F: Future>(f: F) -> F::Output {
    bounded_for(TEST_TIMEOUT, f).await
}

/// Runs a future under a timeout; panics with the limit when it takes longer.
pub async fn bounded_for<F: Future>(limit: Duration, f: F) -> F::Output {
    match tokio::time::timeout(limit, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {limit:?}"),
    }
}

/// The workspace root (the parent of `core/`).
pub fn workspace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("core/ has a parent").to_path_buf()
}

/// Where the examples of this build are (`cargo test --workspace` builds them next to the
/// tests, whatever the target directory and triple): `<target>/[<triple>/]<profile>/examples`.
pub fn examples_dir() -> PathBuf {
    // The test runs from <target>/[<triple>/]<profile>/deps/.
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent().and_then(|deps| deps.parent()).expect("<target>/<profile>").join("examples")
}

// ---- wire tap --------------------------------------------------------------------------

/// Which way a recorded line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Client to server.
    ToServer,
    /// Server to client.
    ToClient,
}

impl Dir {
    fn opposite(self) -> Dir {
        match self {
            Dir::ToServer => Dir::ToClient,
            Dir::ToClient => Dir::ToServer,
        }
    }
}

/// One recorded line.
#[derive(Clone, Debug)]
pub struct WireMessage {
    /// Its direction.
    pub dir: Dir,
    /// The line as sent (without the newline).
    pub line: String,
    /// The line parsed (panics at record time if it is not JSON).
    pub json: Value,
}

impl WireMessage {
    /// `method`, if this is a request or a notification.
    pub fn method(&self) -> Option<&str> {
        self.json.get("method").and_then(Value::as_str)
    }
    /// Whether this is a request (method and id).
    pub fn is_request(&self) -> bool {
        self.method().is_some() && self.json.get("id").is_some()
    }
    /// Whether this is a notification (method, no id).
    pub fn is_notification(&self) -> bool {
        self.method().is_some() && self.json.get("id").is_none()
    }
    /// Whether this is a response (no method).
    pub fn is_response(&self) -> bool {
        self.json.is_object() && self.method().is_none()
    }
}

/// The record of everything that crossed the tap, in order per direction (and in the order
/// the forwarders saw it across directions).
#[derive(Clone, Default)]
pub struct Tap {
    lines: Arc<Mutex<Vec<WireMessage>>>,
    changed: Arc<Notify>,
}

impl Tap {
    fn record(&self, dir: Dir, raw: &[u8]) {
        let text = String::from_utf8(raw.to_vec()).expect("wire lines are UTF-8");
        let line = text.trim_end_matches('\n').to_string();
        let json: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{dir:?} line is not JSON ({e}): {line}"));
        self.lines.lock().unwrap().push(WireMessage { dir, line, json });
        self.changed.notify_waiters();
    }

    /// Everything recorded so far.
    pub fn messages(&self) -> Vec<WireMessage> {
        self.lines.lock().unwrap().clone()
    }

    /// Messages in one direction.
    pub fn sent(&self, dir: Dir) -> Vec<WireMessage> {
        self.messages().into_iter().filter(|m| m.dir == dir).collect()
    }

    /// Messages with a given method (requests and notifications), any direction.
    pub fn with_method(&self, method: &str) -> Vec<WireMessage> {
        self.messages().into_iter().filter(|m| m.method() == Some(method)).collect()
    }

    /// The response (either direction) to the request with `id` sent in direction `dir`.
    pub fn response_to(&self, dir: Dir, id: &Value) -> Option<WireMessage> {
        self.messages().into_iter().find(|m| m.dir == dir.opposite() && m.is_response() && m.json.get("id") == Some(id))
    }

    /// Waits (bounded) until a recorded message matches `pred`, and returns it.
    pub async fn wait_for(&self, what: &str, pred: impl Fn(&WireMessage) -> bool) -> WireMessage {
        let search = async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(m) = self.messages().into_iter().find(|m| pred(m)) {
                    return m;
                }
                notified.await;
            }
        };
        match tokio::time::timeout(Duration::from_secs(10), search).await {
            Ok(m) => m,
            Err(_) => panic!("the tap never saw {what}; recorded:\n{}", self.dump()),
        }
    }

    /// The transcript as text (for failure messages).
    pub fn dump(&self) -> String {
        self.messages()
            .iter()
            .map(|m| format!("{} {}", if m.dir == Dir::ToServer { "C->S" } else { "S->C" }, m.line))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Validates every recorded message against the schema of `rev`: the JSON-RPC envelope,
    /// the specific type of known requests and notifications, and the specific result type
    /// of responses to known requests (matched by id with the request sent the other way).
    /// Returns how many messages were checked.
    pub fn assert_all_valid(&self, rev: ProtocolVersion) -> usize {
        let rev = rev.as_str();
        let messages = self.messages();
        assert!(!messages.is_empty(), "nothing was recorded");
        let mut requests: HashMap<(Dir, String), String> = HashMap::new();
        for m in &messages {
            let items: Vec<&Value> = match &m.json {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            for item in items {
                match (item.get("method").and_then(Value::as_str), item.get("id")) {
                    (Some(method), Some(id)) => {
                        // A task-augmented call (2025-11-25) is answered with the task.
                        let answered_as = match item.pointer("/params/task") {
                            Some(_) => format!("{method}+task"),
                            None => method.to_string(),
                        };
                        requests.insert((m.dir, id.to_string()), answered_as);
                        assert_valid(rev, item);
                    }
                    (None, Some(id)) if item.get("result").is_some() => {
                        match requests.get(&(m.dir.opposite(), id.to_string())) {
                            Some(method) => assert_valid_result(rev, method, item),
                            None => assert_valid(rev, item),
                        }
                    }
                    _ => assert_valid(rev, item),
                }
            }
        }
        messages.len()
    }
}

/// A client connected to a server through a recording tap.
pub struct Tapped {
    /// The client.
    pub client: Client,
    /// What crossed the wire.
    pub tap: Tap,
    /// The server's session task (ends when the client closes).
    pub server: JoinHandle<hypermcp::Result<()>>,
}

impl Tapped {
    /// The negotiated revision.
    pub fn rev(&self) -> ProtocolVersion {
        self.client.protocol_version()
    }
    /// Validates every recorded message against the negotiated revision's schema.
    pub fn assert_all_valid(&self) -> usize {
        self.tap.assert_all_valid(self.rev())
    }
}

async fn forward<R, W>(reader: R, mut writer: W, dir: Dir, tap: Tap)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                // Recorded before it is forwarded: whatever an end has seen is in the tap.
                tap.record(dir, &line);
                if writer.write_all(&line).await.is_err() || writer.flush().await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = writer.shutdown().await;
}

/// Connects a client to `server` through two in-memory duplex pairs with a forwarding tap
/// in between. Panics if the handshake fails.
pub async fn connect_tapped(server: &Server, options: ClientOptions) -> Tapped {
    match try_connect_tapped(server, options).await {
        Ok(t) => t,
        Err((e, tap)) => panic!("handshake through the tap failed: {e}\nwire:\n{}", tap.dump()),
    }
}

/// [`connect_tapped`] returning the handshake error instead of panicking.
pub async fn try_connect_tapped(server: &Server, options: ClientOptions) -> Result<Tapped, (hypermcp::Error, Tap)> {
    let (client_end, tap_client_side) = duplex::pair();
    let (tap_server_side, server_end) = duplex::pair();
    let tap = Tap::default();

    let (sr, sw) = tokio::io::split(server_end);
    let srv = server.clone();
    let server_task = tokio::spawn(async move { srv.serve(sr, sw).await });

    let (tcr, tcw) = tokio::io::split(tap_client_side);
    let (tsr, tsw) = tokio::io::split(tap_server_side);
    tokio::spawn(forward(tcr, tsw, Dir::ToServer, tap.clone()));
    tokio::spawn(forward(tsr, tcw, Dir::ToClient, tap.clone()));

    let (cr, cw) = tokio::io::split(client_end);
    match Client::connect(cr, cw, options).await {
        Ok(client) => Ok(Tapped { client, tap, server: server_task }),
        Err(e) => Err((e, tap)),
    }
}

/// Options asking for one legacy revision (the `initialize` handshake; 2026-07-28 is
/// `ClientMode::Modern`).
pub fn options_for(rev: ProtocolVersion) -> ClientOptions {
    let mut o = ClientOptions::new("hypermcp-tests", "0.0.1").mode(hypermcp::ClientMode::Legacy);
    o.protocol_version = rev;
    o
}

/// A channel fed by `ClientOptions::on_notification`: `(method, params)` pairs.
pub fn notification_channel(options: ClientOptions) -> (ClientOptions, mpsc::UnboundedReceiver<(String, Value)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let options = options.on_notification(move |method, params| {
        let _ = tx.send((method.to_string(), params.clone()));
    });
    (options, rx)
}

/// Receives the next notification with `method` (others are skipped), bounded.
pub async fn next_notification(rx: &mut mpsc::UnboundedReceiver<(String, Value)>, method: &str) -> Value {
    let wait = async {
        loop {
            match rx.recv().await {
                Some((m, p)) if m == method => return p,
                Some(_) => continue,
                None => panic!("notification channel closed while waiting for {method}"),
            }
        }
    };
    match tokio::time::timeout(Duration::from_secs(10), wait).await {
        Ok(p) => p,
        Err(_) => panic!("no {method} notification arrived"),
    }
}

// ---- schema validation -----------------------------------------------------------------

struct SchemaDoc {
    doc: Value,
    defs_key: &'static str,
}

fn schema_doc(rev: &str) -> Arc<SchemaDoc> {
    static DOCS: OnceLock<Mutex<HashMap<String, Arc<SchemaDoc>>>> = OnceLock::new();
    let docs = DOCS.get_or_init(Default::default);
    if let Some(d) = docs.lock().unwrap().get(rev) {
        return d.clone();
    }
    let path = workspace_dir().join("tests/fixtures/schema").join(format!("{rev}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    // draft-07 revisions keep their types under `definitions`, 2020-12 under `$defs`.
    let defs_key = if doc.get("$defs").is_some() { "$defs" } else { "definitions" };
    let d = Arc::new(SchemaDoc { doc, defs_key });
    docs.lock().unwrap().insert(rev.to_string(), d.clone());
    d
}

/// Whether revision `rev` defines the type `name`.
pub fn has_definition(rev: &str, name: &str) -> bool {
    let d = schema_doc(rev);
    d.doc[d.defs_key].get(name).is_some()
}

/// The compiled validator of one definition: the whole document with a root `$ref` to it, so
/// every `$ref` inside resolves within the same file.
fn validator(rev: &str, name: &str) -> Arc<jsonschema::Validator> {
    type Cache = Mutex<HashMap<(String, String), Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (rev.to_string(), name.to_string());
    if let Some(v) = cache.lock().unwrap().get(&key) {
        return v.clone();
    }
    let d = schema_doc(rev);
    assert!(has_definition(rev, name), "revision {rev} has no type {name}");
    let mut wrapper = d.doc.clone();
    wrapper
        .as_object_mut()
        .expect("schema document is an object")
        .insert("$ref".into(), json!(format!("#/{}/{}", d.defs_key, name)));
    let v = Arc::new(
        jsonschema::validator_for(&wrapper).unwrap_or_else(|e| panic!("schema {rev}#{name} does not compile: {e}")),
    );
    cache.lock().unwrap().insert(key, v.clone());
    v
}

/// Validates `instance` against type `name` of revision `rev`, panicking with every error.
pub fn assert_matches(rev: &str, name: &str, instance: &Value) {
    let v = validator(rev, name);
    if v.is_valid(instance) {
        return;
    }
    let errors: Vec<String> =
        v.iter_errors(instance).take(10).map(|e| format!("  at {:?}: {e}", e.instance_path().to_string())).collect();
    panic!(
        "not a valid {name} of MCP {rev}:\n{}\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(instance).unwrap_or_default()
    );
}

/// The schema type of a request or notification method.
pub fn message_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeRequest",
        "ping" => "PingRequest",
        "tools/list" => "ListToolsRequest",
        "tools/call" => "CallToolRequest",
        "resources/list" => "ListResourcesRequest",
        "resources/templates/list" => "ListResourceTemplatesRequest",
        "resources/read" => "ReadResourceRequest",
        "resources/subscribe" => "SubscribeRequest",
        "resources/unsubscribe" => "UnsubscribeRequest",
        "prompts/list" => "ListPromptsRequest",
        "prompts/get" => "GetPromptRequest",
        "completion/complete" => "CompleteRequest",
        "logging/setLevel" => "SetLevelRequest",
        "sampling/createMessage" => "CreateMessageRequest",
        "elicitation/create" => "ElicitRequest",
        "roots/list" => "ListRootsRequest",
        "notifications/initialized" => "InitializedNotification",
        "notifications/cancelled" => "CancelledNotification",
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/roots/list_changed" => "RootsListChangedNotification",
        "notifications/elicitation/complete" => "ElicitationCompleteNotification",
        "server/discover" => "DiscoverRequest",
        "subscriptions/listen" => "SubscriptionsListenRequest",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
        "tasks/get" => "GetTaskRequest",
        "tasks/result" => "GetTaskPayloadRequest",
        "tasks/list" => "ListTasksRequest",
        "tasks/cancel" => "CancelTaskRequest",
        "notifications/tasks/status" => "TaskStatusNotification",
        _ => return None,
    })
}

/// The schema type of the result of a request method.
pub fn result_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/read" => "ReadResourceResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        "sampling/createMessage" => "CreateMessageResult",
        "elicitation/create" => "ElicitResult",
        "roots/list" => "ListRootsResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => "EmptyResult",
        "server/discover" => "DiscoverResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        "tools/call+task" => "CreateTaskResult",
        "tasks/get" => "GetTaskResult",
        "tasks/result" => "GetTaskPayloadResult",
        "tasks/list" => "ListTasksResult",
        "tasks/cancel" => "CancelTaskResult",
        _ => return None,
    })
}

/// An error response with `id: null` (legal JSON-RPC for a request whose id could not be
/// read, but outside MCP's schemas, which require a string or integer id).
fn is_null_id_error(msg: &Value) -> bool {
    msg.get("id") == Some(&Value::Null) && msg.get("error").is_some()
}

fn assert_null_id_error(msg: &Value) {
    let obj = msg.as_object().expect("an object");
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "jsonrpc must be \"2.0\": {msg}");
    let err = obj["error"].as_object().unwrap_or_else(|| panic!("error must be an object: {msg}"));
    assert!(err.get("code").is_some_and(|c| c.is_i64()), "error.code must be an integer: {msg}");
    assert!(err.get("message").is_some_and(Value::is_string), "error.message must be a string: {msg}");
    for k in obj.keys() {
        assert!(["jsonrpc", "id", "error"].contains(&k.as_str()), "unexpected member {k:?}: {msg}");
    }
}

/// Validates one wire message (or a batch) against revision `rev`: the JSON-RPC message
/// definition, and for requests and notifications of known methods their specific type (a
/// known method whose type the revision lacks is an error: the message does not exist there).
/// Error responses with `id: null` are accepted after a structural check.
pub fn assert_valid(rev: &str, msg: &Value) {
    if let Value::Array(items) = msg {
        assert!(!items.is_empty(), "empty batch");
        assert!(has_definition(rev, "JSONRPCBatchRequest"), "MCP {rev} has no batches, got {msg}");
        for item in items {
            assert_valid(rev, item);
        }
        return;
    }
    if is_null_id_error(msg) {
        return assert_null_id_error(msg);
    }
    assert_matches(rev, "JSONRPCMessage", msg);
    // `JSONRPCMessage` is an `anyOf` loose enough to let e.g. a request with a float id pass
    // as a notification: check the specific envelope too.
    let envelope = match (msg.get("method"), msg.get("id"), msg.get("error")) {
        (Some(_), Some(_), _) => "JSONRPCRequest",
        (Some(_), None, _) => "JSONRPCNotification",
        (None, _, Some(_)) if has_definition(rev, "JSONRPCErrorResponse") => "JSONRPCErrorResponse",
        (None, _, Some(_)) => "JSONRPCError",
        (None, _, None) if has_definition(rev, "JSONRPCResultResponse") => "JSONRPCResultResponse",
        (None, _, None) => "JSONRPCResponse",
    };
    assert_matches(rev, envelope, msg);
    if let Some(method) = msg.get("method").and_then(Value::as_str) {
        if let Some(t) = message_type(method) {
            assert!(has_definition(rev, t), "MCP {rev} has no {method} ({t}), yet it was sent: {msg}");
            assert_matches(rev, t, msg);
        }
    }
}

/// Validates a response to a request of `method`: the envelope, then (for a success) its
/// `result` against the method's result type.
pub fn assert_valid_result(rev: &str, method: &str, msg: &Value) {
    assert_valid(rev, msg);
    if let (Some(result), Some(t)) = (msg.get("result"), result_type(method)) {
        // 2026-07-28 types whole responses (a result may be `input_required`).
        let response = format!("{t}Response");
        if has_definition(rev, &response) {
            assert_matches(rev, &response, msg);
        } else {
            assert_matches(rev, t, result);
        }
    }
}
