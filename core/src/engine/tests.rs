//! Deterministic tests of the session state machines: no I/O, no runtime, a synthetic clock.
//! Every test drives a session with bytes and asserts the exact bytes and events it produces.

use super::{
    ClientConfig, ClientSession, Event, Invocation, OutboundId, Outcome, Request, RequestKey, RequestOptions, Route,
    ServerConfig, ServerSession, State,
};
use crate::catalogue::{ListKind, Registry, RegistryChange};
use crate::jsonrpc::{codes, RequestId, RpcError};
use crate::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CompletionReference, Content, ElicitParams, GetPromptResult,
    Implementation, ListChangedCapability, LoggingLevel, Prompt, PromptArgument, PromptMessage, ProtocolVersion,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Tool,
};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ---- helpers ------------------------------------------------------------------------------

fn secs(t0: Instant, n: u64) -> Instant {
    t0 + Duration::from_secs(n)
}

/// What the helpers need from either end of a session.
trait Endpoint {
    fn input(&mut self, data: &[u8], now: Instant);
    fn output(&mut self) -> Vec<u8>;
    fn next_event(&mut self) -> Option<Event>;
}

impl Endpoint for ServerSession {
    fn input(&mut self, data: &[u8], now: Instant) {
        self.feed(data, now);
    }
    fn output(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        self.take_output(&mut out);
        out
    }
    fn next_event(&mut self) -> Option<Event> {
        self.poll_event()
    }
}

impl Endpoint for ClientSession {
    fn input(&mut self, data: &[u8], now: Instant) {
        self.feed(data, now);
    }
    fn output(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        self.take_output(&mut out);
        out
    }
    fn next_event(&mut self) -> Option<Event> {
        self.poll_event()
    }
}

/// Sends one JSON value as a line.
fn send(s: &mut impl Endpoint, msg: Value, now: Instant) {
    let mut line = serde_json::to_vec(&msg).expect("serialisable");
    line.push(b'\n');
    s.input(&line, now);
}

/// Sends raw text as a line.
fn send_raw(s: &mut impl Endpoint, text: &str, now: Instant) {
    let mut line = text.as_bytes().to_vec();
    line.push(b'\n');
    s.input(&line, now);
}

fn split_lines(bytes: &[u8]) -> Vec<String> {
    assert!(bytes.is_empty() || bytes.ends_with(b"\n"), "output must be newline-terminated");
    let text = std::str::from_utf8(bytes).expect("output is UTF-8");
    text.lines().map(str::to_string).collect()
}

/// The output lines, as text.
fn raw_lines(s: &mut impl Endpoint) -> Vec<String> {
    split_lines(&s.output())
}

/// The output lines, parsed.
fn lines(s: &mut impl Endpoint) -> Vec<Value> {
    raw_lines(s).iter().map(|l| serde_json::from_str(l).expect("output line is JSON")).collect()
}

/// Exactly one output line, parsed.
fn one_line(s: &mut impl Endpoint) -> Value {
    let mut out = lines(s);
    assert_eq!(out.len(), 1, "expected one line, got {out:?}");
    out.remove(0)
}

fn events(s: &mut impl Endpoint) -> Vec<Event> {
    std::iter::from_fn(|| s.next_event()).collect()
}

/// Asserts nothing came out: no bytes, no events.
fn assert_quiet(s: &mut impl Endpoint) {
    let out = raw_lines(s);
    assert!(out.is_empty(), "unexpected output {out:?}");
    let ev = events(s);
    assert!(ev.is_empty(), "unexpected events {ev:?}");
}

/// Exactly one event, an invocation.
fn invocation(s: &mut impl Endpoint) -> Invocation {
    let mut ev = events(s);
    assert_eq!(ev.len(), 1, "expected one event, got {ev:?}");
    match ev.remove(0) {
        Event::Invoke(inv) => inv,
        other => panic!("expected an invocation, got {other:?}"),
    }
}

/// Asserts `msg` is an error response with `id` and `code`; returns the error object.
fn assert_error(msg: &Value, id: Value, code: i32) -> &Value {
    assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
    assert_eq!(msg["id"], id, "{msg}");
    assert!(msg.get("result").is_none(), "{msg}");
    assert_eq!(msg["error"]["code"], code, "{msg}");
    assert!(msg["error"]["message"].is_string(), "{msg}");
    &msg["error"]
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn request(id: Value, method: &str, params: Value) -> Value {
    let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if !params.is_null() {
        m["params"] = params;
    }
    m
}

fn notification(method: &str, params: Value) -> Value {
    let mut m = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_null() {
        m["params"] = params;
    }
    m
}

fn server_info() -> Implementation {
    Implementation::new("test-server", "1.0.0")
}

fn new_server(registry: Registry, tweak: impl FnOnce(&mut ServerConfig)) -> ServerSession {
    let mut config = ServerConfig::new(server_info());
    tweak(&mut config);
    ServerSession::new(Arc::new(config), Arc::new(registry))
}

/// Sends `initialize` asking for `version` with client capabilities `caps`; returns the result.
fn initialize(s: &mut ServerSession, version: &str, caps: Value, now: Instant) -> Value {
    let params = json!({
        "protocolVersion": version,
        "capabilities": caps,
        "clientInfo": {"name": "test-client", "version": "0.1.0"},
    });
    send(s, request(json!(0), "initialize", params), now);
    let msg = one_line(s);
    assert_eq!(msg["id"], 0, "{msg}");
    assert!(msg.get("error").is_none(), "{msg}");
    msg["result"].clone()
}

/// A server session through the whole handshake at `version` (which must be negotiated as is).
fn ready_with(
    registry: Registry,
    tweak: impl FnOnce(&mut ServerConfig),
    version: &str,
    caps: Value,
    now: Instant,
) -> ServerSession {
    let mut s = new_server(registry, tweak);
    let result = initialize(&mut s, version, caps, now);
    assert_eq!(result["protocolVersion"], version);
    send(&mut s, notification("notifications/initialized", Value::Null), now);
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert!(raw_lines(&mut s).is_empty());
    assert_eq!(s.state(), State::Operating);
    s
}

fn ready(registry: Registry, version: &str, caps: Value, now: Instant) -> ServerSession {
    ready_with(registry, |_| {}, version, caps, now)
}

fn echo_tool() -> Tool {
    Tool::new("echo").input_schema(json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }))
}

fn echo_registry() -> Registry {
    let r = Registry::new();
    r.add_tool(echo_tool()).unwrap();
    r
}

fn call_echo(id: Value, text: &str) -> Value {
    request(id, "tools/call", json!({"name": "echo", "arguments": {"text": text}}))
}

/// Sends a request to the client through `ServerSession::request`; on success returns its id
/// and the line written, on refusal the error (and checks nothing was written).
fn server_request(
    s: &mut ServerSession,
    method: &str,
    params: Value,
    now: Instant,
) -> Result<(OutboundId, Value), RpcError> {
    let p = (!params.is_null()).then_some(params);
    match s.request(method, p, &RequestOptions::default(), now) {
        Ok(id) => {
            let msg = one_line(s);
            assert_eq!(msg["id"], id.0, "{msg}");
            assert_eq!(msg["method"], method, "{msg}");
            Ok((id, msg))
        }
        Err(e) => {
            assert_quiet(s);
            Err(e)
        }
    }
}

fn client_config(caps: Value) -> ClientConfig {
    let mut c = ClientConfig::new(Implementation::new("test-client", "0.1.0"));
    c.capabilities = serde_json::from_value(caps).expect("client capabilities");
    c
}

/// A client through the handshake against a hand-written `initialize` result.
fn client_after_handshake(config: ClientConfig, server_result: Value, now: Instant) -> ClientSession {
    let mut c = ClientSession::new(Arc::new(config));
    let init = c.initialize(now);
    let msg = one_line(&mut c);
    assert_eq!(msg["id"], init.0);
    assert_eq!(msg["method"], "initialize");
    send(&mut c, ok(json!(init.0), server_result), now);
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(lines(&mut c), vec![notification("notifications/initialized", Value::Null)]);
    assert_eq!(c.state(), State::Operating);
    c
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    ToServer,
    ToClient,
}

/// Moves bytes between a client and a server until neither has output; returns the
/// transcript.
fn pump(c: &mut ClientSession, s: &mut ServerSession, now: Instant) -> Vec<(Dir, Value)> {
    let mut transcript = Vec::new();
    loop {
        let mut moved = false;
        let up = Endpoint::output(c);
        if !up.is_empty() {
            for l in split_lines(&up) {
                transcript.push((Dir::ToServer, serde_json::from_str(&l).expect("JSON")));
            }
            s.feed(&up, now);
            moved = true;
        }
        let down = Endpoint::output(s);
        if !down.is_empty() {
            for l in split_lines(&down) {
                transcript.push((Dir::ToClient, serde_json::from_str(&l).expect("JSON")));
            }
            c.feed(&down, now);
            moved = true;
        }
        if !moved {
            return transcript;
        }
    }
}

/// A client and a server wired together through the handshake.
fn connect(config: ClientConfig, mut s: ServerSession, now: Instant) -> (ClientSession, ServerSession) {
    let mut c = ClientSession::new(Arc::new(config));
    c.initialize(now);
    let transcript = pump(&mut c, &mut s, now);
    assert_eq!(transcript.len(), 3, "{transcript:?}");
    assert!(matches!(events(&mut c).as_slice(), [Event::Initialized]));
    assert!(matches!(events(&mut s).as_slice(), [Event::Initialized]));
    assert_eq!(c.state(), State::Operating);
    assert_eq!(s.state(), State::Operating);
    (c, s)
}

// ---- lifecycle ----------------------------------------------------------------------------

#[test]
fn requests_before_initialize_are_refused_but_ping_is_answered() {
    let t0 = Instant::now();
    let mut s = new_server(echo_registry(), |_| {});
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: received tools/list before initialize: send initialize first");
    send(&mut s, call_echo(json!("c"), "x"), t0);
    assert_error(&one_line(&mut s), json!("c"), codes::INVALID_REQUEST);

    send(&mut s, request(json!("p"), "ping", Value::Null), t0);
    assert_eq!(lines(&mut s), vec![ok(json!("p"), json!({}))]);

    // Notifications before initialize are dropped, `initialized` included.
    send(&mut s, notification("notifications/roots/list_changed", Value::Null), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert_quiet(&mut s);
    assert_eq!(s.state(), State::Uninitialized);
    assert_eq!(s.protocol_version(), None);
}

#[test]
fn second_initialize_is_refused() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-06-18", json!({}), t0);
    let params =
        json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}});
    send(&mut s, request(json!(9), "initialize", params.clone()), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(9), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: the session is already initialized");
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_06_18));
    assert_eq!(s.client_info().map(|i| i.name.as_str()), Some("test-client"));

    // Also refused between the answer and `notifications/initialized`.
    let mut s = new_server(Registry::new(), |_| {});
    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(10), "initialize", params), t0);
    assert_error(&one_line(&mut s), json!(10), codes::INVALID_REQUEST);
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_11_25));
}

