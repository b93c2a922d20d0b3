//! The 2026-07-28 revision over a byte stream (stdio's framing): requests served statelessly
//! beside a legacy session in the same process, multi round-trip requests, and a
//! `subscriptions/listen` stream tagged by its request id and ended by `notifications/cancelled`.

use crate::common;

use common::{assert_valid, assert_valid_result, bounded};
use hypermcp::{CallToolResult, ElicitParams, Server, Tool};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

const MODERN: &str = "2026-07-28";

struct Pipe {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
}

impl Pipe {
    fn start(server: Server) -> Pipe {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (r, w) = tokio::io::split(theirs);
        tokio::spawn(async move { server.serve(r, w).await });
        let (r, w) = tokio::io::split(ours);
        Pipe { lines: BufReader::new(r).lines(), write: w }
    }

    async fn send(&mut self, msg: Value) {
        let mut line = serde_json::to_vec(&msg).unwrap();
        line.push(b'\n');
        self.write.write_all(&line).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = self.lines.next_line().await.unwrap().expect("a message");
        serde_json::from_str(&line).unwrap()
    }

    /// The next response, past the tool list changes a legacy session on the same stream may
    /// be told of at any time.
    async fn response(&mut self) -> Value {
        let mut msg = self.next().await;
        while msg.get("id").is_none() {
            assert_eq!(msg["method"], "notifications/tools/list_changed", "{msg}");
            msg = self.next().await;
        }
        msg
    }

    async fn call(&mut self, id: i64, method: &str, mut params: Value) -> Value {
        if params.get("_meta").is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
            });
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let msg = self.response().await;
        assert_valid_result(MODERN, method, &msg);
        msg
    }
}

fn server() -> Server {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    Server::new("stdio-modern", "1.0.0")
        .tool(Tool::new("echo"), |_a, _c| async { CallToolResult::text("echoed") })
        .tool(Tool::new("ask"), move |_args, ctx| {
            let schema = schema.clone();
            async move {
                let r = ctx.elicit(ElicitParams::form("Name?", schema)).await?;
                let name = r.content.and_then(|c| c.get("name").cloned()).unwrap_or_default();
                Ok::<_, hypermcp::Error>(format!("hi {}", name.as_str().unwrap_or("?")))
            }
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_eras_in_one_process() {
    bounded(async {
        let s = server();
        let mut p = Pipe::start(s.clone());
        let d = p.call(1, "server/discover", json!({})).await;
        assert_eq!(d["result"]["supportedVersions"][0], MODERN);

        // A round trip for input.
        let r = p.call(2, "tools/call", json!({"name": "ask"})).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        let state = r["result"]["requestState"].clone();
        let answer = json!({"elicitation_1": {"action": "accept", "content": {"name": "Bo"}}});
        let r = p.call(3, "tools/call", json!({"name": "ask", "inputResponses": answer, "requestState": state})).await;
        assert_eq!(r["result"]["content"][0]["text"], "hi Bo");

        // A listen stream: acknowledged, tagged, ended by cancellation (no response).
        p.send(json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": true},
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
        }}))
        .await;
        let ack = p.next().await;
        assert_valid(MODERN, &ack);
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 4);
        s.add_tool(Tool::new("new"), |_a, _c| async { CallToolResult::text("") }).unwrap();
        let n = p.next().await;
        assert_eq!(n["method"], "notifications/tools/list_changed");
        assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 4);
        p.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}})).await;
        s.remove_tool("new");
        // Nothing more for the cancelled listener: the next line answers the legacy session
        // that starts now, on the same stream.
        p.send(json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
        }}))
        .await;
        let init = p.next().await;
        assert_eq!(init["id"], 5, "no notification for the cancelled listener came first: {init}");
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        p.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        p.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo"}})).await;
        // (The tool removal may reach the new legacy session as a list_changed first.)
        let legacy = p.response().await;
        assert_eq!(legacy["result"]["content"][0]["text"], "echoed");
        assert!(legacy["result"].get("resultType").is_none(), "legacy results are not stamped: {legacy}");
        // A modern request still works after the legacy handshake.
        let r = p.call(7, "tools/call", json!({"name": "echo"})).await;
        assert_eq!(r["result"]["resultType"], "complete");
    })
    .await;
}

