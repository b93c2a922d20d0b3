//! Progress: progress tokens reaching the invocation, `notifications/progress` sent and
//! received, and its shape per revision.

use super::*;

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
    c.respond(inv.key, Ok(json!({"roots": []})), std::time::Instant::now());
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
