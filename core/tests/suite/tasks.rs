//! Tasks (`io.modelcontextprotocol/tasks`, 2026-07-28): tool calls that outlive their request.
//! Over HTTP and in memory: a task outlives the request and the client that started it,
//! reports progress in its status message, asks for input and goes on when answered,
//! is cancelled cooperatively, expires with its time-to-live, is refused to another
//! principal; a tool that runs only as a task refuses clients without the extension.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::auth::server::{AuthInfo, ResourceServerOptions, TokenVerifier};
use hypermcp::catalogue::TaskMode;
use hypermcp::http::client::HttpClientOptions;
use hypermcp::server::tasks::TaskOptions;
use hypermcp::store::tasks::TASKS_EXTENSION;
use hypermcp::{CallToolResult, Client, ClientMode, ClientOptions, Error, Server, SubscriptionFilter, Tool, ToolCall};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

fn server(options: TaskOptions, seen_cancel: mpsc::UnboundedSender<String>) -> Server {
    let ask = |m: &str| json!({"message": m, "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}});
    Server::new("tasks", "1.0.0")
        .tasks(options)
        .tool(Tool::new("work"), |args, ctx| async move {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(300);
            ctx.report_progress(1.0, Some(2.0), Some("halfway")).await?;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, Error>(format!("worked {ms} ms as task {}", ctx.task_id().unwrap_or("-")))
        })
        .task_mode("work", TaskMode::Optional)
        .tool(Tool::new("ask_twice"), move |_args, ctx| async move {
            let (a, b) = tokio::join!(
                ctx.request_input(Some("first"), "elicitation/create", Some(ask("First?")), None),
                ctx.request_input(Some("second"), "elicitation/create", Some(ask("Second?")), None),
            );
            Ok::<_, Error>(format!("{} {}", a?["content"]["ok"], b?["content"]["ok"]))
        })
        .task_mode("ask_twice", TaskMode::Optional)
        .tool(Tool::new("wait_for_cancel"), move |_args, ctx| {
            let seen = seen_cancel.clone();
            async move {
                ctx.cancelled().await;
                let _ = seen.send(ctx.task_id().unwrap_or_default().to_string());
                CallToolResult::text("stopped")
            }
        })
        .task_mode("wait_for_cancel", TaskMode::Optional)
        .tool(Tool::new("steps"), |_args, ctx| async move {
            for i in 1..=3 {
                tokio::time::sleep(Duration::from_millis(150)).await;
                ctx.report_progress(f64::from(i), Some(3.0), Some(&format!("step {i} of 3"))).await?;
            }
            Ok::<_, Error>("all steps done")
        })
        .task_mode("steps", TaskMode::Optional)
        .tool(
            Tool::new("typed")
                .output_schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})),
            |_args, _ctx| async move { CallToolResult::structured(json!({"n": "not a number"})) },
        )
        .task_mode("typed", TaskMode::Optional)
        .tool(Tool::new("only_task"), |_args, _ctx| async move { "done" })
        .task_mode("only_task", TaskMode::Required)
        .tool(Tool::new("plain"), |_args, _ctx| async move { "plain" })
}

/// The test server over HTTP, its tasks polled every 50 ms.
async fn fast_polling(seen_cancel: mpsc::UnboundedSender<String>) -> TestServer {
    TestServer::start(
        &server(TaskOptions { poll_interval: Duration::from_millis(50), ..Default::default() }, seen_cancel),
        options(),
    )
    .await
}

fn modern(tasks: bool) -> ClientOptions {
    let o = ClientOptions::default().mode(ClientMode::Modern);
    if tasks {
        o.tasks()
    } else {
        o
    }
}

async fn call(c: &Client, tool: &str, args: Value) -> Value {
    c.request("tools/call", Some(json!({"name": tool, "arguments": args})), Default::default()).await.unwrap()
}

async fn get(c: &Client, id: &str) -> hypermcp::Result<Value> {
    c.request("tasks/get", Some(json!({"taskId": id})), Default::default()).await
}

