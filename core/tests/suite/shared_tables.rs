//! The tables the three languages share live once, as fixtures (tests/fixtures/): the
//! engine's side of each must match.

use hypermcp::jsonrpc::codes;
use hypermcp::transport::host::events::LAYOUTS;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn error_codes_match_the_fixture() {
    let ours = [
        ("PARSE_ERROR", codes::PARSE_ERROR),
        ("INVALID_REQUEST", codes::INVALID_REQUEST),
        ("METHOD_NOT_FOUND", codes::METHOD_NOT_FOUND),
        ("INVALID_PARAMS", codes::INVALID_PARAMS),
        ("INTERNAL_ERROR", codes::INTERNAL_ERROR),
        ("RESOURCE_NOT_FOUND", codes::RESOURCE_NOT_FOUND),
        ("URL_ELICITATION_REQUIRED", codes::URL_ELICITATION_REQUIRED),
        ("REQUEST_TIMEOUT", codes::REQUEST_TIMEOUT),
        ("CONNECTION_CLOSED", codes::CONNECTION_CLOSED),
        ("REQUEST_CANCELLED", codes::REQUEST_CANCELLED),
        ("HEADER_MISMATCH", codes::HEADER_MISMATCH),
        ("MISSING_REQUIRED_CLIENT_CAPABILITY", codes::MISSING_REQUIRED_CLIENT_CAPABILITY),
        ("UNSUPPORTED_PROTOCOL_VERSION", codes::UNSUPPORTED_PROTOCOL_VERSION),
        ("RATE_LIMITED", codes::RATE_LIMITED),
    ];
    let table = fixture("errors.json");
    let expected = table["codes"].as_object().expect("codes");
    assert_eq!(expected.len(), ours.len(), "the fixture and the engine name the same codes");
    for (name, code) in ours {
        assert_eq!(expected.get(name).and_then(Value::as_i64), Some(i64::from(code)), "{name}");
    }
    for class in table["classes"].as_array().expect("classes") {
        let code = class["code"].as_str().expect("a code name");
        assert!(expected.contains_key(code), "class {class} names a known code");
    }
}

#[test]
fn event_layouts_match_the_fixture() {
    let table = fixture("events.json");
    let expected = table["layouts"].as_object().expect("layouts");
    assert_eq!(expected.len(), LAYOUTS.len(), "the fixture and the engine name the same kinds");
    for (kind, fields) in LAYOUTS {
        let want: Vec<&str> = expected[*kind].as_array().expect(kind).iter().filter_map(Value::as_str).collect();
        assert_eq!(&want, fields, "{kind}");
    }
}
