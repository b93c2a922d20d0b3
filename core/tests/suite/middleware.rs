//! MCP middleware in Rust: a guard that refuses a tool, a link that rewrites arguments, one
//! that answers by itself, the order of the hooks of two links, state handed to the handler,
//! hooks a link does not define stepped over, and a tool that elicits under middleware, in
//! both eras (a 2026-07-28 call passes the chain once per round), in memory and over HTTP.

use crate::common::bounded;
use crate::http_util::TestServer;
use hypermcp::engine::{Outcome, Request};
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::runtime::{BoxFuture, Hooks, Middleware, MiddlewareContext, Next};
use hypermcp::{
    CallToolResult, Client, ClientMode, ClientOptions, ElicitAction, ElicitParams, ElicitResult, GetPromptResult,
    Prompt, PromptMessage, RpcError, Server, Tool,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Records, in order, every hook it runs (`NAME:hook:method[:round]`).
struct Recorder {
    name: &'static str,
    hooks: Hooks,
    log: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn note(&self, hook: &str, cx: &MiddlewareContext) {
        let round = if cx.round() > 0 { format!(":{}", cx.round()) } else { String::new() };
        self.log.lock().unwrap().push(format!("{}:{hook}:{}{round}", self.name, cx.method()));
    }
}

impl Middleware for Recorder {
    fn hooks(&self) -> Hooks {
        self.hooks
    }
    fn on_message<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        self.note("message", &cx);
        next.run(cx)
    }
    fn on_request<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        self.note("request", &cx);
        next.run(cx)
    }
    fn on_call_tool<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        self.note("call_tool", &cx);
        Box::pin(async move {
            let outcome = next.run(cx).await;
            self.log.lock().unwrap().push(format!("{}:call_tool:done", self.name));
            outcome
        })
    }
    fn on_get_prompt<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        self.note("get_prompt", &cx);
        next.run(cx)
    }
}

/// Refuses `delete`, rewrites `shout`'s text, answers `cached` itself, hands `who` a state
/// value and marks every tool result it passes on.
struct Policy;

impl Middleware for Policy {
    fn hooks(&self) -> Hooks {
        Hooks::CALL_TOOL
    }
    fn on_call_tool<'a>(&'a self, mut cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        match cx.name() {
            Some("delete") => {
                return Box::pin(async { Outcome::Error(RpcError::new(-32001, "delete is not allowed here")) });
            }
            Some("cached") => return Box::pin(async { Outcome::Tool(CallToolResult::text("from the middleware")) }),
            Some("shout") => {
                if let Request::CallTool { name, arguments } = &mut cx.message {
                    let text = arguments.get("text").and_then(Value::as_str).unwrap_or_default().to_uppercase();
                    arguments.insert("text".into(), json!(text));
                    // Not a way round the guard: the tool asked for is the one that runs.
                    *name = "delete".into();
                }
            }
            Some("who") => cx.set_state("user", json!("ada")),
            _ => {}
        }
        Box::pin(async move {
            match next.run(cx).await {
                Outcome::Tool(mut r) => {
                    r.meta.get_or_insert_with(Default::default).insert("policy".into(), json!("checked"));
                    Outcome::Tool(r)
                }
                other => other,
            }
        })
    }
}

