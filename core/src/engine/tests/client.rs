//! The client session: the handshake, unsupported versions, `initialize` never cancelled,
//! only declared capabilities served, and log messages delivered as notifications.

use super::*;

#[test]
fn client_handshake_through_a_wired_pair() {
    let t0 = Instant::now();
    let mut c = ClientSession::new(Arc::new(client_config(json!({"roots": {"listChanged": true}}))));
    let mut s = new_server(echo_registry(), |_| {});
    assert_eq!(c.state(), State::Uninitialized);
    let init = c.initialize(t0);
    assert_eq!(init, OutboundId(1));
    assert_eq!(c.state(), State::Initializing);
    let transcript = pump(&mut c, &mut s, t0);
    assert_eq!(
        transcript,
        vec![
            (
                Dir::ToServer,
                request(
                    json!(1),
                    "initialize",
                    json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"roots": {"listChanged": true}},
                        "clientInfo": {"name": "test-client", "version": "0.1.0"},
                    })
                )
            ),
            (
                Dir::ToClient,
                ok(
                    json!(1),
                    json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": {"logging": {}, "tools": {"listChanged": true}},
                        "serverInfo": {"name": "test-server", "version": "1.0.0"},
                    })
                )
            ),
            (Dir::ToServer, notification("notifications/initialized", Value::Null)),
        ]
    );
    let ev = events(&mut c);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(c.state(), State::Operating);
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::V2025_11_25));
    let server = c.server().expect("server's answer kept");
    assert_eq!(server.server_info, server_info());
    assert!(server.capabilities.tools.is_some());
    assert_eq!(c.pending_requests(), 0);
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(s.state(), State::Operating);
    assert_eq!(s.client_info().map(|i| i.name.as_str()), Some("test-client"));
    assert!(s.client_capabilities().roots.is_some());

    // A client asking for an older revision gets it, and a full call works.
    let mut config = client_config(json!({}));
    config.protocol_version = ProtocolVersion::V2025_03_26;
    let (mut c, mut s) = connect(config, new_server(echo_registry(), |_| {}), t0);
    assert_eq!(c.protocol_version(), Some(ProtocolVersion::V2025_03_26));
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_03_26));
    let id = c
        .request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"text": "yo"}})),
            &RequestOptions::default(),
            t0,
        )
        .unwrap();
    pump(&mut c, &mut s, t0);
    let inv = invocation(&mut s);
    s.complete(inv.key, Outcome::Tool(CallToolResult::text("yo")));
    pump(&mut c, &mut s, t0);
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id: i, result: Ok(v) }] if *i == id && *v == json!({"content": [{"type": "text", "text": "yo"}]})),
        "{ev:?}"
    );
}

#[test]
fn client_fails_the_handshake_on_an_unsupported_version() {
    let t0 = Instant::now();
    let answer = |v: &str| {
        ok(json!(1), json!({"protocolVersion": v, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}))
    };
    // Unknown to the engine, known but not accepted by this client, and the modern revision.
    for (v, accepted) in [
        ("1999-01-01", ProtocolVersion::LEGACY.to_vec()),
        ("2025-03-26", vec![ProtocolVersion::V2025_11_25]),
        ("2026-07-28", ProtocolVersion::LEGACY.to_vec()),
    ] {
        let mut config = client_config(json!({}));
        config.versions = accepted;
        let mut c = ClientSession::new(Arc::new(config));
        let init = c.initialize(t0);
        one_line(&mut c);
        send(&mut c, answer(v), t0);
        let ev = events(&mut c);
        assert!(
            matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == codes::INVALID_REQUEST && e.message.contains(v)),
            "{v}: {ev:?}"
        );
        assert!(raw_lines(&mut c).is_empty(), "no notifications/initialized after a failed handshake");
        assert_eq!(c.state(), State::Closed);
        assert_eq!(c.protocol_version(), None);
        assert_eq!(c.request("ping", None, &RequestOptions::default(), t0).unwrap_err().code, codes::CONNECTION_CLOSED);
    }

    // An error answer to initialize also fails the handshake.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let init = c.initialize(t0);
    one_line(&mut c);
    send(
        &mut c,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unsupported protocol version"}}),
        t0,
    );
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == -32602),
        "{ev:?}"
    );
    assert_eq!(c.state(), State::Closed);
}

#[test]
fn client_never_cancels_initialize() {
    let t0 = Instant::now();
    let mut config = client_config(json!({}));
    config.request_timeout = Some(Duration::from_secs(5));
    let mut c = ClientSession::new(Arc::new(config));
    let init = c.initialize(t0);
    one_line(&mut c);
    assert_eq!(c.next_deadline(), Some(secs(t0, 5)));
    c.handle_timeout(secs(t0, 4));
    assert_quiet(&mut c);
    c.handle_timeout(secs(t0, 5));
    // The cancellation spec: "The initialize request MUST NOT be cancelled by clients".
    assert!(raw_lines(&mut c).is_empty(), "initialize must not be cancelled");
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Response { id, result: Err(e) }] if *id == init && e.code == codes::REQUEST_TIMEOUT),
        "{ev:?}"
    );
    assert_eq!(c.state(), State::Closed);

    // Neither by an explicit cancel.
    let mut c = ClientSession::new(Arc::new(client_config(json!({}))));
    let init = c.initialize(t0);
    one_line(&mut c);
    assert!(c.cancel_request(init, Some("bored"), std::time::Instant::now()));
    assert!(raw_lines(&mut c).is_empty(), "initialize must not be cancelled");
}

