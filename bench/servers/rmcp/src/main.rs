//! The benchmark server (bench/servers/README.md) written with rmcp, the official Rust SDK.
//!
//!     rmcp-bench-server                              stdio
//!     rmcp-bench-server --http PORT                  Streamable HTTP on 127.0.0.1:PORT at /mcp,
//!                                                    sessions (rmcp's default configuration)
//!     rmcp-bench-server --http PORT --stateless-json stateless, plain JSON answers
//!
//! Built the way rmcp's own examples build a server: `#[tool_router]` / `#[tool]` for `echo`,
//! a `ToolRouter` field that `#[tool_handler]` serves, `serve(stdio())` for stdio, and a
//! `StreamableHttpService` with a `LocalSessionManager` nested at /mcp in an axum router for
//! HTTP (with TCP_NODELAY: see `main`). The 49 catalogue tools are added at run time to one
//! router that every server value shares (`ToolRoute::new` with one handler that reads the
//! tool's name from `ToolName`), as an rmcp user with a generated catalogue would. `ask` is the
//! multi round-trip tool of the 2026-07-28 scenarios, `touch` the trigger of their listen
//! fan-out (`subscriptions/listen` implemented as rmcp asks: `accepted_subscription_filter`
//! and a `listen` per stream fed by a broadcast channel). `--stateless-json` is rmcp's
//! `legacy_session_mode: false` with `json_response: true`.
//! No tracing subscriber is installed: nothing is logged.

use std::sync::{Arc, OnceLock};

use axum::serve::ListenerExt;
use rmcp::{
    handler::server::{
        common::schema_for_type,
        router::tool::{ToolRoute, ToolRouter},
        tool::{InputResponses, ToolName},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitationSchema,
        Implementation, InputRequest, InputRequiredResult, ListResourcesResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
        ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
    },
    schemars,
    service::{RequestContext, SubscriptionContext},
    tool, tool_handler, tool_router,
    transport::{
        stdio,
        streamable_http_server::{
            session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
        },
    },
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};
use serde::Deserialize;

const BLOB_URI: &str = "bench://blob";

/// The 1 MiB resource text, built on the first read and kept.
static BLOB: OnceLock<Arc<String>> = OnceLock::new();

fn blob() -> &'static Arc<String> {
    BLOB.get_or_init(|| Arc::new("0123456789abcdef".repeat(65_536)))
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    #[schemars(description = "Text to echo back")]
    text: String,
}

fn one() -> i64 {
    1
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    #[schemars(description = "City name")]
    city: String,
    #[schemars(description = "Days ahead, 1 to 7")]
    #[serde(default = "one")]
    days: i64,
}

/// The handler of every catalogue tool: `tool_NN: CITY DAYS`.
fn forecast(ToolName(name): ToolName, Parameters(args): Parameters<ForecastArgs>) -> String {
    format!("{name}: {} {}", args.city, args.days)
}

/// The listen fan-out's bus: rmcp leaves delivering to `subscriptions/listen` streams to the
/// server (`ServerHandler::listen` runs once per stream); `touch` sends on it and every
/// stream's `listen` forwards it as `notifications/tools/list_changed`.
fn tools_changed() -> &'static tokio::sync::broadcast::Sender<()> {
    static TX: OnceLock<tokio::sync::broadcast::Sender<()>> = OnceLock::new();
    TX.get_or_init(|| tokio::sync::broadcast::channel(64).0)
}

#[derive(Clone)]
struct BenchServer {
    tool_router: Arc<ToolRouter<Self>>,
}

/// The 49 catalogue tool definitions, made once at start. Their names and descriptions are
/// leaked to `&'static str`, so a definition is as cheap to copy as one `#[tool]` writes.
fn catalogue() -> &'static [Tool] {
    static CATALOGUE: OnceLock<Vec<Tool>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        (1..=49)
            .map(|n| {
                let name: &'static str = format!("tool_{n:02}").leak();
                let description: &'static str =
                    format!("Catalogue tool {n:02}: the forecast for a city over a number of days").leak();
                Tool::new(name, description, schema_for_type::<ForecastArgs>())
            })
            .collect()
    })
}

