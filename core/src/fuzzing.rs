//! The fuzz targets' bodies: each takes arbitrary bytes and must neither panic, hang nor
//! grow without bound, whatever the bytes. `fuzz/` runs them under libFuzzer (`make fuzz`);
//! `core/tests/suite/fuzz_replay.rs` replays every committed corpus file through them on stable
//! Rust (`make test`). Not part of the API: hidden from the documentation and subject to
//! change.
//!
//! Where a target checks more than "no panic", it says what it asserts.

use crate::engine::{ClientConfig, ClientSession, Event, Outcome, Request, ServerSession};
use crate::jsonrpc::RpcError;
use crate::protocol::{
    CallToolResult, GetPromptResult, Implementation, Prompt, PromptArgument, ProtocolVersion, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Every line the engine writes is one JSON object.
fn check_output(out: &[u8]) {
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(_)) => {}
            other => panic!("the engine wrote a line that is not a JSON object: {other:?}"),
        }
    }
}

/// The server the engine and HTTP targets serve: a tool, a resource, a template and a prompt.
fn server() -> crate::Server {
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    crate::Server::new("fuzz", "1.0.0")
        .tool(Tool::new("echo").input_schema(text), |args, _ctx| async move {
            CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or_default())
        })
        .resource(
            Resource::new("mem://a", "a"),
            |r, _ctx| async move { Ok(ReadResourceResult::text(r.uri, "a", None)) },
        )
        .resource_template(ResourceTemplate::new("file:///{+path}", "files"), |r, _ctx| async move {
            Ok(ReadResourceResult::text(r.uri, "f", None))
        })
        .prompt(Prompt::new("greet").argument(PromptArgument::new("name", true)), |_args, _ctx| async move {
            Ok(GetPromptResult::default())
        })
}

/// Answers what the engine hands to user code, as a handler would (or leaves every
/// `keep`-th call running, for cancellations and timeouts to find).
fn answer(inv: &crate::engine::Invocation, n: usize, keep: usize) -> Option<Outcome> {
    if keep > 0 && n.is_multiple_of(keep) {
        return None;
    }
    Some(match &inv.request {
        Request::CallTool { name, .. } => Outcome::Tool(CallToolResult::text(name.clone())),
        Request::ReadResource { uri, .. } => Outcome::Resource(ReadResourceResult::text(uri.clone(), "x", None)),
        Request::GetPrompt { .. } => Outcome::Prompt(GetPromptResult::default()),
        _ => Outcome::Error(RpcError::new(-32603, "fuzz")),
    })
}

/// The server engine fed arbitrary bytes. The first byte picks a prelude (nothing, or an
/// `initialize` at one of the legacy revisions; 2026-07-28 requests need none), where the
/// rest is cut in two, and which calls stay running. Asserts that every line written is a
/// JSON object.
pub fn engine_server(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let s = server();
    let mut session = ServerSession::new(Arc::new(s.config()), s.registry().clone());
    let now = Instant::now();
    let prelude = (sel % 6) as usize;
    if (1..=4).contains(&prelude) {
        let v = ProtocolVersion::LEGACY[prelude - 1];
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": v.as_str(), "capabilities": {"sampling": {}, "roots": {"listChanged": true}},
            "clientInfo": {"name": "fuzz", "version": "1"}}});
        session.feed(
            format!("{init}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n").as_bytes(),
            now,
        );
    }
    let cut = (sel as usize).wrapping_mul(7) % (rest.len() + 1);
    let keep = (sel >> 4) as usize % 4;
    let mut n = 0;
    let mut out = Vec::new();
    let mut drive = |session: &mut ServerSession| loop {
        while let Some(ev) = session.poll_event() {
            if let Event::Invoke(inv) = ev {
                n += 1;
                if let Some(o) = answer(&inv, n, keep) {
                    session.complete(inv.key, o);
                }
            }
        }
        out.clear();
        session.take_output(&mut out);
        check_output(&out);
        if !session.poll_event_pending() {
            break;
        }
    };
    drive(&mut session);
    session.feed(&rest[..cut], now);
    drive(&mut session);
    session.feed(&rest[cut..], now);
    drive(&mut session);
    session.handle_timeout(now + Duration::from_secs(3600));
    drive(&mut session);
    session.input_closed();
    drive(&mut session);
    session.close();
    drive(&mut session);
}

