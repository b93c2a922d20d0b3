//! The client side of the MCP conformance harness (`@modelcontextprotocol/conformance
//! client`): connects over Streamable HTTP to the scenario's server and plays the scenario
//! named by `MCP_CONFORMANCE_SCENARIO`.
//!
//! Run: `conformance client --command "target/debug/examples/conformance_client" --scenario
//! initialize` (the harness appends the server URL). Scenarios: `initialize`, `tools_call`,
//! `elicitation-sep1034-client-defaults`, `sse-retry`; any other one lists the tools and
//! calls each with empty arguments. Exits 0 on success, 1 with a message otherwise.

use hypermcp::http::client::HttpClientOptions;
use hypermcp::{Client, ClientOptions, ElicitAction, ElicitParams, ElicitResult};
use serde_json::{json, Map, Value};
use std::time::Duration;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)");
        std::process::exit(2);
    };
    match tokio::time::timeout(Duration::from_secs(25), run(&scenario, &url)).await {
        Ok(Ok(())) => println!("scenario {scenario:?}: done"),
        Ok(Err(e)) => {
            eprintln!("scenario {scenario:?} against {url}: {e}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("scenario {scenario:?} against {url}: timed out");
            std::process::exit(1);
        }
    }
}

/// Accepts an elicitation form with every property's `default` filled in.
async fn accept_defaults(params: ElicitParams) -> hypermcp::Result<ElicitResult> {
    let ElicitParams::Form { requested_schema, .. } = params else {
        return Ok(ElicitResult { action: ElicitAction::Decline, content: None, meta: None });
    };
    let mut content = Map::new();
    if let Some(props) = requested_schema.get("properties").and_then(Value::as_object) {
        for (name, schema) in props {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None })
}

async fn run(scenario: &str, url: &str) -> hypermcp::Result<()> {
    let mut options = ClientOptions::new("hypermcp-conformance-client", env!("CARGO_PKG_VERSION"));
    if scenario.starts_with("elicitation") {
        options = options.on_elicitation(false, accept_defaults);
    }
    let client = Client::http(url, HttpClientOptions::default(), options).await?;
    let outcome = play(scenario, &client).await;
    client.close().await?;
    outcome
}

async fn play(scenario: &str, client: &Client) -> hypermcp::Result<()> {
    match scenario {
        "initialize" => {
            // The handshake is the scenario; list tools only if the server offers them.
            if client.server().capabilities.tools.is_some() {
                client.list_tools().await?;
            }
        }
        "tools_call" => {
            client.list_tools().await?;
            let r = client.call_tool("add_numbers", json!({"a": 5, "b": 3})).await?;
            if r.failed() {
                return Err(format!("add_numbers failed: {r:?}").into());
            }
            println!("add_numbers: {}", r.content.first().and_then(|c| c.as_text()).unwrap_or_default());
        }
        _ => {
            // sse-retry, elicitation-sep1034-client-defaults and others: call every tool.
            for tool in client.list_tools().await? {
                let r = client.call_tool(&tool.name, json!({})).await?;
                let text = r.content.first().and_then(|c| c.as_text()).unwrap_or_default();
                println!("{}: {text}", tool.name);
                if r.failed() {
                    return Err(format!("{} failed: {text}", tool.name).into());
                }
            }
        }
    }
    Ok(())
}
