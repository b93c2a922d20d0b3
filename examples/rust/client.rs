//! A client that spawns any stdio MCP server (or connects to one over HTTP), lists its tools
//! and calls one.
//!
//! Run: `cargo run --example client -- [--tool NAME] [--args JSON] -- COMMAND [ARGS...]`, or
//! `... [--tool NAME] [--args JSON] --url http://127.0.0.1:8000/mcp` (defaults: the first
//! tool, with `{"text": "hello from hypermcp"}` as arguments).

use hypermcp::{Client, ClientOptions};
use serde_json::Value;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> hypermcp::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut tool: Option<String> = None;
    let mut url: Option<String> = None;
    let mut arguments: Value = serde_json::json!({ "text": "hello from hypermcp" });
    while let Some(first) = args.first().cloned() {
        match first.as_str() {
            "--tool" if args.len() > 1 => {
                tool = Some(args[1].clone());
                args.drain(..2);
            }
            "--url" if args.len() > 1 => {
                url = Some(args[1].clone());
                args.drain(..2);
            }
            "--args" if args.len() > 1 => {
                arguments = serde_json::from_str(&args[1])?;
                args.drain(..2);
            }
            "--" => {
                args.remove(0);
                break;
            }
            _ => break,
        }
    }
    let options = ClientOptions::new("hypermcp-example-client", env!("CARGO_PKG_VERSION"))
        .on_stderr(|line| eprintln!("[server] {line}"));
    let client = match (&url, args.split_first()) {
        (Some(url), _) => Client::http(url, Default::default(), options).await?,
        (None, Some((program, rest))) => Client::spawn(program, rest, options).await?,
        (None, None) => {
            return Err("usage: client [--tool NAME] [--args JSON] (-- COMMAND [ARGS...] | --url URL)".into());
        }
    };
    let info = &client.server().server_info;
    println!("connected to {} {} (protocol {})", info.name, info.version, client.protocol_version());
    let tools = client.list_tools().await?;
    println!("tools:");
    for t in &tools {
        println!("  - {}: {}", t.name, t.description.as_deref().unwrap_or(""));
    }
    let name = match tool.or_else(|| tools.first().map(|t| t.name.clone())) {
        Some(n) => n,
        None => return Err("the server has no tools".into()),
    };
    let result = client.call_tool(&name, arguments.clone()).await?;
    println!("{name}({arguments}) ->");
    for c in &result.content {
        match c.as_text() {
            Some(t) => println!("  {t}"),
            None => println!("  {}", serde_json::to_string(c)?),
        }
    }
    if result.failed() {
        println!("  (the tool reported an error)");
    }
    client.close().await
}
