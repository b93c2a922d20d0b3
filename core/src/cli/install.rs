//! `hypermcp install HOST TARGET`: writes the MCP configuration entry of a host application
//! (Claude Desktop, Cursor, VS Code, Claude Code) for a server file, a command line or a URL,
//! into the file the host reads (or `--config PATH`), keeping everything else in it, and
//! shows what it wrote.

use super::args::{parse, Opt, Takes};
use super::runner::ServerFile;
use super::show::{self, Style};
use super::target::Target;
use super::{Failure, Host, Outcome};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const USAGE: &str = "Usage: hypermcp install [OPTIONS] HOST TARGET";
const HELP: &str = "Adds TARGET to the MCP servers of HOST's configuration (replacing an entry of the same name)
and shows what it wrote. HOST and the file it reads (--config overrides):

  claude-desktop   ~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application
                   Support/Claude/, Windows: %APPDATA%\\Claude\\), under \"mcpServers\"
  cursor           ~/.cursor/mcp.json (a project's: .cursor/mcp.json), under \"mcpServers\"
  vscode           .vscode/mcp.json of the current folder (the workspace's), under \"servers\"
  claude-code      .mcp.json of the current folder (the project's), under \"mcpServers\"

TARGET: a server file (run with the Python or Node that `hypermcp run` would use, by absolute
paths), a quoted command line, the words after `--`, or a URL (not for claude-desktop, which
adds remote servers as connectors in its settings).

  --name NAME              the entry's name (default: the file's stem, the program, the host)
  --env NAME=VALUE         an environment variable for the server (repeatable)
  --header 'NAME: VALUE'   an HTTP header, for a URL (repeatable)
  --config PATH            the configuration file to write
  --dry-run                show the entry and the file, write nothing
";

/// The hosts and the shape of their files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum App {
    ClaudeDesktop,
    Cursor,
    VsCode,
    ClaudeCode,
}

impl App {
    fn parse(name: &str) -> Outcome<App> {
        match name {
            "claude-desktop" | "claude" => Ok(App::ClaudeDesktop),
            "cursor" => Ok(App::Cursor),
            "vscode" | "code" => Ok(App::VsCode),
            "claude-code" => Ok(App::ClaudeCode),
            other => {
                Err(Failure::usage(format!("unknown host {other:?}: claude-desktop, cursor, vscode or claude-code")))
            }
        }
    }
    /// The key holding the servers.
    fn key(self) -> &'static str {
        match self {
            App::VsCode => "servers",
            _ => "mcpServers",
        }
    }
    fn default_path(self) -> Outcome<PathBuf> {
        let home = || {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .ok_or_else(|| Failure::failed("HOME is not set: give the file with --config PATH"))
        };
        Ok(match self {
            App::ClaudeDesktop => {
                if cfg!(target_os = "macos") {
                    home()?.join("Library/Application Support/Claude/claude_desktop_config.json")
                } else if cfg!(windows) {
                    let appdata = std::env::var_os("APPDATA")
                        .ok_or_else(|| Failure::failed("APPDATA is not set: give the file with --config PATH"))?;
                    PathBuf::from(appdata).join("Claude").join("claude_desktop_config.json")
                } else {
                    let config = match std::env::var_os("XDG_CONFIG_HOME") {
                        Some(d) if !d.is_empty() => PathBuf::from(d),
                        _ => home()?.join(".config"),
                    };
                    config.join("Claude").join("claude_desktop_config.json")
                }
            }
            App::Cursor => home()?.join(".cursor").join("mcp.json"),
            App::VsCode => PathBuf::from(".vscode").join("mcp.json"),
            App::ClaudeCode => PathBuf::from(".mcp.json"),
        })
    }
}