/// A 2026-07-28 call's name and arguments are read with its context, and its params read in
/// full only when its `_meta` holds keys of the caller's own: the handler sees the same either
/// way (the arguments, the caller's keys without the revision's, an escaped name decoded).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_arguments_and_own_meta_reach_the_handler() {
    bounded(async {
        let s = Server::new("meta", "1.0.0").tool(Tool::new("show"), |args, ctx| async move {
            let meta = ctx.meta().map(|m| serde_json::to_value(m).expect("meta serializes"));
            CallToolResult::text(json!({"args": args, "meta": meta}).to_string())
        });
        let mut p = Pipe::start(s);
        let seen = |r: Value| -> Value {
            let text = r["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{r}")).to_string();
            serde_json::from_str(&text).expect("the tool's JSON")
        };
        let meta = |own: Value| {
            let mut m = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            });
            m.as_object_mut().unwrap().extend(own.as_object().unwrap().clone());
            m
        };
        // No keys of its own: read with the context.
        let r = p.call(1, "tools/call", json!({"name": "show", "arguments": {"a": [1, "x"]}, "_meta": meta(json!({}))})).await;
        assert_eq!(seen(r), json!({"args": {"a": [1, "x"]}, "meta": null}));
        // Keys of its own: they reach the handler, the revision's do not.
        let own = json!({"com.example/trace": "t-1", "com.example/other": 2});
        let r = p.call(2, "tools/call", json!({"name": "show", "arguments": {"b": true}, "_meta": meta(own.clone())})).await;
        assert_eq!(seen(r), json!({"args": {"b": true}, "meta": own}));
        // Null arguments; an escaped name.
        let r = p.call(3, "tools/call", json!({"name": "show", "arguments": null, "_meta": meta(json!({}))})).await;
        assert_eq!(seen(r), json!({"args": {}, "meta": null}));
        let raw = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sh\u006fw","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        p.write.write_all(format!("{raw}\n").as_bytes()).await.unwrap();
        assert_eq!(seen(p.response().await), json!({"args": {}, "meta": null}));
        // A name that is not a string, a repeated revision key: refused, as before.
        let params = json!({"name": 7, "_meta": meta(json!({}))});
        p.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params})).await;
        let r = p.response().await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let dup = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"show","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}}}"#;
        p.write.write_all(format!("{dup}\n").as_bytes()).await.unwrap();
        let r = p.response().await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
    })
    .await;
}

/// A `requestState` expires by the server's wall clock (`ServerConfig::wall_clock`), which a
/// test moves instead of waiting: the same answer is taken before the state's TTL and
/// refused after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_expires_by_the_servers_wall_clock() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    bounded(async {
        let now = Arc::new(AtomicU64::new(1_000_000));
        let clock = now.clone();
        let s = server().configure(move |c| {
            c.wall_clock = hypermcp::engine::WallClock(Arc::new(move || clock.load(Ordering::Relaxed)));
            c.request_state.ttl = std::time::Duration::from_secs(60);
        });
        let mut p = Pipe::start(s);
        let r = p.call(1, "tools/call", json!({"name": "ask"})).await;
        let state = r["result"]["requestState"].clone();
        let answer = json!({"elicitation_1": {"action": "accept", "content": {"name": "Bo"}}});
        let retry = json!({"name": "ask", "inputResponses": answer, "requestState": state});
        now.fetch_add(59_000, Ordering::Relaxed);
        let r = p.call(2, "tools/call", retry.clone()).await;
        assert_eq!(r["result"]["content"][0]["text"], "hi Bo", "{r}");
        now.fetch_add(2_000, Ordering::Relaxed);
        let r = p.call(3, "tools/call", retry).await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(r["error"]["message"].as_str().unwrap_or_default().contains("expired"), "{r}");
    })
    .await;
}
