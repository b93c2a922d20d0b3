//! The weather example in Rust, with its MCP App: a `forecast` tool whose results hosts that
//! render MCP Apps show in the forecast widget (`ui://weather/forecast`,
//! `examples/apps/weather-widget.html`), and every other host reads as text and structured
//! content. The Python and Node weather servers serve the same tool and widget.
//!
//! Run: `cargo run --release --example weather_server` (stdio), or with `--http PORT` for
//! Streamable HTTP at `http://127.0.0.1:PORT/mcp`.

use hypermcp::{CallToolResult, Content, Error, RpcError, Server, Tool, UiResourceMeta};
use serde_json::{json, Value};

/// Today's temperature (°C) of each city the example knows.
const CITIES: [(&str, &str, f64); 4] =
    [("paris", "Paris", 18.5), ("london", "London", 12.0), ("tokyo", "Tokyo", 22.3), ("lima", "Lima", 16.1)];

const WIDGET: &str = include_str!("../../examples/apps/weather-widget.html");

fn server() -> Server {
    let input = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Which city (paris, london, tokyo, lima)."},
            "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3, "description": "How many days ahead (1-7)"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}
        },
        "required": ["city"]
    });
    let output = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "temperatures": {"type": "array", "items": {"type": "number"}},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"]}
        },
        "required": ["city", "days", "temperatures", "units"]
    });
    Server::new("weather", env!("CARGO_PKG_VERSION"))
        .instructions("Ask for forecasts by city.")
        .app("ui://weather/forecast", WIDGET, UiResourceMeta { prefers_border: Some(true), ..Default::default() })
        .tool(
            Tool::new("forecast")
                .description("Forecast for a city.")
                .input_schema(input)
                .output_schema(output)
                .ui("ui://weather/forecast"),
            |args, _ctx| async move {
                let key = args.get("city").and_then(Value::as_str).unwrap_or_default().to_lowercase();
                let Some((_, name, base)) = CITIES.iter().find(|(k, _, _)| *k == key) else {
                    let known: Vec<&str> = CITIES.iter().map(|c| c.0).collect();
                    let e =
                        RpcError::invalid_params(format!("unknown city {key:?}")).with_data(json!({"known": known}));
                    return Err(Error::Rpc(e));
                };
                let days = args.get("days").and_then(Value::as_u64).unwrap_or(3).clamp(1, 7);
                let fahrenheit = args.get("units").and_then(Value::as_str) == Some("fahrenheit");
                let temperatures: Vec<f64> = (0..days)
                    .map(|d| base + d as f64 * 0.5)
                    .map(|t| if fahrenheit { ((t * 9.0 / 5.0 + 32.0) * 10.0).round() / 10.0 } else { t })
                    .collect();
                let (units, symbol) = if fahrenheit { ("fahrenheit", "°F") } else { ("celsius", "°C") };
                let list: Vec<String> = temperatures.iter().map(|t| t.to_string()).collect();
                Ok(CallToolResult {
                    // What hosts without MCP Apps show; the widget draws the structured content.
                    content: vec![Content::text(format!("{name}: {} {symbol}", list.join(", ")))],
                    structured_content: Some(
                        json!({"city": name, "days": days, "temperatures": temperatures, "units": units}),
                    ),
                    ..Default::default()
                })
            },
        )
}

fn main() -> hypermcp::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        match args.iter().position(|a| a == "--http") {
            Some(i) => {
                let port = args.get(i + 1).and_then(|p| p.parse::<u16>().ok()).unwrap_or(3000);
                server().serve_http(("127.0.0.1", port)).await
            }
            None => server().serve_stdio().await,
        }
    })
}
