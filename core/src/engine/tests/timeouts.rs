//! Timeouts: requests that time out, deadlines pushed out by progress up to a total cap, and
//! what a server may send before the client is initialized.

use super::*;

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

#[test]
fn keep_alive_pings_find_a_server_that_stopped_answering() {
    let t0 = Instant::now();
    let mut config = client_config(json!({}));
    config.ping_interval = Some(Duration::from_secs(5));
    config.request_timeout = None;
    let server_result = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    });
    let mut c = client_after_handshake(config.clone(), server_result.clone(), t0);
    // The first ping is due one interval after the handshake; nothing before.
    assert_eq!(c.next_deadline(), Some(secs(t0, 5)));
    c.handle_timeout(secs(t0, 4));
    assert_quiet(&mut c);
    c.handle_timeout(secs(t0, 5));
    let ping = one_line(&mut c);
    assert_eq!(ping["method"], "ping");
    // Not a call anyone waits for.
    assert_eq!(c.pending_requests(), 0);
    assert_eq!(c.next_deadline(), Some(secs(t0, 10)));
    // Answered: the next one is due an interval later, and the answer is not an event.
    send(&mut c, ok(ping["id"].clone(), json!({})), secs(t0, 6));
    assert_quiet(&mut c);
    assert_eq!(c.next_deadline(), Some(secs(t0, 11)));
    // An error answer shows the server is there, too.
    c.handle_timeout(secs(t0, 11));
    let ping = one_line(&mut c);
    send(
        &mut c,
        json!({"jsonrpc": "2.0", "id": ping["id"], "error": {"code": -32601, "message": "no ping here"}}),
        secs(t0, 12),
    );
    assert_quiet(&mut c);
    assert_eq!(c.next_deadline(), Some(secs(t0, 17)));

    // A call is in flight when the server freezes: the ping goes unanswered, the session
    // closes itself, the call fails saying why, and the host is told.
    let call = c.request("tools/list", None, &RequestOptions::default(), secs(t0, 16)).unwrap();
    assert_eq!(one_line(&mut c)["method"], "tools/list");
    c.handle_timeout(secs(t0, 17));
    assert_eq!(one_line(&mut c)["method"], "ping");
    c.handle_timeout(secs(t0, 22));
    let ev = events(&mut c);
    let why = "the server did not answer a ping within 5000 ms: taken for gone";
    assert!(
        matches!(ev.as_slice(), [
            Event::Response { id, result: Err(e) },
            Event::Lost { reason },
        ] if *id == call && e.code == codes::CONNECTION_CLOSED && e.message == why && reason == why),
        "{ev:?}"
    );
    assert_eq!(c.state(), State::Closed);
    assert_eq!(c.next_deadline(), None);

    // Without the option, no pings; a 2026-07-28 session has none either (no ping there).
    let mut quiet = config.clone();
    quiet.ping_interval = None;
    let c = client_after_handshake(quiet, server_result, t0);
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn supports_reads_capabilities_flags_and_extensions() {
    let caps: crate::protocol::ServerCapabilities = serde_json::from_value(json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": false},
        "logging": {},
        "tasks": {"requests": {"tools": {"call": {}}}},
        "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}},
    }))
    .unwrap();
    let has = |f: &str| crate::engine::server_supports(&caps, f);
    assert!(has("tools") && has("tools.listChanged") && has("tools.list_changed") && has("logging"));
    assert!(has("resources") && !has("resources.subscribe") && !has("prompts") && !has("tools.nope"));
    assert!(has("io.modelcontextprotocol/ui") && !has("io.example/other"));
    assert!(has("io.modelcontextprotocol/tasks"), "a 2025-11-25 server's tasks capability counts");
    assert!(!has("") && !has("."));
}
