//! The HTTP server as a host loop drives it (`transport::host::HostHttpServer`, what the
//! Python and Node bindings run): work is handed over in batches, one wake-up a batch;
//! sessions are looked up by key until the take after they closed; requests served for
//! another HTTP stack come back as head, chunks and end.

use hypermcp::catalogue::Registry;
use hypermcp::engine::{Event, Outcome, Request};
use hypermcp::transport::host::{HostHttpServer, HostItem, TimeUnit};
use hypermcp::{CallToolResult, Tool};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Host {
    server: HostHttpServer,
    wakes: Arc<AtomicUsize>,
}

impl Host {
    fn new(options: Value) -> Host {
        let registry = Arc::new(Registry::new());
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        registry.add_tool(Tool::new("echo").input_schema(schema)).expect("a valid tool");
        let wakes = Arc::new(AtomicUsize::new(0));
        let w = wakes.clone();
        let config = json!({"name": "host-test", "version": "1.0.0"});
        let server = HostHttpServer::new(config, registry, options, TimeUnit::Seconds, move || {
            w.fetch_add(1, Ordering::SeqCst);
        })
        .expect("valid options");
        Host { server, wakes }
    }

    fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }

    /// Waits (5 s at most) until the host has been woken `n` times in all.
    fn until_woken(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.wakes() < n {
            assert!(Instant::now() < deadline, "woken {} times, expected {n}", self.wakes());
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn post(&self, session: Option<&str>, body: Value) -> u64 {
        let mut headers = vec![
            ("host", "localhost".to_string()),
            ("content-type", "application/json".to_string()),
            ("accept", "application/json, text/event-stream".to_string()),
            ("mcp-protocol-version", "2025-11-25".to_string()),
        ];
        if let Some(id) = session {
            headers.push(("mcp-session-id", id.to_string()));
        }
        self.server.handle("POST", "/mcp", headers, body.to_string().into_bytes()).expect("a valid request")
    }
}

/// A response being received: status, headers, body, and whether it ended.
type Response = (u16, Vec<(String, Vec<u8>)>, Vec<u8>, bool);

/// The responses of requests served with `handle`, by request id.
#[derive(Default)]
struct Responses(HashMap<u64, Response>);

impl Responses {
    fn add(&mut self, item: &HostItem) -> bool {
        match item {
            HostItem::Head { request, status, headers } => {
                self.0.insert(*request, (*status, headers.clone(), Vec::new(), false));
            }
            HostItem::Chunk { request, data } => self.0.get_mut(request).expect("head first").2.extend_from_slice(data),
            HostItem::End(request) => self.0.get_mut(request).expect("head first").3 = true,
            _ => return false,
        }
        true
    }

    fn finished(&self, request: u64) -> Option<(u16, Value, String)> {
        let (status, headers, body, done) = self.0.get(&request)?;
        if !done {
            return None;
        }
        let header =
            |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| String::from_utf8_lossy(v).into_owned());
        let text = String::from_utf8_lossy(body).into_owned();
        // A JSON body, or the last message of an SSE stream.
        let json = if header("content-type").as_deref() == Some("application/json") {
            serde_json::from_str(&text).unwrap_or(Value::Null)
        } else {
            let last = text.lines().filter_map(|l| l.strip_prefix("data: ")).rfind(|d| !d.is_empty());
            last.and_then(|d| serde_json::from_str(d).ok()).unwrap_or(Value::Null)
        };
        Some((*status, json, header("mcp-session-id").unwrap_or_default()))
    }
}

/// Takes items until `request` has finished; returns the other items taken on the way.
fn answer(host: &Host, responses: &mut Responses, request: u64) -> (u16, Value, String, Vec<HostItem>) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut others = Vec::new();
    loop {
        for item in host.server.take() {
            if !responses.add(&item) {
                others.push(item);
            }
        }
        if let Some((status, json, session)) = responses.finished(request) {
            return (status, json, session, others);
        }
        assert!(Instant::now() < deadline, "request {request} did not finish");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn initialize(host: &Host, responses: &mut Responses) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, answer_json, session, _) = answer(host, responses, host.post(None, init));
    assert_eq!(status, 200);
    assert_eq!(answer_json["result"]["serverInfo"]["name"], "host-test");
    assert!(!session.is_empty(), "a session id is issued");
    let initialized = host.post(Some(&session), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (status, ..) = self::answer(host, responses, initialized);
    assert_eq!(status, 202);
    session
}

