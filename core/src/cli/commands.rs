//! The commands: `list`, `call`, `read`, `prompt`, `inspect`, `run`, `dev` (and `bench`,
//! `install` in their own files).

use super::args::{arguments, parse, Opt, Parsed, Takes};
use super::runner::ServerFile;
use super::show::{self, Style};
use super::target::{connect, env, step, with_connect_opts, Target, CONNECT_HELP};
use super::{Failure, Host, Outcome, EXIT_TOOL_ERROR};
use crate::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};
use tokio::signal::unix::{signal, SignalKind};

const ABOUT: &str = "\
hypermcp: one command line for every MCP server

Usage: hypermcp COMMAND [OPTIONS] [TARGET] ...

Commands:
  list TARGET                    its tools, resources, templates and prompts (--json)
  call TARGET TOOL [ARGS...]     call a tool; ARGS: key=value words, or one JSON object
  read TARGET URI                read a resource (--out FILE for binary contents)
  prompt TARGET NAME [ARGS...]   get a prompt; ARGS: key=value words
  inspect TARGET                 the server's info, capabilities, era and every list, as JSON
  run FILE[:OBJECT]              run a server file: stdio, or --http PORT
  dev FILE[:OBJECT]              run it over HTTP, restarting when its files change
  bench TARGET                   a load test: calls/s and latency percentiles (--tool, --inflight)
  install HOST TARGET            add a server to claude-desktop, cursor, vscode or claude-code
  version                        this hypermcp's version

TARGET: a URL (http://127.0.0.1:8000/mcp), a server file (server.py, server.mjs,
server.ts, FILE:OBJECT) or a quoted command line (\"uvx some-server --flag\"); or the words
of a command after `--`. `hypermcp COMMAND --help` tells a command's options.

Exit codes: 0 done; 1 the server or the connection failed; 2 the command line is wrong;
3 the tool answered with an error (isError); 130 interrupted.
";

/// Runs the command `args[0]` with the rest of `args`.
pub(crate) async fn dispatch(args: Vec<String>, host: &Host) -> Outcome {
    let Some((command, rest)) = args.split_first() else {
        show::out(ABOUT);
        return Err(Failure::usage(""));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => {
            match rest.first() {
                Some(c) => return Box::pin(dispatch(vec![c.clone(), "--help".into()], host)).await,
                None => show::out(ABOUT),
            }
            Ok(())
        }
        "-V" | "--version" | "version" => {
            show::out(&format!("hypermcp {}\n", env!("CARGO_PKG_VERSION")));
            Ok(())
        }
        "list" => list(rest, host).await,
        "call" => call(rest, host).await,
        "read" => read(rest, host).await,
        "prompt" => prompt(rest, host).await,
        "inspect" => inspect(rest, host).await,
        "run" => run(rest, host, false).await,
        "dev" => run(rest, host, true).await,
        "bench" => super::bench::bench(rest, host).await,
        "install" => super::install::install(rest, host).await,
        other => Err(Failure::usage(format!(
            "unknown command {other:?}; the commands: list, call, read, prompt, inspect, run, dev, bench, install, version (see `hypermcp --help`)"
        ))),
    }
}

/// Parses a command's words with the connect options and `extra`; `None` when `--help`
/// was asked for (and shown).
fn words(command: &str, args: &[String], extra: &[Opt], usage: &str, help: &str) -> Outcome<Option<Parsed>> {
    let p = parse(command, args, &with_connect_opts(extra))?;
    if p.help {
        show::out(&format!("{usage}\n\n{help}\n{CONNECT_HELP}"));
        return Ok(None);
    }
    Ok(Some(p))
}

const JSON_OPT: Opt = Opt { name: "json", takes: Takes::Nothing };

// ---- list ------------------------------------------------------------------------------

const LIST_USAGE: &str = "Usage: hypermcp list [OPTIONS] TARGET";
const LIST_HELP: &str = "The server's tools (with their parameters), resources, resource templates and prompts.

  --json                   the lists as JSON: {\"tools\": [...], \"resources\": [...], ...}
";

/// The lists a server offers (`None`: not offered), every page of each.
#[derive(Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Lists {
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<crate::Tool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Vec<crate::Resource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_templates: Option<Vec<crate::ResourceTemplate>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<Vec<crate::Prompt>>,
}

/// The server's lists (those it offers); a list that fails is an error.
async fn lists(client: &Client, p: &Parsed) -> Outcome<Lists> {
    let caps = &client.server().capabilities;
    let mut out = Lists::default();
    if caps.tools.is_some() {
        out.tools = Some(step(p, "tools/list", client.list_tools()).await?);
    }
    if caps.resources.is_some() {
        out.resources = Some(step(p, "resources/list", client.list_resources()).await?);
        out.resource_templates = Some(step(p, "resources/templates/list", client.list_resource_templates()).await?);
    }
    if caps.prompts.is_some() {
        out.prompts = Some(step(p, "prompts/list", client.list_prompts()).await?);
    }
    Ok(out)
}

async fn list(args: &[String], host: &Host) -> Outcome {
    let Some(mut p) = words("list", args, &[JSON_OPT], LIST_USAGE, LIST_HELP)? else { return Ok(()) };
    let target = Target::take(&mut p, LIST_USAGE)?;
    no_more(&p, LIST_USAGE)?;
    let client = connect(&target, &p, host).await?;
    let result = lists(&client, &p).await;
    let _ = client.close().await;
    let lists = result?;
    if p.flag("json") {
        show::json(&json!(lists));
        return Ok(());
    }
    let style = Style::stdout();
    let info = &client.server().server_info;
    let mut text = format!(
        "{} {} {}\n\n",
        style.bold(&info.name),
        info.version,
        style.dim(&format!("(protocol {}, {})", client.protocol_version(), era(&client)))
    );
    let l = &lists;
    text.push_str(&show::section(
        style,
        "Tools",
        l.tools.is_some(),
        &show::tool_rows(l.tools.as_deref().unwrap_or(&[])),
    ));
    let resources = show::resource_rows(l.resources.as_deref().unwrap_or(&[]));
    text.push_str(&show::section(style, "Resources", l.resources.is_some(), &resources));
    let templates = show::template_rows(l.resource_templates.as_deref().unwrap_or(&[]));
    text.push_str(&show::section(style, "Resource templates", l.resource_templates.is_some(), &templates));
    let prompts = show::prompt_rows(l.prompts.as_deref().unwrap_or(&[]));
    text.push_str(&show::section(style, "Prompts", l.prompts.is_some(), &prompts));
    show::out(&text);
    Ok(())
}

fn era(client: &Client) -> &'static str {
    if client.is_modern() {
        "stateless era"
    } else {
        "legacy era"
    }
}