#[test]
fn initialized_notification_finishes_the_handshake() {
    let t0 = Instant::now();
    let mut s = new_server(Registry::new(), |_| {});
    assert_eq!(s.state(), State::Uninitialized);
    initialize(&mut s, "2025-11-25", json!({"roots": {"listChanged": true}}), t0);
    assert_eq!(s.state(), State::Initializing);
    assert!(events(&mut s).is_empty());
    assert_eq!(s.client_info(), Some(&Implementation::new("test-client", "0.1.0")));
    assert_eq!(
        s.client_capabilities(),
        &ClientCapabilities { roots: Some(ListChangedCapability { list_changed: Some(true) }), ..Default::default() }
    );

    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert!(raw_lines(&mut s).is_empty(), "a notification is never answered");
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(s.state(), State::Operating);

    // A repeated `initialized` changes nothing.
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert_quiet(&mut s);
    assert_eq!(s.state(), State::Operating);
}

#[test]
fn each_legacy_revision_is_echoed() {
    let t0 = Instant::now();
    for v in ProtocolVersion::LEGACY {
        let mut s = new_server(Registry::new(), |_| {});
        let result = initialize(&mut s, v.as_str(), json!({}), t0);
        assert_eq!(
            result,
            json!({
                "protocolVersion": v.as_str(),
                "capabilities": {"logging": {}},
                "serverInfo": {"name": "test-server", "version": "1.0.0"},
            })
        );
        assert_eq!(s.protocol_version(), Some(v));
    }
}

#[test]
fn unknown_revision_is_answered_with_the_latest() {
    let t0 = Instant::now();
    for asked in ["1999-01-01", "2026-07-28", "", "2025-11-25-draft"] {
        let mut s = new_server(Registry::new(), |_| {});
        let result = initialize(&mut s, asked, json!({}), t0);
        assert_eq!(result["protocolVersion"], "2025-11-25", "asked {asked:?}");
        assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_11_25));
    }
}

#[test]
fn server_with_fewer_versions_answers_its_latest() {
    let t0 = Instant::now();
    let old = vec![ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26];
    for (asked, answered) in [
        ("2025-11-25", "2025-03-26"),
        ("2025-06-18", "2025-03-26"),
        ("1999-01-01", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
    ] {
        let mut s = new_server(Registry::new(), |c| c.versions = old.clone());
        let result = initialize(&mut s, asked, json!({}), t0);
        assert_eq!(result["protocolVersion"], answered, "asked {asked}");
    }
}

// ---- capabilities -------------------------------------------------------------------------

#[test]
fn undeclared_features_are_method_not_found() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({}), t0);
    let calls = [
        ("tools/list", Value::Null),
        ("tools/call", json!({"name": "echo"})),
        ("resources/list", Value::Null),
        ("resources/templates/list", Value::Null),
        ("resources/read", json!({"uri": "file:///a"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
        ("prompts/list", Value::Null),
        ("prompts/get", json!({"name": "p"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
        ),
        ("no/such/method", Value::Null),
    ];
    for (i, (method, params)) in calls.into_iter().enumerate() {
        send(&mut s, request(json!(i), method, params), t0);
        let msg = one_line(&mut s);
        let err = assert_error(&msg, json!(i), codes::METHOD_NOT_FOUND);
        assert_eq!(err["data"], json!({"method": method}));
        assert_eq!(err["message"], format!("Method not found: {method}"));
    }
    assert!(events(&mut s).is_empty());
}

#[test]
fn declared_capabilities_follow_registry_and_config() {
    let t0 = Instant::now();
    let reg = || {
        let r = Registry::new();
        r.add_tool(Tool::new("t")).unwrap();
        r.add_template(ResourceTemplate::new("x://{id}", "x")).unwrap();
        r.add_prompt(Prompt::new("p")).unwrap();
        r
    };
    let tweak = |c: &mut ServerConfig| {
        c.completions = true;
        c.subscriptions = false;
        c.instructions = Some("be nice".into());
        c.experimental = Some(Map::from_iter([("x".to_string(), json!({}))]));
    };
    let mut s = new_server(reg(), tweak);
    let result = initialize(&mut s, "2025-11-25", json!({}), t0);
    assert_eq!(
        result,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "experimental": {"x": {}},
                "logging": {},
                "completions": {},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": false, "listChanged": true},
                "tools": {"listChanged": true},
            },
            "serverInfo": {"name": "test-server", "version": "1.0.0"},
            "instructions": "be nice",
        })
    );
    // subscribe: false means resources/subscribe does not exist here.
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    send(&mut s, request(json!(1), "resources/subscribe", json!({"uri": "x://1"})), t0);
    assert_error(&one_line(&mut s), json!(1), codes::METHOD_NOT_FOUND);

    // 2024-11-05 has no completions capability.
    let mut s = new_server(reg(), tweak);
    let result = initialize(&mut s, "2024-11-05", json!({}), t0);
    assert_eq!(
        result["capabilities"],
        json!({
            "experimental": {"x": {}},
            "logging": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": false, "listChanged": true},
            "tools": {"listChanged": true},
        })
    );

    // The config flags declare capabilities of an empty registry.
    let mut s = ready_with(
        Registry::new(),
        |c| {
            c.tools = true;
            c.resources = true;
            c.prompts = true;
        },
        "2025-06-18",
        json!({}),
        t0,
    );
    send(&mut s, request(json!(2), "tools/list", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!(2), json!({"tools": []})));
    let mut s2 = new_server(Registry::new(), |c| {
        c.tools = true;
        c.resources = true;
        c.prompts = true;
    });
    let result = initialize(&mut s2, "2025-06-18", json!({}), t0);
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true},
        })
    );
}

#[test]
fn server_requests_need_the_client_capability() {
    let t0 = Instant::now();
    let form = json!({"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}});
    let url = json!({"mode": "url", "message": "Log in", "url": "https://example.com/login", "elicitationId": "e1"});
    let sampling = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
    let mut with_tools = sampling.clone();
    with_tools["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let mut with_choice = sampling.clone();
    with_choice["toolChoice"] = json!({"mode": "auto"});
    let refused = |r: Result<(OutboundId, Value), RpcError>| match r {
        Err(e) => assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{e:?}"),
        Ok(x) => panic!("should be refused, sent {x:?}"),
    };

    // Before initialize nothing may be sent.
    let mut s = new_server(Registry::new(), |_| {});
    let e = s.request("ping", None, &RequestOptions::default(), t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    assert_quiet(&mut s);

    // A client that declared nothing.
    let mut s = ready(Registry::new(), "2025-11-25", json!({}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));
    refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    refused(server_request(&mut s, "sampling/createMessage", sampling.clone(), t0));
    refused(server_request(&mut s, "roots/list", Value::Null, t0));
    let (id, msg) = server_request(&mut s, "ping", Value::Null, t0).unwrap();
    assert_eq!(id, OutboundId(1));
    assert_eq!(msg, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));

    // Form only: URL mode is refused.
    for caps in [json!({"elicitation": {"form": {}}}), json!({"elicitation": {}})] {
        let mut s = ready(Registry::new(), "2025-11-25", caps, t0);
        let (_, msg) = server_request(&mut s, "elicitation/create", form.clone(), t0).unwrap();
        assert_eq!(msg, request(json!(1), "elicitation/create", form.clone()));
        refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    }
    // URL only: form mode is refused.
    let mut s = ready(Registry::new(), "2025-11-25", json!({"elicitation": {"url": {}}}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));
    server_request(&mut s, "elicitation/create", url.clone(), t0).unwrap();
    // Both declared, but 2025-06-18 has no URL mode.
    let both = json!({"elicitation": {"form": {}, "url": {}}});
    let mut s = ready(Registry::new(), "2025-06-18", both.clone(), t0);
    refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    server_request(&mut s, "elicitation/create", form.clone(), t0).unwrap();
    let mut s = ready(Registry::new(), "2025-11-25", both, t0);
    let (_, msg) = server_request(&mut s, "elicitation/create", url.clone(), t0).unwrap();
    assert_eq!(msg["params"], url);
    // 2025-03-26 has no elicitation at all.
    let mut s = ready(Registry::new(), "2025-03-26", json!({"elicitation": {}}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));

    // Sampling without `sampling.tools`: plain requests only.
    let mut s = ready(Registry::new(), "2025-11-25", json!({"sampling": {}}), t0);
    refused(server_request(&mut s, "sampling/createMessage", with_tools.clone(), t0));
    refused(server_request(&mut s, "sampling/createMessage", with_choice.clone(), t0));
    let (_, msg) = server_request(&mut s, "sampling/createMessage", sampling.clone(), t0).unwrap();
    assert_eq!(msg, request(json!(1), "sampling/createMessage", sampling.clone()));
    let mut s = ready(Registry::new(), "2025-11-25", json!({"sampling": {"tools": {}}}), t0);
    server_request(&mut s, "sampling/createMessage", with_tools.clone(), t0).unwrap();
    server_request(&mut s, "sampling/createMessage", with_choice, t0).unwrap();
    // ... and sampling with tools needs 2025-11-25.
    let mut s = ready(Registry::new(), "2025-06-18", json!({"sampling": {"tools": {}}}), t0);
    refused(server_request(&mut s, "sampling/createMessage", with_tools, t0));

    // Roots.
    let mut s = ready(Registry::new(), "2024-11-05", json!({"roots": {}}), t0);
    let (_, msg) = server_request(&mut s, "roots/list", Value::Null, t0).unwrap();
    assert_eq!(msg, json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
}

#[test]
fn client_requests_need_the_server_capability() {
    let t0 = Instant::now();
    let opts = RequestOptions::default();
    let server_result = |caps: Value, v: &str| json!({"protocolVersion": v, "capabilities": caps, "serverInfo": {"name": "s", "version": "1"}});

    // Before the handshake only ping may be sent.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let e = c.request("tools/list", None, &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    c.initialize(t0);
    one_line(&mut c);
    let e = c.request("tools/list", None, &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    let id = c.request("ping", None, &opts, t0).unwrap();
    assert_eq!(one_line(&mut c), json!({"jsonrpc": "2.0", "id": id.0, "method": "ping"}));

    // A server with logging only.
    let mut c =
        client_after_handshake(client_config(json!({})), server_result(json!({"logging": {}}), "2025-11-25"), t0);
    for (method, params) in [
        ("tools/call", json!({"name": "echo", "arguments": {}})),
        ("tools/list", Value::Null),
        ("resources/read", json!({"uri": "file:///a"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
        ("prompts/get", json!({"name": "p"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
        ),
    ] {
        let e = c.request(method, Some(params), &opts, t0).unwrap_err();
        assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{method}");
        assert!(e.message.contains(&format!("needed by {method}")), "{e:?}");
        assert_quiet(&mut c);
    }
    let id = c.request("logging/setLevel", Some(json!({"level": "info"})), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c), request(json!(id.0), "logging/setLevel", json!({"level": "info"})));
    assert_eq!(c.pending_requests(), 1);

    // Resources without `subscribe`.
    let caps = json!({"resources": {"listChanged": true}});
    let mut c = client_after_handshake(client_config(json!({})), server_result(caps, "2025-11-25"), t0);
    let e = c.request("resources/subscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    let e = c.request("resources/unsubscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    assert_quiet(&mut c);
    c.request("resources/read", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c)["method"], "resources/read");
    let caps = json!({"resources": {"subscribe": true}, "tools": {}});
    let mut c = client_after_handshake(client_config(json!({})), server_result(caps, "2025-11-25"), t0);
    c.request("resources/subscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap();
    c.request("tools/call", Some(json!({"name": "echo"})), &opts, t0).unwrap();
    assert_eq!(lines(&mut c).len(), 2);

    // Completion had no capability before 2025-03-26.
    let mut c = client_after_handshake(client_config(json!({})), server_result(json!({}), "2024-11-05"), t0);
    let p = json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}});
    c.request("completion/complete", Some(p), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c)["method"], "completion/complete");
}

// ---- ping, notifications, responses -------------------------------------------------------

#[test]
fn ping_both_ways() {
    let t0 = Instant::now();
    let (mut c, mut s) = connect(client_config(json!({})), new_server(Registry::new(), |_| {}), t0);

    let id = c.request("ping", None, &RequestOptions::default(), t0).unwrap();
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (Dir::ToServer, json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})),
            (Dir::ToClient, ok(json!(2), json!({}))),
        ]
    );
    assert!(events(&mut s).is_empty());
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Ok(v) }] if *i == id && *v == json!({})),
        "{ev:?}"
    );

    let id = s.request("ping", None, &RequestOptions::default(), t0).unwrap();
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (Dir::ToClient, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            (Dir::ToServer, ok(json!(1), json!({}))),
        ]
    );
    assert!(events(&mut c).is_empty());
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Ok(v) }] if *i == id && *v == json!({})),
        "{ev:?}"
    );
}

