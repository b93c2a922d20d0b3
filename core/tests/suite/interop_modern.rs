//! The Rust client against the official SDKs' servers across the eras, over stdio: a server
//! on the TypeScript SDK v2 2.4.0 and one on the Python SDK 2.3.0 speak 2026-07-28 (an auto
//! client finds it; `input_required` is answered by the elicitation handler); a server on the
//! TypeScript SDK 1.32.2 is legacy-only (an auto client falls back to `initialize`).
//!
//! The peers come from `tests/interop/setup_peers.sh` (`<workspace>/.peers` or
//! `$HYPERMCP_PEERS`). Without them each test is skipped with a message on stderr, unless
//! `HYPERMCP_REQUIRE_PEERS=1`, which makes it fail.

use crate::common;

use common::*;
use hypermcp::{Client, ClientMode, ClientOptions, ElicitAction, ElicitResult};
use serde_json::json;
use std::path::{Path, PathBuf};

fn peers() -> PathBuf {
    match std::env::var_os("HYPERMCP_PEERS") {
        Some(p) => PathBuf::from(p),
        None => workspace_dir().join(".peers"),
    }
}

/// `Some(())` when `file` exists; else skips (or fails under HYPERMCP_REQUIRE_PEERS=1).
fn need(file: &Path, what: &str) -> Option<()> {
    if file.exists() {
        return Some(());
    }
    let why = format!("{what} not found at {} (run tests/interop/setup_peers.sh)", file.display());
    if std::env::var("HYPERMCP_REQUIRE_PEERS").as_deref() == Ok("1") {
        panic!("HYPERMCP_REQUIRE_PEERS=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
    None
}

fn command(program: &Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args).env("PEERS", peers());
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_server_at_2026_with_input_required() {
    let pkg = peers().join("npm/node_modules/@modelcontextprotocol/server/package.json");
    let Some(()) = need(&pkg, "the TypeScript SDK v2") else { return };
    let script = workspace_dir().join("tests/interop/peers/ts_v2_server.mjs");
    bounded(async {
        for mode in [ClientMode::Auto, ClientMode::Modern] {
            let options =
                ClientOptions::new("hypermcp-interop", "0.0.1").mode(mode).on_elicitation(false, |p| async move {
                    assert!(
                        matches!(&p, hypermcp::ElicitParams::Form { message, .. } if message == "What is your name?")
                    );
                    let content = serde_json::from_value(json!({"name": "Ada"})).unwrap();
                    Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None })
                });
            let cmd = command(Path::new("node"), &[script.to_str().unwrap(), "--stdio"]);
            let client = Client::spawn_command(cmd, options).await.expect("spawn the v2 server");
            assert!(client.is_modern(), "{mode}");
            assert_eq!(client.server().server_info.name, "ts-v2-server");
            let r = client.call_tool("echo", json!({"text": "hi"})).await.expect("echo");
            assert_eq!(r.content[0].as_text(), Some("echo: hi"));
            let r = client.call_tool("ask_name", json!({})).await.expect("ask_name");
            assert_eq!(r.content[0].as_text(), Some("hello Ada"), "{r:?}");
            client.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_server_at_2026() {
    let python = peers().join("venv/bin/python");
    let Some(()) = need(&python, "the Python SDK venv") else { return };
    let script = workspace_dir().join("tests/interop/peers/py_full_server.py");
    bounded(async {
        for (mode, modern) in [(ClientMode::Auto, true), (ClientMode::Modern, true), (ClientMode::Legacy, false)] {
            let options = ClientOptions::new("hypermcp-interop", "0.0.1").mode(mode);
            let client = Client::spawn_command(command(&python, &[script.to_str().unwrap()]), options)
                .await
                .expect("spawn the Python SDK server");
            assert_eq!(client.is_modern(), modern, "{mode}");
            assert_eq!(client.server().server_info.name, "py-full-server");
            let tools = client.list_tools().await.expect("tools");
            assert!(tools.iter().any(|t| t.name == "forecast"));
            let r = client.call_tool("forecast", json!({"city": "Paris"})).await.expect("forecast");
            assert!(!r.failed(), "{r:?}");
            assert!(r.structured_content.is_some());
            client.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_only_typescript_server_through_the_fallback() {
    let pkg = peers().join("npm/node_modules/@modelcontextprotocol/sdk/package.json");
    let Some(()) = need(&pkg, "the TypeScript SDK 1.32.2") else { return };
    let script = workspace_dir().join("tests/interop/peers/ts_echo_server.mjs");
    bounded(async {
        let options = ClientOptions::new("hypermcp-interop", "0.0.1");
        let client = Client::spawn_command(command(Path::new("node"), &[script.to_str().unwrap()]), options)
            .await
            .expect("spawn the TypeScript 1.x server");
        assert!(!client.is_modern());
        assert_eq!(client.protocol_version().as_str(), "2025-11-25");
        let r = client.call_tool("echo", json!({"text": "x"})).await.expect("echo");
        assert_eq!(r.content[0].as_text(), Some("x"));
        client.close().await.expect("close");
    })
    .await;
}