#[test]
fn client_serves_only_declared_capabilities() {
    let t0 = Instant::now();
    let server_result =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
    let sampling = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 10,
        "_meta": {"progressToken": "pt"},
    });
    let form =
        json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}});
    let url = json!({"mode": "url", "message": "Go", "url": "https://example.com", "elicitationId": "e"});

    let caps = json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}});
    let mut c = client_after_handshake(client_config(caps), server_result.clone(), t0);

    send(&mut c, request(json!("r1"), "roots/list", Value::Null), t0);
    let inv = invocation(&mut c);
    assert!(matches!(inv.request, Request::ListRoots));
    assert_eq!(inv.id, RequestId::from("r1"));
    assert!(raw_lines(&mut c).is_empty());
    c.respond(inv.key, Ok(json!({"roots": [{"uri": "file:///w", "name": "w"}]})), std::time::Instant::now());
    assert_eq!(lines(&mut c), vec![ok(json!("r1"), json!({"roots": [{"uri": "file:///w", "name": "w"}]}))]);

    send(&mut c, request(json!(7), "sampling/createMessage", sampling.clone()), t0);
    let inv = invocation(&mut c);
    let Request::CreateMessage(p) = &inv.request else { panic!("{inv:?}") };
    assert_eq!(p.max_tokens, 10);
    assert_eq!(p.messages.len(), 1);
    assert_eq!(inv.progress_token, Some(RequestId::from("pt")));
    assert_eq!(c.progress(inv.key, 1.0, None, None), Ok(true));
    c.respond(inv.key, Err(RpcError::new(-1, "User rejected sampling request")), std::time::Instant::now());
    assert_eq!(
        lines(&mut c),
        vec![
            notification("notifications/progress", json!({"progressToken": "pt", "progress": 1.0})),
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "User rejected sampling request"}}),
        ]
    );
    // A second respond for the same key writes nothing.
    c.respond(inv.key, Ok(json!({})), std::time::Instant::now());
    assert_quiet(&mut c);

    send(&mut c, request(json!(8), "elicitation/create", form.clone()), t0);
    let inv = invocation(&mut c);
    let Request::Elicit(p) = &inv.request else { panic!("{inv:?}") };
    assert!(matches!(&**p, ElicitParams::Form { message, .. } if message == "Name?"));
    c.respond(inv.key, Ok(json!({"action": "accept", "content": {"n": "Ada"}})), std::time::Instant::now());
    assert_eq!(one_line(&mut c), ok(json!(8), json!({"action": "accept", "content": {"n": "Ada"}})));

    // URL mode was not declared.
    send(&mut c, request(json!(9), "elicitation/create", url.clone()), t0);
    assert_error(&one_line(&mut c), json!(9), codes::INVALID_PARAMS);
    // Malformed sampling params.
    send(&mut c, request(json!(10), "sampling/createMessage", json!({"messages": "x"})), t0);
    assert_error(&one_line(&mut c), json!(10), codes::INVALID_PARAMS);
    // Ping needs no capability; server-side methods do not exist here.
    send(&mut c, request(json!(11), "ping", Value::Null), t0);
    assert_eq!(one_line(&mut c), ok(json!(11), json!({})));
    send(&mut c, request(json!(12), "tools/list", Value::Null), t0);
    assert_error(&one_line(&mut c), json!(12), codes::METHOD_NOT_FOUND);
    assert!(events(&mut c).is_empty());

    // A client that declared nothing answers -32601 and runs no user code.
    let mut c = client_after_handshake(client_config(json!({})), server_result, t0);
    for (id, method, params) in [
        (1, "roots/list", Value::Null),
        (2, "sampling/createMessage", sampling),
        (3, "elicitation/create", form),
        (4, "elicitation/create", url),
    ] {
        send(&mut c, request(json!(id), method, params), t0);
        let msg = one_line(&mut c);
        assert_eq!(assert_error(&msg, json!(id), codes::METHOD_NOT_FOUND)["data"], json!({"method": method}));
        assert!(events(&mut c).is_empty());
    }
}

#[test]
fn log_messages_reach_the_client_as_notifications() {
    let t0 = Instant::now();
    let (mut c, mut s) = connect(client_config(json!({})), new_server(Registry::new(), |_| {}), t0);
    assert!(s.log(LoggingLevel::Info, Some("core"), json!({"msg": "hello"}), None));
    let transcript = pump(&mut c, &mut s, t0);
    let expected = json!({"level": "info", "logger": "core", "data": {"msg": "hello"}});
    assert_eq!(transcript, vec![(Dir::ToClient, notification("notifications/message", expected.clone()))]);
    let ev = events(&mut c);
    assert!(
        matches!(ev.as_slice(), [Event::Notification { method, params: Some(p), .. }] if method == "notifications/message" && *p == expected),
        "{ev:?}"
    );

    // The client sets the level through the wire; the server filters.
    let id = c.request("logging/setLevel", Some(json!({"level": "error"})), &RequestOptions::default(), t0).unwrap();
    pump(&mut c, &mut s, t0);
    assert!(matches!(events(&mut c).as_slice(), [Event::Response { id: i, result: Ok(_) }] if *i == id));
    assert!(!s.log(LoggingLevel::Info, None, json!("quiet"), None));
    assert!(pump(&mut c, &mut s, t0).is_empty());
    // Without the tools capability no list_changed goes out.
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Tools));
    assert!(pump(&mut c, &mut s, t0).is_empty());
}