#[test]
fn notifications_are_never_answered() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({"roots": {"listChanged": true}}), t0);
    for n in [
        notification("notifications/initialized", Value::Null),
        notification("notifications/cancelled", json!({"requestId": 42, "reason": "x"})),
        notification("notifications/cancelled", json!({"nonsense": true})),
        notification("notifications/cancelled", Value::Null),
        notification("notifications/progress", json!({"progressToken": "nope", "progress": 1})),
        notification("notifications/progress", json!({"progress": "bad"})),
    ] {
        send(&mut s, n, t0);
        assert_quiet(&mut s);
    }
    // Known-to-the-application and unknown notifications become events, never answers.
    send(&mut s, notification("notifications/roots/list_changed", Value::Null), t0);
    send(&mut s, notification("notifications/unknown/thing", json!({"a": 1})), t0);
    send(&mut s, notification("tools/call", json!({"name": "echo", "arguments": {"text": "x"}})), t0);
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert_eq!(ev.len(), 3, "{ev:?}");
    assert!(
        matches!(&ev[0], Event::Notification { method, params: None } if method == "notifications/roots/list_changed")
    );
    assert!(
        matches!(&ev[1], Event::Notification { method, params: Some(p) } if method == "notifications/unknown/thing" && *p == json!({"a": 1}))
    );
    assert!(matches!(&ev[2], Event::Notification { method, .. } if method == "tools/call"));

    // The client side too.
    let result =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
    let mut c = client_after_handshake(client_config(json!({})), result, t0);
    send(&mut c, notification("notifications/cancelled", json!({"requestId": 3})), t0);
    send(&mut c, notification("notifications/progress", json!({"progressToken": 3, "progress": 1})), t0);
    assert_quiet(&mut c);
    send(&mut c, notification("notifications/whatever", Value::Null), t0);
    assert!(raw_lines(&mut c).is_empty());
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Notification { method, params: None }] if method == "notifications/whatever")
    );
}

#[test]
fn responses_to_unknown_ids_are_ignored() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({"roots": {}}), t0);
    for r in [
        ok(json!(77), json!({})),
        ok(json!("abc"), json!({"roots": []})),
        json!({"jsonrpc": "2.0", "id": 78, "error": {"code": -32601, "message": "no"}}),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse"}}),
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "no id at all (2025-11-25 schema)"}}),
    ] {
        send(&mut s, r, t0);
        assert_quiet(&mut s);
    }
    // A real answer is delivered once; a duplicate is ignored.
    let (id, _) = server_request(&mut s, "roots/list", Value::Null, t0).unwrap();
    send(&mut s, ok(json!(id.0), json!({"roots": []})), t0);
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Ok(v) }] if *i == id && *v == json!({"roots": []})),
        "{ev:?}"
    );
    send(&mut s, ok(json!(id.0), json!({"roots": []})), t0);
    assert_quiet(&mut s);
    // An error answer arrives as an error.
    let (id, _) = server_request(&mut s, "roots/list", Value::Null, t0).unwrap();
    send(&mut s, json!({"jsonrpc": "2.0", "id": id.0, "error": {"code": -1, "message": "nope", "data": 5}}), t0);
    let ev = events(&mut s);
    let expected = RpcError::new(-1, "nope").with_data(json!(5));
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Err(e) }] if *i == id && *e == expected),
        "{ev:?}"
    );
}

#[test]
fn error_responses_without_an_id_are_never_answered() {
    // Two peers answering each other's `id: null` errors would ping-pong forever.
    let t0 = Instant::now();
    let (mut c, mut s) = connect(client_config(json!({})), new_server(Registry::new(), |_| {}), t0);
    send_raw(&mut s, "{not json", t0);
    let err = s.output();
    let msg: Value = serde_json::from_slice(&err).unwrap();
    assert_error(&msg, Value::Null, codes::PARSE_ERROR);
    c.feed(&err, t0);
    assert_quiet(&mut c);
    // And the other way round.
    send_raw(&mut c, "[1", t0);
    let err = c.output();
    let msg: Value = serde_json::from_slice(&err).unwrap();
    assert_error(&msg, Value::Null, codes::PARSE_ERROR);
    s.feed(&err, t0);
    assert_quiet(&mut s);
    // A request with `id: null` is still refused.
    send_raw(&mut s, r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, t0);
    assert_error(&one_line(&mut s), Value::Null, codes::INVALID_REQUEST);
}

// ---- cancellation -------------------------------------------------------------------------

#[test]
fn peer_cancellation_stops_the_invocation_and_swallows_the_outcome() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, call_echo(json!("a"), "hi"), t0);
    let inv = invocation(&mut s);
    assert_eq!(inv.id, RequestId::from("a"));
    assert_eq!(s.in_flight(), 1);

    send(&mut s, notification("notifications/cancelled", json!({"requestId": "a", "reason": "bye"})), t0);
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Cancelled { key, reason: Some(r) }] if *key == inv.key && r == "bye"),
        "{ev:?}"
    );
    assert_eq!(s.in_flight(), 0);

    s.complete(inv.key, Outcome::Tool(CallToolResult::text("late")));
    assert_quiet(&mut s);
    let e = s.progress(inv.key, 1.0, None, None).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);

    // A second cancellation of the same id is ignored.
    send(&mut s, notification("notifications/cancelled", json!({"requestId": "a"})), t0);
    assert_quiet(&mut s);
}

#[test]
fn cancellation_both_ways_across_a_wired_pair() {
    let t0 = Instant::now();
    let config = client_config(json!({"sampling": {}}));
    let (mut c, mut s) = connect(config, new_server(echo_registry(), |_| {}), t0);

    // Client -> server.
    let params = json!({"name": "echo", "arguments": {"text": "hi"}});
    let id = c.request("tools/call", Some(params.clone()), &RequestOptions::default(), t0).unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut s);
    assert!(c.cancel_request(id, Some("user")));
    assert_eq!(c.pending_requests(), 0);
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![(Dir::ToServer, notification("notifications/cancelled", json!({"requestId": id.0, "reason": "user"})))]
    );
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Cancelled { key, reason: Some(r) }] if *key == inv.key && r == "user"));
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("hi")));
    assert!(pump(&mut c, &mut s, t0).is_empty());
    // Had the server answered before the cancellation arrived, the client ignores it.
    send(&mut c, ok(json!(id.0), json!({"content": []})), t0);
    assert_quiet(&mut c);
    assert!(!c.cancel_request(id, None), "already cancelled");
    assert_quiet(&mut c);

    // Server -> client.
    let sampling = json!({"messages": [], "maxTokens": 1});
    let id = s.request("sampling/createMessage", Some(sampling), &RequestOptions::default(), t0).unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut c);
    assert!(matches!(inv.request, Request::CreateMessage(_)));
    assert!(s.cancel_request(id, None));
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(transcript, vec![(Dir::ToClient, notification("notifications/cancelled", json!({"requestId": id.0})))]);
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Cancelled { key, reason: None }] if *key == inv.key), "{ev:?}");
    c.respond(inv.key, Ok(json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})));
    assert!(pump(&mut c, &mut s, t0).is_empty());
    send(&mut s, ok(json!(id.0), json!({})), t0);
    assert_quiet(&mut s);
}

