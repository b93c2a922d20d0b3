//! Visibility in Rust: tags, the server's enable/disable rules (and the allow-list form),
//! a hidden component called by name is "not found" as if it did not exist, and a caller's
//! own rules (`ctx.enable_components`) seen by it alone, with `list_changed` to it alone;
//! in memory, over HTTP sessions, and the clear error of a stateless HTTP request.

use crate::common::*;
use crate::http_util::TestServer;
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::{
    CallToolResult, Client, ClientMode, ClientOptions, Component, Filter, GetPromptResult, Prompt, ProtocolVersion,
    ReadResourceResult, Resource, ResourceTemplate, Server, Tool,
};
use serde_json::json;

fn names(tools: &[Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

fn server() -> Server {
    let ok = |s: &'static str| move |_a, _c| async move { CallToolResult::text(s) };
    Server::new("visible", "1.0.0")
        .tool(Tool::new("status"), ok("ok"))
        .tool(Tool::new("wipe"), ok("wiped"))
        .tool(Tool::new("reset"), ok("reset"))
        .tool(Tool::new("config"), ok("tool config"))
        .tool(Tool::new("report"), ok("premium report"))
        .tool(Tool::new("unlock"), |_a, ctx| async move {
            ctx.enable_components(Filter::tags(["premium"])).await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("unlocked"))
        })
        .tool(Tool::new("relock"), |_a, ctx| async move {
            ctx.reset_visibility().await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("relocked"))
        })
        .prompt(Prompt::new("config"), |_a, _c| async move { Ok(GetPromptResult::default()) })
        .resource(Resource::new("mem://secret", "secret"), |r, _c| async move {
            Ok(ReadResourceResult::text(r.uri, "s3cret", None))
        })
        .resource_template(ResourceTemplate::new("mem://users/{id}", "user"), |r, _c| async move {
            Ok(ReadResourceResult::text(r.uri, "a user", None))
        })
        .tags(Component::Tool, "wipe", ["admin", "dangerous"])
        .tags(Component::Tool, "reset", ["admin"])
        .tags(Component::Tool, "report", ["premium"])
        .tags(Component::Resource, "mem://secret", ["admin"])
        .tags(Component::Template, "mem://users/{id}", ["admin"])
}

#[tokio::test]
async fn the_server_rules_hide_and_show_for_everyone() {
    bounded(async {
        let server = server();
        let (options, mut notes) = notification_channel(options_for(ProtocolVersion::V2025_11_25));
        let t = connect_tapped(&server, options).await;
        let c = &t.client;
        assert_eq!(
            names(&c.list_tools().await.unwrap()),
            ["status", "wipe", "reset", "config", "report", "unlock", "relock"]
        );

        server.disable(Filter::tags(["admin"])).unwrap();
        next_notification(&mut notes, "notifications/tools/list_changed").await;
        next_notification(&mut notes, "notifications/resources/list_changed").await;
        assert_eq!(names(&c.list_tools().await.unwrap()), ["status", "config", "report", "unlock", "relock"]);
        assert!(c.list_resources().await.unwrap().is_empty());
        assert!(c.list_resource_templates().await.unwrap().is_empty());
        // Called by name, a hidden tool is exactly an unknown one; so is a hidden resource.
        let hidden = c.call_tool("wipe", json!({})).await.unwrap_err();
        let unknown = c.call_tool("nothing", json!({})).await.unwrap_err();
        assert_eq!(hidden.code(), unknown.code());
        assert!(hidden.to_string().contains("Unknown tool: wipe"), "{hidden}");
        assert_eq!(c.read_resource("mem://secret").await.unwrap_err().code(), -32002);
        assert_eq!(c.read_resource("mem://users/7").await.unwrap_err().code(), -32002);

        // A later rule overrides an earlier one where they overlap.
        server.enable(Filter::names(["reset"])).unwrap();
        assert_eq!(names(&c.list_tools().await.unwrap()), ["status", "reset", "config", "report", "unlock", "relock"]);
        assert_eq!(c.call_tool("reset", json!({})).await.unwrap().content[0].as_text(), Some("reset"));

        // A name matches across kinds unless the rule names the kind.
        server.disable(Filter::names(["config"]).of([Component::Tool])).unwrap();
        assert!(!names(&c.list_tools().await.unwrap()).contains(&"config"));
        assert_eq!(c.list_prompts().await.unwrap()[0].name, "config");
        c.get_prompt("config", Default::default()).await.unwrap();

        // The allow-list form: only what it names.
        server.enable_only(Filter::tags(["dangerous"])).unwrap();
        assert_eq!(names(&c.list_tools().await.unwrap()), ["wipe"]);
        assert!(c.list_prompts().await.unwrap().is_empty());
        assert_eq!(c.get_prompt("config", Default::default()).await.unwrap_err().code(), -32602);

        server.reset_visibility();
        assert_eq!(c.list_tools().await.unwrap().len(), 7);
        assert_eq!(c.read_resource("mem://users/7").await.unwrap().contents.len(), 1);

        // A rule without criteria is refused; one that changes nothing tells no one.
        assert!(server.disable(Filter::default()).unwrap_err().to_string().contains("needs names"));
        let before = t.tap.with_method("notifications/tools/list_changed").len();
        server.disable(Filter::names(["no such tool"])).unwrap();
        c.list_tools().await.unwrap();
        assert_eq!(t.tap.with_method("notifications/tools/list_changed").len(), before);
        t.assert_all_valid();
    })
    .await;
}

