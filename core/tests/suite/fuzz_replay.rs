//! Every committed fuzz corpus file (fuzz/corpus/<target>/) replayed through its target's
//! body (`hypermcp::fuzzing`) on stable Rust: what libFuzzer found interesting, and every
//! input that once crashed, stays a regression test. `make fuzz` grows the corpora.

use std::path::PathBuf;

fn replay(target: &str, f: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus", dir.display());
    for file in &files {
        let data = std::fs::read(file).expect("a corpus file");
        let name = file.display().to_string();
        if let Err(p) = std::panic::catch_unwind(|| f(&data)) {
            let why = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("{name} fails: {}", why.unwrap_or_default());
        }
    }
    eprintln!("{target}: {} corpus files replayed", files.len());
}

#[test]
fn jsonrpc() {
    replay("jsonrpc", hypermcp::fuzzing::jsonrpc);
}

#[test]
fn engine_server() {
    replay("engine_server", hypermcp::fuzzing::engine_server);
}

#[test]
fn engine_client() {
    replay("engine_client", hypermcp::fuzzing::engine_client);
}

#[test]
fn sse() {
    replay("sse", hypermcp::fuzzing::sse);
}

#[test]
fn uri_template() {
    replay("uri_template", hypermcp::fuzzing::uri_template);
}

#[test]
fn request_state() {
    replay("request_state", hypermcp::fuzzing::request_state);
}

#[cfg(feature = "fuzzing")]
#[test]
fn http() {
    replay("http", |data| drop(hypermcp::fuzzing::http(data)));
    // The target serves for real: an initialize is answered with a session.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let init = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes();
    let out = String::from_utf8_lossy(&hypermcp::fuzzing::http(&init)).to_string();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.to_ascii_lowercase().contains("mcp-session-id:"), "{out}");
}