pub(crate) async fn install(args: &[String], host: &Host) -> Outcome {
    let opts = [
        Opt { name: "name", takes: Takes::Value },
        Opt { name: "env", takes: Takes::Values },
        Opt { name: "header", takes: Takes::Values },
        Opt { name: "config", takes: Takes::Value },
        Opt { name: "dry-run", takes: Takes::Nothing },
    ];
    let mut p = parse("install", args, &opts)?;
    if p.help {
        show::out(&format!("{USAGE}\n\n{HELP}"));
        return Ok(());
    }
    if p.positionals.is_empty() {
        return Err(Failure::usage(format!("no HOST\n{USAGE}")));
    }
    let app = App::parse(&p.positionals.remove(0))?;
    let target = Target::take(&mut p, USAGE)?;
    if let Some(w) = p.positionals.first() {
        return Err(Failure::usage(format!("unexpected {w:?}\n{USAGE}")));
    }
    let env = super::target::env(&p)?;
    let headers = p.values("header");
    let (name, entry) = match &target {
        Target::Url(url) => {
            if !env.is_empty() {
                return Err(Failure::usage("--env is for a server the host starts; this TARGET is a URL"));
            }
            let mut h = Map::new();
            for line in &headers {
                let Some((k, v)) = line.split_once(':') else {
                    return Err(Failure::usage(format!("--header takes 'NAME: VALUE', not {line:?}")));
                };
                h.insert(k.trim().to_string(), json!(v.trim()));
            }
            let entry = match app {
                App::ClaudeDesktop => {
                    return Err(Failure::usage(format!(
                        "Claude Desktop adds remote servers as connectors (Settings > Connectors), not in its file; \
                         or bridge one over stdio: hypermcp install claude-desktop \"npx -y mcp-remote {url}\""
                    )))
                }
                App::Cursor => json!({"url": url}),
                App::VsCode | App::ClaudeCode => json!({"type": "http", "url": url}),
            };
            let mut entry = entry;
            if !h.is_empty() {
                entry["headers"] = Value::Object(h);
            }
            (url_name(url), entry)
        }
        Target::File(_) | Target::Command(_) => {
            if !headers.is_empty() {
                return Err(Failure::usage("--header is for a URL; this TARGET is a server the host starts"));
            }
            let (program, argv, name) = match &target {
                Target::File(f) => {
                    let (program, argv) = f.command(host).await?;
                    (absolute(&program), argv, stem(f))
                }
                Target::Command(words) => {
                    let name =
                        Path::new(&words[0]).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    (words[0].clone(), words[1..].to_vec(), name)
                }
                Target::Url(_) => unreachable!("handled above"),
            };
            let mut entry = Map::new();
            if matches!(app, App::VsCode | App::ClaudeCode) {
                entry.insert("type".into(), json!("stdio"));
            }
            entry.insert("command".into(), json!(program));
            entry.insert("args".into(), json!(argv));
            if !env.is_empty() {
                entry.insert("env".into(), Value::Object(env.into_iter().map(|(k, v)| (k, json!(v))).collect()));
            }
            (name, Value::Object(entry))
        }
    };
    let name = p.value("name").map(String::from).unwrap_or(name);
    if name.is_empty() {
        return Err(Failure::usage("give the entry a name: --name NAME"));
    }
    let path = match p.value("config") {
        Some(c) => PathBuf::from(c),
        None => app.default_path()?,
    };
    let mut doc = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Map::new(),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return Err(Failure::failed(format!(
                    "{} is not a JSON object: fix it, or give another file with --config",
                    path.display()
                )))
            }
            Err(e) => {
                return Err(Failure::failed(format!(
                    "{} is not valid JSON ({e}): fix it first; nothing was written",
                    path.display()
                )))
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(Failure::failed(format!("cannot read {}: {e}", path.display()))),
    };
    let servers = doc.entry(app.key()).or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Failure::failed(format!("{}: \"{}\" is not an object: fix it first", path.display(), app.key())));
    };
    let replaced = servers.insert(name.clone(), entry.clone()).is_some();
    let text = format!("{}\n", serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default());
    let style = Style::stdout();
    let shown = serde_json::to_string_pretty(&json!({ name.clone(): entry })).unwrap_or_default();
    if p.flag("dry-run") {
        show::out(&format!(
            "{} {} (dry run: nothing written)\n{shown}\n",
            style.bold("would write to"),
            path.display()
        ));
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Failure::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    // Written whole, then renamed over the old file: a host never reads half of it.
    let tmp = path.with_extension(format!("json.hypermcp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| Failure::failed(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Failure::failed(format!("cannot write {}: {e}", path.display()))
    })?;
    let verb = if replaced { "replaced" } else { "added" };
    show::out(&format!(
        "{} {name} in {} ({} \"{}\"):\n{shown}\n{}\n",
        style.green(verb),
        path.display(),
        app_name(app),
        app.key(),
        style.dim(&format!("Restart {} to load it.", app_name(app)))
    ));
    Ok(())
}

fn app_name(app: App) -> &'static str {
    match app {
        App::ClaudeDesktop => "Claude Desktop",
        App::Cursor => "Cursor",
        App::VsCode => "VS Code",
        App::ClaudeCode => "Claude Code",
    }
}

/// The name of a server file's entry: its stem (`weather_server.py` -> `weather_server`).
fn stem(f: &ServerFile) -> String {
    let base = f.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    match &f.object {
        Some(o) => format!("{base}-{o}"),
        None => base,
    }
}

/// The name of a URL's entry: its host (and port).
fn url_name(url: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    rest.split(['/', '?', '#']).next().unwrap_or("").replace(':', "-")
}

/// A program found on PATH, by its absolute path (hosts start servers without the user's
/// shell, often with another PATH); a path as it is.
fn absolute(program: &Path) -> String {
    if program.components().count() > 1 {
        // Not canonicalized: a virtual environment's python is a symlink that must stay one.
        return std::path::absolute(program).unwrap_or_else(|_| program.to_path_buf()).to_string_lossy().into_owned();
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join(program);
            if candidate.is_file() {
                return candidate.to_string_lossy().into_owned();
            }
        }
    }
    program.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_entries() {
        assert_eq!(url_name("https://api.example.com/mcp"), "api.example.com");
        assert_eq!(url_name("http://127.0.0.1:8000/mcp"), "127.0.0.1-8000");
        assert_eq!(App::parse("vscode").unwrap().key(), "servers");
        assert_eq!(App::parse("cursor").unwrap().key(), "mcpServers");
        assert!(App::parse("emacs").unwrap_err().message.contains("claude-desktop, cursor, vscode or claude-code"));
    }
}
