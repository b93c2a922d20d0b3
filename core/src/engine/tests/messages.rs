//! Ping both ways, notifications (never answered) and responses (to unknown ids, or errors
//! without an id).

use super::*;

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
        matches!(&ev[0], Event::Notification { method, params: None, .. } if method == "notifications/roots/list_changed")
    );
    assert!(
        matches!(&ev[1], Event::Notification { method, params: Some(p), .. } if method == "notifications/unknown/thing" && *p == json!({"a": 1}))
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
        matches!(ev.as_slice(), [Event::Notification { method, params: None, .. }] if method == "notifications/whatever")
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