fn no_more(p: &Parsed, usage: &str) -> Outcome {
    match p.positionals.first() {
        Some(w) => Err(Failure::usage(format!("unexpected {w:?}\n{usage}"))),
        None => Ok(()),
    }
}

// ---- call ------------------------------------------------------------------------------

const CALL_USAGE: &str = "Usage: hypermcp call [OPTIONS] TARGET TOOL [key=value ... | JSON]";
const CALL_HELP: &str = "Calls TOOL and prints what it answers: its text, and a line for each other kind of
content. Arguments: key=value words (typed by the tool's input schema: text stays text for a
string parameter, numbers, booleans, arrays and objects are read as JSON), or one JSON object.

  --json                   the whole result as JSON (content, structuredContent, isError)

Exit code 3 when the tool answers with an error (isError).
";

async fn call(args: &[String], host: &Host) -> Outcome {
    let Some(mut p) = words("call", args, &[JSON_OPT], CALL_USAGE, CALL_HELP)? else { return Ok(()) };
    let target = Target::take(&mut p, CALL_USAGE)?;
    if p.positionals.is_empty() {
        return Err(Failure::usage(format!("no TOOL\n{CALL_USAGE}")));
    }
    let name = p.positionals.remove(0);
    let client = connect(&target, &p, host).await?;
    let result = call_on(&client, &p, &name).await;
    let _ = client.close().await;
    let result = result?;
    if p.flag("json") {
        show::json(&json!(result));
    } else {
        let style = Style::stdout();
        let mut text = show::contents(style, &result.content);
        if let Some(s) = &result.structured_content {
            if result.content.iter().all(|c| c.as_text().is_none()) {
                text.push_str(&format!("{}\n", serde_json::to_string_pretty(s).unwrap_or_default()));
            }
        }
        show::out(&text);
    }
    if result.failed() {
        return Err(Failure { code: EXIT_TOOL_ERROR, message: format!("the tool {name} answered with an error") });
    }
    Ok(())
}

