//! Capabilities: what each side declares, and methods refused when the peer or this side
//! did not declare the capability they need.

use super::*;

#[test]
fn undeclared_features_are_method_not_found() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-11-25", json!({}), t0);
    let calls = [
        ("tools/list", Value::Null),
        ("tools/call", json!({"name": "echo"})),
        ("resources/list", Value::Null),
        ("resources/templates/list", Value::Null),
        ("resources/read", json!({"uri": "file:///a"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
        ("prompts/list", Value::Null),
        ("prompts/get", json!({"name": "p"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
        ),
        ("no/such/method", Value::Null),
    ];
    for (i, (method, params)) in calls.into_iter().enumerate() {
        send(&mut s, request(json!(i), method, params), t0);
        let msg = one_line(&mut s);
        let err = assert_error(&msg, json!(i), codes::METHOD_NOT_FOUND);
        assert_eq!(err["data"], json!({"method": method}));
        assert_eq!(err["message"], format!("Method not found: {method}"));
    }
    assert!(events(&mut s).is_empty());
}

#[test]
fn declared_capabilities_follow_registry_and_config() {
    let t0 = Instant::now();
    let reg = || {
        let r = Registry::new();
        r.add_tool(Tool::new("t")).unwrap();
        r.add_template(ResourceTemplate::new("x://{id}", "x")).unwrap();
        r.add_prompt(Prompt::new("p")).unwrap();
        r
    };
    let tweak = |c: &mut ServerConfig| {
        c.completions = true;
        c.subscriptions = false;
        c.instructions = Some("be nice".into());
        c.experimental = Some(Map::from_iter([("x".to_string(), json!({}))]));
    };
    let mut s = new_server(reg(), tweak);
    let result = initialize(&mut s, "2025-11-25", json!({}), t0);
    assert_eq!(
        result,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {
                "experimental": {"x": {}},
                "logging": {},
                "completions": {},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": false, "listChanged": true},
                "tools": {"listChanged": true},
            },
            "serverInfo": {"name": "test-server", "version": "1.0.0"},
            "instructions": "be nice",
        })
    );
    // subscribe: false means resources/subscribe does not exist here.
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    send(&mut s, request(json!(1), "resources/subscribe", json!({"uri": "x://1"})), t0);
    assert_error(&one_line(&mut s), json!(1), codes::METHOD_NOT_FOUND);

    // 2024-11-05 has no completions capability.
    let mut s = new_server(reg(), tweak);
    let result = initialize(&mut s, "2024-11-05", json!({}), t0);
    assert_eq!(
        result["capabilities"],
        json!({
            "experimental": {"x": {}},
            "logging": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": false, "listChanged": true},
            "tools": {"listChanged": true},
        })
    );

    // The config flags declare capabilities of an empty registry.
    let mut s = ready_with(
        Registry::new(),
        |c| {
            c.tools = true;
            c.resources = true;
            c.prompts = true;
        },
        "2025-06-18",
        json!({}),
        t0,
    );
    send(&mut s, request(json!(2), "tools/list", Value::Null), t0);
    assert_eq!(one_line(&mut s), ok(json!(2), json!({"tools": []})));
    let mut s2 = new_server(Registry::new(), |c| {
        c.tools = true;
        c.resources = true;
        c.prompts = true;
    });
    let result = initialize(&mut s2, "2025-06-18", json!({}), t0);
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true},
        })
    );
}