#[test]
fn cancelling_an_unknown_request_does_nothing() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    for id in [json!(2), json!("1"), json!(999)] {
        send(&mut s, notification("notifications/cancelled", json!({"requestId": id})), t0);
        assert_quiet(&mut s);
    }
    assert_eq!(s.in_flight(), 1);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("x")));
    assert_eq!(one_line(&mut s), ok(json!(1), json!({"content": [{"type": "text", "text": "x"}]})));
    // Our side: cancelling an id that was never sent (or already answered) sends nothing.
    assert!(!s.cancel_request(OutboundId(5), Some("x")));
    assert_quiet(&mut s);
}

#[test]
fn duplicate_in_flight_request_id_is_invalid_request() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, call_echo(json!(5), "one"), t0);
    let inv = invocation(&mut s);
    send(&mut s, call_echo(json!(5), "two"), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(5), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: request id 5 is already in use by a request in progress");
    assert!(events(&mut s).is_empty());
    // Even a ping may not reuse it.
    send(&mut s, request(json!(5), "ping", Value::Null), t0);
    assert_error(&one_line(&mut s), json!(5), codes::INVALID_REQUEST);
    // The string "5" is a different id.
    send(&mut s, request(json!("5"), "ping", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!("5"), json!({})));

    s.complete(inv.key, Outcome::Tool(CallToolResult::text("one")));
    assert_eq!(one_line(&mut s), ok(json!(5), json!({"content": [{"type": "text", "text": "one"}]})));
    // Once answered, the id is free again.
    send(&mut s, call_echo(json!(5), "three"), t0);
    let inv = invocation(&mut s);
    assert_eq!(inv.id, RequestId::Number(5));
}

// ---- progress -----------------------------------------------------------------------------

#[test]
fn progress_token_reaches_the_invocation_and_progress_is_sent() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    let params = json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": "tok", "k": 1}});
    send(&mut s, request(json!(3), "tools/call", params), t0);
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, Some(RequestId::from("tok")));
    assert_eq!(inv.meta, Some(Map::from_iter([("progressToken".into(), json!("tok")), ("k".into(), json!(1))])));

    assert_eq!(s.progress(inv.key, 1.0, Some(10.0), Some("one")), Ok(true));
    let t = s.poll_transmit().expect("progress sent");
    assert_eq!(t.route, Route::Related(inv.key));
    assert_eq!(
        serde_json::from_slice::<Value>(&t.bytes).unwrap(),
        notification(
            "notifications/progress",
            json!({"progressToken": "tok", "progress": 1.0, "total": 10.0, "message": "one"})
        )
    );
    assert!(s.poll_transmit().is_none());

    for bad in [1.0, 0.5, f64::NAN] {
        let e = s.progress(inv.key, bad, None, None).unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS, "{bad}");
    }
    assert_quiet(&mut s);
    assert_eq!(s.progress(inv.key, 2.5, None, None), Ok(true));
    assert_eq!(
        one_line(&mut s),
        notification("notifications/progress", json!({"progressToken": "tok", "progress": 2.5}))
    );

    s.complete(inv.key, Outcome::Tool(CallToolResult::text("x")));
    let t = s.poll_transmit().unwrap();
    assert_eq!(t.route, Route::Reply(inv.key));
    let e = s.progress(inv.key, 3.0, None, None).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    assert_quiet(&mut s);

    // Integer tokens come back as integers.
    send(
        &mut s,
        request(
            json!(4),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": 7}}),
        ),
        t0,
    );
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, Some(RequestId::Number(7)));
    assert_eq!(s.progress(inv.key, 0.0, Some(1.0), None), Ok(true));
    assert_eq!(
        one_line(&mut s),
        notification("notifications/progress", json!({"progressToken": 7, "progress": 0.0, "total": 1.0}))
    );
}

#[test]
fn progress_without_a_token_is_not_sent() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, None);
    assert_eq!(inv.meta, None);
    assert_eq!(s.progress(inv.key, 1.0, Some(2.0), Some("m")), Ok(false));
    assert_quiet(&mut s);
    // Unknown keys are refused.
    assert_eq!(s.progress(RequestKey(999), 1.0, None, None).unwrap_err().code, codes::INVALID_REQUEST);
}

#[test]
fn progress_message_is_omitted_for_2024_11_05() {
    let t0 = Instant::now();
    for (v, with_message) in [("2024-11-05", false), ("2025-03-26", true)] {
        let mut s = ready(echo_registry(), v, json!({}), t0);
        let params = json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": 1}});
        send(&mut s, request(json!(1), "tools/call", params), t0);
        let inv = invocation(&mut s);
        assert_eq!(s.progress(inv.key, 1.0, Some(4.0), Some("step")), Ok(true));
        let mut expected = json!({"progressToken": 1, "progress": 1.0, "total": 4.0});
        if with_message {
            expected["message"] = json!("step");
        }
        assert_eq!(one_line(&mut s), notification("notifications/progress", expected), "{v}");
    }
}

#[test]
fn inbound_progress_for_our_request() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({"roots": {}}), t0);
    let opts = RequestOptions { progress: true, ..Default::default() };
    let id = s.request("roots/list", None, &opts, t0).unwrap();
    assert_eq!(one_line(&mut s), request(json!(1), "roots/list", json!({"_meta": {"progressToken": 1}})));
    let progress =
        |token: Value, p: f64| notification("notifications/progress", json!({"progressToken": token, "progress": p}));

    send(
        &mut s,
        notification(
            "notifications/progress",
            json!({"progressToken": 1, "progress": 0.5, "total": 1.0, "message": "half"}),
        ),
        t0,
    );
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Progress { id: i, progress, total: Some(t), message: Some(m) }]
            if *i == id && *progress == 0.5 && *t == 1.0 && m == "half"),
        "{ev:?}"
    );
    // Stale or repeated values are dropped; tokens that are not ours are ignored.
    for n in [progress(json!(1), 0.5), progress(json!(1), 0.25), progress(json!(99), 5.0), progress(json!("1"), 5.0)] {
        send(&mut s, n, t0);
        assert_quiet(&mut s);
    }
    send(&mut s, progress(json!(1), 0.75), t0);
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Progress { id: i, progress, total: None, message: None }] if *i == id && *progress == 0.75),
        "{ev:?}"
    );
    // After the answer the token is dead.
    send(&mut s, ok(json!(1), json!({"roots": []})), t0);
    assert!(matches!(events(&mut s).as_slice(), [Event::Response { .. }]));
    send(&mut s, progress(json!(1), 0.9), t0);
    assert_quiet(&mut s);

    // A request sent without `progress` has no token: progress naming its id is ignored.
    let id = s.request("roots/list", None, &RequestOptions::default(), t0).unwrap();
    assert_eq!(one_line(&mut s), json!({"jsonrpc": "2.0", "id": id.0, "method": "roots/list"}));
    send(&mut s, progress(json!(id.0), 0.1), t0);
    assert_quiet(&mut s);
}

#[test]
fn progress_both_ways_across_a_wired_pair() {
    let t0 = Instant::now();
    let (mut c, mut s) = connect(client_config(json!({"roots": {}})), new_server(echo_registry(), |_| {}), t0);
    let opts = RequestOptions { progress: true, ..Default::default() };
    let params = json!({"name": "echo", "arguments": {"text": "x"}});
    let id = c.request("tools/call", Some(params), &opts, t0).unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, Some(RequestId::Number(id.0)));
    assert_eq!(s.progress(inv.key, 0.5, None, Some("half")), Ok(true));
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("x")));
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (
                Dir::ToClient,
                notification(
                    "notifications/progress",
                    json!({"progressToken": id.0, "progress": 0.5, "message": "half"})
                )
            ),
            (Dir::ToClient, ok(json!(id.0), json!({"content": [{"type": "text", "text": "x"}]}))),
        ]
    );
    let ev = events(&mut c);
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(
        matches!(&ev[0], Event::Progress { id: i, progress, total: None, message: Some(m) } if *i == id && *progress == 0.5 && m == "half")
    );
    assert!(
        matches!(&ev[1], Event::Response { id: i, result: Ok(v) } if *i == id && *v == json!({"content": [{"type": "text", "text": "x"}]}))
    );

    // The other way: the server asks for roots with progress, the client reports it.
    let id = s.request("roots/list", None, &opts, t0).unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut c);
    assert!(matches!(inv.request, Request::ListRoots));
    assert_eq!(inv.progress_token, Some(RequestId::Number(id.0)));
    assert_eq!(c.progress(inv.key, 1.0, Some(2.0), None), Ok(true));
    c.respond(inv.key, Ok(json!({"roots": []})));
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (
                Dir::ToServer,
                notification("notifications/progress", json!({"progressToken": id.0, "progress": 1.0, "total": 2.0}))
            ),
            (Dir::ToServer, ok(json!(id.0), json!({"roots": []}))),
        ]
    );
    let ev = events(&mut s);
    assert!(
        matches!(&ev[..], [Event::Progress { id: a, .. }, Event::Response { id: b, result: Ok(_) }] if *a == id && *b == id)
    );
}

// ---- timeouts -----------------------------------------------------------------------------

