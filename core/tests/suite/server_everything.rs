//! The Rust client against the official `@modelcontextprotocol/server-everything` over
//! stdio: tools, a resource, a prompt, and a long-running call with progress.
//!
//! The peer is installed by `tests/interop/setup_peers.sh` into `<workspace>/.peers` (or
//! `$HYPERMCP_PEERS`). Without node or the package the test is skipped with a message on
//! stderr, unless `HYPERMCP_REQUIRE_PEERS=1`, which makes it fail.

use crate::common;

use common::*;
use hypermcp::{CallOptions, Client, ClientOptions, ResourceContents};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// `(progress, total)` as received.
type Progress = (f64, Option<f64>);

const PACKAGE: &str = "npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// `node` and the server script, or why they are unavailable.
fn locate_peer() -> Result<PathBuf, String> {
    let peers = match std::env::var_os("HYPERMCP_PEERS") {
        Some(p) => PathBuf::from(p),
        None => workspace_dir().join(".peers"),
    };
    let script = peers.join(PACKAGE);
    if !script.is_file() {
        return Err(format!("{} not found (run tests/interop/setup_peers.sh)", script.display()));
    }
    match std::process::Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(script),
        Ok(out) => Err(format!("`node --version` failed: {}", String::from_utf8_lossy(&out.stderr))),
        Err(e) => Err(format!("node is not runnable: {e}")),
    }
}

fn peer_or_skip() -> Option<PathBuf> {
    match locate_peer() {
        Ok(script) => Some(script),
        Err(why) if std::env::var("HYPERMCP_REQUIRE_PEERS").as_deref() == Ok("1") => {
            panic!("HYPERMCP_REQUIRE_PEERS=1 but the server-everything peer is unavailable: {why}")
        }
        Err(why) => {
            eprintln!("SKIPPED server_everything: {why}; set HYPERMCP_REQUIRE_PEERS=1 to make this a failure");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_client_drives_server_everything() {
    let Some(script) = peer_or_skip() else { return };
    bounded(async {
        let options = ClientOptions::new("hypermcp-interop", "0.0.1");
        let client = Client::spawn("node", [script.as_os_str(), "stdio".as_ref()], options)
            .await
            .unwrap_or_else(|e| panic!("spawning server-everything: {e}"));
        let stderr = || client.server_stderr();
        assert!(client.server().server_info.name.contains("everything"), "{:?}", client.server().server_info);

        // Tools.
        let tools = client.list_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert!(names.contains(&"echo"), "{names:?}");
        let r = client.call_tool("echo", json!({"message": "hello from hypermcp"})).await.expect("echo");
        assert!(!r.failed(), "{r:?}");
        assert_eq!(r.content[0].as_text(), Some("Echo: hello from hypermcp"));

        // A resource: the first one listed.
        let resources = client.list_resources().await.expect("resources/list");
        let first = resources.first().unwrap_or_else(|| panic!("no resources listed; stderr: {}", stderr()));
        let read = client.read_resource(&first.uri).await.expect("resources/read");
        assert!(!read.contents.is_empty(), "{read:?}");
        assert_eq!(read.contents[0].uri(), first.uri);
        match &read.contents[0] {
            ResourceContents::Text { text, .. } => assert!(!text.is_empty()),
            blob @ ResourceContents::Blob { .. } => assert!(blob.decode_blob().is_some()),
        }

        // A prompt.
        let prompt = client.get_prompt("simple-prompt", HashMap::new()).await.expect("prompts/get");
        assert_eq!(prompt.messages.len(), 1);
        assert_eq!(prompt.messages[0].content.as_text(), Some("This is a simple prompt without arguments."));

        // A long-running operation with progress; argument names come from its schema.
        let long = tools.iter().find(|t| t.name == "trigger-long-running-operation").expect("long-running tool");
        let props = long.input_schema["properties"].as_object().expect("properties");
        assert!(props.contains_key("duration") && props.contains_key("steps"), "{}", long.input_schema);
        let seen: Arc<Mutex<Vec<Progress>>> = Default::default();
        let sink = seen.clone();
        let opts = CallOptions {
            on_progress: Some(Arc::new(move |p, total, _message| sink.lock().unwrap().push((p, total)))),
            ..Default::default()
        };
        let r = client
            .call_tool_with("trigger-long-running-operation", json!({"duration": 0.3, "steps": 3}), opts)
            .await
            .expect("long-running operation");
        assert!(!r.failed(), "{r:?}");
        assert!(r.content[0].as_text().unwrap_or_default().contains("Steps: 3"), "{r:?}");
        assert_eq!(*seen.lock().unwrap(), [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);

        client.close().await.expect("close");
    })
    .await;
}