fn server(log: &Arc<Mutex<Vec<String>>>) -> Server {
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    Server::new("mw", "1.0.0")
        .tool(Tool::new("echo").input_schema(text.clone()), |args, _ctx| async move {
            CallToolResult::text(args["text"].as_str().unwrap_or_default())
        })
        .tool(Tool::new("shout").input_schema(text), |args, _ctx| async move {
            CallToolResult::text(args["text"].as_str().unwrap_or_default())
        })
        .tool(Tool::new("delete"), |_args, _ctx| async move { "deleted (the guard let it through)" })
        .tool(Tool::new("cached"), |_args, _ctx| async move { "from the handler" })
        .tool(Tool::new("who"), |_args, ctx| async move {
            format!("user: {}", ctx.get_state("user").unwrap_or(Value::Null))
        })
        .tool(Tool::new("ask"), |_args, ctx| async move {
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            let answer = ctx.elicit(ElicitParams::form("Your name?", schema)).await?;
            let name = answer.content.unwrap_or_default().get("name").cloned().unwrap_or(Value::Null);
            Ok::<_, hypermcp::Error>(format!("hello {name}"))
        })
        .prompt(Prompt::new("greet"), |_args, _ctx| async move {
            Ok(GetPromptResult::messages(vec![PromptMessage::user("hi")]))
        })
        .middleware(Recorder { name: "outer", hooks: Hooks::ALL, log: log.clone() })
        .middleware(Recorder { name: "inner", hooks: Hooks::CALL_TOOL, log: log.clone() })
        .middleware(Policy)
}

fn client_options(mode: ClientMode) -> ClientOptions {
    ClientOptions::new("mw-test", "1").mode(mode).on_elicitation(false, |_p| async move {
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: json!({"name": "Ada"}).as_object().cloned(),
            meta: None,
        })
    })
}

async fn exercise(client: &Client, log: &Arc<Mutex<Vec<String>>>, modern: bool) {
    let text = |r: &CallToolResult| r.content[0].as_text().unwrap_or_default().to_string();

    // Every link's hooks, outermost first; the inner link defines on_call_tool only.
    log.lock().unwrap().clear();
    let r = client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(text(&r), "hi");
    assert_eq!(r.meta.as_ref().unwrap()["policy"], "checked", "the policy marks results");
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer:message:tools/call",
            "outer:request:tools/call",
            "outer:call_tool:tools/call",
            "inner:call_tool:tools/call",
            "inner:call_tool:done",
            "outer:call_tool:done",
        ]
    );

    // A guard: the handler never runs; the client gets the link's error.
    let e = client.call_tool("delete", json!({})).await.unwrap_err();
    assert_eq!(e.code(), -32001, "{e}");
    assert!(e.to_string().contains("delete is not allowed here"), "{e}");

    // Rewritten arguments reach the handler (of the tool asked for, whatever the link wrote in
    // the name); an answer of the link's own never does.
    assert_eq!(text(&client.call_tool("shout", json!({"text": "quiet"})).await.unwrap()), "QUIET");
    assert_eq!(text(&client.call_tool("cached", json!({})).await.unwrap()), "from the middleware");
    // State set by a link is read by the handler.
    assert_eq!(text(&client.call_tool("who", json!({})).await.unwrap()), "user: \"ada\"");

    // A prompt passes only the links that have a hook for it (not the inner one).
    log.lock().unwrap().clear();
    client.get_prompt("greet", Default::default()).await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["outer:message:prompts/get", "outer:request:prompts/get", "outer:get_prompt:prompts/get"]
    );

    // A tool that elicits works unchanged under middleware: legacy pushes the request inside
    // the one pass; 2026-07-28 ends the first round with input_required and passes the
    // chain again, as round 1, when the client retries with the answer.
    log.lock().unwrap().clear();
    assert_eq!(text(&client.call_tool("ask", json!({})).await.unwrap()), "hello \"Ada\"");
    let seen: Vec<String> = log.lock().unwrap().iter().filter(|l| l.starts_with("outer:message")).cloned().collect();
    if modern {
        assert_eq!(seen, ["outer:message:tools/call", "outer:message:tools/call:1"]);
    } else {
        assert_eq!(seen, ["outer:message:tools/call"]);
    }
}

