//! The client at 2026-07-28: the `server/discover` probe and the fallback to `initialize`,
//! per-request `_meta`, `input_required` rounds answered through the client's handlers,
//! cached results, the dropping of tools with invalid header annotations.

use super::*;
use crate::protocol::meta_keys;

fn config(mode: ClientMode, caps: Value) -> ClientConfig {
    let mut c = ClientConfig::new(Implementation::new("test-client", "0.1.0"));
    c.capabilities = serde_json::from_value(caps).expect("client capabilities");
    c.mode = mode;
    c
}

fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28", "2025-11-25"],
        "capabilities": {"tools": {}},
        "_meta": {(meta_keys::SERVER_INFO): {"name": "modern-server", "version": "2.0.0"}},
    })
}

/// A client past a hand-answered probe.
fn modern_client(caps: Value, t0: Instant) -> ClientSession {
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, caps)));
    let open = c.initialize(t0);
    let probe = one_line(&mut c);
    assert_eq!(probe["method"], "server/discover");
    assert_eq!(probe["id"], json!(open.0));
    send(&mut c, ok(probe["id"].clone(), discover_result()), t0);
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert!(c.is_modern());
    c
}

fn response(ev: &[Event]) -> (OutboundId, Result<Value, RpcError>) {
    match ev {
        [Event::Response { id, result }] => (*id, result.clone()),
        other => panic!("expected one response, got {other:?}"),
    }
}

#[test]
fn an_auto_client_speaks_2026_with_a_dual_era_server() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, json!({"sampling": {}}))));
    let mut s = new_server(echo_registry(), |_| {});
    c.initialize(t0);
    let transcript = pump(&mut c, &mut s, t0);
    let (_, probe) = &transcript[0];
    assert_eq!(probe["method"], "server/discover");
    let meta = &probe["params"]["_meta"];
    assert_eq!(meta[meta_keys::PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(meta[meta_keys::CLIENT_CAPABILITIES], json!({"sampling": {}}));
    assert_eq!(meta[meta_keys::CLIENT_INFO]["name"], "test-client");
    assert!(matches!(events(&mut c).as_slice(), [Event::Initialized]));
    assert!(c.is_modern());
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::V2026_07_28));
    assert_eq!(c.server().expect("server").server_info.name, "test-server");
    // No initialize, no initialized notification: the probe was the whole opening.
    assert!(transcript.iter().all(|(_, m)| m["method"] != "initialize" && m["method"] != "notifications/initialized"));

    let id = c.request("tools/list", None, &RequestOptions::default(), t0).expect("sent");
    let transcript = pump(&mut c, &mut s, t0);
    let sent = &transcript[0].1;
    assert_eq!(sent["method"], "tools/list");
    assert_eq!(sent["params"]["_meta"][meta_keys::PROTOCOL_VERSION], "2026-07-28");
    let (got, result) = response(&events(&mut c));
    assert_eq!(got, id);
    let result = result.expect("the list");
    assert_eq!(result["tools"][0]["name"], "echo");
    // The wire's resultType and identity stamp are the client's business, not the caller's.
    assert!(transcript[1].1["result"]["resultType"] == "complete");
    assert!(result.get("resultType").is_none(), "{result}");
    assert!(result.get("_meta").is_none_or(|m| m.get(meta_keys::SERVER_INFO).is_none()), "{result}");
}

#[test]
fn a_refused_probe_falls_back_to_initialize() {
    let t0 = Instant::now();
    for refusal in [
        json!({"code": -32601, "message": "Method not found"}),
        json!({"code": -32602, "message": "Server not initialized"}),
        json!({"code": -32000, "message": "Bad Request: no session"}),
    ] {
        let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, json!({}))));
        let open = c.initialize(t0);
        let probe = one_line(&mut c);
        send(&mut c, json!({"jsonrpc": "2.0", "id": probe["id"], "error": refusal}), t0);
        assert!(events(&mut c).is_empty());
        let init = one_line(&mut c);
        assert_eq!(init["method"], "initialize");
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        send(
            &mut c,
            ok(
                init["id"].clone(),
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}),
            ),
            t0,
        );
        assert!(matches!(events(&mut c).as_slice(), [Event::Initialized]));
        assert!(!c.is_modern());
        assert_eq!(one_line(&mut c)["method"], "notifications/initialized");
        assert_ne!(open, OutboundId(0));
    }
}

