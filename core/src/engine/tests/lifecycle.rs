//! Lifecycle: requests before `initialize`, a second `initialize`, the `initialized`
//! notification, and revision negotiation.

use super::*;

#[test]
fn requests_before_initialize_are_refused_but_ping_is_answered() {
    let t0 = Instant::now();
    let mut s = new_server(echo_registry(), |_| {});
    send(&mut s, request(json!(1), "tools/list", Value::Null), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: received tools/list before initialize: send initialize first");
    send(&mut s, call_echo(json!("c"), "x"), t0);
    assert_error(&one_line(&mut s), json!("c"), codes::INVALID_REQUEST);

    send(&mut s, request(json!("p"), "ping", Value::Null), t0);
    assert_eq!(lines(&mut s), vec![ok(json!("p"), json!({}))]);

    // Notifications before initialize are dropped, `initialized` included.
    send(&mut s, notification("notifications/roots/list_changed", Value::Null), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert_quiet(&mut s);
    assert_eq!(s.state(), State::Uninitialized);
    assert_eq!(s.protocol_version(), None);
}

#[test]
fn second_initialize_is_refused() {
    let t0 = Instant::now();
    let mut s = ready(Registry::new(), "2025-06-18", json!({}), t0);
    let params =
        json!({"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}});
    send(&mut s, request(json!(9), "initialize", params.clone()), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(9), codes::INVALID_REQUEST);
    assert_eq!(err["message"], "Invalid Request: the session is already initialized");
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_06_18));
    assert_eq!(s.client_info().map(|i| i.name.as_str()), Some("test-client"));

    // Also refused between the answer and `notifications/initialized`.
    let mut s = new_server(Registry::new(), |_| {});
    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(10), "initialize", params), t0);
    assert_error(&one_line(&mut s), json!(10), codes::INVALID_REQUEST);
    assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_11_25));
}

#[test]
fn initialized_notification_finishes_the_handshake() {
    let t0 = Instant::now();
    let mut s = new_server(Registry::new(), |_| {});
    assert_eq!(s.state(), State::Uninitialized);
    initialize(&mut s, "2025-11-25", json!({"roots": {"listChanged": true}}), t0);
    assert_eq!(s.state(), State::Initializing);
    assert!(events(&mut s).is_empty());
    assert_eq!(s.client_info(), Some(&Implementation::new("test-client", "0.1.0")));
    assert_eq!(
        s.client_capabilities(),
        &ClientCapabilities { roots: Some(ListChangedCapability { list_changed: Some(true) }), ..Default::default() }
    );

    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert!(raw_lines(&mut s).is_empty(), "a notification is never answered");
    let ev = events(&mut s);
    assert!(matches!(ev.as_slice(), [Event::Initialized]), "{ev:?}");
    assert_eq!(s.state(), State::Operating);

    // A repeated `initialized` changes nothing.
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    assert_quiet(&mut s);
    assert_eq!(s.state(), State::Operating);
}

#[test]
fn each_legacy_revision_is_echoed() {
    let t0 = Instant::now();
    for v in ProtocolVersion::LEGACY {
        let mut s = new_server(Registry::new(), |_| {});
        let result = initialize(&mut s, v.as_str(), json!({}), t0);
        assert_eq!(
            result,
            json!({
                "protocolVersion": v.as_str(),
                "capabilities": {"logging": {}},
                "serverInfo": {"name": "test-server", "version": "1.0.0"},
            })
        );
        assert_eq!(s.protocol_version(), Some(v));
    }
}

#[test]
fn unknown_revision_is_answered_with_the_latest() {
    let t0 = Instant::now();
    for asked in ["1999-01-01", "2026-07-28", "", "2025-11-25-draft"] {
        let mut s = new_server(Registry::new(), |_| {});
        let result = initialize(&mut s, asked, json!({}), t0);
        assert_eq!(result["protocolVersion"], "2025-11-25", "asked {asked:?}");
        assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_11_25));
    }
}

#[test]
fn server_with_fewer_versions_answers_its_latest() {
    let t0 = Instant::now();
    let old = vec![ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26];
    for (asked, answered) in [
        ("2025-11-25", "2025-03-26"),
        ("2025-06-18", "2025-03-26"),
        ("1999-01-01", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
    ] {
        let mut s = new_server(Registry::new(), |c| c.versions = old.clone());
        let result = initialize(&mut s, asked, json!({}), t0);
        assert_eq!(result["protocolVersion"], answered, "asked {asked}");
    }
}
