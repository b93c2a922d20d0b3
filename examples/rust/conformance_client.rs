//! The client side of the MCP conformance harness (`@modelcontextprotocol/conformance
//! client`): connects over Streamable HTTP to the scenario's server and plays the scenario
//! named by `MCP_CONFORMANCE_SCENARIO`.
//!
//! Run: `conformance client --command "target/debug/examples/conformance_client" --scenario
//! initialize` (the harness appends the server URL). The era comes from
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` (2026-07-28: the modern, stateless client; another
//! revision: the `initialize` handshake; unset: auto). Scenarios: `initialize`, `tools_call`,
//! `elicitation-sep1034-client-defaults`, `sse-retry`, `json-schema-2020-12-preservation`
//! (the listed `inputSchema` of `json_schema_2020_12_tool` handed back, as listed, to the
//! `json_schema_echo` tool); any other one lists the tools and
//! calls each (with the arguments `MCP_CONFORMANCE_CONTEXT` gives, else sample values of the
//! required ones), then, on a modern server, reads every resource and gets every prompt.
//! Exits 0 on success, 1 with a message otherwise.

use hypermcp::auth::client::{AuthorizeMode, Grant, OAuthOptions};
use hypermcp::http::client::HttpClientOptions;
use hypermcp::{Client, ClientMode, ClientOptions, ElicitAction, ElicitParams, ElicitResult};
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

/// The harness's Client ID Metadata Document URL (its authorization servers accept it as is).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// OAuth for the `auth/*` scenarios: the harness's authorization servers approve at once, so
/// the headless handler follows their redirect; `MCP_CONFORMANCE_CONTEXT` carries the
/// pre-registered credentials of the scenarios that have them (a secret or a private key),
/// the workload token of `auth/wif-jwt-bearer` and the identity provider of
/// `auth/enterprise-managed-authorization`.
fn conformance_auth(scenario: &str) -> OAuthOptions {
    let ctx: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let text = |k: &str| ctx.get(k).and_then(Value::as_str).map(str::to_string);
    let mut o = OAuthOptions::new("http://localhost:3000/callback").client_metadata_url(CLIENT_METADATA_URL);
    o.client_name = "hypermcp-conformance-client".into();
    o.authorize = AuthorizeMode::Headless;
    if let Some(id) = text("client_id") {
        o = o.client(id, text("client_secret"));
    }
    o.private_key_pem = text("private_key_pem");
    o.signing_algorithm = text("signing_algorithm");
    if scenario.starts_with("auth/client-credentials") {
        o = o.grant(Grant::ClientCredentials);
    } else if scenario == "auth/wif-jwt-bearer" {
        o.assertion = text("valid_jwt");
        o = o.grant(Grant::JwtBearer);
    } else if scenario == "auth/enterprise-managed-authorization" {
        o.id_token = text("idp_id_token");
        o.idp_token_endpoint = text("idp_token_endpoint");
        o.idp_client_id = text("idp_client_id");
        o = o.grant(Grant::EnterpriseManaged);
    }
    o
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
    let mode = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => ClientMode::Modern,
        Ok(_) => ClientMode::Legacy,
        Err(_) => ClientMode::Auto,
    };
    let mut options = ClientOptions::new("hypermcp-conformance-client", env!("CARGO_PKG_VERSION")).mode(mode);
    if scenario.starts_with("elicitation") || mode != ClientMode::Legacy {
        options = options.on_elicitation(false, accept_defaults);
    }
    let mut http = HttpClientOptions::default();
    if scenario.starts_with("auth/") {
        http = http.auth(conformance_auth(scenario));
    }
    let client = Client::http(url, http, options).await?;
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
        "sep-2640-client-no-prefetch" => {
            // A host builds its skill registry from the listing and fetches nothing more.
            for skill in client.list_skills().await? {
                println!("skill {}: {}", skill.name(), skill.description());
            }
        }
        s if s.starts_with("sep-2640-client-verify") => play_skills(client).await?,
        "json-schema-2020-12-preservation" => play_schema_echo(client).await?,
        _ if client.is_modern() => play_modern(client).await?,
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

/// A host passing a tool's `inputSchema` on (to a model, a validator) as the server listed it:
/// every JSON Schema 2020-12 keyword kept (`$schema`, `$defs`, `$anchor`,
/// `additionalProperties`, `allOf`/`anyOf`, `if`/`then`/`else`). The server's echo tool
/// receives it back and the harness compares.
async fn play_schema_echo(client: &Client) -> hypermcp::Result<()> {
    let tools = client.list_tools().await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or("the server lists no json_schema_2020_12_tool")?;
    let r = client.call_tool("json_schema_echo", json!({ "schema": focal.input_schema })).await?;
    let text = r.content.first().and_then(|c| c.as_text()).unwrap_or_default();
    if r.failed() {
        return Err(format!("json_schema_echo failed: {text}").into());
    }
    println!("json_schema_echo: {text}");
    Ok(())
}

/// The tool calls `MCP_CONFORMANCE_CONTEXT` asks for, if any (`{"toolCalls": [{name, arguments}]}`).
fn context_calls() -> Option<Vec<(String, Value)>> {
    let ctx: Value = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let calls = ctx.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|c| {
                Some((c.get("name")?.as_str()?.to_string(), c.get("arguments").cloned().unwrap_or(json!({}))))
            })
            .collect(),
    )
}

/// Sample arguments for a tool's required parameters.
fn sample_arguments(schema: &Value) -> Value {
    let mut args = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let ty = props.and_then(|p| p.get(name)).and_then(|p| p.get("type")).and_then(Value::as_str);
        let v = match ty {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("us-west1"),
        };
        args.insert(name.to_string(), v);
    }
    Value::Object(args)
}

/// A 2026-07-28 scenario: every tool the client keeps (tools with invalid `x-mcp-header`
/// annotations are dropped by the client itself), then every resource and prompt.
async fn play_modern(client: &Client) -> hypermcp::Result<()> {
    let caps = client.server().capabilities.clone();
    if caps.tools.is_some() {
        let tools = client.list_tools().await?;
        let calls = context_calls()
            .unwrap_or_else(|| tools.iter().map(|t| (t.name.clone(), sample_arguments(&t.input_schema))).collect());
        for (name, args) in calls {
            let r = client.call_tool(&name, args).await?;
            println!("{name}: {}", r.content.first().and_then(|c| c.as_text()).unwrap_or_default());
        }
    }
    if caps.resources.is_some() {
        for r in client.list_resources().await? {
            client.read_resource(&r.uri).await?;
        }
    }
    if caps.prompts.is_some() {
        for p in client.list_prompts().await? {
            client.get_prompt(&p.name, Default::default()).await?;
        }
    }
    Ok(())
}

/// A host loading the first listed skill (its `SKILL.md`, verified against the entry) and then
/// reading its other files as the model asks for them. Content that fails verification is
/// refused and nothing more of that skill is read: that ends the scenario, not as an error.
async fn play_skills(client: &Client) -> hypermcp::Result<()> {
    let skills = client.list_skills().await?;
    let Some(skill) = skills.first() else { return Err("the server lists no skill".into()) };
    let outcome = async {
        let text = client.load_skill(skill).await?;
        println!("loaded {} ({} bytes)", skill.uri, text.len());
        if let hypermcp::SkillResources::Files(files) = &skill.resources {
            for f in files.iter().filter(|f| f.uri != skill.uri) {
                let data = client.read_skill_file(skill, &f.uri).await?;
                println!("read {} ({} bytes)", f.uri, data.len());
            }
        }
        Ok::<(), hypermcp::Error>(())
    }
    .await;
    match outcome {
        Err(hypermcp::Error::SkillVerification(e)) => {
            println!("refused {}: {e}", skill.uri);
            Ok(())
        }
        other => other,
    }
}
