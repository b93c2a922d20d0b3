//! Clients that survive their server (Rust): the reconnect policy over stdio (the compiled
//! `echo_server` example, killed and spawned again) and HTTP (a server stopped and started
//! again on its port: a new session), calls failing clearly or waiting, giving up after the
//! tries, keep-alive pings finding a frozen (SIGSTOP) server, `close_within` and `supports`.

use crate::common;
use crate::http_util;

use common::*;
use http_util::test_server;
use hypermcp::engine::Reconnect;
use hypermcp::http::server::{bind, serve_http};
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::jsonrpc::codes::CONNECTION_CLOSED;
use hypermcp::{Client, ClientMode, ClientOptions, ConnectionEvent};
use serde_json::json;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

fn echo_server_path() -> PathBuf {
    let path = match std::env::var_os("HYPERMCP_ECHO_SERVER") {
        Some(p) => PathBuf::from(p),
        None => examples_dir().join("echo_server"),
    };
    assert!(
        path.is_file(),
        "echo server not found at {}: run `cargo build -p hypermcp-examples --examples`",
        path.display()
    );
    path
}

/// Our child processes whose environment holds `tag` (Linux `/proc`).
fn children_with_tag(tag: &str) -> Vec<i32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let mut rest = stat.rsplit_once(')').map(|(_, r)| r.split_whitespace()).into_iter().flatten();
        let state = rest.next();
        let ppid = rest.next().and_then(|p| p.parse::<u32>().ok());
        if ppid != Some(me) || state == Some("Z") {
            continue;
        }
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        if environ.split(|b| *b == 0).any(|kv| kv == tag.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

fn signal(pid: i32, sig: rustix::process::Signal) {
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, sig);
    }
}

/// Records a client's connection events.
fn recorder(options: ClientOptions) -> (ClientOptions, Arc<Mutex<Vec<ConnectionEvent>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    (options.on_connection(move |e| s.lock().unwrap().push(e.clone())), seen)
}

fn names(seen: &Mutex<Vec<ConnectionEvent>>) -> Vec<&'static str> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|e| match e {
            ConnectionEvent::Disconnected { .. } => "disconnected",
            ConnectionEvent::Reconnecting { .. } => "reconnecting",
            ConnectionEvent::Reconnected { .. } => "reconnected",
            ConnectionEvent::Failed { .. } => "failed",
        })
        .collect()
}

fn fast() -> Reconnect {
    Reconnect {
        initial_delay: Duration::from_millis(50),
        max_delay: Duration::from_millis(300),
        max_attempts: 100,
        ..Default::default()
    }
}

