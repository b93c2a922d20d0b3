//! Changing what a server offers while a client is connected: the client gets the matching
//! `list_changed` notification and the new list.

use crate::common;

use common::*;
use hypermcp::{CallToolResult, GetPromptResult, Prompt, ProtocolVersion, ReadResourceResult, Resource, Server, Tool};
use serde_json::json;

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn adding_and_removing_tools_notifies_the_client() {
    bounded(async {
        let server = Server::new("dynamic", "1.0.0")
            .tool(Tool::new("first"), |_args, _ctx| async move { CallToolResult::text("1") });
        let (options, mut notes) = notification_channel(options_for(ProtocolVersion::V2025_11_25));
        let t = connect_tapped(&server, options).await;
        assert_eq!(t.client.server().capabilities.tools.as_ref().and_then(|c| c.list_changed), Some(true));
        assert_eq!(names(&t.client.list_tools().await.unwrap()), ["first"]);

        server
            .add_tool(
                Tool::new("second").description("added later"),
                |_args, _ctx| async move { CallToolResult::text("2") },
            )
            .expect("add_tool");
        assert_eq!(next_notification(&mut notes, "notifications/tools/list_changed").await, serde_json::Value::Null);
        let tools = t.client.list_tools().await.unwrap();
        assert_eq!(names(&tools), ["first", "second"]);
        assert_eq!(tools[1].description.as_deref(), Some("added later"));
        assert_eq!(t.client.call_tool("second", json!({})).await.unwrap().content[0].as_text(), Some("2"));

        assert!(server.remove_tool("first"));
        next_notification(&mut notes, "notifications/tools/list_changed").await;
        assert_eq!(names(&t.client.list_tools().await.unwrap()), ["second"]);
        let e = t.client.call_tool("first", json!({})).await.expect_err("removed");
        assert!(e.to_string().contains("Unknown tool: first"), "{e}");

        // Removing what does not exist changes nothing and notifies no one.
        assert!(!server.remove_tool("first"));
        let changes = t.tap.with_method("notifications/tools/list_changed");
        assert_eq!(changes.len(), 2, "{}", t.tap.dump());
        assert!(changes.iter().all(|m| m.dir == Dir::ToClient));
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn every_connected_client_is_notified() {
    bounded(async {
        let server = Server::new("dynamic", "1.0.0")
            .tool(Tool::new("first"), |_args, _ctx| async move { CallToolResult::text("1") });
        let (a_opts, mut a_notes) = notification_channel(options_for(ProtocolVersion::V2025_03_26));
        let (b_opts, mut b_notes) = notification_channel(options_for(ProtocolVersion::V2024_11_05));
        let a = connect_tapped(&server, a_opts).await;
        let b = connect_tapped(&server, b_opts).await;
        server.add_tool(Tool::new("second"), |_args, _ctx| async move { CallToolResult::text("2") }).unwrap();
        next_notification(&mut a_notes, "notifications/tools/list_changed").await;
        next_notification(&mut b_notes, "notifications/tools/list_changed").await;
        assert_eq!(names(&a.client.list_tools().await.unwrap()), ["first", "second"]);
        assert_eq!(names(&b.client.list_tools().await.unwrap()), ["first", "second"]);
        a.assert_all_valid();
        b.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn prompts_and_resources_notify_too() {
    bounded(async {
        let server = Server::new("dynamic", "1.0.0")
            .prompt(Prompt::new("p1"), |_a, _c| async move { Ok(GetPromptResult::default()) })
            .resource(Resource::new("mem://one", "one"), |r, _c| async move {
                Ok(ReadResourceResult::text(r.uri, "1", None))
            });
        let (options, mut notes) = notification_channel(options_for(ProtocolVersion::V2025_06_18));
        let t = connect_tapped(&server, options).await;

        server.add_prompt(Prompt::new("p2"), |_a, _c| async move { Ok(GetPromptResult::default()) }).unwrap();
        next_notification(&mut notes, "notifications/prompts/list_changed").await;
        let prompts = t.client.list_prompts().await.unwrap();
        assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["p1", "p2"]);

        assert!(server.remove_resource("mem://one"));
        next_notification(&mut notes, "notifications/resources/list_changed").await;
        assert!(t.client.list_resources().await.unwrap().is_empty());
        assert_eq!(t.client.read_resource("mem://one").await.expect_err("removed").code(), -32002);
        t.assert_all_valid();
    })
    .await;
}
