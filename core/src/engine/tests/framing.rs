//! Framing: an oversize line is refused and the session keeps serving.

use super::*;

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