#[tool_router]
impl BenchServer {
    /// One server value per stdio connection, per HTTP session, per stateless request (rmcp's
    /// service factory). rmcp's examples give each its own router; here they share one,
    /// built once (an `Arc`), the fastest way to serve 50 tools with rmcp: measured ~3x the
    /// stateless throughput of a router per value, and less memory per session.
    fn new() -> Self {
        static ROUTER: OnceLock<Arc<ToolRouter<BenchServer>>> = OnceLock::new();
        let tool_router = ROUTER
            .get_or_init(|| {
                let mut tool_router = Self::tool_router();
                // The tools of the 2026-07-28 scenarios, with BENCH_MODERN=1 only (bench/modern.sh):
                // elsewhere the catalogue every SDK lists stays 50 tools.
                if std::env::var_os("BENCH_MODERN").is_none() {
                    tool_router.remove_route("ask");
                    tool_router.remove_route("touch");
                }
                for tool in catalogue() {
                    tool_router.add_route(ToolRoute::new(tool.clone(), forecast));
                }
                Arc::new(tool_router)
            })
            .clone();
        Self { tool_router }
    }

    #[tool(description = "Echo the text back")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// The MRTR scenario (2026-07-28): the first round answers `input_required` with one form
    /// elicitation, key `name`; the retry carrying the accepted answer gets `hello NAME`. rmcp's
    /// way: the tool reads the `InputResponses` of the retry and returns an
    /// `InputRequiredResult` when there are none (no `requestState`: nothing to carry over).
    #[tool(description = "Ask for a name, then greet it")]
    async fn ask(&self, InputResponses(responses): InputResponses) -> CallToolResponse {
        let name = responses.as_ref().and_then(|r| r.get("name")).and_then(|answer| {
            (answer.get("action")?.as_str()? == "accept").then(|| answer.get("content")?.get("name")?.as_str())?
        });
        if let Some(name) = name {
            return CallToolResult::success(vec![ContentBlock::text(format!("hello {name}"))]).into();
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "What is your name?".to_string(),
            requested_schema: ElicitationSchema::builder().required_string("name").build().expect("a valid schema"),
        };
        let requests = [("name".to_string(), InputRequest::Elicitation(ElicitRequest::new(params)))];
        InputRequiredResult::from_input_requests(requests.into_iter().collect()).into()
    }

    #[tool(description = "Send tools/list_changed to every listener")]
    async fn touch(&self) -> String {
        let _ = tools_changed().send(());
        "touched".to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for BenchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_resources().build(),
        )
        .with_server_info(Implementation::new("rmcp-bench-server", env!("CARGO_PKG_VERSION")))
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        use tokio::sync::broadcast::error::RecvError;
        let mut rx = tools_changed().subscribe();
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                r = rx.recv() => match r {
                    Ok(()) | Err(RecvError::Lagged(_)) => {
                        if context.sink().notify_tool_list_changed().await.is_err() {
                            return Ok(());
                        }
                    }
                    Err(RecvError::Closed) => return Ok(()),
                },
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(BLOB_URI, "blob").with_mime_type("text/plain")]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != BLOB_URI {
            return Err(ErrorData::resource_not_found(format!("unknown resource {}", request.uri), None));
        }
        Ok(ReadResourceResult::new(
            vec![ResourceContents::text(blob().as_str(), BLOB_URI).with_mime_type("text/plain")],
        )
        .into())
    }
}

fn usage(msg: &str) -> ! {
    eprintln!("rmcp-bench-server: {msg}\nusage: rmcp-bench-server [--http PORT [--stateless-json]]");
    std::process::exit(2);
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut port: Option<u16> = None;
    let mut stateless_json = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" if port.is_none() => {
                let value = args.next().unwrap_or_else(|| usage("--http needs PORT"));
                port = Some(value.parse().unwrap_or_else(|_| usage("bad PORT")));
            }
            "--stateless-json" => stateless_json = true,
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if stateless_json && port.is_none() {
        usage("--stateless-json needs --http PORT");
    }
    catalogue();

    let Some(port) = port else {
        let service = BenchServer::new().serve(stdio()).await?;
        service.waiting().await?;
        return Ok(());
    };

    let ct = tokio_util::sync::CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token());
    if stateless_json {
        config = config.with_legacy_session_mode(false).with_json_response(true);
    }
    let service = StreamableHttpService::new(|| Ok(BenchServer::new()), LocalSessionManager::default().into(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("rmcp-bench-server: listening on http://127.0.0.1:{}/mcp", listener.local_addr()?.port());
    // axum's documented way to set TCP_NODELAY on accepted connections: without it, an SSE
    // answer (headers, then events, then the last chunk, each its own write) waits ~40 ms
    // for the client's delayed ACK on every call.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = tokio::signal::ctrl_c().await;
            ct.cancel();
        })
        .await?;
    Ok(())
}
