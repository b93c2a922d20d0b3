//! The middleware hypermcp ships, in Rust: the rate limit (a client's bucket, a tool's, one
//! for all, refused requests with a retry hint, buckets shared by two replicas through a real
//! Redis, a store that is away letting requests through), the timing histograms on the
//! Prometheus text, and the options the bindings hand over checked with clear messages. The
//! log lines of `Logging` are in tests/observability.rs (it owns the process's log).

use crate::common::bounded;
use crate::http_cluster::Redis;
use crate::http_util::TestServer;
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::middleware::{RateLimiting, Timing};
use hypermcp::{CallToolResult, Client, ClientMode, ClientOptions, Server, Tool};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn tools(name: &str) -> Server {
    Server::new(name, "1.0")
        .tool(Tool::new("echo"), |_a, _c| async move { CallToolResult::text("ok") })
        .tool(Tool::new("search"), |_a, _c| async move { CallToolResult::text("found") })
}

/// A clock the test moves.
fn clock() -> (Arc<AtomicU64>, impl Fn() -> u64 + Send + Sync + 'static) {
    let now = Arc::new(AtomicU64::new(1_000_000));
    let n = now.clone();
    (now, move || n.load(Ordering::Relaxed))
}

fn retry_after(e: &hypermcp::Error) -> u64 {
    assert_eq!(e.code(), hypermcp::jsonrpc::codes::RATE_LIMITED, "{e}");
    assert!(e.to_string().contains("Rate limit exceeded"), "{e}");
    e.rpc().and_then(|r| r.data.as_ref()).and_then(|d| d["retryAfterMs"].as_u64()).expect("retryAfterMs")
}