/// Session A unlocks the premium tools for itself: it is told, and sees them; B is told
/// nothing and sees the server's view; A's reset brings it back.
async fn per_caller(
    a: &Client,
    b: &Client,
    a_notes: &mut tokio::sync::mpsc::UnboundedReceiver<(String, serde_json::Value)>,
) {
    assert!(!names(&a.list_tools().await.unwrap()).contains(&"report"));
    assert_eq!(a.call_tool("unlock", json!({})).await.unwrap().content[0].as_text(), Some("unlocked"));
    next_notification(a_notes, "notifications/tools/list_changed").await;
    assert!(names(&a.list_tools().await.unwrap()).contains(&"report"));
    assert_eq!(a.call_tool("report", json!({})).await.unwrap().content[0].as_text(), Some("premium report"));
    assert!(!names(&b.list_tools().await.unwrap()).contains(&"report"));
    assert!(b.call_tool("report", json!({})).await.unwrap_err().to_string().contains("Unknown tool"));
    a.call_tool("relock", json!({})).await.unwrap();
    next_notification(a_notes, "notifications/tools/list_changed").await;
    assert!(!names(&a.list_tools().await.unwrap()).contains(&"report"));
}

#[tokio::test]
async fn a_callers_own_rules_are_its_alone_in_memory() {
    bounded(async {
        let server = server();
        server.disable(Filter::tags(["premium"])).unwrap();
        let (a_opts, mut a_notes) = notification_channel(options_for(ProtocolVersion::V2025_11_25));
        let (b_opts, mut b_notes) = notification_channel(options_for(ProtocolVersion::V2025_06_18));
        let a = connect_tapped(&server, a_opts).await;
        let b = connect_tapped(&server, b_opts).await;
        per_caller(&a.client, &b.client, &mut a_notes).await;
        assert!(b_notes.try_recv().is_err(), "B was told nothing");
        a.assert_all_valid();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_own_rules_over_http_sessions_and_stateless_refusal() {
    bounded(async {
        let server = server();
        server.disable(Filter::tags(["premium"])).unwrap();
        let ts = TestServer::start(&server, HttpOptions::default()).await;
        let url = format!("http://{}/mcp", ts.host());
        let legacy = || options_for(ProtocolVersion::V2025_11_25);
        let (a_opts, mut a_notes) = notification_channel(legacy());
        let a = Client::http(&url, HttpClientOptions::default(), a_opts).await.unwrap();
        let b = Client::http(&url, HttpClientOptions::default(), legacy()).await.unwrap();
        per_caller(&a, &b, &mut a_notes).await;

        // A 2026-07-28 request over HTTP has no session: without an authenticated caller
        // the change is refused rather than made for everyone.
        let modern = ClientOptions::new("m", "1").mode(ClientMode::Modern);
        let m = Client::http(&url, HttpClientOptions::default(), modern).await.unwrap();
        // (the handler's `?` makes the error the tool's result)
        let r = m.call_tool("unlock", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        let text = r.content[0].as_text().unwrap_or_default();
        assert!(text.contains("per-caller visibility needs a session"), "{text}");
        assert!(!names(&b.list_tools().await.unwrap()).contains(&"report"));
        for c in [a, b, m] {
            c.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn a_modern_stdio_connection_is_one_caller() {
    bounded(async {
        let server = server();
        server.disable(Filter::tags(["premium"])).unwrap();
        let modern = || ClientOptions::new("m", "1").mode(ClientMode::Modern);
        let a = Client::in_memory(&server, modern()).await.unwrap();
        let b = Client::in_memory(&server, modern()).await.unwrap();
        a.call_tool("unlock", json!({})).await.unwrap();
        assert!(names(&a.list_tools().await.unwrap()).contains(&"report"));
        assert!(!names(&b.list_tools().await.unwrap()).contains(&"report"));
        a.close().await.unwrap();
        b.close().await.unwrap();
    })
    .await;
}
