//! The 2026-07-28 revision over Streamable HTTP, beside legacy sessions on the same URL:
//! stateless requests (no session id minted), `server/discover`, the header rules and their
//! error codes and statuses, multi round-trip requests with sealed `requestState`,
//! `subscriptions/listen` (acknowledgement, filtering, the listener cap, a listener that does
//! not read), and every modern message validated against the official 2026-07-28 schema.

use crate::common;
use crate::http_util;

use common::{assert_valid, assert_valid_result, bounded};
use http_util::*;
use hypermcp::engine::StateKeys;
use hypermcp::http::HttpOptions;
use hypermcp::{CallToolResult, ElicitParams, GetPromptResult, Prompt, PromptMessage, Server, Tool};
use serde_json::{json, Value};
use std::time::Duration;

const MODERN: &str = "2026-07-28";

fn meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1.0.0"}
    })
}

/// A modern POST: `_meta` in the params, and the headers that mirror the body.
fn modern(method: &str, mut params: Value, id: i64) -> Req {
    if params.get("_meta").is_none() {
        params["_meta"] = meta(json!({"elicitation": {}, "sampling": {}, "roots": {}}));
    }
    let name = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).map(str::to_string);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut r = Req::post(&body).header("MCP-Protocol-Version", MODERN).header("Mcp-Method", method);
    if let Some(n) = name {
        r = r.header("Mcp-Name", &n);
    }
    r
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

fn server() -> Server {
    let ask_schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let s = Server::new("modern-test-server", "2.0.0")
        .tool(
            Tool::new("echo").input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
            |args, _ctx| async move { CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or_default()) },
        )
        .tool(
            Tool::new("greet").input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}})),
            move |args, ctx| {
                let schema = ask_schema.clone();
                async move {
                    // Two questions, one after the other: two rounds at 2026-07-28.
                    let who = ctx.elicit(ElicitParams::form("Your name?", schema.clone())).await?;
                    let mood = ctx.elicit(ElicitParams::form("Your mood?", schema)).await?;
                    let name = |r: &hypermcp::ElicitResult| {
                        r.content.as_ref().and_then(|c| c.get("name")).and_then(Value::as_str).unwrap_or("?").to_string()
                    };
                    let city = args.get("city").and_then(Value::as_str).unwrap_or("nowhere").to_string();
                    Ok::<_, hypermcp::Error>(format!("{} in {city} feels {}", name(&who), name(&mood)))
                }
            },
        )
        .tool(Tool::new("both"), |_args, ctx| async move {
            // Asked together: one round with two input requests.
            let sample = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
            let (a, b) = tokio::join!(
                ctx.request_input(Some("model"), "sampling/createMessage", Some(sample), None),
                ctx.request_input(Some("roots"), "roots/list", None, None),
            );
            let (a, b) = (a?, b?);
            Ok::<_, hypermcp::Error>(format!("{} / {}", a["content"]["text"], b["roots"].as_array().map_or(0, Vec::len)))
        })
        .tool(
            Tool::new("route").input_schema(json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"}}
            })),
            |args, _ctx| async move { CallToolResult::text(format!("{}", Value::Object(args))) },
        )
        .tool(Tool::new("chatty"), |_args, ctx| async move {
            ctx.log(hypermcp::LoggingLevel::Debug, None, "debug line");
            ctx.log(hypermcp::LoggingLevel::Warning, None, "warning line");
            CallToolResult::text("said")
        })
        .prompt(Prompt::new("hello"), |_args, _ctx| async {
            Ok(GetPromptResult::messages(vec![PromptMessage::user("hello")]))
        });
    s.configure(|c| c.request_state.keys = Some(StateKeys::new(&[[42; 32]]).expect("one key")))
}

async fn start(options: HttpOptions) -> (TestServer, Server) {
    let s = server();
    (TestServer::start(&s, options).await, s)
}

