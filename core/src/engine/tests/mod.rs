//! Deterministic tests of the session state machines: no I/O, no runtime, a synthetic clock.
//! Every test drives a session with bytes and asserts the exact bytes and events it produces.
//!
//! This module holds the shared helpers; each behaviour has its own file.

mod batches;
mod cancellation;
mod capabilities;
mod client;
mod client_modern;
mod framing;
mod lifecycle;
mod logging;
mod messages;
mod progress;
mod prompts_completion;
mod resources;
mod timeouts;
mod tools;

use super::{
    ClientConfig, ClientMode, ClientSession, Event, Invocation, OutboundId, Outcome, Request, RequestKey,
    RequestOptions, Route, ServerConfig, ServerSession, State,
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
    // These tests drive the legacy handshake by hand; the modern client has its own tests.
    c.mode = ClientMode::Legacy;
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
