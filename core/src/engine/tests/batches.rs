//! JSON-RPC batches: answered as one array in 2025-03-26, refused in every other revision
//! and for `initialize`.

use super::*;

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