#[test]
fn timeout_cancels_the_request_and_fails_it() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({"roots": {}}), t0);
    assert_eq!(s.next_deadline(), None);
    let short = RequestOptions { timeout: Some(Duration::from_secs(10)), ..Default::default() };
    let id = s.request("roots/list", None, &short, t0).unwrap();
    // The server's default timeout is 60 s.
    let id2 = s.request("ping", None, &RequestOptions::default(), secs(t0, 1)).unwrap();
    assert_eq!(lines(&mut s).len(), 2);
    assert_eq!(s.next_deadline(), Some(secs(t0, 10)));

    s.handle_timeout(secs(t0, 9));
    assert_quiet(&mut s);
    assert_eq!(s.next_deadline(), Some(secs(t0, 10)));

    s.handle_timeout(secs(t0, 10));
    assert_eq!(
        lines(&mut s),
        vec![notification("notifications/cancelled", json!({"requestId": id.0, "reason": "request timed out"}))]
    );
    let ev = events(&mut s);
    let expected = RpcError::new(codes::REQUEST_TIMEOUT, "request timed out after 10000 ms");
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Err(e) }] if *i == id && *e == expected),
        "{ev:?}"
    );
    assert_eq!(s.next_deadline(), Some(secs(t0, 61)));

    // The late answer is ignored; the other request is still answered.
    send(&mut s, ok(json!(id.0), json!({"roots": []})), secs(t0, 11));
    assert_quiet(&mut s);
    send(&mut s, ok(json!(id2.0), json!({})), secs(t0, 11));
    assert!(matches!(events(&mut s).as_slice(), [Event::Response { id: i, result: Ok(_) }] if *i == id2));
    assert_eq!(s.next_deadline(), None);
    s.handle_timeout(secs(t0, 100));
    assert_quiet(&mut s);

    // No timeout at all when neither the request nor the config sets one.
    let mut s = ready_with(Registry::new(), |c| c.request_timeout = None, "2025-11-25", json!({}), t0);
    s.request("ping", None, &RequestOptions::default(), t0).unwrap();
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn progress_pushes_the_deadline_out_when_asked() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({"roots": {}}), t0);
    let reset = RequestOptions {
        timeout: Some(Duration::from_secs(10)),
        reset_timeout_on_progress: true,
        progress: true,
        ..Default::default()
    };
    let fixed = RequestOptions { timeout: Some(Duration::from_secs(10)), progress: true, ..Default::default() };
    let a = s.request("roots/list", None, &reset, t0).unwrap();
    let b = s.request("roots/list", None, &fixed, t0).unwrap();
    lines(&mut s);
    assert_eq!(s.next_deadline(), Some(secs(t0, 10)));

    for token in [a.0, b.0] {
        send(
            &mut s,
            notification("notifications/progress", json!({"progressToken": token, "progress": 1})),
            secs(t0, 8),
        );
    }
    assert_eq!(events(&mut s).len(), 2);
    // `b` keeps its deadline; `a` moved to 8 + 10.
    assert_eq!(s.next_deadline(), Some(secs(t0, 10)));
    s.handle_timeout(secs(t0, 10));
    assert_eq!(
        lines(&mut s),
        vec![notification("notifications/cancelled", json!({"requestId": b.0, "reason": "request timed out"}))]
    );
    assert!(
        matches!(events(&mut s).as_slice(), [Event::Response { id, result: Err(e) }] if *id == b && e.code == codes::REQUEST_TIMEOUT)
    );
    assert_eq!(s.next_deadline(), Some(secs(t0, 18)));
    s.handle_timeout(secs(t0, 17));
    assert_quiet(&mut s);
    // A stale progress value does not reset the clock.
    send(&mut s, notification("notifications/progress", json!({"progressToken": a.0, "progress": 1})), secs(t0, 17));
    assert_quiet(&mut s);
    assert_eq!(s.next_deadline(), Some(secs(t0, 18)));
    s.handle_timeout(secs(t0, 18));
    assert_eq!(
        lines(&mut s),
        vec![notification("notifications/cancelled", json!({"requestId": a.0, "reason": "request timed out"}))]
    );
    assert!(
        matches!(events(&mut s).as_slice(), [Event::Response { id, result: Err(e) }] if *id == a && e.code == codes::REQUEST_TIMEOUT)
    );
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn progress_never_extends_a_request_past_its_total_cap() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({"roots": {}}), t0);
    let opts = RequestOptions {
        timeout: Some(Duration::from_secs(10)),
        reset_timeout_on_progress: true,
        max_total_timeout: Some(Duration::from_secs(25)),
        progress: true,
        ..Default::default()
    };
    let a = s.request("roots/list", None, &opts, t0).unwrap();
    lines(&mut s);
    for (i, at) in [8u64, 16, 24].into_iter().enumerate() {
        send(
            &mut s,
            notification("notifications/progress", json!({"progressToken": a.0, "progress": i + 1})),
            secs(t0, at),
        );
        assert_eq!(events(&mut s).len(), 1);
    }
    // 24 + 10 would be 34, but the cap is 0 + 25.
    assert_eq!(s.next_deadline(), Some(secs(t0, 25)));
    s.handle_timeout(secs(t0, 25));
    assert!(
        matches!(events(&mut s).as_slice(), [Event::Response { id, result: Err(e) }] if *id == a && e.code == codes::REQUEST_TIMEOUT)
    );
}

#[test]
fn server_sends_only_pings_before_the_client_is_initialized() {
    let t0 = Instant::now();
    let mut s = new_server(Registry::new(), |_| {});
    initialize(&mut s, "2025-11-25", json!({"roots": {}, "sampling": {}}), t0);
    let err = s.request("roots/list", None, &RequestOptions::default(), t0).unwrap_err();
    assert_eq!(err.code, codes::INVALID_REQUEST);
    assert!(err.message.contains("notifications/initialized"), "{}", err.message);
    assert_quiet(&mut s);
    s.request("ping", None, &RequestOptions::default(), t0).unwrap();
    assert_eq!(lines(&mut s)[0]["method"], "ping");
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    s.request("roots/list", None, &RequestOptions::default(), t0).unwrap();
    assert_eq!(lines(&mut s)[0]["method"], "roots/list");
}

// ---- batches ------------------------------------------------------------------------------

#[test]
fn batch_in_2025_03_26_is_answered_with_one_array() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-03-26", json!({}), t0);
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "later"}}},
        {"jsonrpc": "1.0", "id": 3, "method": "ping"},
        42,
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope"}},
    ]);
    send(&mut s, batch, t0);
    // The tool call is still running: nothing goes out yet.
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert_eq!(ev.len(), 2, "{ev:?}");
    let Event::Invoke(inv) = &ev[0] else { panic!("{ev:?}") };
    assert_eq!(inv.id, RequestId::Number(2));
    assert!(matches!(&ev[1], Event::Notification { method, .. } if method == "notifications/roots/list_changed"));

    s.complete(inv.key, Outcome::Tool(CallToolResult::text("later")));
    let msg = one_line(&mut s);
    let parts = msg.as_array().expect("one array");
    assert_eq!(parts.len(), 5, "{msg}");
    assert_eq!(parts[0], ok(json!(1), json!({})));
    assert_error(&parts[1], json!(3), codes::INVALID_REQUEST);
    assert_error(&parts[2], Value::Null, codes::INVALID_REQUEST);
    assert_eq!(assert_error(&parts[3], json!(4), codes::INVALID_PARAMS)["data"], json!({"name": "nope"}));
    assert_eq!(parts[4], ok(json!(2), json!({"content": [{"type": "text", "text": "later"}]})));
    assert_quiet(&mut s);

    // A batch answered entirely by the engine goes out at once.
    send(
        &mut s,
        json!([{"jsonrpc": "2.0", "id": "x", "method": "ping"}, {"jsonrpc": "2.0", "id": "y", "method": "tools/list"}]),
        t0,
    );
    assert_eq!(
        lines(&mut s),
        vec![json!([
            ok(json!("x"), json!({})),
            ok(json!("y"), json!({"tools": [{"name": "echo", "inputSchema": echo_tool().input_schema}]}))
        ])]
    );

    // Responses inside a batch reach our pending requests and produce no output.
    let mut s = ready(Registry::new(), "2025-03-26", json!({"roots": {}}), t0);
    let id = s.request("roots/list", None, &RequestOptions::default(), t0).unwrap();
    lines(&mut s);
    send(&mut s, json!([ok(json!(id.0), json!({"roots": []})), {"jsonrpc": "2.0", "id": 8, "method": "ping"}]), t0);
    assert_eq!(lines(&mut s), vec![json!([ok(json!(8), json!({}))])]);
    assert!(matches!(events(&mut s).as_slice(), [Event::Response { id: i, result: Ok(_) }] if *i == id));
}

#[test]
fn batch_of_notifications_has_no_output() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-03-26", json!({}), t0);
    send(
        &mut s,
        json!([
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        ]),
        t0,
    );
    assert!(raw_lines(&mut s).is_empty());
    let ev = events(&mut s);
    assert!(
        matches!(ev.as_slice(), [Event::Notification { method, .. }] if method == "notifications/roots/list_changed")
    );
    // An empty batch is an invalid request.
    send_raw(&mut s, "[]", t0);
    assert_error(&one_line(&mut s), Value::Null, codes::INVALID_REQUEST);
}

#[test]
fn initialize_inside_a_batch_is_refused() {
    let t0 = Instant::now();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
    // Before initialization no batch is accepted.
    let mut s = new_server(echo_registry(), |_| {});
    send(&mut s, json!([init.clone()]), t0);
    assert_error(&one_line(&mut s), Value::Null, codes::INVALID_REQUEST);
    assert_eq!(s.state(), State::Uninitialized);

    // After initialization `initialize` is refused inside a batch, without splitting the
    // batch's answer.
    let mut s = ready(echo_registry(), "2025-03-26", json!({}), t0);
    let mut init2 = init;
    init2["id"] = json!(2);
    send(&mut s, json!([call_echo(json!(1), "x"), init2, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]), t0);
    assert!(raw_lines(&mut s).is_empty());
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("x")));
    let msg = one_line(&mut s);
    let parts = msg.as_array().expect("one array");
    assert_eq!(parts.len(), 3, "{msg}");
    let err = assert_error(&parts[0], json!(2), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: initialize must not be part of a batch");
    assert_eq!(parts[1], ok(json!(3), json!({})));
    assert_eq!(parts[2], ok(json!(1), json!({"content": [{"type": "text", "text": "x"}]})));
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_03_26));
}

#[test]
fn batches_are_refused_outside_2025_03_26() {
    let t0 = Instant::now();
    for v in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut s = ready(echo_registry(), v, json!({}), t0);
        send(&mut s, json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, call_echo(json!(2), "x")]), t0);
        let msg = one_line(&mut s);
        assert!(msg.is_object(), "{msg}");
        let err = assert_error(&msg, Value::Null, codes::INVALID_REQUEST);
        assert_eq!(err["message"], format!("Invalid Request: batches are not supported by protocol revision {v}"));
        assert!(events(&mut s).is_empty());
    }
}

// ---- tools --------------------------------------------------------------------------------

#[test]
fn unknown_tool_is_invalid_params_naming_it() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "tools/call", json!({"name": "nope", "arguments": {}})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
    assert_eq!(err["data"], json!({"name": "nope"}));
    assert_eq!(err["message"], "Invalid params: Unknown tool: nope");
    // Missing name, array params.
    send(&mut s, request(json!(2), "tools/call", json!({"arguments": {}})), t0);
    assert_error(&one_line(&mut s), json!(2), codes::INVALID_PARAMS);
    send(&mut s, request(json!(3), "tools/call", json!(["echo"])), t0);
    assert_error(&one_line(&mut s), json!(3), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());
}

