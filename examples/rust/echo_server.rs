//! The shared echo server: one tool `echo` taking `{"text": string}` and answering with that
//! text, served over stdio. Every language binding ships the same server; the benchmarks and
//! interop checks rely on it.
//!
//! Run: `cargo run --release --example echo_server` (stdio), or with `--http PORT` for
//! Streamable HTTP at `/mcp` (`--stateless` and `--json` select those modes).

use hypermcp::{CallToolResult, Server, Tool};
use serde_json::json;

fn main() -> hypermcp::Result<()> {
    // stdio: one thread is all a single session needs. HTTP: a worker per core.
    let http = std::env::args().any(|a| a == "--http");
    let mut rt =
        if http { tokio::runtime::Builder::new_multi_thread() } else { tokio::runtime::Builder::new_current_thread() };
    rt.enable_all().build()?.block_on(serve())
}

async fn serve() -> hypermcp::Result<()> {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string", "description": "Text to echo back" } },
        "required": ["text"]
    });
    let server = Server::new("hypermcp-echo", env!("CARGO_PKG_VERSION")).tool(
        Tool::new("echo").description("Echo the given text back").input_schema(schema),
        |args, _ctx| async move {
            let text = args.get("text").and_then(|t| t.as_str()).unwrap_or_default();
            CallToolResult::text(text)
        },
    );
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--http") {
        Some(i) => {
            let port = args.get(i + 1).and_then(|p| p.parse::<u16>().ok()).unwrap_or(3000);
            let options = hypermcp::http::HttpOptions {
                stateless: args.iter().any(|a| a == "--stateless"),
                json_response: args.iter().any(|a| a == "--json"),
                ..Default::default()
            };
            server.serve_http_with(("127.0.0.1", port), options).await
        }
        None => server.serve_stdio().await,
    }
}
