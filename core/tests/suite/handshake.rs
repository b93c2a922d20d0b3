//! The `initialize` handshake: each legacy revision is negotiated as asked, the server
//! presents itself, and every wire message is valid for the negotiated revision.

use crate::common;

use common::*;
use hypermcp::{CallToolResult, CompleteResult, ProtocolVersion, Server, Tool};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn server() -> Server {
    Server::new("handshake-server", "1.2.3")
        .instructions("Say hello.")
        .tool(Tool::new("hello").description("Says hello"), |_args, _ctx| async move { CallToolResult::text("hello") })
        .completion(|_params, _ctx| async move { Ok(CompleteResult::values(vec![])) })
}

#[tokio::test]
async fn each_legacy_revision_is_negotiated() {
    bounded(async {
        for rev in ProtocolVersion::LEGACY {
            let t = connect_tapped(&server(), options_for(rev)).await;
            assert_eq!(t.client.protocol_version(), rev, "negotiated revision");
            let init = t.client.server();
            assert_eq!(init.protocol_version, rev.as_str());
            assert_eq!(init.server_info.name, "handshake-server");
            assert_eq!(init.server_info.version, "1.2.3");
            assert_eq!(init.instructions.as_deref(), Some("Say hello."));
            assert!(init.capabilities.tools.is_some(), "tools capability declared");
            assert!(init.capabilities.logging.is_some(), "logging capability declared");

            // Some traffic after the handshake.
            t.client.ping().await.expect("ping");
            let tools = t.client.list_tools().await.expect("tools/list");
            assert_eq!(tools.len(), 1);
            assert_eq!(t.client.call_tool("hello", json!({})).await.expect("call").content[0].as_text(), Some("hello"));

            // The wire: initialize asked for `rev`, the answer chose it, then `initialized`.
            let msgs = t.tap.messages();
            assert_eq!(msgs[0].dir, Dir::ToServer);
            assert_eq!(msgs[0].method(), Some("initialize"));
            assert_eq!(msgs[0].json["params"]["protocolVersion"], rev.as_str());
            assert_eq!(msgs[0].json["params"]["clientInfo"]["name"], "hypermcp-tests");
            let answer = t.tap.response_to(Dir::ToServer, &msgs[0].json["id"]).expect("initialize answered");
            assert_eq!(answer.json["result"]["protocolVersion"], rev.as_str());
            let initialized = t.tap.with_method("notifications/initialized");
            assert_eq!(initialized.len(), 1, "exactly one initialized notification");
            assert_eq!(initialized[0].dir, Dir::ToServer);
            // `completions` exists from 2025-03-26 on; an older client must not see it.
            let caps = &answer.json["result"]["capabilities"];
            assert_eq!(caps.get("completions").is_some(), rev >= ProtocolVersion::V2025_03_26, "{rev}: {caps}");

            t.client.close().await.expect("close");
            let served = bounded(t.server).await.expect("server task");
            assert!(served.is_ok(), "the server ends cleanly when the client closes: {served:?}");
            let n = t.tap.assert_all_valid(rev);
            assert!(n >= 9, "{rev}: only {n} messages recorded");
        }
    })
    .await;
}

/// Raw lines over a duplex, without the Rust client: an unknown revision falls back to the
/// server's latest, and a request before `initialize` is refused.
#[tokio::test]
async fn unknown_revision_falls_back_to_latest() {
    bounded(async {
        let (client_end, server_end) = hypermcp::transport::duplex::pair();
        let (sr, sw) = tokio::io::split(server_end);
        let srv = server();
        let task = tokio::spawn(async move { srv.serve(sr, sw).await });
        let (cr, mut cw) = tokio::io::split(client_end);
        let mut lines = BufReader::new(cr).lines();
        let mut roundtrip = async |line: Value| -> Value {
            cw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            let answer = lines.next_line().await.unwrap().expect("an answer");
            serde_json::from_str(&answer).unwrap()
        };

        let early = roundtrip(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
        assert_eq!(early["id"], 1);
        assert_eq!(early["error"]["code"], -32600, "request before initialize: {early}");
        assert_valid("2025-11-25", &early);

        let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}
        }});
        let answer = roundtrip(init).await;
        let latest = ProtocolVersion::LATEST_LEGACY.as_str();
        assert_eq!(answer["result"]["protocolVersion"], latest, "{answer}");
        assert_valid_result(latest, "initialize", &answer);
        cw.shutdown().await.unwrap();
        assert!(bounded(task).await.unwrap().is_ok());
    })
    .await;
}