#[test]
fn invalid_arguments_are_a_protocol_error_before_2025_11_25() {
    let t0 = Instant::now();
    for v in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let mut s = ready(echo_registry(), v, json!({}), t0);
        send(&mut s, request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": 5}})), t0);
        let msg = one_line(&mut s);
        let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
        assert!(
            err["message"].as_str().unwrap().starts_with("Invalid params: Invalid arguments for tool echo: "),
            "{msg}"
        );
        assert_eq!(err["data"]["tool"], "echo");
        assert!(!err["data"]["errors"].as_array().unwrap().is_empty(), "{msg}");
        // Missing arguments are validated as `{}`.
        send(&mut s, request(json!(2), "tools/call", json!({"name": "echo"})), t0);
        assert_error(&one_line(&mut s), json!(2), codes::INVALID_PARAMS);
        assert!(events(&mut s).is_empty(), "{v}");
    }
}

#[test]
fn invalid_arguments_are_a_tool_error_in_2025_11_25() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": 5}})), t0);
    let msg = one_line(&mut s);
    assert_eq!(msg["id"], 1);
    assert!(msg.get("error").is_none(), "{msg}");
    let result = &msg["result"];
    assert_eq!(result["isError"], true);
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"].as_str().unwrap().starts_with("Invalid arguments for tool echo: "), "{msg}");
    assert!(events(&mut s).is_empty());

    // Valid arguments reach user code.
    send(&mut s, call_echo(json!(2), "hi"), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::CallTool { name, arguments } => {
            assert_eq!(name, "echo");
            assert_eq!(Value::Object(arguments.clone()), json!({"text": "hi"}));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(inv.id, RequestId::Number(2));
}

#[test]
fn output_schema_is_enforced() {
    let t0 = Instant::now();
    let reg = Registry::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    reg.add_tool(Tool::new("calc").output_schema(schema)).unwrap();
    let mut s = ready(reg, "2025-11-25", json!({}), t0);
    let call = |id: i64| request(json!(id), "tools/call", json!({"name": "calc"}));

    send(&mut s, call(1), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("no structure")));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "tool \"calc\" declares an outputSchema but returned no structuredContent"}], "isError": true})
        )
    );

    send(&mut s, call(2), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::structured(json!({"n": "three"}))));
    let msg = one_line(&mut s);
    assert_eq!(msg["result"]["isError"], true, "{msg}");
    assert!(msg["result"].get("structuredContent").is_none(), "{msg}");
    let text = msg["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("tool \"calc\" returned structuredContent that does not match its outputSchema: "),
        "{text}"
    );

    send(&mut s, call(3), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::structured(json!({"n": 3}))));
    assert_eq!(
        one_line(&mut s),
        ok(json!(3), json!({"content": [{"type": "text", "text": "{\"n\":3}"}], "structuredContent": {"n": 3}}))
    );

    // A failed call needs no structured content.
    send(&mut s, call(4), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::error("boom")));
    assert_eq!(one_line(&mut s), ok(json!(4), json!({"content": [{"type": "text", "text": "boom"}], "isError": true})));

    // A protocol error passes through.
    send(&mut s, call(5), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Error(RpcError::internal("crashed")));
    assert_eq!(
        one_line(&mut s),
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Internal error: crashed"}})
    );
}

#[test]
fn tool_results_are_shaped_for_the_revision() {
    let t0 = Instant::now();
    let mut result = CallToolResult::structured(json!({"a": 1}));
    result.content.push(Content::resource_link(Resource::new("file:///x", "x")));
    let mut audio = CallToolResult::text("t");
    audio.content.push(Content::audio(b"abc", "audio/wav"));

    let mut s = ready(echo_registry(), "2025-03-26", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(result.clone()));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}, {"type": "text", "text": "Resource: x (file:///x)"}]})
        )
    );

    let mut s = ready(echo_registry(), "2025-06-18", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(result));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({
                "content": [{"type": "text", "text": "{\"a\":1}"}, {"type": "resource_link", "uri": "file:///x", "name": "x"}],
                "structuredContent": {"a": 1},
            })
        )
    );

    let mut s = ready(echo_registry(), "2024-11-05", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(audio));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "t"}, {"type": "text", "text": "[audio content (audio/wav) not supported by protocol 2024-11-05]"}]})
        )
    );
}

#[test]
fn tools_list_paginates_and_is_cached() {
    let t0 = Instant::now();
    let reg = Registry::new();
    reg.set_page_size(2);
    for i in 0..5 {
        reg.add_tool(Tool::new(format!("t{i}")).title(format!("T{i}"))).unwrap();
    }
    let mut s = ready(reg, "2025-11-25", json!({}), t0);
    let tool = |i: usize| json!({"name": format!("t{i}"), "title": format!("T{i}"), "inputSchema": {"type": "object"}});

    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    let first = raw_lines(&mut s);
    assert_eq!(first.len(), 1);
    let page: Value = serde_json::from_str(&first[0]).unwrap();
    let cursor = page["result"]["nextCursor"].as_str().expect("a cursor").to_string();
    assert_eq!(page, ok(json!(1), json!({"tools": [tool(0), tool(1)], "nextCursor": cursor})));

    send(&mut s, request(json!(2), "tools/list", json!({"cursor": cursor})), t0);
    let page = one_line(&mut s);
    let cursor2 = page["result"]["nextCursor"].as_str().expect("a cursor").to_string();
    assert_ne!(cursor, cursor2);
    assert_eq!(page, ok(json!(2), json!({"tools": [tool(2), tool(3)], "nextCursor": cursor2})));

    send(&mut s, request(json!(3), "tools/list", json!({"cursor": cursor2})), t0);
    assert_eq!(one_line(&mut s), ok(json!(3), json!({"tools": [tool(4)]})));

    send(&mut s, request(json!(4), "tools/list", json!({"cursor": "garbage"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(4), codes::INVALID_PARAMS)["data"], json!({"cursor": "garbage"}));
    send(&mut s, request(json!(5), "tools/list", json!({"cursor": crate::util::encode_cursor(99)})), t0);
    assert_error(&one_line(&mut s), json!(5), codes::INVALID_PARAMS);

    // The same request gets the same bytes (the page is cached).
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    assert_eq!(raw_lines(&mut s), first);
    send(&mut s, request(json!(1), "tools/list", json!({})), t0);
    assert_eq!(raw_lines(&mut s), first);

    // An older revision gets its own shape (no titles).
    let reg2 = Registry::new();
    reg2.add_tool(Tool::new("t0").title("T0")).unwrap();
    let mut s = ready(reg2, "2025-03-26", json!({}), t0);
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({"tools": [{"name": "t0", "inputSchema": {"type": "object"}}]})));
}

// ---- resources ----------------------------------------------------------------------------

fn resource_registry() -> Registry {
    let r = Registry::new();
    r.add_resource(Resource::new("file:///a.txt", "a").mime_type("text/plain")).unwrap();
    r.add_template(ResourceTemplate::new("weather://{city}/now", "weather")).unwrap();
    r
}

