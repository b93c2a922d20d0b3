//! Tools: unknown tools, argument and output-schema validation, results shaped for the
//! revision, and `tools/list` pagination and caching.

use super::*;

#[test]
fn unknown_tool_is_invalid_params_naming_it() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "tools/call", json!({"name": "nope", "arguments": {}})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
    assert_eq!(err["data"], json!({"name": "nope"}));
    assert_eq!(err["message"], "Invalid params: Unknown tool: nope");
    // Missing name, array params.
    send(&mut s, request(json!(2), "tools/call", json!({"arguments": {}})), t0);
    assert_error(&one_line(&mut s), json!(2), codes::INVALID_PARAMS);
    send(&mut s, request(json!(3), "tools/call", json!(["echo"])), t0);
    assert_error(&one_line(&mut s), json!(3), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());
}

#[test]
fn invalid_arguments_are_a_protocol_error_before_2025_11_25() {
    let t0 = Instant::now();
    for v in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let mut s = ready(echo_registry(), v, json!({}), t0);
        send(&mut s, request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": 5}})), t0);
        let msg = one_line(&mut s);
        let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
        assert!(
            err["message"].as_str().unwrap().starts_with("Invalid params: Invalid arguments for tool echo: "),
            "{msg}"
        );
        assert_eq!(err["data"]["tool"], "echo");
        assert!(!err["data"]["errors"].as_array().unwrap().is_empty(), "{msg}");
        // Missing arguments are validated as `{}`.
        send(&mut s, request(json!(2), "tools/call", json!({"name": "echo"})), t0);
        assert_error(&one_line(&mut s), json!(2), codes::INVALID_PARAMS);
        assert!(events(&mut s).is_empty(), "{v}");
    }
}

#[test]
fn invalid_arguments_are_a_tool_error_in_2025_11_25() {
    let t0 = Instant::now();
    let mut s = ready(echo_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": 5}})), t0);
    let msg = one_line(&mut s);
    assert_eq!(msg["id"], 1);
    assert!(msg.get("error").is_none(), "{msg}");
    let result = &msg["result"];
    assert_eq!(result["isError"], true);
    let content = result["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"].as_str().unwrap().starts_with("Invalid arguments for tool echo: "), "{msg}");
    assert!(events(&mut s).is_empty());

    // Valid arguments reach user code.
    send(&mut s, call_echo(json!(2), "hi"), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::CallTool { name, arguments } => {
            assert_eq!(name, "echo");
            assert_eq!(Value::Object(arguments.clone()), json!({"text": "hi"}));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(inv.id, RequestId::Number(2));
}

#[test]
fn arguments_refused_by_the_host_are_answered_as_the_revision_wants() {
    // A host's own check (a zod schema) failed: the engine applies the same rule as for
    // JSON Schema, naming the tool from the call in flight.
    let t0 = Instant::now();
    for (v, as_result) in [("2025-06-18", false), ("2025-11-25", true)] {
        let mut s = ready(echo_registry(), v, json!({}), t0);
        send(&mut s, call_echo(json!(1), "hi"), t0);
        let inv = invocation(&mut s);
        s.complete(inv.key, Outcome::InvalidArguments(vec!["text: too short".into(), "(root): no".into()]));
        let msg = one_line(&mut s);
        let message = "Invalid arguments for tool echo: text: too short; (root): no";
        if as_result {
            assert_eq!(msg["result"]["isError"], true, "{v}: {msg}");
            assert_eq!(msg["result"]["content"][0]["text"], message, "{v}");
        } else {
            let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
            assert_eq!(err["message"], format!("Invalid params: {message}"), "{v}");
            assert_eq!(err["data"], json!({"tool": "echo", "errors": ["text: too short", "(root): no"]}), "{v}");
        }
        assert_eq!(s.in_flight(), 0);
    }
}

#[test]
fn output_schema_is_enforced() {
    let t0 = Instant::now();
    let reg = Registry::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    reg.add_tool(Tool::new("calc").output_schema(schema)).unwrap();
    let mut s = ready(reg, "2025-11-25", json!({}), t0);
    let call = |id: i64| request(json!(id), "tools/call", json!({"name": "calc"}));

    send(&mut s, call(1), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("no structure")));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "tool \"calc\" declares an outputSchema but returned no structuredContent"}], "isError": true})
        )
    );

    send(&mut s, call(2), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::structured(json!({"n": "three"}))));
    let msg = one_line(&mut s);
    assert_eq!(msg["result"]["isError"], true, "{msg}");
    assert!(msg["result"].get("structuredContent").is_none(), "{msg}");
    let text = msg["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("tool \"calc\" returned structuredContent that does not match its outputSchema: "),
        "{text}"
    );

    send(&mut s, call(3), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::structured(json!({"n": 3}))));
    assert_eq!(
        one_line(&mut s),
        ok(json!(3), json!({"content": [{"type": "text", "text": "{\"n\":3}"}], "structuredContent": {"n": 3}}))
    );

    // A failed call needs no structured content.
    send(&mut s, call(4), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::error("boom")));
    assert_eq!(one_line(&mut s), ok(json!(4), json!({"content": [{"type": "text", "text": "boom"}], "isError": true})));

    // A protocol error passes through.
    send(&mut s, call(5), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Error(RpcError::internal("crashed")));
    assert_eq!(
        one_line(&mut s),
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Internal error: crashed"}})
    );
}

