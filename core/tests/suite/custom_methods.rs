//! Methods of a server's own (`Server::method`, `Server::notification`): served in both
//! eras, in memory and over HTTP, with `_meta` and the request's context; a name the spec
//! owns is refused at definition; an unknown method is still -32601; middleware sees them
//! (notifications through `on_notification`, which may change or drop them).

use crate::common::bounded;
use crate::http_util::TestServer;
use hypermcp::engine::Outcome;
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::runtime::{BoxFuture, Hooks, Middleware, MiddlewareContext, Next, NotificationContext, NotificationNext};
use hypermcp::{CallOptions, Client, ClientMode, ClientOptions, Server};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

struct Seen(Arc<Mutex<Vec<String>>>);

impl Middleware for Seen {
    fn hooks(&self) -> Hooks {
        Hooks::REQUEST
    }
    fn on_request<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        self.0.lock().unwrap().push(cx.method().to_string());
        next.run(cx)
    }
}

/// Marks the notifications it passes on, and drops those that ask for it.
struct Notes(Arc<Mutex<Vec<String>>>);

impl Middleware for Notes {
    fn hooks(&self) -> Hooks {
        Hooks::NOTIFICATION
    }
    fn on_notification<'a>(&'a self, mut cx: NotificationContext, next: NotificationNext<'a>) -> BoxFuture<'a, ()> {
        self.0.lock().unwrap().push(format!("{} {}", cx.kind(), cx.method));
        if cx.params.get("drop") == Some(&Value::Bool(true)) {
            return Box::pin(async {});
        }
        cx.params.insert("seen".into(), Value::Bool(true));
        next.run(cx)
    }
}

type Pings = tokio::sync::mpsc::UnboundedReceiver<Value>;

fn server(seen: &Arc<Mutex<Vec<String>>>) -> (Server, Pings) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let server = Server::new("own", "1.0.0")
        .middleware(Seen(seen.clone()))
        .middleware(Notes(seen.clone()))
        .method("acme/search", |params, ctx| async move {
            let q = params.get("q").and_then(Value::as_str).unwrap_or_default().to_string();
            let trace = ctx.meta().and_then(|m| m.get("acme/trace")).cloned();
            Ok(json!({ "hits": [format!("{q}-1"), format!("{q}-2")], "trace": trace, "modern": ctx.request_context().is_some() }))
        })
        .method("acme/fail", |_params, _ctx| async move {
            Err(hypermcp::Error::Rpc(hypermcp::RpcError::new(-32042, "no index today")))
        })
        .notification("notifications/acme/indexed", move |params| {
            let _ = tx.send(Value::Object(params));
            async {}
        });
    (server, rx)
}

async fn exercise(client: &Client, pings: &mut Pings, seen: &Arc<Mutex<Vec<String>>>, modern: bool) {
    let params = json!({"q": "mcp", "_meta": {"acme/trace": "t-1"}});
    let r = client.request("acme/search", Some(params), CallOptions::default()).await.unwrap();
    assert_eq!(r["hits"], json!(["mcp-1", "mcp-2"]), "{r}");
    assert_eq!(r["trace"], "t-1", "the handler reads _meta from its context: {r}");
    assert_eq!(r["modern"], modern);
    assert!(seen.lock().unwrap().contains(&"acme/search".to_string()), "middleware sees the method");
    let e = client.request("acme/fail", None, CallOptions::default()).await.unwrap_err();
    assert_eq!(e.code(), -32042, "{e}");
    let e = client.request("acme/unknown", None, CallOptions::default()).await.unwrap_err();
    assert_eq!(e.code(), -32601, "{e}");
    let e = client.request("acme/search", Some(json!([1])), CallOptions::default()).await.unwrap_err();
    assert_eq!(e.code(), -32602, "{e}");
    client.notify("notifications/acme/indexed", Some(json!({"drop": true}))).await.unwrap();
    client.notify("notifications/acme/indexed", Some(json!({"docs": 3}))).await.unwrap();
    assert_eq!(pings.recv().await, Some(json!({"docs": 3, "seen": true})), "the dropped one never arrives");
    let noted = || seen.lock().unwrap().iter().filter(|s| *s == "notification notifications/acme/indexed").count();
    for _ in 0..500 {
        if noted() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    assert_eq!(noted(), 2, "both passed on_notification");
}

#[tokio::test]
async fn own_methods_in_memory_in_both_eras() {
    bounded(async {
        for (mode, modern) in [(ClientMode::Legacy, false), (ClientMode::Modern, true)] {
            let seen = Arc::default();
            let (server, mut pings) = server(&seen);
            let client = Client::in_memory(&server, ClientOptions::new("t", "1").mode(mode)).await.unwrap();
            exercise(&client, &mut pings, &seen, modern).await;
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_methods_over_http_in_both_eras() {
    bounded(async {
        for (mode, modern) in [(ClientMode::Legacy, false), (ClientMode::Modern, true)] {
            let seen = Arc::default();
            let (server, mut pings) = server(&seen);
            let ts = TestServer::start(&server, HttpOptions::default()).await;
            let url = format!("http://{}/mcp", ts.host());
            let options = ClientOptions::new("t", "1").mode(mode);
            let client = Client::http(&url, HttpClientOptions::default(), options).await.unwrap();
            exercise(&client, &mut pings, &seen, modern).await;
            client.close().await.unwrap();
        }
    })
    .await;
}

#[test]
fn names_the_spec_owns_are_refused() {
    let server = Server::new("s", "1");
    let handler = |_p, _c| async move { Ok(Value::Null) };
    for name in ["tools/call", "tools/search", "notifications/progress", "rpc.x", "bad name", ""] {
        let e = server.add_method(name, handler).unwrap_err().to_string();
        assert!(e.contains(name) || name.is_empty(), "{e}");
    }
    assert!(server.add_notification("notifications/tools/list_changed", |_p| async {}).is_err());
    assert!(server.add_method("acme/ok", handler).is_ok());
    assert!(server.remove_method("acme/ok"));
    assert!(!server.remove_method("acme/ok"));
}