/// The client engine fed arbitrary bytes as its server's output, after it sent its first
/// request (`initialize`, or `server/discover` in auto mode; the first byte picks the mode
/// and where the input is cut). Asserts that every line written is a JSON object.
pub fn engine_client(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let mut config = ClientConfig::new(Implementation::new("fuzz", "1"));
    config.mode = match sel % 3 {
        0 => crate::ClientMode::Auto,
        1 => crate::ClientMode::Legacy,
        _ => crate::ClientMode::Modern,
    };
    let mut client = ClientSession::new(Arc::new(config));
    let now = Instant::now();
    client.initialize(now);
    let cut = (sel as usize).wrapping_mul(13) % (rest.len() + 1);
    let mut out = Vec::new();
    let mut drive = |client: &mut ClientSession| {
        while let Some(ev) = client.poll_event() {
            if let Event::Invoke(inv) = ev {
                client.respond(inv.key, Err(RpcError::new(-32601, "fuzz")), std::time::Instant::now());
            }
        }
        out.clear();
        client.take_output(&mut out);
        check_output(&out);
    };
    drive(&mut client);
    client.feed(&rest[..cut], now);
    drive(&mut client);
    let _ = client.request("tools/list", None, &crate::engine::RequestOptions::default(), now);
    drive(&mut client);
    client.feed(&rest[cut..], now);
    drive(&mut client);
    client.handle_timeout(now + Duration::from_secs(3600));
    drive(&mut client);
    client.close();
    drive(&mut client);
}

/// The JSON-RPC codec and parser: the bytes as a stream of lines (cut where the first byte
/// says) and as one message. Asserts that the one-pass envelope check reads what serde_json
/// reads, and that a message that parses parses the same again from its own serialization.
pub fn jsonrpc(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let mut codec = crate::jsonrpc::LineCodec::new(1 << 16);
    let cut = (sel as usize).wrapping_mul(11) % (rest.len() + 1);
    for part in [&rest[..cut], &rest[cut..]] {
        codec.feed(part);
        while let Some(frame) = codec.next_frame() {
            if let crate::jsonrpc::Frame::Line(line) = frame {
                let _ = crate::jsonrpc::parse_message(line);
            }
        }
    }
    // The one-pass check reads envelopes exactly as serde_json does.
    if let Ok(text) = std::str::from_utf8(rest) {
        crate::jsonrpc::validate::assert_agrees_with_serde(text);
    }
    if crate::jsonrpc::parse_message(rest).is_ok() {
        match serde_json::from_slice::<Value>(rest) {
            Ok(v) => {
                let again = serde_json::to_vec(&v).expect("serializable");
                assert!(crate::jsonrpc::parse_message(&again).is_ok(), "a message parses again from its serialization");
            }
            // JSON puts no bound on numbers; a `Value` holds them as f64 at most, while the
            // parser keeps what it does not read as text (found by fuzzing: a member
            // `"x": 888...8` of 380 digits). Any other difference is a bug.
            Err(e) => assert!(e.to_string().starts_with("number out of range"), "a parsed message is JSON: {e}"),
        }
    }
}

/// The SSE parser of the HTTP client: the bytes fed in pieces the first byte sizes.
/// Asserts that no event's data exceeds the parser's limit.
pub fn sse(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let max = 4096;
    let mut p = crate::transport::http::sse::SseParser::new(max);
    let step = (sel as usize % 64) + 1;
    for chunk in rest.chunks(step) {
        if p.feed(chunk).is_err() {
            p.reset();
            continue;
        }
        while let Some(ev) = p.next_event() {
            assert!(ev.data.len() <= max, "an event of {} bytes passed the limit of {max}", ev.data.len());
        }
    }
}