async fn call_on(client: &Client, p: &Parsed, name: &str) -> Outcome<crate::CallToolResult> {
    if client.server().capabilities.tools.is_none() {
        return Err(Failure::usage("this server offers no tools"));
    }
    let tools = step(p, "tools/list", client.list_tools()).await?;
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(Failure::usage(format!("the server has no tool {name:?}; its tools: {}", names.join(", "))));
    };
    let args = arguments(&p.positionals, Some(&tool.input_schema))?;
    step(p, &format!("tools/call {name}"), client.call_tool(name, Value::Object(args))).await
}

// ---- read ------------------------------------------------------------------------------

const READ_USAGE: &str = "Usage: hypermcp read [OPTIONS] TARGET URI";
const READ_HELP: &str = "Reads the resource at URI and prints its text (binary contents: a line saying what they are).

  --out FILE               write the contents (text or decoded binary) to FILE
  --json                   the whole result as JSON
";

async fn read(args: &[String], host: &Host) -> Outcome {
    let extra = [JSON_OPT, Opt { name: "out", takes: Takes::Value }];
    let Some(mut p) = words("read", args, &extra, READ_USAGE, READ_HELP)? else { return Ok(()) };
    let target = Target::take(&mut p, READ_USAGE)?;
    if p.positionals.is_empty() {
        return Err(Failure::usage(format!("no URI\n{READ_USAGE}")));
    }
    let uri = p.positionals.remove(0);
    no_more(&p, READ_USAGE)?;
    let client = connect(&target, &p, host).await?;
    let result = step(&p, &format!("resources/read {uri}"), client.read_resource(&uri)).await;
    let _ = client.close().await;
    let result = result?;
    if let Some(out) = p.value("out") {
        let mut bytes = Vec::new();
        for c in &result.contents {
            match c {
                crate::ResourceContents::Text { text, .. } => bytes.extend_from_slice(text.as_bytes()),
                crate::ResourceContents::Blob { blob, .. } => bytes.extend(
                    crate::util::base64_decode(blob)
                        .ok_or_else(|| Failure::failed(format!("{uri}: the server sent a blob that is not base64")))?,
                ),
            }
        }
        std::fs::write(out, &bytes).map_err(|e| Failure::failed(format!("cannot write {out}: {e}")))?;
        eprintln!("{uri}: {} bytes written to {out}", bytes.len());
    } else if p.flag("json") {
        show::json(&json!(result));
    } else {
        let style = Style::stdout();
        let mut text = String::new();
        for c in &result.contents {
            let t = show::resource_contents(style, c);
            text.push_str(&t);
            if !t.ends_with('\n') {
                text.push('\n');
            }
        }
        show::out(&text);
    }
    Ok(())
}

// ---- prompt ----------------------------------------------------------------------------

const PROMPT_USAGE: &str = "Usage: hypermcp prompt [OPTIONS] TARGET NAME [key=value ...]";
const PROMPT_HELP: &str = "Gets the prompt NAME with its arguments (key=value words, or one JSON object of strings)
and prints its messages.

  --json                   the whole result as JSON
";

async fn prompt(args: &[String], host: &Host) -> Outcome {
    let Some(mut p) = words("prompt", args, &[JSON_OPT], PROMPT_USAGE, PROMPT_HELP)? else { return Ok(()) };
    let target = Target::take(&mut p, PROMPT_USAGE)?;
    if p.positionals.is_empty() {
        return Err(Failure::usage(format!("no prompt NAME\n{PROMPT_USAGE}")));
    }
    let name = p.positionals.remove(0);
    // Prompt arguments are strings: every value is kept as text.
    let schema = json!({"properties": {}, "additionalProperties": {"type": "string"}});
    let given = arguments(&p.positionals, Some(&schema))?;
    let mut strings = HashMap::new();
    for (k, v) in given {
        let s = match v {
            Value::String(s) => s,
            other => other.to_string(),
        };
        strings.insert(k, s);
    }
    let client = connect(&target, &p, host).await?;
    let result = prompt_on(&client, &p, &name, strings).await;
    let _ = client.close().await;
    let result = result?;
    if p.flag("json") {
        show::json(&json!(result));
        return Ok(());
    }
    let style = Style::stdout();
    let mut text = String::new();
    if let Some(d) = &result.description {
        text.push_str(&format!("{}\n\n", style.dim(d)));
    }
    for m in &result.messages {
        let role = serde_json::to_value(m.role).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        text.push_str(&format!("{}\n", style.bold(&format!("[{role}]"))));
        text.push_str(&show::contents(style, std::slice::from_ref(&m.content)));
    }
    show::out(&text);
    Ok(())
}