#[tokio::test]
async fn middleware_in_memory_in_both_eras() {
    bounded(async {
        for (mode, modern) in [(ClientMode::Legacy, false), (ClientMode::Modern, true)] {
            let log = Arc::new(Mutex::new(Vec::new()));
            let client = Client::in_memory(&server(&log), client_options(mode)).await.unwrap();
            assert_eq!(client.is_modern(), modern);
            exercise(&client, &log, modern).await;
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn middleware_over_http_in_both_eras() {
    bounded(async {
        for (mode, modern) in [(ClientMode::Legacy, false), (ClientMode::Modern, true)] {
            let log = Arc::new(Mutex::new(Vec::new()));
            let ts = TestServer::start(&server(&log), HttpOptions::default()).await;
            let url = format!("http://{}/mcp", ts.host());
            let client = Client::http(&url, HttpClientOptions::default(), client_options(mode)).await.unwrap();
            exercise(&client, &log, modern).await;
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn a_server_without_middleware_is_untouched_and_one_added_later_applies() {
    bounded(async {
        let log = Arc::new(Mutex::new(Vec::new()));
        let server = Server::new("plain", "1.0.0").tool(Tool::new("ping"), |_args, _ctx| async move { "pong" });
        let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
        assert_eq!(client.call_tool("ping", json!({})).await.unwrap().content[0].as_text(), Some("pong"));
        // Added while a session is open: the next call passes it.
        server.add_middleware(Arc::new(Recorder { name: "late", hooks: Hooks::CALL_TOOL, log: log.clone() }));
        client.call_tool("ping", json!({})).await.unwrap();
        assert_eq!(*log.lock().unwrap(), ["late:call_tool:tools/call", "late:call_tool:done"]);
        client.close().await.unwrap();
    })
    .await;
}

/// Hides the tools whose name starts with `_` from every list, and renames nothing else.
struct HideInternal;

impl Middleware for HideInternal {
    fn hooks(&self) -> Hooks {
        Hooks::LIST_TOOLS | Hooks::LIST_PROMPTS
    }
    fn on_list_tools<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            match next.run(cx).await {
                Outcome::Listed(mut items) => {
                    items.retain(|t| !t["name"].as_str().unwrap_or_default().starts_with('_'));
                    Outcome::Listed(items)
                }
                other => other,
            }
        })
    }
    fn on_list_prompts<'a>(&'a self, _cx: MiddlewareContext, _next: Next<'a>) -> BoxFuture<'a, Outcome> {
        Box::pin(async { Outcome::Error(RpcError::new(-32001, "prompts are not listed here")) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_hook_filters_the_list_then_the_engine_pages_it() {
    bounded(async {
        let mut server = Server::new("lists", "1.0.0")
            .middleware(HideInternal)
            .prompt(Prompt::new("p"), |_a, _c| async move { Ok(GetPromptResult::default()) });
        for name in ["a", "_b", "c", "_d", "e"] {
            server = server.tool(Tool::new(name), |_args, _ctx| async move { "ok" });
        }
        server.registry().set_page_size(2);
        let ts = TestServer::start(&server, HttpOptions::default()).await;
        let url = format!("http://{}/mcp", ts.host());
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let memory = Client::in_memory(&server, ClientOptions::new("t", "1").mode(mode)).await.unwrap();
            let http = Client::http(&url, HttpClientOptions::default(), ClientOptions::new("t", "1").mode(mode))
                .await
                .unwrap();
            for client in [&memory, &http] {
                // Paged after the hook: two pages of visible tools, not three of all.
                let first = client.list_tools_page(None).await.unwrap();
                let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(names, ["a", "c"]);
                let second = client.list_tools_page(first.next_cursor.as_deref()).await.unwrap();
                assert_eq!(second.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["e"]);
                assert!(second.next_cursor.is_none());
                let e = client.list_prompts().await.unwrap_err();
                assert_eq!(e.code(), -32001, "{e}");
                // The hidden tools are still callable: a list hook filters lists only.
                assert_eq!(client.call_tool("_b", json!({})).await.unwrap().content[0].as_text(), Some("ok"));
            }
            memory.close().await.unwrap();
            http.close().await.unwrap();
        }
    })
    .await;
}