/// Sends `req` and returns the status and the one JSON-RPC message answered (a JSON body,
/// or the last message of an SSE stream), with the notifications before it.
async fn exchange(ts: &TestServer, req: Req) -> (u16, Value, Vec<Value>, Option<String>) {
    let mut resp = ts.send(req).await;
    let session = resp.header("mcp-session-id").map(str::to_string);
    if resp.is_sse() {
        let mut notes = Vec::new();
        while let Some(ev) = resp.message().await {
            let msg = ev.json();
            if msg.get("method").is_some() {
                notes.push(msg);
            } else {
                return (resp.status, msg, notes, session);
            }
        }
        panic!("the SSE stream ended without a response");
    }
    let status = resp.status;
    (status, resp.json().await, Vec::new(), session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_and_lists_are_stateless_and_stamped() {
    bounded(async {
        let (ts, _s) = start(options()).await;
        let (status, msg, _, session) = exchange(&ts, modern("server/discover", json!({}), 1)).await;
        assert_eq!(status, 200, "{msg}");
        assert_eq!(session, None, "no session id for a modern request");
        assert_valid_result(MODERN, "server/discover", &msg);
        let r = &msg["result"];
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["supportedVersions"][0], MODERN);
        assert!(r["supportedVersions"].as_array().unwrap().iter().any(|v| v == "2025-11-25"));
        assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "modern-test-server");
        assert_eq!((r["ttlMs"].clone(), r["cacheScope"].clone()), (json!(0), json!("private")));

        let (status, msg, _, _) = exchange(&ts, modern("tools/list", json!({}), 2)).await;
        assert_eq!(status, 200);
        assert_valid_result(MODERN, "tools/list", &msg);
        let names: Vec<&str> =
            msg["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["echo", "greet", "both", "route", "chatty"], "the order they were added in, every time");

        let (status, msg, _, _) =
            exchange(&ts, modern("tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}), 3)).await;
        assert_eq!(status, 200);
        assert_valid_result(MODERN, "tools/call", &msg);
        assert_eq!(msg["result"]["resultType"], "complete");
        assert_eq!(text_of(&msg["result"]), "hi");
        assert_eq!(msg["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"], "2.0.0");
        assert_eq!(ts.service.session_count(), 0, "modern requests leave no session behind");

        // A legacy session on the same URL works as before.
        let (status, msg, _, session) = exchange(&ts, Req::post(&initialize_request("2025-11-25", 1))).await;
        assert_eq!(status, 200);
        assert_eq!(msg["result"]["protocolVersion"], "2025-11-25", "initialize never negotiates 2026-07-28");
        assert!(session.is_some());
        assert_eq!(ts.service.session_count(), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_carry_their_codes_and_statuses() {
    bounded(async {
        let (ts, _s) = start(options()).await;
        let code = |m: &Value| m["error"]["code"].as_i64().unwrap_or(0);
        // _meta missing entirely, or a required key of it.
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}});
        let req = Req::post(&body).header("MCP-Protocol-Version", MODERN).header("Mcp-Method", "tools/list");
        let (status, msg, _, _) = exchange(&ts, req).await;
        assert_eq!((status, code(&msg), msg["id"].clone()), (400, -32602, json!(5)), "{msg}");
        assert_valid(MODERN, &msg);
        let partial = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
        let (status, msg, _, _) = exchange(&ts, modern("tools/list", partial, 6)).await;
        assert_eq!((status, code(&msg)), (400, -32602), "{msg}");

        // The version header disagrees with the body, or is missing.
        let req = modern("tools/list", json!({}), 7).set_header("MCP-Protocol-Version", Some("2025-11-25"));
        let (status, msg, _, _) = exchange(&ts, req).await;
        assert_eq!((status, code(&msg)), (400, -32020), "{msg}");
        let req = modern("tools/list", json!({}), 8).set_header("MCP-Protocol-Version", None);
        let (status, msg, _, _) = exchange(&ts, req).await;
        assert_eq!((status, code(&msg)), (400, -32020), "{msg}");
        // Mcp-Method and Mcp-Name must mirror the body (Base64 allowed for the name).
        let req = modern("tools/list", json!({}), 9).set_header("Mcp-Method", Some("prompts/list"));
        assert_eq!(code(&exchange(&ts, req).await.1), -32020);
        let call = json!({"name": "echo", "arguments": {"text": "x"}});
        let req = modern("tools/call", call.clone(), 10).set_header("Mcp-Name", Some("other"));
        assert_eq!(code(&exchange(&ts, req).await.1), -32020);
        let req = modern("tools/call", call, 11).set_header("Mcp-Name", Some("=?base64?ZWNobw==?="));
        assert_eq!(exchange(&ts, req).await.0, 200, "Base64 name accepted");

        // An unsupported version: -32022 with what is supported.
        let v = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}
        }});
        let req = modern("tools/list", v, 12).set_header("MCP-Protocol-Version", Some("2099-01-01"));
        let (status, msg, _, _) = exchange(&ts, req).await;
        assert_eq!((status, code(&msg)), (400, -32022), "{msg}");
        assert_eq!(msg["error"]["data"]["requested"], "2099-01-01");
        assert_eq!(msg["error"]["data"]["supported"][0], MODERN);

        // Removed and unknown methods: 404 with -32601.
        for (i, m) in
            ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"].iter().enumerate()
        {
            let (status, msg, _, _) = exchange(&ts, modern(m, json!({}), 20 + i as i64)).await;
            assert_eq!((status, code(&msg)), (404, -32601), "{m}: {msg}");
        }
        // No GET stream and no DELETE at 2026-07-28.
        for method in ["GET", "DELETE"] {
            let r = ts
                .send(
                    Req::new(method, "/mcp")
                        .header("MCP-Protocol-Version", MODERN)
                        .header("Accept", "text/event-stream"),
                )
                .await;
            assert_eq!(r.status, 405, "{method}");
        }
        // A tool call needing a capability the request did not declare: -32021, 400. The tool
        // asks for sampling and roots together (`join!` waits for both): the round asks only
        // for what the client declared; the retry, where sampling is still refused, fails.
        let no_caps = json!({"name": "both", "_meta": meta(json!({"roots": {}}))});
        let (status, msg, _, _) = exchange(&ts, modern("tools/call", no_caps, 30)).await;
        assert_eq!(status, 200, "{msg}");
        let keys: Vec<String> = msg["result"]["inputRequests"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["roots"], "never an input the client did not declare: {msg}");
        let retry = json!({"name": "both", "_meta": meta(json!({"roots": {}})),
            "inputResponses": {"roots": {"roots": []}}, "requestState": msg["result"]["requestState"]});
        let (status, msg, _, _) = exchange(&ts, modern("tools/call", retry, 31)).await;
        assert_eq!((status, code(&msg)), (400, -32021), "{msg}");
        assert_eq!(msg["error"]["data"]["requiredCapabilities"], json!({"sampling": {}}));
        assert_valid(MODERN, &msg);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_headers_mirror_annotated_parameters() {
    bounded(async {
        let (ts, _s) = start(options()).await;
        let args = json!({"name": "route", "arguments": {"region": "us-west1", "n": 42}});
        let ok =
            modern("tools/call", args.clone(), 1).header("Mcp-Param-Region", "us-west1").header("Mcp-Param-N", "42");
        assert_eq!(exchange(&ts, ok).await.0, 200);
        // Header names are case-insensitive, values may be Base64, integers compare as numbers.
        let ok = modern("tools/call", args.clone(), 2)
            .header("mcp-param-region", "=?base64?dXMtd2VzdDE=?=")
            .header("MCP-PARAM-N", "42.0");
        assert_eq!(exchange(&ts, ok).await.0, 200);
        for (i, (region, n)) in [
            (None, Some("42")),
            (Some("eu"), Some("42")),
            (Some("us-west1"), Some("7")),
            (Some("=?base64?dXMtd2VzdDE?="), Some("42")),
        ]
        .into_iter()
        .enumerate()
        {
            let mut r = modern("tools/call", args.clone(), 10 + i as i64);
            if let Some(v) = region {
                r = r.header("Mcp-Param-Region", v);
            }
            if let Some(v) = n {
                r = r.header("Mcp-Param-N", v);
            }
            let (status, msg, _, _) = exchange(&ts, r).await;
            assert_eq!((status, msg["error"]["code"].clone()), (400, json!(-32020)), "case {i}: {msg}");
        }
        // An absent argument needs no header.
        let partial = json!({"name": "route", "arguments": {"n": 1}});
        assert_eq!(exchange(&ts, modern("tools/call", partial, 20).header("Mcp-Param-N", "1")).await.0, 200);
        // Invalid annotations are refused at registration.
        let bad = Tool::new("bad")
            .input_schema(json!({"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}}));
        assert!(server().add_tool(bad, |_a, _c| async { CallToolResult::text("") }).is_err());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_round_trip_requests() {
    bounded(async {
        let (ts, _s) = start(options()).await;
        let call = |extra: Value, id: i64| {
            let mut p = json!({"name": "greet", "arguments": {"city": "Paris"}});
            for (k, v) in extra.as_object().unwrap() {
                p[k] = v.clone();
            }
            modern("tools/call", p, id)
        };
        // Round 1: the first question.
        let (status, msg, _, _) = exchange(&ts, call(json!({}), 1)).await;
        assert_eq!(status, 200, "{msg}");
        assert_valid_result(MODERN, "tools/call", &msg);
        let r = &msg["result"];
        assert_eq!(r["resultType"], "input_required");
        assert_eq!(r["inputRequests"]["elicitation_1"]["method"], "elicitation/create");
        assert_eq!(r["inputRequests"]["elicitation_1"]["params"]["message"], "Your name?");
        let state1 = r["requestState"].as_str().expect("sealed state").to_string();
        assert!(!state1.contains("Paris"), "the state is sealed, not readable");

        // Round 2: the answer comes back; the handler runs again and asks the second question.
        let ada = json!({"action": "accept", "content": {"name": "Ada"}});
        let (_, msg, _, _) = exchange(&ts, call(json!({"inputResponses": {"elicitation_1": ada}, "requestState": state1}), 2)).await;
        let r = &msg["result"];
        assert_eq!(r["resultType"], "input_required", "{msg}");
        assert_eq!(r["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["elicitation_2"]);
        let state2 = r["requestState"].as_str().unwrap().to_string();

        // Round 3: only the second answer is sent; the first rides in the state.
        let calm = json!({"action": "accept", "content": {"name": "calm"}});
        let done = call(json!({"inputResponses": {"elicitation_2": calm.clone()}, "requestState": state2.clone()}), 3);
        let (status, msg, _, _) = exchange(&ts, done).await;
        assert_eq!(status, 200);
        assert_valid_result(MODERN, "tools/call", &msg);
        assert_eq!(msg["result"]["resultType"], "complete");
        assert_eq!(text_of(&msg["result"]), "Ada in Paris feels calm");

        // The state is refused when tampered with, replayed on other arguments or another
        // tool, or on a server with other keys; user code never runs with it.
        let code = |m: &Value| (m["error"]["code"].clone(), m["error"]["message"].as_str().unwrap_or("").to_string());
        let mut bad = state2.clone().into_bytes();
        let i = bad.len() - 5;
        bad[i] = if bad[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bad).unwrap();
        let (status, msg, _, _) = exchange(&ts, call(json!({"inputResponses": {"elicitation_2": calm.clone()}, "requestState": tampered}), 4)).await;
        assert_eq!(status, 400);
        assert_eq!(code(&msg).0, json!(-32602), "{msg}");
        let other_args = json!({"name": "greet", "arguments": {"city": "Rome"}, "inputResponses": {"elicitation_2": calm.clone()}, "requestState": state2.clone()});
        let (_, msg, _, _) = exchange(&ts, modern("tools/call", other_args, 5)).await;
        assert!(code(&msg).1.contains("other arguments"), "{msg}");
        let other_tool = json!({"name": "echo", "arguments": {}, "requestState": state2.clone()});
        let (_, msg, _, _) = exchange(&ts, modern("tools/call", other_tool, 6)).await;
        assert!(code(&msg).1.contains("issued for tools/call of \"greet\""), "{msg}");
        let stranger = Server::new("modern-test-server", "2.0.0")
            .tool(Tool::new("greet"), |_a, _c| async { CallToolResult::text("must not run") })
            .configure(|c| c.request_state.keys = Some(StateKeys::new(&[[7; 32]]).unwrap()));
        let other = TestServer::start(&stranger, options()).await;
        let (_, msg, _, _) = exchange(&other, call(json!({"requestState": state2.clone()}), 7)).await;
        assert!(code(&msg).1.contains("key this server does not hold"), "{msg}");

        // Invalid inputResponses are refused.
        let (status, msg, _, _) = exchange(&ts, call(json!({"inputResponses": {"elicitation_1": 12345}}), 8)).await;
        assert_eq!((status, msg["error"]["code"].clone()), (400, json!(-32602)));
        let (_, msg, _, _) = exchange(&ts, call(json!({"inputResponses": null}), 9)).await;
        assert_eq!(msg["error"]["code"], -32602);
        // Extra unrequested answers are ignored.
        let extra = json!({"inputResponses": {"elicitation_1": ada, "elicitation_2": calm, "unknown": {"x": 1}}});
        let (_, msg, _, _) = exchange(&ts, call(extra, 10)).await;
        assert_eq!(text_of(&msg["result"]), "Ada in Paris feels calm");

        // Several inputs asked together go out in one round.
        let (_, msg, _, _) = exchange(&ts, modern("tools/call", json!({"name": "both"}), 11)).await;
        let keys: Vec<String> = msg["result"]["inputRequests"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "roots"], "{msg}");
        let answers = json!({
            "model": {"role": "assistant", "content": {"type": "text", "text": "yo"}, "model": "m", "stopReason": "endTurn"},
            "roots": {"roots": [{"uri": "file:///a"}]}
        });
        let p = json!({"name": "both", "inputResponses": answers, "requestState": msg["result"]["requestState"]});
        let (_, msg, _, _) = exchange(&ts, modern("tools/call", p, 12)).await;
        assert_eq!(text_of(&msg["result"]), "\"yo\" / 1", "{msg}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_only_for_requests_that_ask() {
    bounded(async {
        let (ts, _s) = start(options()).await;
        let (_, msg, notes, _) = exchange(&ts, modern("tools/call", json!({"name": "chatty"}), 1)).await;
        assert_eq!(text_of(&msg["result"]), "said");
        assert!(notes.is_empty(), "no logLevel, no log notifications: {notes:?}");
        let mut m = meta(json!({}));
        m["io.modelcontextprotocol/logLevel"] = json!("info");
        let (_, msg, notes, _) = exchange(&ts, modern("tools/call", json!({"name": "chatty", "_meta": m}), 2)).await;
        assert_eq!(text_of(&msg["result"]), "said");
        assert_eq!(notes.len(), 1, "only the warning passes the info level: {notes:?}");
        assert_eq!(notes[0]["params"]["level"], "warning");
        for n in &notes {
            assert_valid(MODERN, n);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_acknowledge_filter_and_end() {
    bounded(async {
        let (ts, s) = start(options()).await;
        let listen = |filter: Value, id: i64| modern("subscriptions/listen", json!({"notifications": filter}), id);
        let mut tools_only = ts.send(listen(json!({"toolsListChanged": true, "promptsListChanged": false}), 1)).await;
        assert!(tools_only.is_sse());
        let ack = tools_only.message().await.expect("ack").json();
        assert_valid(MODERN, &ack);
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
        assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}));
        let mut prompts_only = ts.send(listen(json!({"promptsListChanged": true}), 2)).await;
        prompts_only.message().await.expect("ack");
        assert_eq!(ts.service.listener_count(), 2);
        // Acknowledged listeners keep no request in progress (their sessions ended): a
        // graceful shutdown does not wait on them.
        assert_eq!(ts.service.in_flight(), 0);

        s.add_prompt(Prompt::new("later"), |_a, _c| async { Ok(GetPromptResult::messages(vec![])) }).unwrap();
        s.add_tool(Tool::new("later"), |_a, _c| async { CallToolResult::text("") }).unwrap();
        let n = tools_only.message().await.expect("tools notification").json();
        assert_valid(MODERN, &n);
        assert_eq!(n["method"], "notifications/tools/list_changed", "the prompt change was filtered out");
        assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
        let n = prompts_only.message().await.expect("prompts notification").json();
        assert_eq!(n["method"], "notifications/prompts/list_changed");
        assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);

        // Closing the stream ends the subscription.
        drop(tools_only);
        for _ in 0..100 {
            if ts.service.listener_count() == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(ts.service.listener_count(), 1);
        // Closing the service answers the others: their graceful end.
        ts.service.close_listeners();
        let end = prompts_only.message().await.expect("the listen response").json();
        assert_valid_result(MODERN, "subscriptions/listen", &end);
        assert_eq!(end["id"], 2);
        assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);
        assert!(prompts_only.message().await.is_none(), "the stream ends after its response");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_are_capped_and_slow_ones_dropped() {
    bounded(async {
        let s = server()
            .configure(|c| c.max_listeners = 2)
            .resource(hypermcp::Resource::new(format!("test://{}", "x".repeat(2000)), "big"), |r, _c| async move {
                Ok(hypermcp::ReadResourceResult::text(r.uri, "", None))
            });
        let uri = format!("test://{}", "x".repeat(2000));
        let ts = TestServer::start(&s, HttpOptions { listener_buffer: 64 * 1024, ..options() }).await;
        let listen = |id: i64| {
            modern("subscriptions/listen", json!({"notifications": {"resourceSubscriptions": [uri.clone()]}}), id)
        };
        let mut a = ts.send(listen(1)).await;
        a.message().await.expect("ack");
        let mut b = ts.send(listen(2)).await;
        b.message().await.expect("ack");
        let refused = ts.send(listen(3)).await;
        assert_eq!(refused.status, 503, "the third listener is over the cap");
        // `b` stops reading, `a` reads. 10,000 updates of ~2 KB (20 MB, more than the socket
        // buffers hold) paced to `a`'s reading: `b` falls behind and is dropped, `a` is not.
        const UPDATES: usize = 10_000;
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = seen.clone();
        let reader = tokio::spawn(async move {
            while counter.load(std::sync::atomic::Ordering::Acquire) < UPDATES {
                let Some(ev) = a.message().await else { break };
                assert_eq!(ev.json()["method"], "notifications/resources/updated");
                counter.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            }
            a
        });
        for i in 0..UPDATES {
            s.notify_resource_updated(&uri);
            if i % 20 == 19 {
                while seen.load(std::sync::atomic::Ordering::Acquire) < i + 1 {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        }
        let _a = reader.await.unwrap();
        assert_eq!(seen.load(std::sync::atomic::Ordering::Acquire), UPDATES, "the reading listener got every update");
        assert_eq!(ts.service.listener_count(), 1, "the listener that stopped reading was dropped");
        drop(b);
    })
    .await;
}

/// The Rust client over HTTP in auto mode finds 2026-07-28 on our server: its calls carry the
/// revision's headers, an elicitation round is served by its handler, a tool with header
/// parameters is called before it was listed, a resource subscription
/// goes through its listen stream, and a legacy client shares the URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_client_speaks_2026_over_http() {
    use hypermcp::http::client::HttpClientOptions;
    use hypermcp::{Client, ClientMode, ClientOptions, ElicitAction, ElicitResult};
    bounded(async {
        let s = server().resource(hypermcp::Resource::new("test://watched", "watched"), |r, _c| async move {
            Ok(hypermcp::ReadResourceResult::text(r.uri, "v", None))
        });
        let ts = TestServer::start(&s, options()).await;
        let url = format!("http://{}/mcp", ts.addr);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = asked.clone();
        let opts = ClientOptions::new("modern-rust-client", "1.0")
            .on_elicitation(false, move |p| {
                let seen = seen.clone();
                async move {
                    let ElicitParams::Form { message, .. } = p else { panic!("form") };
                    seen.lock().unwrap().push(message.clone());
                    let name = if message.contains("name") { "Ada" } else { "calm" };
                    let content = serde_json::from_value(json!({"name": name})).unwrap();
                    Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None })
                }
            })
            .on_notification(move |m, p| {
                let _ = tx.send((m.to_string(), p.clone()));
            });
        let client = Client::http(&url, HttpClientOptions::default(), opts).await.expect("connect");
        assert!(client.is_modern());
        assert_eq!(ts.service.session_count(), 0, "no session at 2026-07-28");
        let r = client.call_tool("greet", json!({"city": "Paris"})).await.expect("greet");
        assert_eq!(r.content[0].as_text(), Some("Ada in Paris feels calm"), "{r:?}");
        assert_eq!(asked.lock().unwrap().len(), 2, "each question asked once");
        // A tool with header parameters, called before any tools/list: refused for want of
        // its Mcp-Param-* headers, then listed and sent once more, headers and all.
        let r = client.call_tool("route", json!({"region": "eu-west", "n": 3})).await.expect("route");
        let got: Value = serde_json::from_str(r.content[0].as_text().unwrap_or_default()).expect("the arguments");
        assert_eq!(got, json!({"region": "eu-west", "n": 3}), "{r:?}");
        // Removed in 2026-07-28, served by the client: ping, and a subscription through listen.
        client.ping().await.expect("ping");
        client.subscribe_resource("test://watched").await.expect("subscribe");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            // The listen stream may open just after the subscribe call returns.
            s.notify_resource_updated("test://watched");
            match tokio::time::timeout_at(
                deadline.min(tokio::time::Instant::now() + Duration::from_millis(200)),
                rx.recv(),
            )
            .await
            {
                Ok(Some((m, p))) if m == "notifications/resources/updated" => {
                    assert_eq!(p, json!({"uri": "test://watched"}), "the subscription tag stays with the client");
                    break;
                }
                _ if tokio::time::Instant::now() >= deadline => panic!("no resources/updated notification"),
                _ => {}
            }
        }
        // The application's own listen stream: the acknowledgement, then tagged updates.
        let filter = hypermcp::SubscriptionFilter {
            resource_subscriptions: Some(vec!["test://watched".into()]),
            ..Default::default()
        };
        let mut sub = client.listen(filter).await.expect("listen");
        let (method, ack) = sub.next().await.expect("the acknowledgement");
        assert_eq!(method, "notifications/subscriptions/acknowledged");
        assert_eq!(ack["notifications"]["resourceSubscriptions"], json!(["test://watched"]));
        let tag = ack["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();
        s.notify_resource_updated("test://watched");
        let (method, p) = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                let item = sub.next().await.expect("an update");
                if item.0 == "notifications/resources/updated" {
                    return item;
                }
            }
        })
        .await
        .expect("the update on the application's stream");
        assert_eq!(method, "notifications/resources/updated");
        assert_eq!(p["uri"], "test://watched");
        assert_eq!(p["_meta"]["io.modelcontextprotocol/subscriptionId"], tag);
        drop(sub);
        // A legacy client on the same URL.
        let old = Client::http(&url, HttpClientOptions::default(), ClientOptions::default().mode(ClientMode::Legacy))
            .await
            .expect("legacy connect");
        assert!(!old.is_modern());
        let e = old.listen(Default::default()).await.expect_err("no listen on a legacy session");
        assert!(e.to_string().contains("2026-07-28"), "{e}");
        assert_eq!(old.call_tool("echo", json!({"text": "x"})).await.expect("echo").content.len(), 1);
        old.close().await.expect("close");
        client.close().await.expect("close");
    })
    .await;
}