#[test]
fn resource_reads_resolve_static_resources_and_templates() {
    let t0 = Instant::now();
    let mut s = ready(resource_registry(), "2025-11-25", json!({}), t0);

    send(&mut s, request(json!(1), "resources/read", json!({"uri": "file:///a.txt"})), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::ReadResource { uri, template, variables } => {
            assert_eq!(uri, "file:///a.txt");
            assert!(template.is_none());
            assert!(variables.is_empty());
        }
        other => panic!("{other:?}"),
    }
    s.complete(
        inv.key,
        Outcome::Resource(ReadResourceResult {
            contents: vec![ResourceContents::text("file:///a.txt", "hello").with_mime_type("text/plain")],
            meta: None,
        }),
    );
    assert_eq!(
        one_line(&mut s),
        ok(json!(1), json!({"contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}]}))
    );

    send(
        &mut s,
        request(json!(2), "resources/read", json!({"uri": "weather://paris/now", "_meta": {"progressToken": "w"}})),
        t0,
    );
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, Some(RequestId::from("w")));
    match &inv.request {
        Request::ReadResource { uri, template, variables } => {
            assert_eq!(uri, "weather://paris/now");
            assert_eq!(template.as_ref().map(|t| t.template.uri_template.as_str()), Some("weather://{city}/now"));
            assert_eq!(variables.len(), 1);
            assert_eq!(variables["city"], "paris");
        }
        other => panic!("{other:?}"),
    }

    send(&mut s, request(json!(3), "resources/read", json!({"uri": "nope://x"})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(3), codes::RESOURCE_NOT_FOUND);
    assert_eq!(err["data"], json!({"uri": "nope://x"}));
    assert_eq!(err["message"], "Resource not found: nope://x");
    send(&mut s, request(json!(4), "resources/read", json!({})), t0);
    assert_error(&one_line(&mut s), json!(4), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());

    // Both lists.
    send(&mut s, request(json!(5), "resources/list", Value::Null), t0);
    assert_eq!(
        one_line(&mut s),
        ok(json!(5), json!({"resources": [{"uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"}]}))
    );
    send(&mut s, request(json!(6), "resources/templates/list", Value::Null), t0);
    assert_eq!(
        one_line(&mut s),
        ok(json!(6), json!({"resourceTemplates": [{"uriTemplate": "weather://{city}/now", "name": "weather"}]}))
    );
}

#[test]
fn resource_updates_reach_only_subscribers() {
    let t0 = Instant::now();
    let mut s = ready(resource_registry(), "2025-11-25", json!({}), t0);
    let updated = |uri: &str| RegistryChange::ResourceUpdated(uri.to_string());

    s.registry_changed(&updated("file:///a.txt"));
    assert_quiet(&mut s);

    send(&mut s, request(json!(1), "resources/subscribe", json!({"uri": "file:///a.txt"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({})));
    send(&mut s, request(json!(2), "resources/subscribe", json!({"uri": "weather://oslo/now"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(2), json!({})));
    send(&mut s, request(json!(3), "resources/subscribe", json!({"uri": "nope://x"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::RESOURCE_NOT_FOUND)["data"], json!({"uri": "nope://x"}));

    s.registry_changed(&updated("file:///a.txt"));
    assert_eq!(lines(&mut s), vec![notification("notifications/resources/updated", json!({"uri": "file:///a.txt"}))]);
    s.registry_changed(&updated("weather://oslo/now"));
    assert_eq!(
        lines(&mut s),
        vec![notification("notifications/resources/updated", json!({"uri": "weather://oslo/now"}))]
    );
    s.registry_changed(&updated("weather://rome/now"));
    s.registry_changed(&updated("nope://x"));
    assert_quiet(&mut s);

    send(&mut s, request(json!(4), "resources/unsubscribe", json!({"uri": "file:///a.txt"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(4), json!({})));
    s.registry_changed(&updated("file:///a.txt"));
    assert_quiet(&mut s);
    // Still subscribed to the other one.
    s.registry_changed(&updated("weather://oslo/now"));
    assert_eq!(lines(&mut s).len(), 1);
    // After close nothing is sent.
    s.close();
    s.registry_changed(&updated("weather://oslo/now"));
    assert_quiet(&mut s);
}

#[test]
fn list_changed_is_sent_only_after_initialize_and_for_declared_lists() {
    let t0 = Instant::now();
    let reg = resource_registry();
    reg.add_tool(Tool::new("t")).unwrap();
    let mut s = new_server(reg, |_| {});
    for kind in [ListKind::Tools, ListKind::Resources, ListKind::ResourceTemplates, ListKind::Prompts] {
        s.registry_changed(&RegistryChange::ListChanged(kind));
    }
    assert_quiet(&mut s);

    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    for (kind, method) in [
        (ListKind::Tools, Some("notifications/tools/list_changed")),
        (ListKind::Resources, Some("notifications/resources/list_changed")),
        (ListKind::ResourceTemplates, Some("notifications/resources/list_changed")),
        (ListKind::Prompts, None),
    ] {
        s.registry_changed(&RegistryChange::ListChanged(kind));
        let out = lines(&mut s);
        match method {
            Some(m) => assert_eq!(out, vec![json!({"jsonrpc": "2.0", "method": m})], "{kind:?}"),
            None => assert!(out.is_empty(), "{kind:?}: {out:?}"),
        }
    }
    assert!(events(&mut s).is_empty());

    let reg = Registry::new();
    reg.add_prompt(Prompt::new("p")).unwrap();
    let mut s = ready(reg, "2024-11-05", json!({}), t0);
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Prompts));
    assert_eq!(lines(&mut s), vec![json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})]);
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Tools));
    assert_quiet(&mut s);
}

// ---- prompts and completion ---------------------------------------------------------------

fn prompt_registry() -> Registry {
    let r = Registry::new();
    r.add_prompt(
        Prompt::new("greet")
            .argument(PromptArgument::new("name", true))
            .argument(PromptArgument::new("tone", false))
            .argument(PromptArgument::new("lang", true)),
    )
    .unwrap();
    r.add_template(ResourceTemplate::new("users://{id}", "user")).unwrap();
    r
}

#[test]
fn prompt_with_missing_required_argument_is_invalid_params() {
    let t0 = Instant::now();
    let mut s = ready(prompt_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "prompts/get", json!({"name": "greet", "arguments": {"tone": "warm"}})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
    assert_eq!(err["data"], json!({"prompt": "greet", "missing": ["name", "lang"]}));
    assert_eq!(err["message"], "Invalid params: prompt greet is missing required argument(s): name, lang");
    send(&mut s, request(json!(2), "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})), t0);
    let msg = one_line(&mut s);
    assert_eq!(
        assert_error(&msg, json!(2), codes::INVALID_PARAMS)["data"],
        json!({"prompt": "greet", "missing": ["lang"]})
    );
    send(&mut s, request(json!(3), "prompts/get", json!({"name": "nope"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::INVALID_PARAMS)["data"], json!({"name": "nope"}));
    assert!(events(&mut s).is_empty());

    send(
        &mut s,
        request(json!(4), "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada", "lang": "en"}})),
        t0,
    );
    let inv = invocation(&mut s);
    match &inv.request {
        Request::GetPrompt { name, arguments } => {
            assert_eq!(name, "greet");
            assert_eq!(arguments.len(), 2);
            assert_eq!(arguments["name"], "Ada");
            assert_eq!(arguments["lang"], "en");
        }
        other => panic!("{other:?}"),
    }
    s.complete(
        inv.key,
        Outcome::Prompt(GetPromptResult {
            description: Some("hi".into()),
            messages: vec![PromptMessage::user("Hello Ada")],
            meta: None,
        }),
    );
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(4),
            json!({"description": "hi", "messages": [{"role": "user", "content": {"type": "text", "text": "Hello Ada"}}]})
        )
    );
}

#[test]
fn completion_checks_the_reference() {
    let t0 = Instant::now();
    let mut s = ready_with(prompt_registry(), |c| c.completions = true, "2025-11-25", json!({}), t0);
    let complete = |id: i64, reference: Value, arg: &str| {
        request(json!(id), "completion/complete", json!({"ref": reference, "argument": {"name": arg, "value": "A"}}))
    };

    send(&mut s, complete(1, json!({"type": "ref/prompt", "name": "nope"}), "name"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(1), codes::INVALID_PARAMS)["data"], json!({"name": "nope"}));
    send(&mut s, complete(2, json!({"type": "ref/prompt", "name": "greet"}), "age"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(2), codes::INVALID_PARAMS)["data"], json!({"argument": "age"}));
    send(&mut s, complete(3, json!({"type": "ref/resource", "uri": "nope://{x}"}), "x"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::INVALID_PARAMS)["data"], json!({"uri": "nope://{x}"}));
    send(&mut s, complete(4, json!({"type": "ref/unknown"}), "x"), t0);
    assert_error(&one_line(&mut s), json!(4), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());

    let params = json!({
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "lang", "value": "e"},
        "context": {"arguments": {"name": "Ada"}},
    });
    send(&mut s, request(json!(5), "completion/complete", params), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::Complete(p) => {
            assert_eq!(p.reference, CompletionReference::Prompt { name: "greet".into() });
            assert_eq!(p.argument.name, "lang");
            assert_eq!(p.argument.value, "e");
            let args = p.context.as_ref().and_then(|c| c.arguments.clone()).expect("context.arguments");
            assert_eq!(Value::Object(args), json!({"name": "Ada"}));
        }
        other => panic!("{other:?}"),
    }
    s.complete(inv.key, Outcome::Completion(CompleteResult::values(vec!["en".into(), "es".into()])));
    assert_eq!(
        one_line(&mut s),
        ok(json!(5), json!({"completion": {"values": ["en", "es"], "total": 2, "hasMore": false}}))
    );

    // Template references.
    send(&mut s, complete(6, json!({"type": "ref/resource", "uri": "users://{id}"}), "id"), t0);
    let inv = invocation(&mut s);
    assert!(
        matches!(&inv.request, Request::Complete(p) if p.reference == CompletionReference::Resource { uri: "users://{id}".into() } && p.context.is_none())
    );
}

// ---- logging ------------------------------------------------------------------------------

#[test]
fn set_level_filters_log_messages() {
    let t0 = Instant::now();
    let mut s = new_server(Registry::new(), |_| {});
    assert!(!s.log(LoggingLevel::Emergency, None, json!("early"), None), "nothing before initialize");
    assert_quiet(&mut s);
    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);

    assert_eq!(s.log_level(), None);
    assert!(s.log(LoggingLevel::Debug, None, json!("d"), None));
    assert_eq!(one_line(&mut s), notification("notifications/message", json!({"level": "debug", "data": "d"})));

    send(&mut s, request(json!(1), "logging/setLevel", json!({"level": "warning"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({})));
    assert_eq!(s.log_level(), Some(LoggingLevel::Warning));
    assert!(!s.log(LoggingLevel::Debug, None, json!("d"), None));
    assert!(!s.log(LoggingLevel::Notice, None, json!("n"), None));
    assert_quiet(&mut s);
    assert!(s.log(LoggingLevel::Warning, None, json!("w"), None));
    assert!(s.log(LoggingLevel::Error, Some("db"), json!({"x": 1}), None));
    assert_eq!(
        lines(&mut s),
        vec![
            notification("notifications/message", json!({"level": "warning", "data": "w"})),
            notification("notifications/message", json!({"level": "error", "logger": "db", "data": {"x": 1}})),
        ]
    );

    for (id, params) in [(2, json!({"level": "loud"})), (3, json!({})), (4, json!({"level": 3}))] {
        send(&mut s, request(json!(id), "logging/setLevel", params), t0);
        assert_error(&one_line(&mut s), json!(id), codes::INVALID_PARAMS);
    }
    assert_eq!(s.log_level(), Some(LoggingLevel::Warning));
    send(&mut s, request(json!(5), "logging/setLevel", json!({"level": "emergency"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(5), json!({})));
    assert!(!s.log(LoggingLevel::Alert, None, json!("a"), None));
    assert_quiet(&mut s);
}

// ---- framing ------------------------------------------------------------------------------

#[test]
fn oversize_line_is_refused_and_the_session_keeps_serving() {
    let t0 = Instant::now();
    let mut s = ready_with(echo_registry(), |c| c.max_message_size = 1024, "2025-11-25", json!({}), t0);
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(2000));
    let expected = json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": -32600,
        "message": "Invalid Request: message exceeds the maximum size of 1024 bytes",
        "data": {"maxBytes": 1024},
    }});
    send_raw(&mut s, &big, t0);
    assert_eq!(lines(&mut s), vec![expected.clone()]);
    assert!(events(&mut s).is_empty());

    send(&mut s, request(json!(2), "ping", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!(2), json!({})));

    // Streamed in pieces: refused once, as soon as the cap is passed; the tail is skipped.
    let (head, tail) = big.split_at(1500);
    s.feed(head.as_bytes(), t0);
    assert_eq!(lines(&mut s), vec![expected]);
    s.feed(tail.as_bytes(), t0);
    assert!(raw_lines(&mut s).is_empty());
    let mut rest = b"\n".to_vec();
    rest.extend_from_slice(&serde_json::to_vec(&call_echo(json!(3), "still here")).unwrap());
    rest.push(b'\n');
    s.feed(&rest, t0);
    assert!(raw_lines(&mut s).is_empty());
    let inv = invocation(&mut s);
    assert_eq!(inv.id, RequestId::Number(3));
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("still here")));
    assert_eq!(one_line(&mut s), ok(json!(3), json!({"content": [{"type": "text", "text": "still here"}]})));

    // Whole messages (HTTP bodies) are capped too.
    s.handle_message(big.as_bytes(), t0);
    assert_error(&one_line(&mut s), Value::Null, codes::INVALID_REQUEST);
    // Broken JSON is a parse error with id null.
    send_raw(&mut s, "{not json", t0);
    assert_error(&one_line(&mut s), Value::Null, codes::PARSE_ERROR);
    assert_eq!(s.state(), State::Operating);
}

// ---- client -------------------------------------------------------------------------------

#[test]
fn client_handshake_through_a_wired_pair() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(client_config(json!({"roots": {"listChanged": true}}))));
    let mut s = new_server(echo_registry(), |_| {});
    assert_eq!(c.state(), State::Uninitialized);
    let init = c.initialize(t0);
    assert_eq!(init, OutboundId(1));
    assert_eq!(c.state(), State::Initializing);
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (
                Dir::ToServer,
                request(
                    json!(1),
                    "initialize",
                    json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"roots": {"listChanged": true}},
                        "clientInfo": {"name": "test-client", "version": "0.1.0"},
                    })
                )
            ),
            (
                Dir::ToClient,
                ok(
                    json!(1),
                    json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"logging": {}, "tools": {"listChanged": true}},
                        "serverInfo": {"name": "test-server", "version": "1.0.0"},
                    })
                )
            ),
            (Dir::ToServer, notification("notifications/initialized", Value::Null)),
        ]
    );
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(c.state(), State::Operating);
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::V2025_11_25));
    let server = c.server().expect("server's answer kept");
    assert_eq!(server.server_info, server_info());
    assert!(server.capabilities.tools.is_some());
    assert_eq!(c.pending_requests(), 0);
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(s.state(), State::Operating);
    assert_eq!(s.client_info().map(|i| i.name.as_str()), Some("test-client"));
    assert!(s.client_capabilities().roots.is_some());

    // A client asking for an older revision gets it, and a full call works.
    let mut config = client_config(json!({}));
    config.protocol_version = ProtocolVersion::V2025_03_26;
    let (mut c, mut s) = connect(config, new_server(echo_registry(), |_| {}), t0);
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::V2025_03_26));
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_03_26));
    let id = c
        .request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "yo"}})),
            &RequestOptions::default(),
            t0,
        )
        .unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("yo")));
    pump(&mut c, &mut s, t0);
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Ok(v) }] if *i == id && *v == json!({"content": [{"type": "text", "text": "yo"}]})),
        "{ev:?}"
    );
}