#[test]
fn a_silent_server_is_legacy_after_the_probe_timeout() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, json!({}))));
    c.initialize(t0);
    assert_eq!(one_line(&mut c)["method"], "server/discover");
    let deadline = c.next_deadline().expect("the probe is timed");
    assert!(deadline <= t0 + Duration::from_secs(10));
    c.handle_timeout(deadline);
    let out = lines(&mut c);
    assert_eq!(out.last().expect("initialize")["method"], "initialize", "{out:?}");
}

#[test]
fn a_modern_client_waits_for_discovery_as_long_as_for_any_request() {
    // Nothing to fall back to: a slow answer (an OAuth login held the request) is awaited for
    // the request timeout (60 s by default), not the auto mode's 10 s probe.
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Modern, json!({}))));
    let open = c.initialize(t0);
    let probe = one_line(&mut c);
    assert_eq!(probe["method"], "server/discover");
    assert_eq!(c.next_deadline(), Some(t0 + Duration::from_secs(60)));
    let later = t0 + Duration::from_secs(30);
    c.handle_timeout(later);
    assert!(events(&mut c).is_empty(), "not timed out at 30 s");
    assert_eq!(probe["id"], json!(open.0));
    send(&mut c, ok(probe["id"].clone(), discover_result()), later);
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert!(c.is_modern());
}

#[test]
fn a_modern_client_reports_a_legacy_server_clearly() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Modern, json!({}))));
    let open = c.initialize(t0);
    let probe = one_line(&mut c);
    send(&mut c, json!({"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32601, "message": "nope"}}), t0);
    let (id, result) = response(&events(&mut c));
    assert_eq!(id, open);
    let e = result.expect_err("refused");
    assert!(e.message.contains("does not speak 2026-07-28"), "{e:?}");
    assert_eq!(c.state(), State::Closed);
    assert!(lines(&mut c).is_empty(), "no fallback in modern mode");
}

#[test]
fn an_unsupported_version_error_is_retried_once_then_reported() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, json!({}))));
    let open = c.initialize(t0);
    let refuse = |id: &Value, supported: Value| {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": supported, "requested": "2026-07-28"}}})
    };
    let probe = one_line(&mut c);
    send(&mut c, refuse(&probe["id"], json!(["2026-07-28"])), t0);
    let again = one_line(&mut c);
    assert_eq!(again["method"], "server/discover");
    assert_ne!(again["id"], probe["id"], "a new request, a new id");
    send(&mut c, refuse(&again["id"], json!(["2026-07-28"])), t0);
    let (id, result) = response(&events(&mut c));
    assert_eq!(id, open);
    assert_eq!(result.expect_err("refused twice").code, codes::UNSUPPORTED_PROTOCOL_VERSION);

    // A modern server that supports only versions this client does not: no fallback.
    let mut c = ClientSession::new(Arc::new(config(ClientMode::Auto, json!({}))));
    c.initialize(t0);
    let probe = one_line(&mut c);
    send(&mut c, refuse(&probe["id"], json!(["2099-01-01"])), t0);
    let (_, result) = response(&events(&mut c));
    assert!(result.expect_err("no common version").message.contains("2099-01-01"));
}

