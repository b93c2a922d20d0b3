//! The official extensions in one runnable program
//! (`cargo run --release -p hypermcp-examples --example extensions`).
//!
//! A server that serves skills (the `examples/skills` directory), runs a tool as a task (it
//! reports progress, asks the user a question, then answers) and links that tool to an MCP
//! App view; and a client that loads and verifies a skill, follows the task to its end
//! (answering its question), keeps another task's handle and cancels it, and reads the app's
//! view with the Content-Security-Policy to render it with. Both ends run here, over the
//! in-memory transport; `Client::stdio` or `Client::http` reach the same server elsewhere.

use hypermcp::catalogue::TaskMode;
use hypermcp::server::tasks::TaskOptions;
use hypermcp::{
    Client, ClientOptions, ElicitAction, ElicitParams, ElicitResult, Error, Server, Tool, ToolCall, UiResourceMeta,
};
use serde_json::{json, Value};
use std::time::Duration;

const VIEW: &str =
    "<!doctype html>\n<html><body><h1>Report</h1><p id=\"status\">waiting for the report...</p></body></html>\n";

fn server() -> Server {
    let skills = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    Server::new("extensions-demo", "1.0.0")
        .skills_dir(skills)
        .tasks(TaskOptions { poll_interval: Duration::from_millis(50), ..Default::default() })
        .app("ui://demo/report", VIEW, UiResourceMeta::default())
        .tool(
            Tool::new("build_report")
                .description("Builds a report page by page, then asks whether to publish it (runs as a task)")
                .input_schema(json!({"type": "object", "properties": {"pages": {"type": "integer"}}}))
                .ui("ui://demo/report"),
            |args, ctx| async move {
                let pages = args.get("pages").and_then(Value::as_u64).unwrap_or(3);
                for page in 1..=pages {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let message = format!("page {page} of {pages}");
                    ctx.report_progress(page as f64, Some(pages as f64), Some(&message)).await?;
                }
                let schema =
                    json!({"type": "object", "properties": {"publish": {"type": "boolean"}}, "required": ["publish"]});
                let answer =
                    ctx.elicit(ElicitParams::form(format!("Publish the {pages}-page report?"), schema)).await?;
                let publish = answer.action == ElicitAction::Accept
                    && answer.content.as_ref().and_then(|c| c.get("publish")) == Some(&json!(true));
                Ok::<_, Error>(format!(
                    "report of {pages} pages {}",
                    if publish { "published" } else { "kept as a draft" }
                ))
            },
        )
        .task_mode("build_report", TaskMode::Optional)
}

#[tokio::main]
async fn main() -> hypermcp::Result<()> {
    let options = ClientOptions::default().tasks().apps().on_elicitation(false, |params| async move {
        if let ElicitParams::Form { message, .. } = &params {
            println!("  the task asks: {message} -> yes");
        }
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: Some(serde_json::Map::from_iter([("publish".to_string(), json!(true))])),
            meta: None,
        })
    });
    let client = Client::in_memory(&server(), options).await?;

    // Skills: listed without fetching; SKILL.md and each file verified when read.
    let skills = client.list_skills().await?;
    let names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
    println!("skills: {}", names.join(", "));
    let pdf = skills.iter().find(|s| s.name() == "pdf-processing").ok_or_else(|| Error::msg("no pdf skill"))?;
    let text = client.load_skill(pdf).await?;
    let forms = client.read_skill_file(pdf, "references/FORMS.md").await?;
    println!("  {}: {} bytes of SKILL.md, {} of FORMS.md (verified)", pdf.name(), text.len(), forms.len());

    // Tasks: call_tool follows the task to its end; its question reaches on_elicitation above.
    let result = client.call_tool("build_report", json!({"pages": 3})).await?;
    println!("task followed to its end: {}", result.content[0].as_text().unwrap_or_default());
    let ToolCall::Task(handle) = client.call_tool_task("build_report", json!({"pages": 500})).await? else {
        return Err(Error::msg("the server did not answer with a task"));
    };
    println!("task kept: {} is {}", handle.id(), handle.status().await?["status"]);
    handle.cancel().await?;
    println!("  after cancel: {}", handle.status().await?["status"]);

    // MCP Apps: the tool's view, and how to render it.
    let tools = client.list_tools().await?;
    let tool = tools.iter().find(|t| t.name == "build_report").ok_or_else(|| Error::msg("no build_report"))?;
    let uri = tool.ui_resource_uri().ok_or_else(|| Error::msg("build_report links no view"))?;
    let app = client.read_app(uri).await?;
    println!("app view: {}, {} bytes of HTML, CSP {:?}", app.uri, app.html.len(), app.csp);
    client.close().await
}