#[test]
fn server_requests_need_the_client_capability() {
    let t0 = Instant::now();
    let form = json!({"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}});
    let url = json!({"mode": "url", "message": "Log in", "url": "https://example.com/login", "elicitationId": "e1"});
    let sampling = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
    let mut with_tools = sampling.clone();
    with_tools["tools"] = json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    let mut with_choice = sampling.clone();
    with_choice["toolChoice"] = json!({"mode": "auto"});
    let refused = |r: Result<(OutboundId, Value), RpcError>| match r {
        Err(e) => assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{e:?}"),
        Ok(x) => panic!("should be refused, sent {x:?}"),
    };

    // Before initialize nothing may be sent.
    let mut s = new_server(Registry::new(), |_| {});
    let e = s.request("ping", None, &RequestOptions::default(), t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    assert_quiet(&mut s);

    // A client that declared nothing.
    let mut s = ready(Registry::new(), "2025-11-25", json!({}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));
    refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    refused(server_request(&mut s, "sampling/createMessage", sampling.clone(), t0));
    refused(server_request(&mut s, "roots/list", Value::Null, t0));
    let (id, msg) = server_request(&mut s, "ping", Value::Null, t0).unwrap();
    assert_eq!(id, OutboundId(1));
    assert_eq!(msg, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));

    // Form only: URL mode is refused.
    for caps in [json!({"elicitation": {"form": {}}}), json!({"elicitation": {}})] {
        let mut s = ready(Registry::new(), "2025-11-25", caps, t0);
        let (_, msg) = server_request(&mut s, "elicitation/create", form.clone(), t0).unwrap();
        assert_eq!(msg, request(json!(1), "elicitation/create", form.clone()));
        refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    }
    // URL only: form mode is refused.
    let mut s = ready(Registry::new(), "2025-11-25", json!({"elicitation": {"url": {}}}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));
    server_request(&mut s, "elicitation/create", url.clone(), t0).unwrap();
    // Both declared, but 2025-06-18 has no URL mode.
    let both = json!({"elicitation": {"form": {}, "url": {}}});
    let mut s = ready(Registry::new(), "2025-06-18", both.clone(), t0);
    refused(server_request(&mut s, "elicitation/create", url.clone(), t0));
    server_request(&mut s, "elicitation/create", form.clone(), t0).unwrap();
    let mut s = ready(Registry::new(), "2025-11-25", both, t0);
    let (_, msg) = server_request(&mut s, "elicitation/create", url.clone(), t0).unwrap();
    assert_eq!(msg["params"], url);
    // 2025-03-26 has no elicitation at all.
    let mut s = ready(Registry::new(), "2025-03-26", json!({"elicitation": {}}), t0);
    refused(server_request(&mut s, "elicitation/create", form.clone(), t0));

    // Sampling without `sampling.tools`: plain requests only.
    let mut s = ready(Registry::new(), "2025-11-25", json!({"sampling": {}}), t0);
    refused(server_request(&mut s, "sampling/createMessage", with_tools.clone(), t0));
    refused(server_request(&mut s, "sampling/createMessage", with_choice.clone(), t0));
    let (_, msg) = server_request(&mut s, "sampling/createMessage", sampling.clone(), t0).unwrap();
    assert_eq!(msg, request(json!(1), "sampling/createMessage", sampling.clone()));
    let mut s = ready(Registry::new(), "2025-11-25", json!({"sampling": {"tools": {}}}), t0);
    server_request(&mut s, "sampling/createMessage", with_tools.clone(), t0).unwrap();
    server_request(&mut s, "sampling/createMessage", with_choice, t0).unwrap();
    // ... and sampling with tools needs 2025-11-25.
    let mut s = ready(Registry::new(), "2025-06-18", json!({"sampling": {"tools": {}}}), t0);
    refused(server_request(&mut s, "sampling/createMessage", with_tools, t0));

    // Roots.
    let mut s = ready(Registry::new(), "2024-11-05", json!({"roots": {}}), t0);
    let (_, msg) = server_request(&mut s, "roots/list", Value::Null, t0).unwrap();
    assert_eq!(msg, json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
}

#[test]
fn client_requests_need_the_server_capability() {
    let t0 = Instant::now();
    let opts = RequestOptions::default();
    let server_result = |caps: Value, v: &str| json!({"protocolVersion": v, "capabilities": caps, "serverInfo": {"name": "s", "version": "1"}});

    // Before the handshake only ping may be sent.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let e = c.request("tools/list", None, &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    c.initialize(t0);
    one_line(&mut c);
    let e = c.request("tools/list", None, &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::INVALID_REQUEST);
    let id = c.request("ping", None, &opts, t0).unwrap();
    assert_eq!(one_line(&mut c), json!({"jsonrpc": "2.0", "id": id.0, "method": "ping"}));

    // A server with logging only.
    let mut c =
        client_after_handshake(client_config(json!({})), server_result(json!({"logging": {}}), "2025-11-25"), t0);
    for (method, params) in [
        ("tools/call", json!({"name": "echo", "arguments": {}})),
        ("tools/list", Value::Null),
        ("resources/read", json!({"uri": "file:///a"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
        ("prompts/get", json!({"name": "p"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
        ),
    ] {
        let e = c.request(method, Some(params), &opts, t0).unwrap_err();
        assert_eq!(e.code, codes::METHOD_NOT_FOUND, "{method}");
        assert!(e.message.contains(&format!("needed by {method}")), "{e:?}");
        assert_quiet(&mut c);
    }
    let id = c.request("logging/setLevel", Some(json!({"level": "info"})), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c), request(json!(id.0), "logging/setLevel", json!({"level": "info"})));
    assert_eq!(c.pending_requests(), 1);

    // Resources without `subscribe`.
    let caps = json!({"resources": {"listChanged": true}});
    let mut c = client_after_handshake(client_config(json!({})), server_result(caps, "2025-11-25"), t0);
    let e = c.request("resources/subscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    let e = c.request("resources/unsubscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap_err();
    assert_eq!(e.code, codes::METHOD_NOT_FOUND);
    assert_quiet(&mut c);
    c.request("resources/read", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c)["method"], "resources/read");
    let caps = json!({"resources": {"subscribe": true}, "tools": {}});
    let mut c = client_after_handshake(client_config(json!({})), server_result(caps, "2025-11-25"), t0);
    c.request("resources/subscribe", Some(json!({"uri": "file:///a"})), &opts, t0).unwrap();
    c.request("tools/call", Some(json!({"name": "echo"})), &opts, t0).unwrap();
    assert_eq!(lines(&mut c).len(), 2);

    // Completion had no capability before 2025-03-26.
    let mut c = client_after_handshake(client_config(json!({})), server_result(json!({}), "2024-11-05"), t0);
    let p = json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}});
    c.request("completion/complete", Some(p), &opts, t0).unwrap();
    assert_eq!(one_line(&mut c)["method"], "completion/complete");
}