#[test]
fn tool_results_are_shaped_for_the_revision() {
    let t0 = Instant::now();
    let mut result = CallToolResult::structured(json!({"a": 1}));
    result.content.push(Content::resource_link(Resource::new("file:///x", "x")));
    let mut audio = CallToolResult::text("t");
    audio.content.push(Content::audio(b"abc", "audio/wav"));

    let mut s = ready(echo_registry(), "2025-03-26", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(result.clone()));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}, {"type": "text", "text": "Resource: x (file:///x)"}]})
        )
    );

    let mut s = ready(echo_registry(), "2025-06-18", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(result));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({
                "content": [{"type": "text", "text": "{\"a\":1}"}, {"type": "resource_link", "uri": "file:///x", "name": "x"}],
                "structuredContent": {"a": 1},
            })
        )
    );

    let mut s = ready(echo_registry(), "2024-11-05", json!({}), t0);
    send(&mut s, call_echo(json!(1), "x"), t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(audio));
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": "t"}, {"type": "text", "text": "[audio content (audio/wav) not supported by protocol 2024-11-05]"}]})
        )
    );
}

#[test]
fn tools_list_paginates_and_is_cached() {
    let t0 = Instant::now();
    let reg = Registry::new();
    reg.set_page_size(2);
    for i in 0..5 {
        reg.add_tool(Tool::new(format!("t{i}")).title(format!("T{i}"))).unwrap();
    }
    let mut s = ready(reg, "2025-11-25", json!({}), t0);
    let tool = |i: usize| json!({"name": format!("t{i}"), "title": format!("T{i}"), "inputSchema": {"type": "object"}});

    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    let first = raw_lines(&mut s);
    assert_eq!(first.len(), 1);
    let page: Value = serde_json::from_str(&first[0]).unwrap();
    let cursor = page["result"]["nextCursor"].as_str().expect("a cursor").to_string();
    assert_eq!(page, ok(json!(1), json!({"tools": [tool(0), tool(1)], "nextCursor": cursor})));

    send(&mut s, request(json!(2), "tools/list", json!({"cursor": cursor})), t0);
    let page = one_line(&mut s);
    let cursor2 = page["result"]["nextCursor"].as_str().expect("a cursor").to_string();
    assert_ne!(cursor, cursor2);
    assert_eq!(page, ok(json!(2), json!({"tools": [tool(2), tool(3)], "nextCursor": cursor2})));

    send(&mut s, request(json!(3), "tools/list", json!({"cursor": cursor2})), t0);
    assert_eq!(one_line(&mut s), ok(json!(3), json!({"tools": [tool(4)]})));

    send(&mut s, request(json!(4), "tools/list", json!({"cursor": "garbage"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(4), codes::INVALID_PARAMS)["data"], json!({"cursor": "garbage"}));
    send(&mut s, request(json!(5), "tools/list", json!({"cursor": crate::util::encode_cursor(99)})), t0);
    assert_error(&one_line(&mut s), json!(5), codes::INVALID_PARAMS);

    // The same request gets the same bytes (the page is cached).
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    assert_eq!(raw_lines(&mut s), first);
    send(&mut s, request(json!(1), "tools/list", json!({})), t0);
    assert_eq!(raw_lines(&mut s), first);

    // An older revision gets its own shape (no titles).
    let reg2 = Registry::new();
    reg2.add_tool(Tool::new("t0").title("T0")).unwrap();
    let mut s = ready(reg2, "2025-03-26", json!({}), t0);
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({"tools": [{"name": "t0", "inputSchema": {"type": "object"}}]})));
}

