//! A real child process over stdio: the compiled `echo_server` example, spawned with
//! `Client::spawn_command`, serves 200 concurrent calls and exits when the client closes.

use crate::common;

use common::*;
use hypermcp::{Client, ClientOptions};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

fn echo_server_path() -> PathBuf {
    let path = match std::env::var_os("HYPERMCP_ECHO_SERVER") {
        Some(p) => PathBuf::from(p),
        None => examples_dir().join("echo_server"),
    };
    assert!(
        path.is_file(),
        "echo server not found at {}: run `cargo build -p hypermcp-examples --examples` first (or set HYPERMCP_ECHO_SERVER)",
        path.display()
    );
    path
}

/// The pid of our child process whose environment holds `tag` (Linux `/proc`).
fn child_with_tag(tag: &str) -> Option<u32> {
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // The parent pid is the second field after the parenthesised command name.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if ppid != Some(me) {
            continue;
        }
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        if environ.split(|b| *b == 0).any(|kv| kv == tag.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_server_child_serves_concurrent_calls_and_exits() {
    let path = echo_server_path();
    bounded(async {
        let tag = format!("HYPERMCP_TEST_TAG=stdio-child-{}", std::process::id());
        let (key, value) = tag.split_once('=').unwrap();
        let mut cmd = tokio::process::Command::new(&path);
        cmd.env(key, value);
        let client = Client::spawn_command(cmd, ClientOptions::new("stdio-test", "0.0.1")).await.expect("spawn");
        assert_eq!(client.server().server_info.name, "hypermcp-echo");
        let pid = child_with_tag(&tag).expect("the spawned echo server is our child");

        let tools = client.list_tools().await.expect("tools/list");
        assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["echo"]);
        assert_eq!(tools[0].input_schema["required"], json!(["text"]));

        let mut calls = tokio::task::JoinSet::new();
        for i in 0..200 {
            let c = client.clone();
            calls.spawn(async move {
                let text = format!("message #{i} {}", "x".repeat(i % 17));
                let r = c.call_tool("echo", json!({ "text": text })).await.expect("call");
                assert!(!r.failed(), "{r:?}");
                assert_eq!(r.content.len(), 1);
                assert_eq!(r.content[0].as_text(), Some(text.as_str()), "answer matched to its request");
                i
            });
        }
        let mut done = Vec::new();
        while let Some(r) = calls.join_next().await {
            done.push(r.expect("call task"));
        }
        done.sort_unstable();
        assert_eq!(done, (0..200).collect::<Vec<_>>());
        assert!(client.server_stderr().trim().is_empty(), "stderr: {}", client.server_stderr());

        client.close().await.expect("close");
        // `close` waited for the child (and reaped it): it is gone.
        let mut gone = false;
        for _ in 0..50 {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(gone, "the echo server (pid {pid}) still exists after close");
        assert!(client.call_tool("echo", json!({"text": "late"})).await.is_err(), "a closed client refuses calls");
    })
    .await;
}