async fn echo(client: &Client, text: &str) -> hypermcp::Result<String> {
    let r = client.call_tool("echo", json!({"text": text})).await?;
    Ok(r.content.first().and_then(|c| c.as_text()).unwrap_or_default().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_client_spawns_its_server_again() {
    let path = echo_server_path();
    bounded_for(Duration::from_secs(60), async {
        let tag = format!("HYPERMCP_TEST_TAG=reconnect-{}", std::process::id());
        let (key, value) = tag.split_once('=').unwrap();
        let mut cmd = tokio::process::Command::new(&path);
        cmd.env(key, value);
        let (options, seen) = recorder(ClientOptions::new("t", "1").reconnect(fast()));
        let client = Client::spawn_command(cmd, options).await.expect("spawn");
        assert_eq!(echo(&client, "one").await.unwrap(), "one");
        let first = children_with_tag(&tag);
        assert_eq!(first.len(), 1, "{first:?}");
        signal(first[0], rustix::process::Signal::KILL);
        // The next call waits for the new server.
        let mut answer = None;
        for _ in 0..100 {
            match echo(&client, "two").await {
                Ok(t) => {
                    answer = Some(t);
                    break;
                }
                // Sent before the client saw the old server go: fails as closed.
                Err(e) if e.code() == CONNECTION_CLOSED => {}
                Err(e) => panic!("{e}"),
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(answer.as_deref(), Some("two"));
        let second = children_with_tag(&tag);
        assert!(second.len() == 1 && second != first, "{first:?} then {second:?}");
        assert_eq!(names(&seen), ["disconnected", "reconnecting", "reconnected"]);
        client.close().await.unwrap();
        assert!(children_with_tag(&tag).is_empty(), "close stops the new server");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_find_a_frozen_stdio_server_and_a_new_one_is_spawned() {
    let path = echo_server_path();
    bounded_for(Duration::from_secs(60), async {
        let tag = format!("HYPERMCP_TEST_TAG=frozen-{}", std::process::id());
        let (key, value) = tag.split_once('=').unwrap();
        let mut cmd = tokio::process::Command::new(&path);
        cmd.env(key, value);
        let options = ClientOptions::new("t", "1")
            .mode(ClientMode::Legacy)
            .ping_interval(Duration::from_millis(300))
            .reconnect(fast());
        let (options, seen) = recorder(options);
        let client = Client::spawn_command(cmd, options).await.expect("spawn");
        let first = children_with_tag(&tag);
        signal(first[0], rustix::process::Signal::STOP);
        for _ in 0..200 {
            if names(&seen).contains(&"reconnected") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(names(&seen), ["disconnected", "reconnecting", "reconnected"]);
        let why = match &seen.lock().unwrap()[0] {
            ConnectionEvent::Disconnected { reason } => reason.clone(),
            e => panic!("{e:?}"),
        };
        assert!(why.contains("did not answer a ping within 300 ms"), "{why}");
        assert_eq!(echo(&client, "back").await.unwrap(), "back");
        assert!(!children_with_tag(&tag).contains(&first[0]), "the frozen server was stopped");
        client.close().await.unwrap();
    })
    .await;
}

/// Lets a legacy session open fully (its standalone GET stream, which tells the client at
/// once when the server goes away; a client with nothing open learns it on its next request).
async fn settled(client: &Client) {
    client.ping().await.expect("ping");
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// `server` over HTTP on `port` until the sender fires.
async fn serve_on(port: u16) -> (oneshot::Sender<()>, JoinHandle<hypermcp::Result<()>>) {
    let mut options = HttpOptions::default();
    let mut tries = 0;
    let listener = loop {
        match bind(&format!("127.0.0.1:{port}"), &mut options).await {
            Ok(l) => break l,
            Err(e) if tries < 100 => {
                tries += 1;
                let _ = e;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("bind {port}: {e}"),
        }
    };
    let service = test_server().http_service(options);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(serve_http(service, listener, async move {
        let _ = stopped.await;
    }));
    (stop, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_client_opens_a_new_session_after_its_server_restarts() {
    bounded_for(Duration::from_secs(60), async {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let (stop, task) = serve_on(port).await;
        let options = ClientOptions::new("t", "1").mode(ClientMode::Legacy).reconnect(fast());
        let (options, seen) = recorder(options);
        let client = Client::http(&url, HttpClientOptions::default(), options).await.expect("connect");
        assert_eq!(echo(&client, "one").await.unwrap(), "one");
        settled(&client).await;
        let _ = stop.send(());
        let _ = task.await;
        // Nothing listens: the session's stream ends, and tries fail until the server is back.
        for _ in 0..200 {
            if names(&seen).iter().filter(|n| **n == "reconnecting").count() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let (stop, task) = serve_on(port).await;
        assert_eq!(echo(&client, "two").await.unwrap(), "two");
        let seen_names = names(&seen);
        assert_eq!(seen_names.first(), Some(&"disconnected"));
        assert_eq!(seen_names.last(), Some(&"reconnected"));
        client.close().await.unwrap();
        let _ = stop.send(());
        let _ = task.await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_gives_up_after_its_tries_and_fails_fast_when_asked() {
    bounded_for(Duration::from_secs(60), async {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let (stop, task) = serve_on(port).await;
        let policy = Reconnect { initial_delay: Duration::from_millis(20), max_attempts: 3, ..Default::default() };
        let (options, seen) = recorder(ClientOptions::new("t", "1").mode(ClientMode::Legacy).reconnect(policy));
        let client = Client::http(&url, HttpClientOptions::default(), options).await.expect("connect");
        let fast_fail = Reconnect { initial_delay: Duration::from_secs(5), wait: false, ..Default::default() };
        let impatient = Client::http(
            &url,
            HttpClientOptions::default(),
            ClientOptions::new("t", "1").mode(ClientMode::Legacy).reconnect(fast_fail),
        )
        .await
        .expect("connect");
        settled(&client).await;
        settled(&impatient).await;
        let _ = stop.send(());
        let _ = task.await;
        for _ in 0..200 {
            if names(&seen).contains(&"failed") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(names(&seen), ["disconnected", "reconnecting", "reconnecting", "reconnecting", "failed"]);
        match &seen.lock().unwrap()[4] {
            ConnectionEvent::Failed { reason, attempts: 3 } => {
                assert!(reason.contains("3 tries to reconnect failed"), "{reason}")
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(echo(&client, "x").await.unwrap_err().code(), CONNECTION_CLOSED);
        let started = std::time::Instant::now();
        assert_eq!(echo(&impatient, "x").await.unwrap_err().code(), CONNECTION_CLOSED);
        assert!(started.elapsed() < Duration::from_secs(2));
        client.close().await.unwrap();
        impatient.close().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn close_within_lets_calls_in_flight_finish() {
    bounded(async {
        let server = test_server();
        let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
        let c = client.clone();
        let call = tokio::spawn(async move { c.call_tool("slow", json!({"ms": 300})).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let c = client.clone();
        let closing = tokio::spawn(async move { c.close_within(Duration::from_secs(5)).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = client.call_tool("echo", json!({"text": "late"})).await.unwrap_err();
        assert_eq!(refused.code(), CONNECTION_CLOSED, "{refused}");
        assert!(call.await.unwrap().is_ok(), "the call in flight was answered");
        closing.await.unwrap().unwrap();

        let client = Client::in_memory(&server, ClientOptions::new("t", "1")).await.unwrap();
        let c = client.clone();
        let long = tokio::spawn(async move { c.call_tool("slow", json!({"ms": 5000})).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = std::time::Instant::now();
        client.close_within(Duration::from_millis(200)).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(long.await.unwrap().is_err());
    })
    .await;
}

#[tokio::test]
async fn supports_reads_the_servers_capabilities() {
    bounded(async {
        let server = test_server();
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let client = Client::in_memory(&server, ClientOptions::new("t", "1").mode(mode)).await.unwrap();
            assert!(client.supports("tools"));
            assert_eq!(client.supports("tools.listChanged"), client.supports("tools.list_changed"));
            assert!(!client.supports("prompts.nothing"));
            assert!(!client.supports("io.example/none"));
            client.close().await.unwrap();
        }
    })
    .await;
}
