//! The weather example in Rust, with its MCP App: a `forecast` tool (with progress) whose
//! results hosts that render MCP Apps show in the forecast widget (`ui://weather/forecast`,
//! `examples/apps/weather-widget.html`), and every other host reads as text and structured
//! content; `outlook` (slow: runs as a task when the client asks); `plan_trip` (asks the
//! user, then a model); the current conditions of each city as
//! a resource (`weather://{city}/now`, subscribable) and `report`, which changes a city's sky
//! and tells subscribers. The Python and Node weather servers serve the same.
//!
//! Run: `cargo run --release --example weather_server` (stdio), or with `--http PORT` for
//! Streamable HTTP at `http://127.0.0.1:PORT/mcp`.

use hypermcp::catalogue::TaskMode;
use hypermcp::server::tasks::TaskOptions;
use hypermcp::{
    CallToolResult, Content, CreateMessageParams, ElicitParams, Error, ReadResourceResult, Resource, ResourceTemplate,
    Role, RpcError, SamplingMessage, Server, Tool, UiResourceMeta,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Today's temperature (°C) of each city the example knows.
const CITIES: [(&str, &str, f64); 4] =
    [("paris", "Paris", 18.5), ("london", "London", 12.0), ("tokyo", "Tokyo", 22.3), ("lima", "Lima", 16.1)];

/// Each city's sky as first reported.
const SKIES: [(&str, &str); 4] = [("paris", "sunny"), ("london", "rain"), ("tokyo", "cloudy"), ("lima", "fog")];

const WIDGET: &str = include_str!("../apps/weather-widget.html");

fn unknown_city(key: &str) -> Error {
    let known: Vec<&str> = CITIES.iter().map(|c| c.0).collect();
    Error::Rpc(RpcError::invalid_params(format!("unknown city {key:?}")).with_data(json!({"known": known})))
}

fn server() -> Server {
    let skies: Arc<Mutex<HashMap<String, String>>> =
        Arc::new(Mutex::new(SKIES.iter().map(|(c, s)| (c.to_string(), s.to_string())).collect()));
    let (now_skies, report_skies) = (skies.clone(), skies);
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
    let server = Server::new("weather", env!("CARGO_PKG_VERSION"))
        .instructions("Ask for forecasts by city.")
        .app("ui://weather/forecast", WIDGET, UiResourceMeta { prefers_border: Some(true), ..Default::default() })
        .tool(
            Tool::new("forecast")
                .description("Forecast for a city.")
                .input_schema(input)
                .output_schema(output)
                .ui("ui://weather/forecast"),
            |args, ctx| async move {
                let key = args.get("city").and_then(Value::as_str).unwrap_or_default().to_lowercase();
                let Some((_, name, base)) = CITIES.iter().find(|(k, _, _)| *k == key) else {
                    return Err(unknown_city(&key));
                };
                let days = args.get("days").and_then(Value::as_u64).unwrap_or(3).clamp(1, 7);
                for day in 1..=days {
                    ctx.report_progress(day as f64, Some(days as f64), Some(&format!("day {day}"))).await?;
                }
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
        .tasks(TaskOptions::default())
        .tool(
            Tool::new("outlook")
                .description(
                    "A long-range outlook, half a second a day: it runs as a task when the client asks (polled \
                     with tasks/get, cancelled with tasks/cancel, its result taken with tasks/result).",
                )
                .input_schema(json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "default": 3}},
                    "required": ["city"]
                })),
            |args, ctx| async move {
                let key = args.get("city").and_then(Value::as_str).unwrap_or_default().to_lowercase();
                let Some((_, name, _)) = CITIES.iter().find(|(k, _, _)| *k == key) else {
                    return Err(unknown_city(&key));
                };
                let days = args.get("days").and_then(Value::as_u64).unwrap_or(3).max(1);
                for day in 1..=days {
                    tokio::select! {
                        _ = tokio::time::sleep(std::time::Duration::from_millis(500)) => {}
                        _ = ctx.cancelled() => return Err(Error::msg("cancelled")),
                    }
                    ctx.report_progress(day as f64, Some(days as f64), Some(&format!("day {day}"))).await?;
                }
                let sky = SKIES.iter().find(|(c, _)| *c == key).map_or("unknown", |(_, s)| *s);
                Ok(format!("{name}: {sky} for {days} days"))
            },
        )
        .task_mode("outlook", TaskMode::Optional)
        .tool(
            Tool::new("plan_trip").description("Asks the user where to go (elicitation), then a model for advice (sampling)."),
            |_args, ctx| async move {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "enum": ["lima", "london", "paris", "tokyo"]},
                        "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3}
                    },
                    "required": ["city"]
                });
                let answer = ctx.elicit(ElicitParams::form("Where would you like to go?", schema)).await?;
                let Some(city) = answer.content.as_ref().and_then(|c| c.get("city")).and_then(Value::as_str) else {
                    return Ok::<_, Error>("Trip planning declined.".to_string());
                };
                let city = city.to_string();
                let sky = SKIES.iter().find(|(c, _)| *c == city).map_or("unknown", |(_, s)| *s);
                let params = CreateMessageParams {
                    messages: vec![SamplingMessage {
                        role: Role::User,
                        content: json!({"type": "text", "text": format!("One sentence of packing advice for {city}, weather: {sky}.")}),
                    }],
                    max_tokens: 60,
                    ..Default::default()
                };
                let advice = ctx.sample(params).await?;
                Ok(format!("{city}: {}", advice.content["text"].as_str().unwrap_or_default()))
            },
        )
        .resource(Resource::new("weather://cities", "cities").mime_type("application/json"), |r, _ctx| async move {
            let names: Vec<&str> = CITIES.iter().map(|c| c.0).collect();
            Ok(ReadResourceResult::text(r.uri, json!(names).to_string(), Some("application/json")))
        })
        .resource_template(
            ResourceTemplate {
                description: Some("Current conditions in a city.".into()),
                ..ResourceTemplate::new("weather://{city}/now", "now").mime_type("application/json")
            },
            move |r, _ctx| {
                let skies = now_skies.clone();
                async move {
                    let key = r.variables.get("city").cloned().unwrap_or_default().to_lowercase();
                    let Some((_, name, temp)) = CITIES.iter().find(|(k, _, _)| *k == key) else {
                        return Err(unknown_city(&key));
                    };
                    let sky = skies.lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned().unwrap_or_default();
                    let body = json!({"name": name, "temp_c": temp, "sky": sky});
                    Ok(ReadResourceResult::text(r.uri, body.to_string(), Some("application/json")))
                }
            },
        );
    // `report` tells subscribers of the city's conditions (through the server's registry).
    let registry = server.registry().clone();
    let report = Tool::new("report")
        .description("Reports a city's sky; subscribers of its conditions are told.")
        .input_schema(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "sky": {"type": "string"}},
            "required": ["city", "sky"]
        }));
    let added = server.add_tool(report, move |args, _ctx| {
        let (skies, registry) = (report_skies.clone(), registry.clone());
        async move {
            let key = args.get("city").and_then(Value::as_str).unwrap_or_default().to_lowercase();
            if !CITIES.iter().any(|(k, _, _)| *k == key) {
                return Err(unknown_city(&key));
            }
            let sky = args.get("sky").and_then(Value::as_str).unwrap_or_default().to_string();
            skies.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), sky.clone());
            registry.notify_resource_updated(&format!("weather://{key}/now"));
            Ok::<_, Error>(format!("{key}: {sky}"))
        }
    });
    added.expect("the report tool");
    server
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
