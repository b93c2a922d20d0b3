//! Client request interceptors in Rust: every request the client sends passes them in order,
//! in both eras, in memory and over HTTP; one changes the arguments, one answers by itself, one
//! observes results and the server's errors.

use crate::common::bounded;
use crate::http_util::TestServer;
use futures_util::future::BoxFuture;
use hypermcp::client::{ClientNext, ClientRequest, Interceptor};
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::{CallToolResult, Client, ClientMode, ClientOptions, RpcError, Server, Tool};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn server() -> Server {
    Server::new("intercepted", "1.0.0")
        .tool(Tool::new("echo"), |args, _c| async move {
            CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or_default().to_string())
        })
        .tool(Tool::new("fail"), |_a, _c| async move {
            Err::<CallToolResult, _>(hypermcp::Error::Rpc(RpcError::new(-32042, "not today")))
        })
}

struct Observe(Arc<Mutex<Vec<String>>>);

impl Interceptor for Observe {
    fn intercept<'a>(&'a self, request: ClientRequest, next: ClientNext<'a>) -> BoxFuture<'a, hypermcp::Result<Value>> {
        Box::pin(async move {
            let method = request.method.clone();
            self.0.lock().unwrap().push(format!("-> {method}"));
            let result = next.run(request).await;
            let note = match &result {
                Ok(_) => format!("<- {method}"),
                Err(e) => format!("!! {method} {}", e.code()),
            };
            self.0.lock().unwrap().push(note);
            result
        })
    }
}

/// Shouts what `echo` is asked to say.
struct Shout;

impl Interceptor for Shout {
    fn intercept<'a>(
        &'a self,
        mut request: ClientRequest,
        next: ClientNext<'a>,
    ) -> BoxFuture<'a, hypermcp::Result<Value>> {
        if let Some(p) = request.params.as_mut().filter(|p| p["name"] == "echo") {
            let loud = p["arguments"]["text"].as_str().unwrap_or_default().to_uppercase();
            p["arguments"]["text"] = json!(loud);
        }
        next.run(request)
    }
}

/// Answers the tool `local` without sending.
struct Offline;

impl Interceptor for Offline {
    fn intercept<'a>(&'a self, request: ClientRequest, next: ClientNext<'a>) -> BoxFuture<'a, hypermcp::Result<Value>> {
        if request.method == "tools/call" && request.params.as_ref().is_some_and(|p| p["name"] == "local") {
            return Box::pin(async { Ok(json!({"content": [{"type": "text", "text": "answered here"}]})) });
        }
        next.run(request)
    }
}

fn options(mode: ClientMode, seen: &Arc<Mutex<Vec<String>>>) -> ClientOptions {
    ClientOptions::new("t", "1").mode(mode).interceptor(Observe(seen.clone())).interceptor(Shout).interceptor(Offline)
}

async fn exercise(client: &Client, seen: &Arc<Mutex<Vec<String>>>) {
    let text = |r: CallToolResult| r.content[0].as_text().unwrap_or_default().to_string();
    assert_eq!(text(client.call_tool("echo", json!({"text": "hi"})).await.unwrap()), "HI");
    assert_eq!(text(client.call_tool("local", json!({})).await.unwrap()), "answered here");
    assert_eq!(client.call_tool("fail", json!({})).await.unwrap_err().code(), -32042);
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["echo", "fail"]);
    let seen = seen.lock().unwrap();
    let calls: Vec<&String> = seen.iter().filter(|s| s.contains("tools/call")).collect();
    assert_eq!(
        calls,
        ["-> tools/call", "<- tools/call", "-> tools/call", "<- tools/call", "-> tools/call", "!! tools/call -32042"],
        "{seen:?}"
    );
    assert!(seen.contains(&"-> tools/list".to_string()), "{seen:?}");
}

#[tokio::test]
async fn interceptors_in_memory_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let seen = Arc::default();
            let client = Client::in_memory(&server(), options(mode, &seen)).await.unwrap();
            exercise(&client, &seen).await;
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interceptors_over_http_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let seen = Arc::default();
            let ts = TestServer::start(&server(), HttpOptions::default()).await;
            let url = format!("http://{}/mcp", ts.host());
            let client = Client::http(&url, HttpClientOptions::default(), options(mode, &seen)).await.unwrap();
            exercise(&client, &seen).await;
            client.close().await.unwrap();
        }
    })
    .await;
}
