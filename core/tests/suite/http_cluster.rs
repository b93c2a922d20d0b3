//! Replicas sharing a store (issue 16): any replica serves any request of a legacy session.
//! Each scenario runs on the in-memory hub and on a real Redis (a `redis-server` started on
//! a free loopback port; `make test` installs it, and `HYPERMCP_REQUIRE_REDIS=1` makes its
//! absence a failure instead of a skip).

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::store::{ClusterStore, MemoryHub};
use hypermcp::{CallToolResult, ReadResourceResult, Resource, Tool};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

const REV: &str = "2025-11-25";

/// A `redis-server` of this test's own on a free loopback port, stopped when dropped.
pub(crate) struct Redis {
    child: Option<Child>,
    port: u16,
    dir: std::path::PathBuf,
}

impl Redis {
    /// `None` when redis-server is not installed (and not required).
    pub(crate) fn start() -> Option<Redis> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
        let dir = std::env::temp_dir().join(format!("hypermcp-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let mut r = Redis { child: None, port, dir };
        if !r.spawn() {
            if std::env::var("HYPERMCP_REQUIRE_REDIS").is_ok_and(|v| v == "1") {
                panic!("redis-server is required (HYPERMCP_REQUIRE_REDIS=1) but could not be started");
            }
            eprintln!("skipped: redis-server is not installed (make test installs it)");
            return None;
        }
        Some(r)
    }

    fn spawn(&mut self) -> bool {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .current_dir(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else { return false };
        self.child = Some(child);
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where the replicas of one scenario share their state.
pub(crate) enum Backend {
    Memory(Arc<MemoryHub>),
    Redis(Redis),
}

impl Backend {
    pub(crate) async fn store(&self) -> Arc<dyn ClusterStore> {
        match self {
            Backend::Memory(hub) => hub.replica(),
            Backend::Redis(r) => hypermcp::store::connect(&r.url()).await.expect("connect to the test's Redis"),
        }
    }
}

/// The backends to run a scenario on: the memory hub, and Redis when there is one.
pub(crate) fn backends() -> Vec<Backend> {
    let mut b = vec![Backend::Memory(MemoryHub::new())];
    if let Some(r) = Redis::start() {
        b.push(Backend::Redis(r));
    }
    b
}

/// The test server with a resource clients subscribe to.
fn cluster_server() -> hypermcp::Server {
    test_server().resource(Resource::new("mem://weather", "weather"), |r, _c| async move {
        Ok(ReadResourceResult::text(r.uri, "sunny", None))
    })
}

/// A replica: its own server (its own registry, as in another process) and the shared store.
async fn replica(backend: &Backend) -> (TestServer, hypermcp::Server) {
    let server = cluster_server();
    let options = options().with_cluster(backend.store().await);
    (TestServer::start(&server, options).await, server)
}

/// Opens a session on `ts` (initialize only; `initialized` goes elsewhere).
async fn initialize_on(ts: &TestServer) -> McpSession {
    let mut r = ts.send(Req::post(&initialize_request(REV, 1))).await;
    assert_eq!(r.status, 200, "initialize: {r:?}");
    let id = r.header("mcp-session-id").expect("a session id").to_string();
    let _ = r.json().await;
    McpSession { id, version: REV.into() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_replica_serves_any_request_of_a_session() {
    for backend in backends() {
        let (a, _sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let s = initialize_on(&a).await;
        // The handshake ends on another replica, and calls go anywhere.
        notify_initialized(&b, &s).await;
        let r = rpc(&b, &s, &call(2, "echo", json!({"text": "on b"}))).await;
        assert_eq!(r.response(2)["result"]["content"][0]["text"], "on b", "{r:?}");
        let r = rpc(&a, &s, &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})).await;
        assert!(r.response(3)["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{r:?}");
        // A session no replica knows is still 404.
        let gone = McpSession { id: "0123456789abcdef0123456789abcdef".into(), version: REV.into() };
        let r = b.send(Req::post(&call(4, "echo", json!({}))).session(&gone)).await;
        assert_eq!(r.status, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_answer_reaches_the_replica_that_asked_and_settings_follow_the_session() {
    for backend in backends() {
        let (a, _sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&b, &s).await;
        // The log level is set through B; A's copy learns it (the tool's info log is then
        // filtered out on A).
        let r = rpc(
            &b,
            &s,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "error"}}),
        )
        .await;
        assert!(r.response(2).get("result").is_some(), "{r:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        // `chatty` on A asks the client for a sampling; the answer is POSTed to B.
        let mut stream = a.send(Req::post(&call_with_progress(3, "chatty", json!({}))).session(&s)).await;
        assert!(stream.is_sse(), "{stream:?}");
        let mut seen = Vec::new();
        let request = loop {
            let ev = bounded(stream.message()).await.expect("the sampling request");
            let m = ev.json();
            if m.get("method") == Some(&json!("sampling/createMessage")) {
                break m;
            }
            seen.push(m);
        };
        assert!(
            !seen.iter().any(|m| m["method"] == "notifications/message"),
            "the info log passed a level of error set on another replica: {seen:?}"
        );
        let id = request["id"].as_i64().expect("a numeric request id");
        assert!(id >> 32 > 0, "a replica numbers its requests apart: {id}");
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
            "role": "assistant", "model": "m", "content": {"type": "text", "text": "hello from b"}}});
        let r = b.send(Req::post(&answer).session(&s)).await;
        assert_eq!(r.status, 202, "{r:?}");
        let result = loop {
            let ev = bounded(stream.message()).await.expect("the call's answer");
            let m = ev.json();
            if m.get("id") == Some(&json!(3)) {
                break m;
            }
        };
        assert_eq!(result["result"]["content"][0]["text"], "model said: hello from b", "{result}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_reaches_the_replica_running_the_call() {
    for backend in backends() {
        let (a, _sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&a, &s).await;
        let call = tokio::spawn({
            let req = Req::post(&call(5, "slow", json!({"ms": 10_000}))).session(&s);
            let mut c = Conn::connect(a.addr).await;
            async move {
                c.send(&req).await;
                read_answer(c.response().await).await
            }
        });
        eventually("the call runs on A", Duration::from_secs(5), || a.service.in_flight() == 1).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}});
        let r = b.send(Req::post(&cancel).session(&s)).await;
        assert_eq!(r.status, 202);
        eventually("the call on A is cancelled", Duration::from_secs(5), || a.service.in_flight() == 0).await;
        let answer = bounded(call).await.expect("the call's POST ends");
        assert!(
            answer.messages.iter().all(|m| m.get("id") != Some(&json!(5))),
            "a cancelled call is not answered: {answer:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_through_one_replica_ends_the_session_on_all() {
    for backend in backends() {
        let (a, _sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&b, &s).await;
        assert_eq!(b.service.session_count(), 1, "B restored the session");
        let r = a.send(Req::new("DELETE", "/mcp").session(&s)).await;
        assert_eq!(r.status, 200, "{r:?}");
        eventually("B closes its copy", Duration::from_secs(5), || b.service.session_count() == 0).await;
        let r = b.send(Req::post(&call(2, "echo", json!({}))).session(&s)).await;
        assert_eq!(r.status, 404, "a deleted session is gone on every replica");
        let store = backend.store().await;
        assert_eq!(store.load(&s.id).await.expect("the store answers"), None, "its record is gone");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_get_stream_resumes_on_another_replica_after_its_replica_died() {
    for backend in backends() {
        let (mut a, sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&a, &s).await;
        let mut get = a.send(Req::get().session(&s)).await;
        assert!(get.is_sse(), "{get:?}");
        // A list change on A goes to the session's GET stream there, as event 1.
        sa.add_tool(Tool::new("late"), |_a, _c| async { CallToolResult::text("late") }).expect("add a tool");
        let ev = bounded(get.message()).await.expect("the list change");
        assert_eq!(ev.json()["method"], "notifications/tools/list_changed");
        let event_id = ev.id.clone().expect("an event id");
        let (stream, seq) = event_id.split_once('-').expect("<stream>-<seq>");
        assert_eq!(seq, "1");
        // The store has the event: A writes it there beside its client, not before (a
        // replica that dies in between takes that event with it).
        let store = backend.store().await;
        let stream_no: u64 = stream.parse().expect("a stream number");
        let mut stored = false;
        for _ in 0..200 {
            if store.replay(&s.id, stream_no, 0).await.ok().flatten().is_some_and(|e| !e.is_empty()) {
                stored = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(stored, "A stored the event it sent");
        // Replica A dies; the client resumes on B from before the event it had.
        drop(get);
        drop(a.shutdown());
        let resume = format!("{stream}-0");
        let mut replay = None;
        for _ in 0..100 {
            let mut r = b.send(Req::get().session(&s).header("last-event-id", &resume)).await;
            if r.status == 409 {
                // B has not yet seen the client leave the previous attempt's stream.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            assert!(r.is_sse(), "{r:?}");
            if let Ok(Some(ev)) = r.event_within(Duration::from_millis(200)).await {
                if ev.is_message() {
                    replay = Some(ev);
                    break;
                }
            }
        }
        let ev = replay.expect("B replays the event A sent");
        assert_eq!(ev.id.as_deref(), Some(event_id.as_str()));
        assert_eq!(ev.json()["method"], "notifications/tools/list_changed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_away_at_start_is_a_clear_error_and_lost_while_serving_a_clear_reply() {
    // No Redis on port 1.
    let server = test_server();
    let mut o = options();
    o.store = Some("redis://127.0.0.1:1/0".into());
    let listener = hypermcp::http::server::bind("127.0.0.1:0", &mut o).await.expect("bind");
    let err = bounded(hypermcp::http::serve_http(server.http_service(o), listener, std::future::pending()))
        .await
        .expect_err("serving without its store fails at start");
    let msg = err.to_string();
    assert!(msg.contains("cannot reach Redis at redis://127.0.0.1:1/0"), "{msg}");

    let Some(mut redis) = Redis::start() else { return };
    let url = redis.url();
    let mk = |url: &str| options().with_store(url);
    let a = TestServer::start(&test_server(), mk(&url)).await;
    let b = TestServer::start(&test_server(), mk(&url)).await;
    let s = initialize_on(&a).await;
    notify_initialized(&a, &s).await;
    // B serves once it has joined the store: a session opened on it says it has (else the
    // Redis stopped below could fail B's start, and its queued connections be reset).
    let _joined = initialize_on(&b).await;
    redis.stop();
    // B has never seen the session and cannot load it: 503 saying why; A serves its copy.
    let r = b.send(Req::post(&call(2, "echo", json!({"text": "x"}))).session(&s)).await;
    assert_eq!(r.status, 503, "{r:?}");
    let body: Value = read_answer(r).await.messages.into_iter().next().expect("an error body");
    let why = body["error"]["message"].as_str().unwrap_or_default().to_string();
    assert!(why.contains("session store is unavailable"), "{why}");
    let r = rpc(&a, &s, &call(3, "echo", json!({"text": "still"}))).await;
    assert_eq!(r.response(3)["result"]["content"][0]["text"], "still");
    // Redis comes back (empty: a restart without persistence loses the records, so the
    // session is unknown to B, a 404 the client answers by initializing again); both
    // replicas recover without a restart of their own.
    assert!(redis.spawn(), "restart redis-server");
    let mut fresh = None;
    for _ in 0..100 {
        let mut r = b.send(Req::post(&initialize_request(REV, 1))).await;
        if r.status == 200 {
            let id = r.header("mcp-session-id").expect("a session id").to_string();
            let _ = r.json().await;
            fresh = Some(McpSession { id, version: REV.into() });
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let s2 = fresh.expect("B serves again once Redis is back");
    notify_initialized(&a, &s2).await;
    let r = rpc(&a, &s2, &call(4, "echo", json!({"text": "back"}))).await;
    assert_eq!(r.response(4)["result"]["content"][0]["text"], "back");
}

/// Reads the GET stream until a message with `method` (bounded), returning the messages.
async fn until_method(get: &mut Resp, method: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let ev = bounded(get.message()).await.unwrap_or_else(|| panic!("{method} before the stream ended: {seen:?}"));
        let m = ev.json();
        let done = m["method"] == method;
        seen.push(m);
        if done {
            return seen;
        }
    }
}

/// Three replicas; a session opened on A (its handshake ended on B if `on_b`), subscribed to
/// `mem://weather` through A: (A, B, C, C's server, the session).
async fn subscribed(
    backend: &Backend,
    on_b: bool,
) -> (TestServer, TestServer, TestServer, hypermcp::Server, McpSession) {
    let (a, _sa) = replica(backend).await;
    let (b, _sb) = replica(backend).await;
    let (c, sc) = replica(backend).await;
    let s = initialize_on(&a).await;
    notify_initialized(if on_b { &b } else { &a }, &s).await;
    let subscribe =
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "mem://weather"}});
    let r = rpc(&a, &s, &subscribe).await;
    assert!(r.response(2).get("result").is_some(), "{r:?}");
    (a, b, c, sc, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_raised_on_a_third_replica_reaches_the_get_stream_once() {
    for backend in backends() {
        let (_a, b, _c, sc, s) = subscribed(&backend, true).await;
        let mut get = b.send(Req::get().session(&s)).await;
        assert!(get.is_sse(), "{get:?}");
        // Let B's copy learn of the subscription, then raise the update on C (no copy there).
        tokio::time::sleep(Duration::from_millis(200)).await;
        sc.notify_resource_updated("mem://weather");
        let seen = until_method(&mut get, "notifications/resources/updated").await;
        assert_eq!(seen.last().unwrap()["params"]["uri"], "mem://weather");
        // Once: a second update is the next updated message on the stream.
        sc.notify_resource_updated("mem://weather");
        let seen = until_method(&mut get, "notifications/resources/updated").await;
        assert_eq!(seen.len(), 1, "one notification per update: {seen:?}");
        let next = get.event_within(Duration::from_millis(300)).await;
        assert!(!matches!(&next, Ok(Some(e)) if e.is_message()), "a duplicate came: {next:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_wait_in_the_store_for_a_get_stream_opened_on_any_replica() {
    for backend in backends() {
        let (_a, b, _c, sc, s) = subscribed(&backend, false).await;
        // No GET stream anywhere: the update waits in the store.
        sc.notify_resource_updated("mem://weather");
        tokio::time::sleep(Duration::from_millis(200)).await;
        // B opens the GET stream (B never served this session before) and gets it.
        let mut get = b.send(Req::get().session(&s)).await;
        assert!(get.is_sse(), "{get:?}");
        let seen = until_method(&mut get, "notifications/resources/updated").await;
        assert_eq!(seen.last().unwrap()["params"]["uri"], "mem://weather");
    }
}

/// Handlers of `wait_for_cancel` that saw their task cancelled, over every replica.
static CANCELS_SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A replica of a server that runs tasks: `work {ms}` and `wait_for_cancel`.
async fn task_replica(backend: &Backend) -> TestServer {
    use hypermcp::server::tasks::TaskOptions;
    let server = hypermcp::Server::new("tasks", "1.0.0")
        .tasks(TaskOptions { poll_interval: Duration::from_millis(100), ..Default::default() })
        .tool(Tool::new("work"), |args, _ctx| async move {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(10);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            CallToolResult::text(format!("worked {ms} ms"))
        })
        .tool(Tool::new("wait_for_cancel"), |_args, ctx| async move {
            ctx.cancelled().await;
            CANCELS_SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            CallToolResult::text("stopped")
        })
        .task_mode("work", hypermcp::catalogue::TaskMode::Optional)
        .task_mode("wait_for_cancel", hypermcp::catalogue::TaskMode::Optional);
    let options = options().with_cluster(backend.store().await);
    TestServer::start(&server, options).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_read_and_cancelled_through_others() {
    for backend in backends() {
        let a = task_replica(&backend).await;
        let b = task_replica(&backend).await;
        let c = task_replica(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&b, &s).await;
        let req = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        // Started on A, read on B, its result taken on C.
        let r = rpc(&a, &s, &req(2, "tools/call", json!({"name": "work", "arguments": {"ms": 300}, "task": {}}))).await;
        let task = r.response(2)["result"]["task"].clone();
        let id = task["taskId"].as_str().unwrap_or_else(|| panic!("a task: {r:?}")).to_string();
        let r = rpc(&b, &s, &req(3, "tasks/get", json!({"taskId": id}))).await;
        assert_eq!(r.response(3)["result"]["taskId"], id.as_str(), "{r:?}");
        let r = rpc(&c, &s, &req(4, "tasks/result", json!({"taskId": id}))).await;
        assert_eq!(r.response(4)["result"]["content"][0]["text"], "worked 300 ms", "{r:?}");
        // Started on A, cancelled through B: A's handler sees the cancel.
        let before = CANCELS_SEEN.load(std::sync::atomic::Ordering::SeqCst);
        let r =
            rpc(&a, &s, &req(5, "tools/call", json!({"name": "wait_for_cancel", "arguments": {}, "task": {}}))).await;
        let id = r.response(5)["result"]["task"]["taskId"].as_str().expect("a task").to_string();
        let r = rpc(&b, &s, &req(6, "tasks/cancel", json!({"taskId": id}))).await;
        assert_eq!(r.response(6)["result"]["status"], "cancelled", "{r:?}");
        eventually("A's handler sees the cancel made through B", Duration::from_secs(5), || {
            CANCELS_SEEN.load(std::sync::atomic::Ordering::SeqCst) > before
        })
        .await;
        let r = rpc(&c, &s, &req(7, "tasks/get", json!({"taskId": id}))).await;
        assert_eq!(r.response(7)["result"]["status"], "cancelled", "{r:?}");
        // tasks/list through C lists both.
        let r = rpc(&c, &s, &req(8, "tasks/list", json!({}))).await;
        assert_eq!(r.response(8)["result"]["tasks"].as_array().map(Vec::len), Some(2), "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_task_store_pages_and_never_loses_a_concurrent_update() {
    use hypermcp::store::tasks::{TaskPatch, TaskRecord, TaskStore};
    let Some(redis) = Redis::start() else { return };
    let store = hypermcp::store::redis::RedisStore::connect(&redis.url()).await.expect("connect").task_store();
    let now = 1_800_000_000_000u64;
    let now = now.max(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64);
    for i in 0..5u64 {
        let rec = TaskRecord::new(format!("t{i}"), Some("owner".into()), "work".into(), now + i, 60_000, 1000);
        store.create(rec).await.expect("create");
    }
    store
        .create(TaskRecord::new("other".into(), Some("someone".into()), "work".into(), now, 60_000, 1000))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store.list(Some("owner"), cursor.as_deref(), 2).await.expect("list");
        assert!(page.tasks.len() <= 2);
        seen.extend(page.tasks.iter().map(|t| t.id.clone()));
        match page.next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    assert_eq!(seen, ["t0", "t1", "t2", "t3", "t4"]);
    assert!(store.list(Some("owner"), Some("garbage"), 2).await.is_err());
    // Concurrent input requests on one task, each with its own key: all of them land.
    let store = Arc::new(store);
    let mut all = Vec::new();
    for i in 0..16 {
        let st = store.clone();
        all.push(tokio::spawn(async move {
            st.update(
                "t0",
                TaskPatch::AskInput { key: format!("k{i}"), request: json!({"method": "elicitation/create"}) },
            )
            .await
        }));
    }
    for h in all {
        h.await.unwrap().expect("an update");
    }
    let t = store.get("t0").await.unwrap().expect("t0");
    assert_eq!(t.input_requests.len(), 16, "no concurrent update was lost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sse_sessions_posts_reach_its_stream_through_any_replica() {
    for backend in backends() {
        let (a, _sa) = replica(&backend).await;
        let (b, _sb) = replica(&backend).await;
        let mut sse = a.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await;
        assert_eq!(sse.status, 200, "{sse:?}");
        let endpoint = bounded(sse.event()).await.and_then(|e| e.data).expect("the endpoint event");
        assert!(endpoint.starts_with("/messages?sessionId=r"), "the id names the replica: {endpoint}");
        let post = |msg: Value| {
            Req::new("POST", &endpoint)
                .header("Content-Type", "application/json")
                .body(serde_json::to_vec(&msg).unwrap())
        };
        // Every POST goes to B; the answers come on A's stream.
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "legacy", "version": "1"}}});
        assert_eq!(b.send(post(init)).await.status, 202);
        let m = bounded(next_message(&mut sse)).await;
        assert_eq!(m["result"]["protocolVersion"], "2024-11-05", "{m}");
        assert_eq!(b.send(post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await.status, 202);
        assert_eq!(b.send(post(call(2, "echo", json!({"text": "via b"})))).await.status, 202);
        let m = bounded(next_message(&mut sse)).await;
        assert_eq!(m["result"]["content"][0]["text"], "via b", "{m}");
        // A session whose replica is gone: 404.
        let gone = "/messages?sessionId=r999x0123456789abcdef0123456789abcdef";
        let ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_vec();
        let r = b.send(Req::new("POST", gone).header("Content-Type", "application/json").body(ping)).await;
        assert_eq!(r.status, 404);
    }
}

/// The next `message` event of an SSE stream (comments and pings skipped).
async fn next_message(sse: &mut Resp) -> Value {
    loop {
        let ev = sse.event().await.expect("the stream goes on");
        if ev.is_message() {
            return ev.json();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_record_changes_through_two_replicas_all_survive_in_redis() {
    use hypermcp::store::SessionRecord;
    let Some(redis) = Redis::start() else { return };
    let a = hypermcp::store::connect(&redis.url()).await.expect("connect");
    let b = hypermcp::store::connect(&redis.url()).await.expect("connect");
    let ttl = Duration::from_secs(60);
    let base = SessionRecord { version: "2025-11-25".into(), operating: true, ..Default::default() };
    a.save("s", None, &base, ttl).await.expect("save");
    // Sixteen subscriptions through A and sixteen through B at once, each from the record
    // its replica started from: every one is kept.
    let mut all = Vec::new();
    for i in 0..32 {
        let (store, base) = (if i % 2 == 0 { a.clone() } else { b.clone() }, base.clone());
        all.push(tokio::spawn(async move {
            let mine = SessionRecord { subscriptions: vec![format!("file:///{i}")], ..base.clone() };
            store.save("s", Some(&base), &mine, Duration::from_secs(60)).await
        }));
    }
    for h in all {
        assert!(h.await.unwrap().expect("saved").is_some());
    }
    let stored = a.load("s").await.unwrap().expect("the record");
    assert_eq!(stored.subscriptions.len(), 32, "{:?}", stored.subscriptions);
    // A deleted session is not brought back by a late change.
    a.remove("s").await.unwrap();
    assert_eq!(b.save("s", Some(&stored), &base, ttl).await.unwrap(), None);
    assert_eq!(b.load("s").await.unwrap(), None);
}

/// A session's own visibility rules (`ctx.enable_components`) travel in its record: the
/// call that changed them is answered once the record is saved, so the next request, on
/// another replica, already sees what the session now sees; another session does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_own_visibility_follows_it_to_every_replica() {
    use hypermcp::{Component, Filter};
    async fn start(backend: &Backend) -> TestServer {
        let server = cluster_server()
            .tool(Tool::new("report"), |_a, _c| async move { CallToolResult::text("premium report") })
            .tool(Tool::new("unlock"), |_a, ctx| async move {
                ctx.enable_components(Filter::tags(["premium"])).await?;
                Ok::<_, hypermcp::Error>(CallToolResult::text("unlocked"))
            })
            .tags(Component::Tool, "report", ["premium"]);
        server.disable(Filter::tags(["premium"])).unwrap();
        TestServer::start(&server, options().with_cluster(backend.store().await)).await
    }
    let tools = |r: &Answer, id: i64| -> Vec<String> {
        let list = r.response(id)["result"]["tools"].as_array().cloned().unwrap_or_default();
        list.iter().map(|t| t["name"].as_str().unwrap_or_default().to_string()).collect()
    };
    for backend in backends() {
        let a = start(&backend).await;
        let b = start(&backend).await;
        let s = initialize_on(&a).await;
        notify_initialized(&b, &s).await;
        let other = initialize_on(&b).await;
        notify_initialized(&b, &other).await;
        let list = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        assert!(!tools(&rpc(&b, &s, &list(2)).await, 2).contains(&"report".to_string()));
        let r = rpc(&a, &s, &call(3, "unlock", json!({}))).await;
        assert_eq!(r.response(3)["result"]["content"][0]["text"], "unlocked", "{r:?}");
        assert!(tools(&rpc(&b, &s, &list(4)).await, 4).contains(&"report".to_string()), "B applies A's change");
        let r = rpc(&b, &s, &call(5, "report", json!({}))).await;
        assert_eq!(r.response(5)["result"]["content"][0]["text"], "premium report", "{r:?}");
        assert!(!tools(&rpc(&a, &other, &list(6)).await, 6).contains(&"report".to_string()), "another session");
    }
}