#[test]
fn a_sessions_own_visibility_pages_and_travels_in_its_record() {
    use crate::catalogue::visibility::{Component, Filter, VisibilityChange};
    let t0 = Instant::now();
    let registry = Registry::new();
    registry.set_page_size(2);
    for name in ["a", "b", "c", "d", "e"] {
        registry.add_tool(Tool::new(name)).unwrap();
    }
    registry.set_tags(Component::Tool, "b", vec!["even".into()]);
    registry.set_tags(Component::Tool, "d", vec!["even".into()]);
    registry.disable(Filter::tags(["even"])).unwrap();
    let registry = Arc::new(registry);
    let config = Arc::new(ServerConfig::new(server_info()));
    let mut s = ServerSession::new(config.clone(), registry.clone());
    let list = |s: &mut ServerSession, id: i64, cursor: Option<&str>| {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        send(s, request(json!(id), "tools/list", params), t0);
        let page = one_line(s)["result"].clone();
        let names: Vec<String> =
            page["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().into()).collect();
        (names, page["nextCursor"].as_str().map(str::to_string))
    };
    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    // The server's view pages over what is visible: a, c, e.
    let (first, next) = list(&mut s, 1, None);
    assert_eq!(first, ["a", "c"]);
    assert_eq!(list(&mut s, 2, next.as_deref()), (vec!["e".to_string()], None));
    // The session's own rule: it alone now sees b and d, and is told.
    let changed = s.change_visibility(&VisibilityChange::Enable(Filter::names(["b", "d"]))).unwrap();
    assert_eq!(changed, [ListKind::Tools]);
    assert_eq!(one_line(&mut s)["method"], "notifications/tools/list_changed");
    let (first, next) = list(&mut s, 3, None);
    assert_eq!(first, ["a", "b"]);
    let (second, next) = list(&mut s, 4, next.as_deref());
    assert_eq!(second, ["c", "d"]);
    assert_eq!(list(&mut s, 5, next.as_deref()).0, ["e"]);
    // The same change again changes nothing, and says nothing.
    assert!(s.change_visibility(&VisibilityChange::Enable(Filter::names(["b", "d"]))).unwrap().is_empty());
    assert_quiet(&mut s);
    // Another replica that takes the session over from its record applies the same rules.
    let record = s.record().unwrap();
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["visibility"], json!([{"enabled": true, "names": ["b", "d"]}]));
    let mut other = ServerSession::new(config, registry);
    other.restore(&serde_json::from_value(json).unwrap()).unwrap();
    send(&mut other, request(json!(6), "tools/call", json!({"name": "d", "arguments": {}})), t0);
    assert!(matches!(invocation(&mut other).request, Request::CallTool { .. }));
    // A rule without criteria is refused.
    let mut fresh = ready(Registry::new(), "2025-11-25", json!({}), t0);
    assert!(fresh.change_visibility(&VisibilityChange::Disable(Filter::default())).is_err());
}