/// Polls until the task is terminal (or `status`).
async fn wait_for(c: &Client, id: &str, status: &str) -> Value {
    loop {
        let t = get(c, id).await.unwrap();
        let s = t["status"].as_str().unwrap_or_default().to_string();
        if s == status || ["completed", "failed", "cancelled"].contains(&s.as_str()) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_its_request_and_its_client() {
    bounded(async {
        let (tx, _rx) = mpsc::unbounded_channel();
        let ts = TestServer::start(&server(TaskOptions::default(), tx), options()).await;
        let url = format!("http://{}/mcp", ts.host());
        let first = Client::http(&url, HttpClientOptions::default(), modern(true)).await.unwrap();
        let created = call(&first, "work", json!({"ms": 300})).await;
        assert_eq!(created["resultType"], "task", "{created}");
        let id = created["taskId"].as_str().unwrap().to_string();
        assert!(id.len() >= 22, "unguessable ids: {id}");
        assert_eq!(created["status"], "working");
        assert!(created["ttlMs"].as_u64().unwrap() > 0 && created["pollIntervalMs"].as_u64().unwrap() > 0);
        assert!(created.get("result").is_none() && created.get("requestState").is_none());
        first.close().await.unwrap();
        // Another client (a restarted host) follows it by id.
        let second = Client::http(&url, HttpClientOptions::default(), modern(true)).await.unwrap();
        // The handler runs on a task of its own: under load its first progress may reach the
        // store a moment after the call was answered.
        let working = loop {
            let t = get(&second, &id).await.unwrap();
            if t["status"] != "working" || t.get("statusMessage").is_some() {
                break t;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(working["status"], "working");
        assert_eq!(working["statusMessage"], "halfway", "progress becomes the status message: {working}");
        let done = wait_for(&second, &id, "completed").await;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(done["result"]["content"][0]["text"], format!("worked 300 ms as task {id}"));
        // Still there after it ended (until its time-to-live).
        assert_eq!(get(&second, &id).await.unwrap()["status"], "completed");
        // Unknown ids are invalid params.
        assert_eq!(get(&second, "nope").await.unwrap_err().code(), -32602);
        second.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_requests_are_answered_with_tasks_update() {
    bounded(async {
        let (tx, _rx) = mpsc::unbounded_channel();
        let ts = TestServer::start(&server(TaskOptions::default(), tx), options()).await;
        let c = Client::http(&format!("http://{}/mcp", ts.host()), HttpClientOptions::default(), modern(true))
            .await
            .unwrap();
        let id = call(&c, "ask_twice", json!({})).await["taskId"].as_str().unwrap().to_string();
        let mut waiting = wait_for(&c, &id, "input_required").await;
        while waiting["inputRequests"].as_object().map_or(0, |m| m.len()) < 2 {
            waiting = get(&c, &id).await.unwrap();
        }
        assert_eq!(waiting["inputRequests"]["first"]["method"], "elicitation/create", "{waiting}");
        let update = |key: &str, ok: bool| {
            json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"ok": ok}}}})
        };
        // A key that is not outstanding is ignored (and acked).
        let ack = c.request("tasks/update", Some(update("other", true)), Default::default()).await.unwrap();
        assert_eq!(ack, json!({}));
        c.request("tasks/update", Some(update("first", true)), Default::default()).await.unwrap();
        // The very next read sees the partial answer.
        let partial = get(&c, &id).await.unwrap();
        assert_eq!(partial["status"], "input_required");
        assert!(partial["inputRequests"].get("first").is_none() && partial["inputRequests"].get("second").is_some());
        c.request("tasks/update", Some(update("second", false)), Default::default()).await.unwrap();
        let done = wait_for(&c, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "true false", "{done}");
        c.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn cancellation_reaches_the_handler_and_ttl_ends_tasks() {
    bounded(async {
        // In memory (the stream driver), with a short time-to-live.
        let (tx, mut seen) = mpsc::unbounded_channel();
        let options = TaskOptions { ttl: Duration::from_millis(400), ..Default::default() };
        let s = server(options, tx);
        let c = Client::in_memory(&s, modern(true)).await.unwrap();
        let id = call(&c, "wait_for_cancel", json!({})).await["taskId"].as_str().unwrap().to_string();
        let ack = c.request("tasks/cancel", Some(json!({"taskId": id})), Default::default()).await.unwrap();
        assert_eq!(ack, json!({}));
        assert_eq!(get(&c, &id).await.unwrap()["status"], "cancelled", "cancelled at once");
        assert_eq!(seen.recv().await.as_deref(), Some(id.as_str()), "the handler saw the cancellation");
        // Cancelling again (a terminal task) is acked too.
        c.request("tasks/cancel", Some(json!({"taskId": id})), Default::default()).await.unwrap();
        // A task still running when its time-to-live ends is stopped, then forgotten.
        let id2 = call(&c, "wait_for_cancel", json!({})).await["taskId"].as_str().unwrap().to_string();
        assert_eq!(seen.recv().await.as_deref(), Some(id2.as_str()), "expiry stopped the handler");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(get(&c, &id2).await.unwrap_err().code(), -32602, "expired");
        c.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn without_the_extension_calls_run_as_before() {
    bounded(async {
        let (tx, _rx) = mpsc::unbounded_channel();
        let s = server(TaskOptions::default(), tx);
        let c = Client::in_memory(&s, modern(false)).await.unwrap();
        let caps = c.server().capabilities.extensions.clone().unwrap();
        assert_eq!(caps[TASKS_EXTENSION], json!({}));
        let r = c.call_tool("work", json!({"ms": 10})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("worked 10 ms as task -"));
        let e = c.call_tool("only_task", json!({})).await.unwrap_err();
        assert_eq!(e.code(), -32021, "{e}");
        assert_eq!(get(&c, "x").await.unwrap_err().code(), -32021);
        for gone in ["tasks/result", "tasks/list"] {
            let e = c.request(gone, Some(json!({"taskId": "x"})), Default::default()).await.unwrap_err();
            assert_eq!(e.code(), -32601, "{gone}");
        }
        c.close().await.unwrap();
        // A legacy session runs optional task tools as plain calls; a tool that runs only as
        // a task is -32601 there, as 2025-11-25 answers a call without a task.
        let legacy = Client::in_memory(&s, ClientOptions::default().mode(ClientMode::Legacy)).await.unwrap();
        assert_eq!(
            legacy.call_tool("work", json!({"ms": 1})).await.unwrap().content[0].as_text(),
            Some("worked 1 ms as task -")
        );
        let e = legacy.call_tool("only_task", json!({})).await.unwrap_err();
        assert_eq!(e.code(), -32601, "{e}");
        legacy.close().await.unwrap();
    })
    .await;
}

/// Tokens named after their owner (`alice-token`).
struct Names;

impl TokenVerifier for Names {
    fn verify<'a>(&'a self, token: &'a str) -> futures_util::future::BoxFuture<'a, Result<AuthInfo, String>> {
        Box::pin(async move {
            match token.strip_suffix("-token") {
                Some(name) => Ok(AuthInfo::from_claims(serde_json::Map::from_iter([("sub".to_string(), json!(name))]))),
                None => Err("unknown token".into()),
            }
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_its_owners_only() {
    bounded(async {
        let (tx, _rx) = mpsc::unbounded_channel();
        let auth = ResourceServerOptions {
            resource: "https://mcp.test/mcp".into(),
            authorization_servers: vec!["https://as.test".into()],
            verifier: Some(Arc::new(Names)),
            ..Default::default()
        };
        let ts = TestServer::start(
            &server(TaskOptions::default(), tx),
            hypermcp::http::HttpOptions { auth: Some(auth), ..options() },
        )
        .await;
        let url = format!("http://{}/mcp", ts.host());
        let as_user = |name: &str| HttpClientOptions::default().bearer_token(format!("{name}-token"));
        let alice = Client::http(&url, as_user("alice"), modern(true)).await.unwrap();
        let bob = Client::http(&url, as_user("bob"), modern(true)).await.unwrap();
        let id = call(&alice, "work", json!({"ms": 50})).await["taskId"].as_str().unwrap().to_string();
        for op in ["tasks/get", "tasks/cancel"] {
            let e = bob.request(op, Some(json!({"taskId": id})), Default::default()).await.unwrap_err();
            assert_eq!(e.code(), -32602, "{op}: another principal's task is unknown to them: {e}");
        }
        assert_eq!(wait_for(&alice, &id, "completed").await["status"], "completed");
        alice.close().await.unwrap();
        bob.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_follows_a_task() {
    bounded(async {
        let (tx, _rx) = mpsc::unbounded_channel();
        let ts = TestServer::start(&server(TaskOptions::default(), tx), options()).await;
        let url = format!("http://{}/mcp", ts.host());
        let c = Client::http(&url, HttpClientOptions::default(), modern(true)).await.unwrap();
        let id = call(&c, "steps", json!({})).await["taskId"].as_str().unwrap().to_string();
        let filter = SubscriptionFilter { task_ids: Some(vec![id.clone()]), ..Default::default() };
        let mut sub = c.listen(filter).await.unwrap();
        let (method, ack) = sub.next().await.unwrap();
        assert_eq!(method, "notifications/subscriptions/acknowledged");
        assert_eq!(ack["notifications"]["taskIds"], json!([id]));
        let mut messages = Vec::new();
        loop {
            let (method, task) = sub.next().await.expect("notifications until the task ends");
            assert_eq!(method, "notifications/tasks");
            assert_eq!(task["taskId"], id.as_str());
            if let Some(m) = task["statusMessage"].as_str() {
                messages.push(m.to_string());
            }
            if task["status"] == "completed" {
                assert_eq!(task["result"]["content"][0]["text"], "all steps done", "the full task: {task}");
                break;
            }
        }
        assert!(messages.contains(&"step 2 of 3".to_string()), "progress on the stream: {messages:?}");
        // A client without the extension cannot follow tasks.
        let plain = Client::http(&url, HttpClientOptions::default(), modern(false)).await.unwrap();
        let asked = json!({"notifications": {"taskIds": [id]}});
        let e = plain.request("subscriptions/listen", Some(asked), Default::default()).await.unwrap_err();
        assert_eq!(e.code(), -32021, "{e}");
        c.close().await.unwrap();
        plain.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_follows_a_task_to_its_result() {
    bounded(async {
        let (tx, mut cancelled) = mpsc::unbounded_channel();
        let ts = fast_polling(tx).await;
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = asked.clone();
        let options = modern(true).on_elicitation(false, move |_p| {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                Ok(hypermcp::ElicitResult {
                    action: hypermcp::ElicitAction::Accept,
                    content: Some(serde_json::Map::from_iter([("ok".to_string(), json!(true))])),
                    meta: None,
                })
            }
        });
        let c =
            Client::http(&format!("http://{}/mcp", ts.host()), HttpClientOptions::default(), options).await.unwrap();
        // call_tool reads the same whether the server ran the call as a task or not.
        let r = c.call_tool("work", json!({"ms": 100})).await.unwrap();
        let text = r.content[0].as_text().unwrap().to_string();
        assert!(text.starts_with("worked 100 ms as task ") && !text.ends_with(" -"), "{text}");
        // The task's input requests go to the client's handlers, the answers back with tasks/update.
        let r = c.call_tool("ask_twice", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("true true"));
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
        // A task's result is checked against the tool's outputSchema, as a plain call's is.
        let r = c.call_tool("typed", json!({})).await.unwrap();
        assert!(r.failed(), "{r:?}");
        assert!(r.content[0].as_text().unwrap().contains("does not match its outputSchema"), "{r:?}");
        // Cancelling the call cancels the task.
        let opts = hypermcp::CallOptions { timeout: Some(Duration::from_millis(300)), ..Default::default() };
        let e = c.call_tool_with("wait_for_cancel", json!({}), opts).await.unwrap_err();
        assert_eq!(e.code(), -32001, "the call timed out: {e}");
        assert!(cancelled.recv().await.is_some(), "and its task was cancelled");
        c.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_handle_is_followed_from_any_client() {
    bounded(async {
        let (tx, mut cancelled) = mpsc::unbounded_channel();
        let ts = fast_polling(tx).await;
        let url = format!("http://{}/mcp", ts.host());
        let first = Client::http(&url, HttpClientOptions::default(), modern(true)).await.unwrap();
        let ToolCall::Task(handle) = first.call_tool_task("work", json!({"ms": 200})).await.unwrap() else {
            panic!("a task")
        };
        assert_eq!(handle.status().await.unwrap()["status"], "working");
        let id = handle.id().to_string();
        first.close().await.unwrap();
        // Another client (a host that restarted) waits for its result by id.
        let second = Client::http(&url, HttpClientOptions::default(), modern(true)).await.unwrap();
        let r = second.task(&id).result(None).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some(format!("worked 200 ms as task {id}").as_str()));
        // Without the extension the call is done at once.
        let plain = Client::http(&url, HttpClientOptions::default(), modern(false)).await.unwrap();
        assert!(matches!(plain.call_tool_task("work", json!({"ms": 1})).await.unwrap(), ToolCall::Done(_)));
        // A handle cancels; waiting on a cancelled task is -32800; waiting is bounded.
        let ToolCall::Task(h) = second.call_tool_task("wait_for_cancel", json!({})).await.unwrap() else { panic!() };
        let e = h.result(Some(Duration::from_millis(200))).await.unwrap_err();
        assert_eq!(e.code(), -32001, "{e}");
        assert!(cancelled.recv().await.is_some(), "the timeout cancelled the task");
        let ToolCall::Task(h) = second.call_tool_task("wait_for_cancel", json!({})).await.unwrap() else { panic!() };
        h.cancel().await.unwrap();
        assert_eq!(h.result(None).await.unwrap_err().code(), -32800);
        second.close().await.unwrap();
        plain.close().await.unwrap();
    })
    .await;
}

/// The tasks of a 2025-11-25 session: the same runtime and handlers, that revision's
/// experimental methods and shapes (`capabilities.tasks`, `execution.taskSupport`,
/// `params.task` answered `{task}`, `tasks/get|result|list|cancel`, input requests sent as
/// real requests on the `tasks/result` stream).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions_serve_the_same_tasks() {
    bounded(async {
        let (tx, mut cancelled) = mpsc::unbounded_channel();
        let s = server(TaskOptions { poll_interval: Duration::from_millis(50), ..Default::default() }, tx);
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = asked.clone();
        let options = ClientOptions::default().mode(ClientMode::Legacy).on_elicitation(false, move |_p| {
            let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                Ok(hypermcp::ElicitResult {
                    action: hypermcp::ElicitAction::Accept,
                    content: Some(serde_json::Map::from_iter([("ok".to_string(), json!(n == 0))])),
                    meta: None,
                })
            }
        });
        let (options, mut notes) = notification_channel(options);
        let tapped = connect_tapped(&s, options).await;
        let c = &tapped.client;
        assert_eq!(tapped.rev(), hypermcp::ProtocolVersion::V2025_11_25);
        let req = |m: &'static str, p: Value| {
            let c = &tapped.client;
            async move { c.request(m, Some(p), Default::default()).await }
        };
        assert_eq!(
            c.server().capabilities.tasks,
            Some(json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}))
        );
        let tools = req("tools/list", json!({})).await.unwrap();
        let support = |name: &str| {
            tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"]
                .clone()
        };
        assert_eq!(support("work"), json!("optional"));
        assert_eq!(support("only_task"), json!("required"));
        assert_eq!(support("plain"), Value::Null);

        // params.task: the call is answered with {task}, in 2025-11-25's shape.
        let created =
            req("tools/call", json!({"name": "work", "arguments": {"ms": 100}, "task": {"ttl": 60000}})).await.unwrap();
        let task = &created["task"];
        let id = task["taskId"].as_str().unwrap().to_string();
        assert_eq!(task["status"], "working", "{created}");
        assert!(task["ttl"].as_u64().unwrap() > 0 && task["pollInterval"].as_u64().unwrap() > 0, "{created}");
        assert!(task.get("ttlMs").is_none() && created.get("resultType").is_none(), "{created}");
        let got = req("tasks/get", json!({"taskId": id})).await.unwrap();
        assert_eq!(got["taskId"], id.as_str());
        assert!(got.get("result").is_none() && got.get("ttl").is_some(), "{got}");
        // tasks/result waits for the end and answers what the call would have.
        let result = req("tasks/result", json!({"taskId": id})).await.unwrap();
        assert_eq!(result["content"][0]["text"], format!("worked 100 ms as task {id}"), "{result}");
        assert_eq!(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
        // The session that created it is told of its changes, up to its end.
        loop {
            let status = next_notification(&mut notes, "notifications/tasks/status").await;
            assert_eq!(status["taskId"], id.as_str(), "{status}");
            if status["status"] == "completed" {
                assert!(status.get("result").is_none() && status.get("ttl").is_some(), "{status}");
                break;
            }
        }
        // The same task, seen from a 2026-07-28 client.
        let modern_client = Client::in_memory(&s, modern(true)).await.unwrap();
        assert_eq!(get(&modern_client, &id).await.unwrap()["status"], "completed");
        modern_client.close().await.unwrap();

        // Input requests reach the client's handler through tasks/result.
        let created = req("tools/call", json!({"name": "ask_twice", "arguments": {}, "task": {}})).await.unwrap();
        let asking = created["task"]["taskId"].as_str().unwrap().to_string();
        let result = req("tasks/result", json!({"taskId": asking})).await.unwrap();
        assert_eq!(result["content"][0]["text"], "true false", "{result}");
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);

        // tasks/list: the session's tasks.
        let listed = req("tasks/list", json!({})).await.unwrap();
        let ids: Vec<&str> = listed["tasks"].as_array().unwrap().iter().filter_map(|t| t["taskId"].as_str()).collect();
        assert!(ids.contains(&id.as_str()) && ids.contains(&asking.as_str()), "{listed}");
        assert_eq!(req("tasks/list", json!({"cursor": "nonsense"})).await.unwrap_err().code(), -32602);

        // tasks/cancel answers the cancelled task; a finished one is refused.
        let created = req("tools/call", json!({"name": "wait_for_cancel", "arguments": {}, "task": {}})).await.unwrap();
        let waiting = created["task"]["taskId"].as_str().unwrap().to_string();
        let after = req("tasks/cancel", json!({"taskId": waiting})).await.unwrap();
        assert_eq!(after["status"], "cancelled", "{after}");
        assert_eq!(cancelled.recv().await.as_deref(), Some(waiting.as_str()), "the handler saw the cancel");
        assert_eq!(req("tasks/cancel", json!({"taskId": waiting})).await.unwrap_err().code(), -32602);
        assert_eq!(req("tasks/result", json!({"taskId": waiting})).await.unwrap_err().code(), -32800);

        // What runs as a task and what does not.
        let e = req("tools/call", json!({"name": "plain", "arguments": {}, "task": {}})).await.unwrap_err();
        assert_eq!(e.code(), -32601, "{e}");
        // A tool that runs only as a task: this client learnt it from tools/list, so it asks
        // for a task itself (a client that did not is refused: -32601, in the Python tests).
        let created = req("tools/call", json!({"name": "only_task", "arguments": {}})).await.unwrap();
        assert_eq!(created["task"]["status"], "working", "{created}");
        let plain = req("tools/call", json!({"name": "work", "arguments": {"ms": 1}})).await.unwrap();
        assert_eq!(plain["content"][0]["text"], "worked 1 ms as task -");
        assert_eq!(req("tasks/get", json!({"taskId": "nope"})).await.unwrap_err().code(), -32602);
        // Every message of the session is 2025-11-25's (the official schema).
        assert!(tapped.assert_all_valid() > 20);
        tapped.client.close().await.unwrap();

        // An older revision has none of it.
        let mut older = ClientOptions::default().mode(ClientMode::Legacy);
        older.protocol_version = hypermcp::ProtocolVersion::V2025_06_18;
        let old = Client::in_memory(&s, older).await.unwrap();
        assert!(old.server().capabilities.tasks.is_none());
        let e = old.request("tasks/list", Some(json!({})), Default::default()).await.unwrap_err();
        assert_eq!(e.code(), -32601);
        old.close().await.unwrap();
    })
    .await;
}

/// A 2025-11-25 client runs a tool as a task when the server's `tools/list` says so
/// (`execution.taskSupport` "required", or "optional" when the client declares tasks):
/// `call_tool` sends `params.task` and follows the task with `tasks/result` (its input
/// requests through the client's handlers); `call_tool_task` gives the handle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_clients_follow_tasks() {
    bounded(async {
        let (tx, mut cancelled) = mpsc::unbounded_channel();
        let s = server(TaskOptions { poll_interval: Duration::from_millis(50), ..Default::default() }, tx);
        let options = ClientOptions::default().mode(ClientMode::Legacy).tasks().on_elicitation(false, |p| async move {
            // Each input request names its task.
            assert!(p.meta().and_then(|m| m.get("io.modelcontextprotocol/related-task")).is_some(), "{p:?}");
            Ok(hypermcp::ElicitResult {
                action: hypermcp::ElicitAction::Accept,
                content: Some(serde_json::Map::from_iter([("ok".to_string(), json!(true))])),
                meta: None,
            })
        });
        let c = Client::in_memory(&s, options).await.unwrap();
        c.list_tools().await.unwrap();
        let r = c.call_tool("work", json!({"ms": 20})).await.unwrap();
        let text = r.content[0].as_text().unwrap_or_default().to_string();
        assert!(text.starts_with("worked 20 ms as task ") && !text.ends_with(" -"), "{text}");
        let r = c.call_tool("ask_twice", json!({})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("true true"));
        assert_eq!(c.call_tool("only_task", json!({})).await.unwrap().content[0].as_text(), Some("done"));
        // A handle: its status, its cancellation, and a bounded wait that cancels the task.
        let ToolCall::Task(h) = c.call_tool_task("wait_for_cancel", json!({})).await.unwrap() else { panic!("a task") };
        assert_eq!(h.status().await.unwrap()["status"], "working");
        h.cancel().await.unwrap();
        assert_eq!(cancelled.recv().await.as_deref(), Some(h.id()));
        assert_eq!(h.result(None).await.unwrap_err().code(), -32800);
        let ToolCall::Task(h) = c.call_tool_task("wait_for_cancel", json!({})).await.unwrap() else { panic!("a task") };
        assert_eq!(h.result(Some(Duration::from_millis(200))).await.unwrap_err().code(), -32001);
        assert_eq!(cancelled.recv().await.as_deref(), Some(h.id()), "the timeout cancelled the task");
        assert_eq!(c.call_tool("plain", json!({})).await.unwrap().content[0].as_text(), Some("plain"));
        c.close().await.unwrap();
        // Without tasks declared an optional task tool is a plain call.
        let plain = Client::in_memory(&s, ClientOptions::default().mode(ClientMode::Legacy)).await.unwrap();
        plain.list_tools().await.unwrap();
        let r = plain.call_tool("work", json!({"ms": 1})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("worked 1 ms as task -"));
        plain.close().await.unwrap();
    })
    .await;
}