/// URI templates: a template and a URI (split at the first NUL byte) are parsed and matched;
/// what a match extracts is expanded again. Asserts that a template expanded from the
/// values a URI matched with matches again.
pub fn uri_template(data: &[u8]) {
    use crate::catalogue::uri_template::{TemplateValue, UriTemplate};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (source, uri) = text.split_once('\0').unwrap_or((text, ""));
    let Ok(t) = UriTemplate::parse(source) else { return };
    let _ = t.variables();
    // The round trip is asserted for templates naming each variable once: one named twice
    // (`{a}/{?a}`) is matched in each place on its own, the later value kept, so its two
    // places need not agree (found by fuzzing; see fuzz/CRASHES.md).
    let names = t.variables();
    let once = names.iter().collect::<std::collections::HashSet<_>>().len() == names.len();
    if let Some(vars) = t.match_uri(uri).filter(|_| once) {
        let values = vars.into_iter().map(|(k, v)| (k, TemplateValue::String(v))).collect();
        let expanded = t.expand(&values);
        assert!(t.match_uri(&expanded).is_some(), "{source:?} expanded to {expanded:?}, which it does not match");
    }
    let values = t.variables().into_iter().map(|k| (k.to_string(), TemplateValue::String(uri.to_string()))).collect();
    let _ = t.expand(&values);
}

/// The `requestState` opener. Asserts that bytes never open as a state (only what the
/// server sealed does), and that a state sealed for a payload made of the bytes opens to
/// that payload.
pub fn request_state(data: &[u8]) {
    use crate::engine::request_state::{open, seal, StateKeys, StatePayload};
    thread_local! {
        static KEYS: StateKeys = StateKeys::new(&[[7u8; 32], [9u8; 32]]).expect("keys");
    }
    KEYS.with(|keys| {
        let text = String::from_utf8_lossy(data);
        let expect = StatePayload {
            method: "tools/call".into(),
            name: "echo".into(),
            args: "a".into(),
            audience: "fuzz".into(),
            expires_ms: u64::MAX,
            ..Default::default()
        };
        assert!(open(keys, &text, &expect, 0).is_err(), "arbitrary bytes opened as a requestState");
        let payload = StatePayload { user: Some(text.into_owned()), ..expect.clone() };
        let sealed = seal(keys, &payload).expect("seal");
        let opened = open(keys, &sealed, &expect, 0).expect("a sealed state opens");
        assert_eq!(opened, payload);
    });
}

/// The HTTP server path: the bytes are what a client sends on one connection (request
/// heads, bodies in any framing, several requests), served by the server's HTTP/1.1
/// connection code and [`HttpService`] over an in-memory pipe on a paused clock (timeouts
/// cost no real time).
///
/// [`HttpService`]: crate::http::HttpService
/// Returns what the server wrote (its first MiB).
#[cfg(feature = "fuzzing")]
pub fn http(data: &[u8]) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    thread_local! {
        static RT: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("runtime");
    }
    let data = data.to_vec();
    RT.with(|rt| {
        rt.block_on(async move {
            let service = crate::http::HttpService::new(&server(), crate::http::HttpOptions::default());
            let (mut client, conn) = tokio::io::duplex(1 << 20);
            let served = tokio::spawn(async move {
                let (_stop, stop) = tokio::sync::watch::channel(false);
                let config = crate::transport::http::server::h1::Config { half_close: true, client: None };
                let conn = crate::transport::http::server::h1::serve(conn, service.clone(), stop, config);
                let _ = tokio::time::timeout(Duration::from_secs(60), conn).await;
                service.close_all();
            });
            let _ = client.write_all(&data).await;
            let _ = client.shutdown().await;
            let mut sink = vec![0u8; 1 << 16];
            let mut written = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(120), async {
                while let Ok(n) = client.read(&mut sink).await {
                    if n == 0 {
                        break;
                    }
                    if written.len() < 1 << 20 {
                        written.extend_from_slice(&sink[..n]);
                    }
                }
            })
            .await;
            drop(client);
            let _ = served.await;
            written
        })
    })
}