async fn prompt_on(
    client: &Client,
    p: &Parsed,
    name: &str,
    args: HashMap<String, String>,
) -> Outcome<crate::GetPromptResult> {
    if client.server().capabilities.prompts.is_none() {
        return Err(Failure::usage("this server offers no prompts"));
    }
    let prompts = step(p, "prompts/list", client.list_prompts()).await?;
    let Some(prompt) = prompts.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = prompts.iter().map(|t| t.name.as_str()).collect();
        return Err(Failure::usage(format!("the server has no prompt {name:?}; its prompts: {}", names.join(", "))));
    };
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .flatten()
        .filter(|a| a.required == Some(true) && !args.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(Failure::usage(format!(
            "the prompt {name} needs {}: give {}",
            missing.join(", "),
            missing.iter().map(|m| format!("{m}=...")).collect::<Vec<_>>().join(" ")
        )));
    }
    step(p, &format!("prompts/get {name}"), client.get_prompt(name, args)).await
}

// ---- inspect ---------------------------------------------------------------------------

const INSPECT_USAGE: &str = "Usage: hypermcp inspect [OPTIONS] TARGET";
const INSPECT_HELP: &str = "Everything the server says of itself, as one JSON document: its info, the protocol
version and era, its capabilities and instructions, and every list it offers.
";

async fn inspect(args: &[String], host: &Host) -> Outcome {
    let Some(mut p) = words("inspect", args, &[], INSPECT_USAGE, INSPECT_HELP)? else { return Ok(()) };
    let target = Target::take(&mut p, INSPECT_USAGE)?;
    no_more(&p, INSPECT_USAGE)?;
    let client = connect(&target, &p, host).await?;
    let result = lists(&client, &p).await;
    let _ = client.close().await;
    let init = client.server();
    let mut doc = json!({
        "serverInfo": init.server_info,
        "protocolVersion": client.protocol_version().to_string(),
        "era": if client.is_modern() { "modern" } else { "legacy" },
        "capabilities": init.capabilities,
    });
    if let Some(i) = &init.instructions {
        doc["instructions"] = json!(i);
    }
    if let Value::Object(lists) = json!(result?) {
        for (k, v) in lists {
            doc[k] = v;
        }
    }
    show::json(&doc);
    Ok(())
}

// ---- run, dev --------------------------------------------------------------------------

const RUN_USAGE: &str = "Usage: hypermcp run [OPTIONS] FILE[:OBJECT]";
const RUN_HELP: &str = "Runs the server in FILE: a Python file with the Python of the project (HYPERMCP_PYTHON,
the active virtual environment, a .venv beside the file or above, else python3), a JavaScript
or TypeScript file with Node (HYPERMCP_NODE; TypeScript needs Node 22.6 or later). The server
is OBJECT, else the one the file defines (a file that runs its server itself runs as it does).

  --http PORT              serve Streamable HTTP at http://HOST:PORT/mcp (default: stdio)
  --host HOST              the address to listen on with --http (default 127.0.0.1)
  --env NAME=VALUE         an environment variable for the server (repeatable)
";
const DEV_USAGE: &str = "Usage: hypermcp dev [OPTIONS] FILE[:OBJECT]";
const DEV_HELP: &str = "Runs the server in FILE over HTTP (as `run` does) and starts it again whenever FILE, or a
source file beside it, changes. Clients reconnect: the new process starts new sessions.

  --http PORT              the port (default 8000)
  --host HOST              the address to listen on (default 127.0.0.1)
  --env NAME=VALUE         an environment variable for the server (repeatable)
";