#[test]
fn input_required_is_answered_by_the_handlers_and_retried_with_the_state() {
    let t0 = Instant::now();
    let mut c = modern_client(json!({"elicitation": {"form": {}}, "roots": {}}), t0);
    let caller =
        c.request("tools/call", Some(json!({"name": "book", "arguments": {}})), &RequestOptions::default(), t0);
    let caller = caller.expect("sent");
    let first = one_line(&mut c);
    send(
        &mut c,
        ok(
            first["id"].clone(),
            json!({"resultType": "input_required", "requestState": "sealed-1", "inputRequests": {
                "who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}},
                "where": {"method": "roots/list", "params": {}},
            }}),
        ),
        t0,
    );
    let ev = events(&mut c);
    assert_eq!(ev.len(), 2, "{ev:?}");
    let mut keys = Vec::new();
    for e in ev {
        let Event::Invoke(inv) = e else { panic!("{e:?}") };
        match inv.request {
            Request::Elicit(_) => keys.push((inv.key, json!({"action": "accept", "content": {"name": "Ada"}}))),
            Request::ListRoots => keys.push((inv.key, json!({"roots": [{"uri": "file:///r"}]}))),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(c.pending_requests(), 1, "the call waits for its inputs");
    c.respond(keys[0].0, Ok(keys[0].1.clone()), std::time::Instant::now());
    assert!(lines(&mut c).is_empty(), "not before every input is answered");
    c.respond(keys[1].0, Ok(keys[1].1.clone()), std::time::Instant::now());
    let retry = one_line(&mut c);
    assert_eq!(retry["method"], "tools/call");
    assert_ne!(retry["id"], first["id"]);
    assert_eq!(retry["params"]["requestState"], "sealed-1");
    assert_eq!(retry["params"]["inputResponses"]["who"]["content"]["name"], "Ada");
    assert_eq!(retry["params"]["inputResponses"]["where"]["roots"][0]["uri"], "file:///r");
    assert_eq!(retry["params"]["_meta"][meta_keys::PROTOCOL_VERSION], "2026-07-28");
    // No state in the next round: none is sent.
    send(
        &mut c,
        ok(
            retry["id"].clone(),
            json!({"resultType": "input_required", "inputRequests": {
                "again": {"method": "roots/list", "params": {}}}}),
        ),
        t0,
    );
    let Some(Event::Invoke(inv)) = events(&mut c).pop() else { panic!("an input") };
    c.respond(inv.key, Ok(json!({"roots": []})), std::time::Instant::now());
    let third = one_line(&mut c);
    assert!(third["params"].get("requestState").is_none(), "{third}");
    assert!(third["params"]["inputResponses"].get("who").is_none(), "only this round's answers");
    send(&mut c, ok(third["id"].clone(), json!({"resultType": "complete", "content": []})), t0);
    let (id, result) = response(&events(&mut c));
    assert_eq!(id, caller, "the answer reaches the caller under the first id");
    assert_eq!(result.expect("done"), json!({"content": []}));
}

#[test]
fn input_rounds_are_bounded_and_undeclared_inputs_fail_the_call() {
    let t0 = Instant::now();
    let mut cfg = config(ClientMode::Auto, json!({"roots": {}}));
    cfg.max_input_rounds = 1;
    let mut c = ClientSession::new(Arc::new(cfg));
    c.initialize(t0);
    let probe = one_line(&mut c);
    send(&mut c, ok(probe["id"].clone(), discover_result()), t0);
    events(&mut c);
    let ask = json!({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}});
    let caller = c.request("tools/call", Some(json!({"name": "t"})), &RequestOptions::default(), t0).unwrap();
    let m = one_line(&mut c);
    send(&mut c, ok(m["id"].clone(), ask.clone()), t0);
    let Some(Event::Invoke(inv)) = events(&mut c).pop() else { panic!("an input") };
    c.respond(inv.key, Ok(json!({"roots": []})), std::time::Instant::now());
    let m = one_line(&mut c);
    send(&mut c, ok(m["id"].clone(), ask), t0);
    let (id, result) = response(&events(&mut c));
    assert_eq!(id, caller);
    assert!(result.expect_err("bounded").message.contains("max_input_rounds"));

    // Sampling was never declared: the call fails, naming it.
    let caller = c.request("tools/call", Some(json!({"name": "t"})), &RequestOptions::default(), t0).unwrap();
    let m = one_line(&mut c);
    let ask = json!({"resultType": "input_required", "inputRequests": {"s": {"method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5}}}});
    send(&mut c, ok(m["id"].clone(), ask), t0);
    let (id, result) = response(&events(&mut c));
    assert_eq!(id, caller);
    assert!(result.expect_err("undeclared").message.contains("sampling/createMessage"));
    assert_eq!(c.pending_requests(), 0);
}

#[test]
fn results_with_a_ttl_are_reused_until_a_change_notification() {
    let t0 = Instant::now();
    let mut c = modern_client(json!({}), t0);
    let list = |c: &mut ClientSession| c.request("tools/list", None, &RequestOptions::default(), t0).unwrap();
    list(&mut c);
    let m = one_line(&mut c);
    send(
        &mut c,
        ok(
            m["id"].clone(),
            json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "private", "tools": [
                {"name": "ok", "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}},
                {"name": "bad", "inputSchema": {"type": "object", "properties": {"r": {"type": "number", "x-mcp-header": "R"}}}},
            ]}),
        ),
        t0,
    );
    let (_, first) = response(&events(&mut c));
    let first = first.unwrap();
    assert_eq!(
        first,
        json!({"tools": [{"name": "ok", "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}}]})
    );
    // Again: answered from the cache, nothing on the wire.
    let again = list(&mut c);
    assert!(lines(&mut c).is_empty());
    let (id, cached) = response(&events(&mut c));
    assert_eq!(id, again);
    assert_eq!(cached.unwrap(), first);
    // A change notification empties it.
    send(&mut c, notification("notifications/tools/list_changed", json!({})), t0);
    events(&mut c);
    list(&mut c);
    assert_eq!(one_line(&mut c)["method"], "tools/list");
}

fn refusal(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32020, "message": "the Mcp-Param-Region header is missing"}})
}

fn deploy_args() -> Value {
    json!({"name": "deploy", "arguments": {"region": "eu-west"}})
}

/// Calls `deploy` and refuses the call with -32020: its caller id and the refused line.
fn refused_call(c: &mut ClientSession, t0: Instant) -> (OutboundId, Value) {
    let id = c.request("tools/call", Some(deploy_args()), &RequestOptions::default(), t0).expect("sent");
    let first = one_line(c);
    send(c, refusal(first["id"].clone()), t0);
    (id, first)
}

#[test]
fn a_call_refused_for_a_missing_header_lists_the_tools_then_is_sent_once_more() {
    let t0 = Instant::now();
    let mut c = modern_client(json!({}), t0);
    let args = deploy_args();
    let (id, first) = refused_call(&mut c, t0);
    assert!(events(&mut c).is_empty(), "the refusal is not the answer yet");
    // The tools are listed, every page, with the request's _meta.
    let page1 = one_line(&mut c);
    assert_eq!(page1["method"], "tools/list");
    assert_eq!(page1["params"]["_meta"][meta_keys::PROTOCOL_VERSION], "2026-07-28");
    assert!(page1["params"].get("cursor").is_none(), "{page1}");
    send(&mut c, ok(page1["id"].clone(), json!({"resultType": "complete", "tools": [], "nextCursor": "p2"})), t0);
    let page2 = one_line(&mut c);
    assert_eq!((page2["method"].clone(), page2["params"]["cursor"].clone()), (json!("tools/list"), json!("p2")));
    let tools = json!([{"name": "deploy", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}]);
    send(&mut c, ok(page2["id"].clone(), json!({"resultType": "complete", "tools": tools})), t0);
    assert!(events(&mut c).is_empty(), "the listing is the client's own business");
    // Then the call again, the same params under a new wire id; its answer is the caller's.
    let again = one_line(&mut c);
    assert_eq!(again["method"], "tools/call");
    assert_eq!(
        (again["params"]["name"].clone(), again["params"]["arguments"].clone()),
        (args["name"].clone(), args["arguments"].clone())
    );
    assert_ne!(again["id"], first["id"]);
    let done = json!({"resultType": "complete", "content": [{"type": "text", "text": "deployed"}]});
    send(&mut c, ok(again["id"].clone(), done), t0);
    let (got, result) = response(&events(&mut c));
    assert_eq!(got, id);
    assert_eq!(result.expect("the call's result")["content"][0]["text"], "deployed");
    assert_eq!(c.pending_requests(), 0);

    // Refused again after the listing: that refusal is the answer (one listing per call).
    let (id, _) = refused_call(&mut c, t0);
    let list = one_line(&mut c);
    send(&mut c, ok(list["id"].clone(), json!({"resultType": "complete", "tools": []})), t0);
    let again = one_line(&mut c);
    send(&mut c, refusal(again["id"].clone()), t0);
    assert!(lines(&mut c).is_empty(), "no second listing");
    let (got, result) = response(&events(&mut c));
    assert_eq!((got, result.expect_err("refused").code), (id, -32020));
}

#[test]
fn a_failed_listing_answers_the_call_with_its_refusal_and_a_cancel_stops_the_listing() {
    let t0 = Instant::now();
    let mut c = modern_client(json!({}), t0);
    let (id, _) = refused_call(&mut c, t0);
    let list = one_line(&mut c);
    send(&mut c, json!({"jsonrpc": "2.0", "id": list["id"], "error": {"code": -32603, "message": "boom"}}), t0);
    let (got, result) = response(&events(&mut c));
    let e = result.expect_err("refused");
    assert_eq!((got, e.code), (id, -32020), "{e:?}");
    assert!(e.message.starts_with("the Mcp-Param-Region header is missing") && e.message.contains("boom"), "{e:?}");
    assert!(lines(&mut c).is_empty());

    // Cancelled by its caller during the listing: the listing is cancelled, nothing answers.
    let (id, _) = refused_call(&mut c, t0);
    let list = one_line(&mut c);
    assert!(c.cancel_request(id, Some("no longer needed"), std::time::Instant::now()));
    // 2026-07-28 has no cancel notification on HTTP, but the engine still tells a stdio server.
    for m in lines(&mut c) {
        assert_eq!(m["method"], "notifications/cancelled", "{m}");
        assert_eq!(m["params"]["requestId"], list["id"]);
    }
    send(&mut c, ok(list["id"].clone(), json!({"resultType": "complete", "tools": []})), t0);
    assert!(events(&mut c).is_empty());
    assert!(lines(&mut c).is_empty(), "the call is not sent again");
    assert_eq!(c.pending_requests(), 0);
}