#[test]
fn client_fails_the_handshake_on_an_unsupported_version() {
    let t0 = Instant::now();
    let answer = |v: &str| {
        ok(json!(1), json!({"protocolVersion": v, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}))
    };
    // Unknown to the engine, known but not accepted by this client, and the modern revision.
    for (v, accepted) in [
        ("1999-01-01", ProtocolVersion::LEGACY.to_vec()),
        ("2025-03-26", vec![ProtocolVersion::V2025_11_25]),
        ("2026-07-28", ProtocolVersion::LEGACY.to_vec()),
    ] {
        let mut config = client_config(json!({}));
        config.versions = accepted;
        let mut c = ClientSession::new(Arc::new(config));
        let init = c.initialize(t0);
        one_line(&mut c);
        send(&mut c, answer(v), t0);
        let ev = events(&mut c);
        assert!(
            matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == codes::INVALID_REQUEST && e.message.contains(v)),
            "{v}: {ev:?}"
        );
        assert!(raw_lines(&mut c).is_empty(), "no notifications/initialized after a failed handshake");
        assert_eq!(c.state(), State::Closed);
        assert_eq!(c.protocol_version(), None);
        assert_eq!(c.request("ping", None, &RequestOptions::default(), t0).unwrap_err().code, codes::CONNECTION_CLOSED);
    }

    // An error answer to initialize also fails the handshake.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let init = c.initialize(t0);
    one_line(&mut c);
    send(
        &mut c,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unsupported protocol version"}}),
        t0,
    );
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == -32602),
        "{ev:?}"
    );
    assert_eq!(c.state(), State::Closed);
}

#[test]
fn client_never_cancels_initialize() {
    let t0 = Instant::now();
    let mut config = client_config(json!({}));
    config.request_timeout = Some(Duration::from_secs(5));
    let mut c = ClientSession::new(Arc::new(config));
    let init = c.initialize(t0);
    one_line(&mut c);
    assert_eq!(c.next_deadline(), Some(secs(t0, 5)));
    c.handle_timeout(secs(t0, 4));
    assert_quiet(&mut c);
    c.handle_timeout(secs(t0, 5));
    // The cancellation spec: "The initialize request MUST NOT be cancelled by clients".
    assert!(raw_lines(&mut c).is_empty(), "initialize must not be cancelled");
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == codes::REQUEST_TIMEOUT),
        "{ev:?}"
    );
    assert_eq!(c.state(), State::Closed);

    // Neither by an explicit cancel.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let init = c.initialize(t0);
    one_line(&mut c);
    assert!(c.cancel_request(init, Some("bored")));
    assert!(raw_lines(&mut c).is_empty(), "initialize must not be cancelled");
}

#[test]
fn client_serves_only_declared_capabilities() {
    let t0 = Instant::now();
    let server_result =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
    let sampling = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 10,
        "_meta": {"progressToken": "pt"},
    });
    let form =
        json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let url = json!({"mode": "url", "message": "Go", "url": "https://example.com", "elicitationId": "e"});

    let caps = json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}});
    let mut c = client_after_handshake(client_config(caps), server_result.clone(), t0);

    send(&mut c, request(json!("r1"), "roots/list", Value::Null), t0);
    let inv = invocation(&mut c);
    assert!(matches!(inv.request, Request::ListRoots));
    assert_eq!(inv.id, RequestId::from("r1"));
    assert!(raw_lines(&mut c).is_empty());
    c.respond(inv.key, Ok(json!({"roots": [{"uri": "file:///w", "name": "w"}]})));
    assert_eq!(lines(&mut c), vec![ok(json!("r1"), json!({"roots": [{"uri": "file:///w", "name": "w"}]}))]);

    send(&mut c, request(json!(7), "sampling/createMessage", sampling.clone()), t0);
    let inv = invocation(&mut c);
    let Request::CreateMessage(p) = &inv.request else { panic!("{inv:?}") };
    assert_eq!(p.max_tokens, 10);
    assert_eq!(p.messages.len(), 1);
    assert_eq!(inv.progress_token, Some(RequestId::from("pt")));
    assert_eq!(c.progress(inv.key, 1.0, None, None), Ok(true));
    c.respond(inv.key, Err(RpcError::new(-1, "User rejected sampling request")));
    assert_eq!(
        lines(&mut c),
        vec![
            notification("notifications/progress", json!({"progressToken": "pt", "progress": 1.0})),
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "User rejected sampling request"}}),
        ]
    );
    // A second respond for the same key writes nothing.
    c.respond(inv.key, Ok(json!({})));
    assert_quiet(&mut c);

    send(&mut c, request(json!(8), "elicitation/create", form.clone()), t0);
    let inv = invocation(&mut c);
    let Request::Elicit(p) = &inv.request else { panic!("{inv:?}") };
    assert!(matches!(&**p, ElicitParams::Form { message, .. } if message == "Name?"));
    c.respond(inv.key, Ok(json!({"action": "accept", "content": {"n": "Ada"}})));
    assert_eq!(one_line(&mut c), ok(json!(8), json!({"action": "accept", "content": {"n": "Ada"}})));

    // URL mode was not declared.
    send(&mut c, request(json!(9), "elicitation/create", url.clone()), t0);
    assert_error(&one_line(&mut c), json!(9), codes::INVALID_PARAMS);
    // Malformed sampling params.
    send(&mut c, request(json!(10), "sampling/createMessage", json!({"messages": "x"})), t0);
    assert_error(&one_line(&mut c), json!(10), codes::INVALID_PARAMS);
    // Ping needs no capability; server-side methods do not exist here.
    send(&mut c, request(json!(11), "ping", Value::Null), t0);
    assert_eq!(one_line(&mut c), ok(json!(11), json!({})));
    send(&mut c, request(json!(12), "tools/list", Value::Null), t0);
    assert_error(&one_line(&mut c), json!(12), codes::METHOD_NOT_FOUND);
    assert!(events(&mut c).is_empty());

    // A client that declared nothing answers -32601 and runs no user code.
    let mut c = client_after_handshake(client_config(json!({})), server_result, t0);
    for (id, method, params) in [
        (1, "roots/list", Value::Null),
        (2, "sampling/createMessage", sampling),
        (3, "elicitation/create", form),
        (4, "elicitation/create", url),
    ] {
        send(&mut c, request(json!(id), method, params), t0);
        let msg = one_line(&mut c);
        assert_eq!(assert_error(&msg, json!(id), codes::METHOD_NOT_FOUND)["data"], json!({"method": method}));
        assert!(events(&mut c).is_empty());
    }
}

#[test]
fn log_messages_reach_the_client_as_notifications() {
    let t0 = Instant::now();
    let (mut c, mut s) = connect(client_config(json!({})), new_server(Registry::new(), |_| {}), t0);
    assert!(s.log(LoggingLevel::Info, Some("core"), json!({"msg": "hello"}), None));
    let transcript = pump(&mut c, &mut s, t0);
    let expected = json!({"level": "info", "logger": "core", "data": {"msg": "hello"}});
    assert_eq!(transcript, vec![(Dir::ToClient, notification("notifications/message", expected.clone()))]);
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Notification { method, params: Some(p) }] if method == "notifications/message" && *p == expected),
        "{ev:?}"
    );

    // The client sets the level through the wire; the server filters.
    let id = c.request("logging/setLevel", Some(json!({"level": "error"})), &RequestOptions::default(), t0).unwrap();
    pump(&mut c, &mut s, t0);
    assert!(matches!(events(&mut c).as_slice(), [Event::Response { id: i, result: Ok(_) }] if *i == id));
    assert!(!s.log(LoggingLevel::Info, None, json!("quiet"), None));
    assert!(pump(&mut c, &mut s, t0).is_empty());
    // Without the tools capability no list_changed goes out.
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Tools));
    assert!(pump(&mut c, &mut s, t0).is_empty());
}