#[tokio::test]
async fn a_client_bucket_refuses_past_its_burst_and_refills_with_the_clock() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let (now, clock) = clock();
            let limit = RateLimiting::new(2.0).burst_capacity(3.0).tool("search", 0.5, 1.0).clock(clock);
            let client =
                Client::in_memory(&tools("limited").middleware(limit), ClientOptions::new("t", "1").mode(mode))
                    .await
                    .unwrap();
            for _ in 0..2 {
                client.call_tool("echo", json!({})).await.unwrap();
            }
            // The third takes the last token of the client's bucket, and the tool's one.
            client.call_tool("search", json!({})).await.unwrap();
            let e = client.call_tool("echo", json!({})).await.unwrap_err();
            assert_eq!(retry_after(&e), 500, "2 a second: a token in 500 ms");
            // Lists are served from the catalogue, not limited.
            client.list_tools().await.unwrap();
            now.fetch_add(500, Ordering::Relaxed);
            client.call_tool("echo", json!({})).await.unwrap();
            // The tool's own bucket: one call in two seconds (1.5 s on, it holds 0.75).
            now.fetch_add(1000, Ordering::Relaxed);
            let e = client.call_tool("search", json!({})).await.unwrap_err();
            assert!(e.to_string().contains("tool search"), "{e}");
            assert_eq!(retry_after(&e), 500);
            now.fetch_add(500, Ordering::Relaxed);
            assert_eq!(client.call_tool("search", json!({})).await.unwrap().content[0].as_text(), Some("found"));
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_have_buckets_of_their_own_unless_the_limit_is_global() {
    bounded(async {
        for global in [false, true] {
            let (_now, clock) = clock();
            let limit = RateLimiting::new(0.001).burst_capacity(2.0).global_limit(global).clock(clock);
            let ts = TestServer::start(&tools("per-session").middleware(limit), HttpOptions::default()).await;
            let url = format!("http://{}/mcp", ts.host());
            let connect = || {
                Client::http(&url, HttpClientOptions::default(), ClientOptions::new("t", "1").mode(ClientMode::Legacy))
            };
            let (a, b) = (connect().await.unwrap(), connect().await.unwrap());
            a.call_tool("echo", json!({})).await.unwrap();
            a.call_tool("echo", json!({})).await.unwrap();
            assert!(a.call_tool("echo", json!({})).await.is_err(), "a spent its bucket");
            let other = b.call_tool("echo", json!({})).await;
            assert_eq!(other.is_err(), global, "b has its own bucket unless the limit is global: {other:?}");
            a.close().await.unwrap();
            b.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_buckets_through_redis() {
    let Some(redis) = Redis::start() else { return };
    bounded(async {
        let url = redis.url();
        // 2026-07-28 requests carry no session: the client is its address, the same at both.
        let replica =
            |name: &str| tools(name).middleware(RateLimiting::new(0.001).burst_capacity(3.0).store_url(&url).unwrap());
        let (one, two) = (
            TestServer::start(&replica("one"), HttpOptions::default()).await,
            TestServer::start(&replica("two"), HttpOptions::default()).await,
        );
        let connect = |ts: &TestServer| {
            let url = format!("http://{}/mcp", ts.host());
            async move {
                Client::http(&url, HttpClientOptions::default(), ClientOptions::new("t", "1").mode(ClientMode::Modern))
                    .await
                    .unwrap()
            }
        };
        let (a, b) = (connect(&one).await, connect(&two).await);
        a.call_tool("echo", json!({})).await.unwrap();
        a.call_tool("echo", json!({})).await.unwrap();
        b.call_tool("echo", json!({})).await.unwrap();
        let e = b.call_tool("echo", json!({})).await.unwrap_err();
        assert!(retry_after(&e) > 900_000, "0.001 a second: a token in about 1000 s");
        assert!(a.call_tool("echo", json!({})).await.is_err(), "the bucket is one for both replicas");
        a.close().await.unwrap();
        b.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_store_that_is_away_lets_requests_through() {
    bounded(async {
        let limit = RateLimiting::new(0.001).burst_capacity(1.0).store_url("redis://127.0.0.1:1/0").unwrap();
        let client = Client::in_memory(&tools("open").middleware(limit), ClientOptions::new("t", "1")).await.unwrap();
        for _ in 0..3 {
            client.call_tool("echo", json!({})).await.unwrap();
        }
        client.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn timing_fills_histograms_per_method_and_tool() {
    bounded(async {
        let server = Server::new("timed", "1.0")
            .tool(Tool::new("timed_only_here"), |_a, _c| async move { CallToolResult::text("ok") })
            .middleware(Timing::new());
        let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
        for _ in 0..3 {
            client.call_tool("timed_only_here", json!({})).await.unwrap();
        }
        let text = hypermcp::metrics::prometheus();
        assert!(text.contains("# TYPE hypermcp_tool_duration_seconds histogram"), "{text}");
        assert!(text.contains("hypermcp_tool_duration_seconds_count{tool=\"timed_only_here\"} 3"), "{text}");
        assert!(
            text.contains("hypermcp_tool_duration_seconds_bucket{tool=\"timed_only_here\",le=\"+Inf\"} 3"),
            "{text}"
        );
        assert!(text.contains("hypermcp_request_duration_seconds_count{method=\"tools/call\"}"), "{text}");
        client.close().await.unwrap();
    })
    .await;
}

#[test]
fn the_options_the_bindings_hand_over_are_checked() {
    use hypermcp::middleware::from_config;
    let err = |kind: &str, v: serde_json::Value| from_config(kind, &v).err().expect("refused");
    assert!(from_config("rate_limiting", &json!({"maxRequestsPerSecond": 5, "burstCapacity": 10})).is_ok());
    assert!(from_config(
        "rate_limiting",
        &json!({"maxRequestsPerSecond": 5, "store": "memory", "tools": {"search": {"maxRequestsPerSecond": 1}}})
    )
    .is_ok());
    assert!(err("rate_limiting", json!({})).contains("maxRequestsPerSecond must be given"));
    assert!(err("rate_limiting", json!({"maxRequestsPerSecond": -1})).contains("a number above 0"));
    assert!(err("rate_limiting", json!({"maxRequestsPerSecond": 1, "burst": 3})).contains("no option \"burst\""));
    assert!(err("rate_limiting", json!({"maxRequestsPerSecond": 1, "store": "mysql://x"}))
        .contains("unsupported rate limit store"));
    assert!(err("rate_limiting", json!({"maxRequestsPerSecond": 1, "tools": {"x": 3}}))
        .contains("tools[\"x\"] must be an object"));
    assert!(
        from_config("logging", &json!({"level": "debug", "includePayloads": true, "methods": ["tools/call"]})).is_ok()
    );
    assert!(err("logging", json!({"level": "loud"})).contains("unknown log level"));
    assert!(err("logging", json!({"methods": "tools/call"})).contains("a list of strings"));
    assert!(from_config("timing", &json!(null)).is_ok());
    assert!(err("caching", json!({})).contains("no built-in middleware is called \"caching\""));
}

#[tokio::test]
async fn mask_error_details_hides_unexpected_failures_and_lets_meant_ones_pass() {
    use hypermcp::{ReadResourceResult, Resource, RpcError};
    bounded(async {
        for mask in [true, false] {
            let server = Server::new("masked", "1.0")
                .mask_error_details(mask)
                .tool(Tool::new("book"), |_a, _c| async move {
                    Err::<String, _>(hypermcp::Error::msg("db password is hunter2"))
                })
                .tool(Tool::new("full"), |_a, _c| async move { CallToolResult::error("no seats left") })
                .tool(Tool::new("refused"), |_a, _c| async move {
                    Err::<String, _>(hypermcp::Error::Rpc(RpcError::new(-32001, "not for you")))
                })
                .tool(Tool::new("crash"), |_a, _c| async move {
                    if true {
                        panic!("secret state");
                    }
                    "unreachable"
                })
                .resource(Resource::new("data://secret", "secret"), |_r, _c| async move {
                    Err::<ReadResourceResult, _>(hypermcp::Error::msg("internal key"))
                });
            let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
            let r = client.call_tool("book", json!({})).await.unwrap();
            assert_eq!(r.is_error, Some(true));
            let want = if mask { "Error calling tool \"book\"" } else { "db password is hunter2" };
            assert_eq!(r.content[0].as_text(), Some(want));
            assert_eq!(client.call_tool("full", json!({})).await.unwrap().content[0].as_text(), Some("no seats left"));
            let e = client.call_tool("refused", json!({})).await.unwrap_err();
            assert_eq!((e.code(), e.rpc().unwrap().message.as_str()), (-32001, "not for you"));
            let e = client.call_tool("crash", json!({})).await.unwrap_err();
            assert_eq!(e.to_string().contains("secret state"), !mask, "{e}");
            let e = client.read_resource("data://secret").await.unwrap_err();
            assert_eq!(e.to_string().contains("internal key"), !mask, "{e}");
            if mask {
                assert!(e.to_string().contains("Error reading resource \"data://secret\""), "{e}");
            }
            client.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn the_cache_answers_again_until_its_ttl_or_a_change_and_keeps_no_failure() {
    use hypermcp::middleware::ResponseCaching;
    use hypermcp::{ReadResourceResult, Resource};
    bounded(async {
        let (now, clock) = clock();
        let calls = Arc::new(AtomicU64::new(0));
        let (c1, c2, c3) = (calls.clone(), calls.clone(), calls.clone());
        let server = Server::new("cached", "1.0")
            .middleware(ResponseCaching::new(1_000).excluded_tools(["fresh"]).clock(clock))
            .tool(Tool::new("count"), move |_a, _c| {
                let n = c1.fetch_add(1, Ordering::SeqCst) + 1;
                async move { CallToolResult::text(n.to_string()) }
            })
            .tool(Tool::new("fresh"), move |_a, _c| {
                let n = c2.fetch_add(1, Ordering::SeqCst) + 1;
                async move { CallToolResult::text(n.to_string()) }
            })
            .tool(Tool::new("fails"), |_a, _c| async move { CallToolResult::error("no") })
            .resource(Resource::new("data://n", "n"), move |r, _c| {
                let n = c3.fetch_add(1, Ordering::SeqCst) + 1;
                async move { Ok(ReadResourceResult::text(r.uri, n.to_string(), None)) }
            });
        let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
        let text = |r: CallToolResult| r.content[0].as_text().unwrap().to_string();
        let first = text(client.call_tool("count", json!({"a": 1})).await.unwrap());
        assert_eq!(text(client.call_tool("count", json!({"a": 1})).await.unwrap()), first, "answered from the cache");
        assert_ne!(
            text(client.call_tool("count", json!({"a": 2})).await.unwrap()),
            first,
            "other arguments, another entry"
        );
        let before = calls.load(Ordering::SeqCst);
        client.call_tool("fresh", json!({})).await.unwrap();
        client.call_tool("fresh", json!({})).await.unwrap();
        client.call_tool("fails", json!({})).await.unwrap();
        client.call_tool("fails", json!({})).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), before + 2, "excluded tools run every time");
        // The TTL, by the clock.
        now.fetch_add(1_001, Ordering::Relaxed);
        let after_ttl = text(client.call_tool("count", json!({"a": 1})).await.unwrap());
        assert_ne!(after_ttl, first);
        // A change of the tool list forgets tool results.
        server.add_tool(Tool::new("new"), |_a, _c| async move { "x" }).unwrap();
        assert_ne!(text(client.call_tool("count", json!({"a": 1})).await.unwrap()), after_ttl);
        // Resources: kept until updated.
        let read = |r: hypermcp::ReadResourceResult| format!("{:?}", r.contents);
        let r1 = read(client.read_resource("data://n").await.unwrap());
        assert_eq!(read(client.read_resource("data://n").await.unwrap()), r1);
        server.notify_resource_updated("data://n");
        assert_ne!(read(client.read_resource("data://n").await.unwrap()), r1);
        client.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn a_call_that_asked_the_client_is_never_answered_from_the_cache() {
    use hypermcp::middleware::ResponseCaching;
    use hypermcp::{ElicitAction, ElicitParams, ElicitResult};
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let asked = Arc::new(AtomicU64::new(0));
            let a = asked.clone();
            let server = Server::new("asks", "1.0").middleware(ResponseCaching::new(60_000)).tool(
                Tool::new("ask"),
                move |_x, ctx| {
                    let a = a.clone();
                    async move {
                        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
                        let answer = ctx.elicit(ElicitParams::form("Your name?", schema)).await?;
                        a.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, hypermcp::Error>(format!("{:?}", answer.content))
                    }
                },
            );
            let options = ClientOptions::new("t", "1").mode(mode).on_elicitation(false, |_p| async move {
                Ok(ElicitResult {
                    action: ElicitAction::Accept,
                    content: json!({"name": "Ada"}).as_object().cloned(),
                    meta: None,
                })
            });
            let client = Client::in_memory(&server, options).await.unwrap();
            client.call_tool("ask", json!({})).await.unwrap();
            client.call_tool("ask", json!({})).await.unwrap();
            // Legacy: the push happens inside one call, whose result is kept (the handler
            // ran once); 2026-07-28: the answered round carries the inputs and is never kept.
            let want = if mode == ClientMode::Modern { 2 } else { 1 };
            assert_eq!(asked.load(Ordering::SeqCst), want, "{mode:?}");
            client.close().await.unwrap();
        }
    })
    .await;
}

/// Two replicas sharing answers through a real Redis: what A computed B answers without
/// running its handler; a change of A's tool list, or an update of A's resource, forgets
/// for both; a store that is away means answers are computed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_answers_through_redis() {
    use hypermcp::middleware::ResponseCaching;
    use hypermcp::{ReadResourceResult, Resource};
    let Some(redis) = Redis::start() else { return };
    bounded(async {
        let url = redis.url();
        let replica = |name: &'static str| {
            Server::new("cached", "1.0")
                .middleware(ResponseCaching::new(60_000).store_url(&url).unwrap())
                .tool(Tool::new("who"), move |_a, _c| async move { CallToolResult::text(name) })
                .resource(Resource::new("data://n", "n"), move |r, _c| async move {
                    Ok(ReadResourceResult::text(r.uri, name, None))
                })
        };
        let (one, two) = (replica("one"), replica("two"));
        let a = Client::in_memory(&one, ClientOptions::new("t", "1")).await.unwrap();
        let b = Client::in_memory(&two, ClientOptions::new("t", "1")).await.unwrap();
        let who = |c: &Client| {
            let c = c.clone();
            async move { c.call_tool("who", json!({"q": 1})).await.unwrap().content[0].as_text().unwrap().to_string() }
        };
        let read = |c: &Client| {
            let c = c.clone();
            async move { format!("{:?}", c.read_resource("data://n").await.unwrap().contents) }
        };
        // What the store holds, seen from outside (the replicas write in the background).
        let mut redis_conn = redis::Client::open(url.as_str()).unwrap().get_connection().unwrap();
        let mut settle = |what: &str, until: &dyn Fn(&mut redis::Connection) -> bool| {
            for _ in 0..1000 {
                if until(&mut redis_conn) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            panic!("the store never held {what}");
        };
        let keys = |pattern: &'static str, n: usize| {
            move |c: &mut redis::Connection| redis::cmd("KEYS").arg(pattern).query::<Vec<String>>(c).unwrap().len() >= n
        };
        let generation = |key: &'static str, n: i64| {
            move |c: &mut redis::Connection| redis::cmd("GET").arg(key).query::<Option<i64>>(c).unwrap() == Some(n)
        };
        // Each replica's definitions, made after the cache was added, moved the generations
        // on once each (a replica that starts forgets what its tools may have changed).
        settle("the replicas' start", &|c| generation("hypermcp:rcg:t", 2)(c) && generation("hypermcp:rcg:r", 2)(c));
        assert_eq!(who(&a).await, "one");
        settle("A's answer", &keys("hypermcp:rc:*", 1));
        assert_eq!(who(&b).await, "one", "B answers what A computed");
        assert!(read(&a).await.contains("one"));
        settle("A's contents", &keys("hypermcp:rc:*", 2));
        assert!(read(&b).await.contains("one"));
        // A's tool list changes: tool results are forgotten for both; contents stay.
        one.add_tool(Tool::new("new"), |_a, _c| async move { "x" }).unwrap();
        settle("the tools' next generation", &generation("hypermcp:rcg:t", 3));
        assert_eq!(who(&b).await, "two", "computed again, on B");
        assert!(read(&b).await.contains("one"));
        // A's resource is updated: its contents are forgotten for both.
        one.notify_resource_updated("data://n");
        settle("the resource's generation", &generation("hypermcp:rcg:u:data://n", 1));
        assert!(read(&b).await.contains("two"));
        a.close().await.unwrap();
        b.close().await.unwrap();

        // A store that is away: every call is computed, none fails.
        let away = Server::new("away", "1.0")
            .middleware(ResponseCaching::new(60_000).store_url("redis://127.0.0.1:1/0").unwrap())
            .tool(Tool::new("who"), |_a, _c| async move { CallToolResult::text("computed") });
        let c = Client::in_memory(&away, ClientOptions::new("t", "1")).await.unwrap();
        for _ in 0..2 {
            assert_eq!(who(&c).await, "computed");
        }
        c.close().await.unwrap();
    })
    .await;
}