#[test]
fn calls_arrive_in_one_batch_with_one_wake_up_and_answer_through_the_session() {
    // Calls get their SSE stream only after a minute: nothing else is queued meanwhile.
    let host = Host::new(json!({"json_wait": 60}));
    let mut responses = Responses::default();
    let session = initialize(&host, &mut responses);
    // Initializing woke the host for the responses only: "initialized" is not an event.
    let before = host.wakes();
    assert!(host.server.take().is_empty());

    let calls: Vec<u64> = (1..=3)
        .map(|i| {
            let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": format!("hi {i}")}}});
            host.post(Some(&session), call)
        })
        .collect();
    host.until_woken(before + 1);
    // Let the other two POSTs reach the engine; they join the batch without a wake-up.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(host.wakes(), before + 1, "one wake-up for everything queued while the host was not looking");
    let items = host.server.take();
    assert_eq!(items.len(), 1, "the three calls of one session are one item: {items:?}");
    let HostItem::Events { session: key, events } = &items[0] else { panic!("events, not {:?}", items[0]) };
    assert_eq!(events.len(), 3);

    let mut handle = host.server.session(*key).expect("an announced session");
    assert_eq!(handle.session_id().as_deref(), Some(session.as_str()));
    assert_eq!(handle.in_flight(), 3);
    assert_eq!(handle.next_timeout(), None, "the service runs an HTTP session's timers");
    assert!(handle.feed(b"{}\n").is_err(), "an HTTP session takes no bytes from the host");
    for ev in events {
        let Event::Invoke(inv) = ev else { panic!("an invocation, not {ev:?}") };
        let Request::CallTool { arguments, .. } = &inv.request else { panic!("a tool call") };
        let text = arguments["text"].as_str().unwrap_or_default().to_uppercase();
        handle.complete(inv.key, Outcome::Tool(CallToolResult::text(text)));
    }
    let mut out = Vec::new();
    handle.take_output(&mut out);
    assert!(out.is_empty() && !handle.has_output(), "the answers went to the HTTP streams");
    for (i, call) in calls.into_iter().enumerate() {
        let (status, json, _, others) = answer(&host, &mut responses, call);
        assert!(others.is_empty(), "nothing but the responses: {others:?}");
        assert_eq!(status, 200);
        assert_eq!(json["result"]["content"][0]["text"], format!("HI {}", i + 1));
    }
}

#[test]
fn a_closed_session_is_announced_once_and_looked_up_until_the_next_take() {
    let host = Host::new(json!({"json_wait": 60}));
    let mut responses = Responses::default();
    let session = initialize(&host, &mut responses);
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "never answered"}}});
    host.post(Some(&session), call);
    let key = loop {
        let items = host.server.take();
        if let Some(HostItem::Events { session, .. }) = items.first() {
            break *session;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let headers = vec![
        ("host", "localhost".to_string()),
        ("mcp-session-id", session.clone()),
        ("mcp-protocol-version", "2025-11-25".to_string()),
    ];
    let delete = host.server.handle("DELETE", "/mcp", headers, Vec::new()).expect("a valid request");
    let (status, _, _, others) = answer(&host, &mut responses, delete);
    assert_eq!(status, 200);
    // The call in flight was cancelled, then the session closed: in that order.
    let kinds: Vec<String> = others
        .iter()
        .map(|i| match i {
            HostItem::Events { events, .. } => {
                format!("{:?}", events.iter().map(|e| matches!(e, Event::Cancelled { .. })).collect::<Vec<_>>())
            }
            HostItem::Closed(k) => {
                assert_eq!(*k, key);
                "closed".into()
            }
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, vec!["[true]".to_string(), "closed".to_string()], "{others:?}");
    // The batch that closed it can still reach it; the next take forgets it.
    assert!(host.server.session(key).is_some());
    assert!(host.server.take().is_empty());
    assert!(host.server.session(key).is_none());
    assert_eq!(host.server.session_count(), 0);
}

#[test]
fn listening_stopping_and_refusals() {
    let host = Host::new(json!({}));
    assert!(!host.server.stop(), "not listening yet");
    let addr = host.server.listen("127.0.0.1", 0).expect("a free port");
    assert!(addr.port() > 0);
    assert!(host.server.listen("127.0.0.1", 0).is_err(), "already listening");
    let woken = host.wakes();
    assert!(host.server.stop());
    host.until_woken(woken + 1);
    assert!(matches!(host.server.take().as_slice(), [HostItem::Stopped]));
    assert!(host.server.handle("BAD METHOD", "/mcp", Vec::<(&str, &str)>::new(), Vec::new()).is_err());
    let refused =
        HostHttpServer::new(json!({}), Arc::new(Registry::new()), json!({"bogus": 1}), TimeUnit::Seconds, || {});
    assert!(refused.expect_err("an unknown option").to_string().contains("unknown HTTP option `bogus`"));
}
