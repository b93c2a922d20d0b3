//! A handler that panics answers -32603 and the session goes on serving.

use crate::common;

use common::*;
use hypermcp::{CallToolResult, ProtocolVersion, ReadResourceResult, Resource, Server, Tool};
use serde_json::json;

fn server() -> Server {
    Server::new("panicky", "1.0.0")
        .tool(Tool::new("panic_in_future"), |_args, _ctx| async move {
            tokio::task::yield_now().await;
            if true {
                panic!("boom inside the future");
            }
            CallToolResult::text("unreachable")
        })
        // The closure itself panics before it returns a future.
        .tool(Tool::new("panic_in_closure"), |args, _ctx| {
            let missing = args.get("required").and_then(|v| v.as_str()).expect("boom in the closure").to_string();
            async move { CallToolResult::text(missing) }
        })
        .tool(Tool::new("ok"), |_args, _ctx| async move { CallToolResult::text("fine") })
        .resource(Resource::new("mem://panic", "panic"), |_req, _ctx| async move {
            if true {
                panic!("boom in a resource");
            }
            Ok(ReadResourceResult::default())
        })
}

#[tokio::test]
async fn panicking_handlers_answer_internal_error() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        for (tool, message) in
            [("panic_in_future", "boom inside the future"), ("panic_in_closure", "boom in the closure")]
        {
            let e = t.client.call_tool(tool, json!({})).await.expect_err("a JSON-RPC error");
            let rpc = e.rpc().unwrap_or_else(|| panic!("{tool}: not an RPC error: {e:?}"));
            assert_eq!(rpc.code, -32603, "{tool}: {e}");
            assert!(rpc.message.contains("panicked") && rpc.message.contains(message), "{tool}: {e}");
            // The next call succeeds.
            let r = t.client.call_tool("ok", json!({})).await.expect("the session survives");
            assert_eq!(r.content[0].as_text(), Some("fine"));
        }
        let e = t.client.read_resource("mem://panic").await.expect_err("a JSON-RPC error");
        assert_eq!(e.code(), -32603, "{e}");
        assert!(e.to_string().contains("boom in a resource"), "{e}");
        t.client.ping().await.expect("still serving");
        t.assert_all_valid();
    })
    .await;
}

/// The same on the client side: a sampling handler that panics answers -32603 to the server,
/// and the client goes on working.
#[tokio::test]
async fn panicking_client_handlers_answer_internal_error() {
    bounded(async {
        let server = server().tool(Tool::new("sample"), |_args, ctx| async move {
            let params = hypermcp::CreateMessageParams { max_tokens: 5, ..Default::default() };
            match ctx.sample(params).await {
                Ok(r) => CallToolResult::text(format!("sampled {}", r.model)),
                Err(e) => CallToolResult::error(format!("code {}: {e}", e.code())),
            }
        });
        let options = options_for(ProtocolVersion::V2025_11_25).on_sampling(|_p| async move {
            tokio::task::yield_now().await;
            if true {
                panic!("client boom");
            }
            Err(hypermcp::Error::msg("unreachable"))
        });
        let t = connect_tapped(&server, options).await;
        for _ in 0..2 {
            let r = t.client.call_tool("sample", json!({})).await.expect("a tool result");
            assert!(r.failed(), "{r:?}");
            let text = r.content[0].as_text().unwrap();
            assert!(text.starts_with("code -32603: ") && text.contains("client boom"), "{text}");
        }
        assert_eq!(
            t.client.call_tool("ok", json!({})).await.expect("still working").content[0].as_text(),
            Some("fine")
        );
        t.assert_all_valid();
    })
    .await;
}
