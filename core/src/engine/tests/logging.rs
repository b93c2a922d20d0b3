//! Logging: `logging/setLevel` filtering log messages.

use super::*;

#[test]
fn set_level_filters_log_messages() {
    let t0 = Instant::now();
    let mut s = new_server(Registry::new(), |_| {});
    assert!(!s.log(LoggingLevel::Emergency, None, json!("early"), None), "nothing before initialize");
    assert_quiet(&mut s);
    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);

    assert_eq!(s.log_level(), None);
    assert!(s.log(LoggingLevel::Debug, None, json!("d"), None));
    assert_eq!(one_line(&mut s), notification("notifications/message", json!({"level": "debug", "data": "d"})));

    send(&mut s, request(json!(1), "logging/setLevel", json!({"level": "warning"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({})));
    assert_eq!(s.log_level(), Some(LoggingLevel::Warning));
    assert!(!s.log(LoggingLevel::Debug, None, json!("d"), None));
    assert!(!s.log(LoggingLevel::Notice, None, json!("n"), None));
    assert_quiet(&mut s);
    assert!(s.log(LoggingLevel::Warning, None, json!("w"), None));
    assert!(s.log(LoggingLevel::Error, Some("db"), json!({"x": 1}), None));
    assert_eq!(
        lines(&mut s),
        vec![
            notification("notifications/message", json!({"level": "warning", "data": "w"})),
            notification("notifications/message", json!({"level": "error", "logger": "db", "data": {"x": 1}})),
        ]
    );

    for (id, params) in [(2, json!({"level": "loud"})), (3, json!({})), (4, json!({"level": 3}))] {
        send(&mut s, request(json!(id), "logging/setLevel", params), t0);
        assert_error(&one_line(&mut s), json!(id), codes::INVALID_PARAMS);
    }
    assert_eq!(s.log_level(), Some(LoggingLevel::Warning));
    send(&mut s, request(json!(5), "logging/setLevel", json!({"level": "emergency"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(5), json!({})));
    assert!(!s.log(LoggingLevel::Alert, None, json!("a"), None));
    assert_quiet(&mut s);
}