async fn run(args: &[String], host: &Host, dev: bool) -> Outcome {
    let (usage, help) = if dev { (DEV_USAGE, DEV_HELP) } else { (RUN_USAGE, RUN_HELP) };
    let opts = [
        Opt { name: "http", takes: Takes::Value },
        Opt { name: "host", takes: Takes::Value },
        Opt { name: "env", takes: Takes::Values },
    ];
    let command = if dev { "dev" } else { "run" };
    let p = parse(command, args, &opts)?;
    if p.help {
        show::out(&format!("{usage}\n\n{help}"));
        return Ok(());
    }
    let [word] = p.positionals.as_slice() else {
        return Err(Failure::usage(format!("give one server FILE\n{usage}")));
    };
    let Some(file) = ServerFile::parse(word)? else {
        return Err(Failure::usage(format!("{word} is not a server file (.py, .js, .mjs, .cjs, .ts, .mts)\n{usage}")));
    };
    let port = match p.value("http") {
        Some(v) => {
            Some(v.parse::<u16>().map_err(|_| Failure::usage(format!("--http takes a port number, not {v:?}")))?)
        }
        None if dev => Some(8000),
        None => None,
    };
    let bind = p.value("host").unwrap_or("127.0.0.1").to_string();
    if port.is_none() && p.value("host").is_some() {
        return Err(Failure::usage("--host goes with --http PORT"));
    }
    let (program, argv) = file.command(host).await?;
    let mut cmd = tokio::process::Command::new(&program);
    cmd.args(&argv).kill_on_drop(true);
    match port {
        Some(port) => {
            cmd.env("HYPERMCP_TRANSPORT", "http").env("HYPERMCP_HOST", &bind).env("HYPERMCP_PORT", port.to_string());
        }
        None => {
            cmd.env("HYPERMCP_TRANSPORT", "stdio");
        }
    }
    for (k, v) in env(&p)? {
        cmd.env(k, v);
    }
    let label = file.path.display().to_string();
    if let Some(port) = port {
        eprintln!(
            "{}",
            Style::stderr().green(&format!(
                "hypermcp {command}: serving {label} at http://{bind}:{port}/mcp{}",
                if dev { " (restarting it when its files change; Ctrl-C stops)" } else { "" }
            ))
        );
    }
    if !dev {
        let mut child = spawn(&mut cmd, &program)?;
        let status = wait_or_stop(&mut child).await?;
        return match status.code() {
            Some(0) | None => Ok(()),
            Some(code) => Err(Failure { code, message: format!("the server exited with status {code}") }),
        };
    }
    let watched = watched_files(&file.path);
    let mut stamp = stamps(&watched);
    let (mut interrupt, mut terminate) = (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?);
    loop {
        let mut child = spawn(&mut cmd, &program)?;
        let mut exited = false;
        loop {
            tokio::select! {
                status = child.wait(), if !exited => {
                    exited = true;
                    let status = status?;
                    eprintln!("{}", Style::stderr().dim(&format!("hypermcp dev: the server exited ({status}); waiting for a change to {label}")));
                }
                _ = tokio::time::sleep(Duration::from_millis(250)) => {
                    let now = stamps(&watched);
                    if now != stamp {
                        stamp = now;
                        break;
                    }
                }
                _ = interrupt.recv() => {
                    if !exited {
                        stop(&mut child).await;
                    }
                    return Ok(());
                }
                _ = terminate.recv() => {
                    if !exited {
                        stop(&mut child).await;
                    }
                    return Ok(());
                }
            }
        }
        if !exited {
            stop(&mut child).await;
        }
        eprintln!("{}", Style::stderr().dim(&format!("hypermcp dev: {label} changed: restarting")));
    }
}

fn spawn(cmd: &mut tokio::process::Command, program: &std::path::Path) -> Outcome<tokio::process::Child> {
    cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Failure::failed(format!(
                "cannot start {}: no such program (is it installed, and on PATH?)",
                program.display()
            ))
        } else {
            Failure::failed(format!("cannot start {}: {e}", program.display()))
        }
    })
}

/// Waits for the server to exit; on Ctrl-C or SIGTERM it is asked to stop (it got Ctrl-C
/// from the terminal too) and given 5 s.
async fn wait_or_stop(child: &mut tokio::process::Child) -> Outcome<std::process::ExitStatus> {
    let (mut interrupt, mut terminate) = (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?);
    tokio::select! {
        status = child.wait() => Ok(status?),
        _ = interrupt.recv() => Ok(stop(child).await.unwrap_or_default()),
        _ = terminate.recv() => Ok(stop(child).await.unwrap_or_default()),
    }
}

/// SIGTERM, then SIGKILL after 5 s.
async fn stop(child: &mut tokio::process::Child) -> Option<std::process::ExitStatus> {
    if let Some(pid) = child.id().and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        if let Ok(status) = tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
            return status.ok();
        }
    }
    let _ = child.start_kill();
    child.wait().await.ok()
}

/// The file and the source files of its language beside it.
fn watched_files(file: &std::path::Path) -> Vec<PathBuf> {
    let mut out = vec![file.to_path_buf()];
    let lang = super::runner::Language::of(&file.to_string_lossy());
    if let Some(dir) = file.parent() {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p != file && p.is_file() && super::runner::Language::of(&p.to_string_lossy()) == lang {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn stamps(files: &[PathBuf]) -> Vec<Option<(SystemTime, u64)>> {
    files.iter().map(|f| std::fs::metadata(f).ok().and_then(|m| Some((m.modified().ok()?, m.len())))).collect()
}
