//! The schema checker the other tests rely on: it accepts valid messages of each revision,
//! accepts `id: null` errors, and rejects messages that break a revision's schema.

use crate::common;

use common::*;
use serde_json::json;

const REVS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn rejects(f: impl FnOnce() + std::panic::UnwindSafe) -> bool {
    std::panic::catch_unwind(f).is_err()
}

#[test]
fn accepts_valid_messages_of_every_revision() {
    for rev in REVS {
        assert_valid(rev, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        assert_valid(rev, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_valid_result(
            rev,
            "tools/call",
            &json!({"jsonrpc": "2.0", "id": "a", "result": {"content": [{"type": "text", "text": "x"}]}}),
        );
        assert_valid(rev, &json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "nope"}}));
        assert_valid(rev, &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}));
        assert_valid(
            rev,
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 2}}),
        );
    }
}

#[test]
fn rejects_invalid_messages() {
    for rev in REVS {
        // A content block without its type.
        assert!(rejects(|| assert_valid_result(
            rev,
            "tools/call",
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"text": "x"}]}})
        )));
        // A log notification with an unknown level.
        assert!(rejects(|| assert_valid(
            rev,
            &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}})
        )));
        // A progress notification without a token.
        assert!(rejects(|| assert_valid(
            rev,
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}})
        )));
        // Wrong JSON-RPC version; a float id; a null-id error without a code.
        assert!(rejects(|| assert_valid(rev, &json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}))));
        assert!(rejects(|| assert_valid(rev, &json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}))));
        assert!(rejects(|| assert_valid(rev, &json!({"jsonrpc": "2.0", "id": null, "error": {"message": "x"}}))));
        // An initialize result without serverInfo.
        assert!(rejects(|| assert_valid_result(
            rev,
            "initialize",
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": rev, "capabilities": {}}})
        )));
    }
    // Methods a revision does not have.
    let elicit = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
        "params": {"message": "?", "requestedSchema": {"type": "object", "properties": {}}}});
    assert!(rejects(|| assert_valid("2025-03-26", &elicit)));
    assert_valid("2025-06-18", &elicit);
    // Batches exist only in 2025-03-26.
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]);
    assert_valid("2025-03-26", &batch);
    assert!(rejects(|| assert_valid("2025-06-18", &batch)));
}

/// Every method a revision's schema names is one a server's own methods may not take.
#[test]
fn every_schema_method_is_reserved() {
    for rev in REVS.into_iter().chain(["2026-07-28"]) {
        let path = workspace_dir().join("tests/fixtures/schema").join(format!("{rev}.json"));
        let schema: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let defs = schema.get("definitions").or_else(|| schema.get("$defs")).and_then(|d| d.as_object()).unwrap();
        let methods: Vec<&str> = defs.values().filter_map(|d| d["properties"]["method"]["const"].as_str()).collect();
        assert!(methods.len() > 15, "{rev}: {methods:?}");
        for m in methods {
            assert!(hypermcp::protocol::methods::SPEC_METHODS.contains(&m), "{rev}: {m} is missing from SPEC_METHODS");
        }
    }
}
