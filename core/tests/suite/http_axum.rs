//! The HTTP service mounts in an axum app (as a tower `Service`) next to the app's own
//! routes, and a `Client` talks to it there.

use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::{CallToolResult, Client, ClientOptions, Server, Tool};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn the_service_mounts_in_axum() {
    tokio::time::timeout(Duration::from_secs(20), async {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let server = Server::new("axum-echo", "1.0.0")
            .tool(Tool::new("echo").description("Echo").input_schema(schema), |args, _ctx| async move {
                CallToolResult::text(args["text"].as_str().unwrap_or_default())
            });
        let mcp = server.http_service(HttpOptions::default());
        let app =
            axum::Router::new().route("/health", axum::routing::get(|| async { "ok" })).route_service("/mcp", mcp);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });

        // The app's own route still answers.
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        tcp.write_all(format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut raw = String::new();
        tcp.read_to_string(&mut raw).await.unwrap();
        assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
        assert!(raw.ends_with("ok"), "{raw}");

        // MCP at /mcp: a session, a call, and the session ended on close.
        let url = format!("http://{addr}/mcp");
        let client = Client::http(&url, HttpClientOptions::default(), ClientOptions::new("t", "1")).await.unwrap();
        assert_eq!(client.server().server_info.name, "axum-echo");
        let r = client.call_tool("echo", json!({"text": "through axum"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("through axum"));
        client.close().await.unwrap();
    })
    .await
    .expect("bounded");
}
