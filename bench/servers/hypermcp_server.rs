//! The hypermcp (Rust) benchmark server: the contract of `bench/servers/README.md` (an `echo`
//! tool, the catalogue `tool_01` … `tool_49`, the 1 MiB resource `bench://blob`), written the
//! way a user of the crate writes a server.
//!
//!     bench_server                               # stdio
//!     bench_server --http PORT                   # Streamable HTTP at 127.0.0.1:PORT/mcp, sessions
//!     bench_server --http PORT --stateless-json  # stateless, plain JSON answers
//!
//! Built as the binary `bench_server` of `bench/loadgen` (`cargo build --release -p
//! hypermcp-loadgen`).

use std::sync::Arc;

use hypermcp::http::HttpOptions;
use hypermcp::{CallToolResult, ReadResourceResult, Resource, Server, Tool};
use serde_json::json;

fn main() -> hypermcp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match parse(&args) {
        Some(mode) => mode,
        None => {
            eprintln!("usage: bench_server [--http PORT [--stateless-json]]");
            std::process::exit(2);
        }
    };
    // stdio: one thread is all a single session needs. HTTP: a worker per core.
    let mut rt = match mode {
        Mode::Stdio => tokio::runtime::Builder::new_current_thread(),
        Mode::Http { .. } => tokio::runtime::Builder::new_multi_thread(),
    };
    let server = build();
    rt.enable_all().build()?.block_on(async move {
        match mode {
            Mode::Stdio => server.serve_stdio().await,
            Mode::Http { port, stateless_json } => {
                let options =
                    HttpOptions { stateless: stateless_json, json_response: stateless_json, ..Default::default() };
                server.serve_http_with(("127.0.0.1", port), options).await
            }
        }
    })
}

enum Mode {
    Stdio,
    Http { port: u16, stateless_json: bool },
}

fn parse(args: &[String]) -> Option<Mode> {
    match args {
        [] => Some(Mode::Stdio),
        [flag, port] if flag == "--http" => Some(Mode::Http { port: port.parse().ok()?, stateless_json: false }),
        [flag, port, s] if flag == "--http" && s == "--stateless-json" => {
            Some(Mode::Http { port: port.parse().ok()?, stateless_json: true })
        }
        _ => None,
    }
}

/// The server of the benchmark contract (`enginebench` builds it too).
pub fn build() -> Server {
    let echo_schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string", "description": "Text to echo back" } },
        "required": ["text"]
    });
    let mut server = Server::new("hypermcp-bench", env!("CARGO_PKG_VERSION")).tool(
        Tool::new("echo").description("Echo the text back").input_schema(echo_schema),
        |args, _ctx| async move {
            let text = args.get("text").and_then(|t| t.as_str()).unwrap_or_default();
            CallToolResult::text(text)
        },
    );

    let forecast_schema = json!({
        "type": "object",
        "properties": {
            "city": { "type": "string", "description": "City name" },
            "days": { "type": "integer", "description": "Days ahead, 1 to 7" }
        },
        "required": ["city"]
    });
    for n in 1..=49 {
        let name = format!("tool_{n:02}");
        let tool = Tool::new(name.clone())
            .description(format!("Catalogue tool {n:02}: the forecast for a city over a number of days"))
            .input_schema(forecast_schema.clone());
        let name: Arc<str> = name.into();
        server = server.tool(tool, move |args, _ctx| {
            let name = name.clone();
            async move {
                let city = args.get("city").and_then(|c| c.as_str()).unwrap_or_default();
                let days = args.get("days").and_then(|d| d.as_i64()).unwrap_or(1);
                CallToolResult::text(format!("{name}: {city} {days}"))
            }
        });
    }

    // Built once at start; each read hands out a copy of the text.
    // Built on the first read and kept (bench/servers/README.md).
    static BLOB: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    server.resource(Resource::new("bench://blob", "blob").mime_type("text/plain"), move |req, _ctx| {
        let blob = BLOB.get_or_init(|| "0123456789abcdef".repeat(65_536).into()).clone();
        async move { Ok(ReadResourceResult::text(req.uri, &*blob, Some("text/plain"))) }
    })
}
