//! The hypermcp (Rust) benchmark server: the contract of `bench/servers/README.md` (an `echo`
//! tool, the catalogue `tool_01` … `tool_49`, the 1 MiB resource `bench://blob`; with
//! `BENCH_MODERN=1` the 2026-07-28 tools `ask` and `touch`; with `BENCH_MIDDLEWARE=1` one
//! pass-through middleware), written the way a user of the crate writes a server.
//!
//!     bench_server                               # stdio
//!     bench_server --http PORT                   # Streamable HTTP at 127.0.0.1:PORT/mcp, sessions
//!     bench_server --http PORT --stateless-json  # stateless, plain JSON answers
//!
//! After `--http PORT [--stateless-json]`, the serving options of `bench/run.py`'s auth and
//! TLS rows (bench/servers/README.md): `--tls-cert PEM --tls-key PEM` serve HTTPS;
//! `--auth-issuer URL --auth-jwks URL --auth-resource URI` make the server an OAuth resource
//! server that takes JWTs of that issuer for that resource with the scope `mcp`.
//!
//! Built as the binary `bench_server` of `bench/loadgen` (`cargo build --release -p
//! hypermcp-loadgen`).

use std::sync::Arc;

use hypermcp::auth::server::ResourceServerOptions;
use hypermcp::engine::Outcome;
use hypermcp::http::HttpOptions;
use hypermcp::runtime::{BoxFuture, Hooks, Middleware, MiddlewareContext, Next};
use hypermcp::{CallToolResult, ElicitAction, ElicitParams, ReadResourceResult, Resource, Server, Tool};
use serde_json::json;

fn main() -> hypermcp::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match parse(&args) {
        Some(mode) => mode,
        None => {
            eprintln!(
                "usage: bench_server [--http PORT [--stateless-json] [--tls-cert PEM --tls-key PEM] \
                 [--auth-issuer URL --auth-jwks URL --auth-resource URI]]"
            );
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
            Mode::Http(options) => {
                let port = options.port;
                server.serve_http_with(("127.0.0.1", port), options.http).await
            }
        }
    })
}

enum Mode {
    Stdio,
    Http(Box<Http>),
}

struct Http {
    port: u16,
    http: HttpOptions,
}

fn parse(args: &[String]) -> Option<Mode> {
    let (flag, rest) = match args {
        [] => return Some(Mode::Stdio),
        [flag, rest @ ..] => (flag, rest),
    };
    let (port, mut rest) = rest.split_first()?;
    if flag != "--http" {
        return None;
    }
    let mut o = Http { port: port.parse().ok()?, http: HttpOptions::default() };
    let (mut issuer, mut jwks, mut resource) = (None, None, None);
    while let Some((flag, tail)) = rest.split_first() {
        if flag == "--stateless-json" {
            o.http.stateless = true;
            o.http.json_response = true;
            rest = tail;
            continue;
        }
        let (value, tail) = tail.split_first()?;
        match flag.as_str() {
            "--tls-cert" => o.http.tls_cert = Some(value.into()),
            "--tls-key" => o.http.tls_key = Some(value.into()),
            "--auth-issuer" => issuer = Some(value.clone()),
            "--auth-jwks" => jwks = Some(value.clone()),
            "--auth-resource" => resource = Some(value.clone()),
            _ => return None,
        }
        rest = tail;
    }
    if o.http.tls_cert.is_some() != o.http.tls_key.is_some() {
        return None;
    }
    match (issuer, jwks, resource) {
        (None, None, None) => {}
        (Some(issuer), Some(jwks), Some(resource)) => {
            o.http.auth = Some(ResourceServerOptions {
                resource,
                authorization_servers: vec![issuer],
                jwks_uri: Some(jwks),
                required_scopes: vec!["mcp".into()],
                ..Default::default()
            })
        }
        _ => return None,
    }
    Some(Mode::Http(Box::new(o)))
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

    // The 2026-07-28 scenarios (bench/servers/README.md), with BENCH_MODERN=1 only (the
    // catalogue the other scenarios list stays 50 tools): `ask` elicits a name (one
    // `input_required` round trip at 2026-07-28), `touch` changes the tool list (adds or
    // removes `touched`) so that every `subscriptions/listen` stream gets `list_changed`.
    if std::env::var_os("BENCH_MODERN").is_some() {
        server = modern_tools(server);
    }
    // One pass-through middleware with BENCH_MIDDLEWARE=1 (bench/servers/README.md).
    if std::env::var_os("BENCH_MIDDLEWARE").is_some() {
        server = server.middleware(PassThrough);
    }
    // The logging and timing built-ins with BENCH_BUILTINS=1 (their lines read by nobody).
    if std::env::var_os("BENCH_BUILTINS").is_some() {
        server =
            server.middleware(hypermcp::middleware::Logging::new()).middleware(hypermcp::middleware::Timing::new());
    }

    // Built on the first read and kept (bench/servers/README.md).
    static BLOB: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    server.resource(Resource::new("bench://blob", "blob").mime_type("text/plain"), move |req, _ctx| {
        let blob = BLOB.get_or_init(|| "0123456789abcdef".repeat(65_536).into()).clone();
        async move { Ok(ReadResourceResult::text(req.uri, &*blob, Some("text/plain"))) }
    })
}

/// A middleware that passes every tool call on: what one link costs a call.
struct PassThrough;

impl Middleware for PassThrough {
    fn hooks(&self) -> Hooks {
        Hooks::CALL_TOOL
    }
    fn on_call_tool<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }
}

/// `ask` and `touch`, the tools of the 2026-07-28 scenarios (bench/modern.sh).
fn modern_tools(mut server: Server) -> Server {
    let no_args = json!({ "type": "object", "properties": {} });
    server = server.tool(
        Tool::new("ask").description("Ask for a name, then greet it").input_schema(no_args.clone()),
        |_args, ctx| async move {
            let form =
                json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] });
            let answer = ctx.elicit(ElicitParams::form("What is your name?", form)).await?;
            let name = answer.content.as_ref().and_then(|c| c.get("name")).and_then(|n| n.as_str());
            match (answer.action, name) {
                (ElicitAction::Accept, Some(name)) => {
                    Ok::<_, hypermcp::Error>(CallToolResult::text(format!("hello {name}")))
                }
                _ => Ok(CallToolResult::error(format!("no name given ({:?})", answer.action))),
            }
        },
    );
    let handle = server.clone();
    server = server.tool(
        Tool::new("touch").description("Change the tool list (add or remove `touched`)").input_schema(no_args.clone()),
        move |_args, _ctx| {
            let server = handle.clone();
            let no_args = no_args.clone();
            async move {
                if !server.remove_tool("touched") {
                    let touched = Tool::new("touched").description("Added by touch").input_schema(no_args);
                    server.add_tool(touched, |_args, _ctx| async { CallToolResult::text("touched") })?;
                }
                Ok::<_, hypermcp::Error>(CallToolResult::text("touched"))
            }
        },
    );
    server
}
