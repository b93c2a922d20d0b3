//! Cancellation: `notifications/cancelled` in both directions, unknown ids, and duplicate
//! in-flight request ids.

use super::*;

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
    assert!(c.cancel_request(id, Some("user"), std::time::Instant::now()));
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
    assert!(!c.cancel_request(id, None, std::time::Instant::now()), "already cancelled");
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
    c.respond(
        inv.key,
        Ok(json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})),
        std::time::Instant::now(),
    );
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
