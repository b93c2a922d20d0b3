//! The MCP HTTP service mounted in your own hyper server, next to your own routes:
//! `GET /health` is the app's, everything else goes to MCP (`/mcp`, and `/sse` + `/messages`
//! for legacy clients). With axum, the same service mounts with
//! `Router::new().route_service("/mcp", svc)`: it is a tower `Service` too.
//!
//! Run: `cargo run --example http_mount -- [PORT]`, then connect a client to
//! `http://127.0.0.1:PORT/mcp`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hypermcp::http::{HttpOptions, HttpService};
use hypermcp::{CallToolResult, Server, Tool};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> hypermcp::Result<()> {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let server = Server::new("mounted-echo", "1.0.0").tool(
        Tool::new("echo").description("Echo the given text back").input_schema(schema),
        |args, _ctx| async move { CallToolResult::text(args["text"].as_str().unwrap_or_default()) },
    );
    let mcp: HttpService = server.http_service(HttpOptions::default());
    let port: u16 = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(8000);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("serving http://127.0.0.1:{port}/mcp (and /health)");
    loop {
        let (tcp, _) = listener.accept().await?;
        let mcp = mcp.clone();
        tokio::spawn(async move {
            let route = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let mcp = mcp.clone();
                async move {
                    if req.uri().path() == "/health" {
                        let ok = Full::new(Bytes::from_static(b"ok")).map_err(|never| match never {}).boxed();
                        return Ok::<_, std::convert::Infallible>(Response::new(ok));
                    }
                    // The MCP service answers its own paths (404 for the rest).
                    Ok(mcp.handle(req).await.map(|b| b.boxed()))
                }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), route).await;
        });
    }
}
