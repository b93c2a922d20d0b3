//! Extension negotiation (2026-07-28 `basic/versioning.mdx`): the server's extensions in
//! `capabilities.extensions` of `server/discover` and `initialize`, the client's with each
//! modern request and at `initialize`, what a handler sees of them, and -32021 naming the
//! extension a request needs.

use crate::common;

use common::*;
use hypermcp::engine::missing_extension;
use hypermcp::{CallToolResult, ClientMode, ClientOptions, Error, Server, Tool};
use serde_json::json;

fn server() -> Server {
    Server::new("ext", "1.0.0")
        .extension("com.example/widgets", json!({"maxWidgets": 3}))
        .extension("io.modelcontextprotocol/ui", json!({}))
        .tool(Tool::new("widget"), |_args, ctx| async move {
            let settings = ctx.require_extension("com.example/widgets")?;
            Ok::<_, Error>(CallToolResult::text(format!("widgets: {settings}")))
        })
        .tool(Tool::new("optional"), |_args, ctx| async move {
            // Falls back to core behaviour without the extension.
            match ctx.client_extension("com.example/widgets") {
                Some(_) => CallToolResult::text("with widgets"),
                None => CallToolResult::text("plain"),
            }
        })
}

#[tokio::test]
async fn extensions_are_negotiated_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let s = server();
            // The server declares its extensions; the client sees them.
            let plain = connect_tapped(&s, ClientOptions::default().mode(mode)).await;
            let ext = plain.client.server().capabilities.extensions.clone().expect("extensions declared");
            assert_eq!(ext["com.example/widgets"], json!({"maxWidgets": 3}), "{mode:?}");
            assert_eq!(ext["io.modelcontextprotocol/ui"], json!({}));
            // A client that did not declare the extension: -32021 naming it.
            let e = plain.client.call_tool("widget", json!({})).await.unwrap_err();
            let Error::Rpc(e) = e else { panic!("{mode:?}: {e}") };
            assert_eq!(e.code, -32021, "{mode:?}");
            assert!(e.message.contains("extension com.example/widgets"), "{}", e.message);
            assert_eq!(
                e.data.clone().unwrap(),
                json!({"requiredCapabilities": {"extensions": {"com.example/widgets": {}}}})
            );
            assert_eq!(e, missing_extension("com.example/widgets"));
            let r = plain.client.call_tool("optional", json!({})).await.unwrap();
            assert_eq!(r.content[0].as_text(), Some("plain"));
            // One that did: the handler sees its settings (with each request at 2026-07-28).
            let options =
                ClientOptions::default().mode(mode).extension("com.example/widgets", json!({"theme": "dark"}));
            let declared = connect_tapped(&s, options).await;
            let r = declared.client.call_tool("widget", json!({})).await.unwrap();
            assert_eq!(r.content[0].as_text(), Some(r#"widgets: {"theme":"dark"}"#), "{mode:?}");
            assert!(declared.assert_all_valid() > 0, "{mode:?}: the wire matches the schema");
            let _ = declared.client.close().await;
            let _ = plain.client.close().await;
        }
    })
    .await;
}

#[test]
fn extension_ids_need_a_prefix_and_a_name() {
    let s = Server::new("ext", "1.0.0");
    for good in ["io.modelcontextprotocol/tasks", "com.example/my-ext_2.x", "a/b"] {
        s.add_extension(good, json!({})).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    for bad in ["tasks", "/tasks", "com.example/", "1com/x", "com-/x", "com.example/-x", "com example/x"] {
        let e = s.add_extension(bad, json!({})).unwrap_err().to_string();
        assert!(e.contains("extension id"), "{bad}: {e}");
    }
    assert!(s.add_extension("com.example/x", json!([])).unwrap_err().to_string().contains("object"));
}
