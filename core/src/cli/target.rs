//! TARGET: what a command talks to (a URL, a server file, a command line), and connecting
//! to it with the options every such command takes.

use super::args::{split_command, Opt, Parsed, Takes};
use super::runner::ServerFile;
use super::{show, Failure, Host, Outcome};
use crate::transport::http::client::{HttpClientOptions, HttpTransport};
use crate::{Client, ClientMode, ClientOptions};
use std::time::Duration;

/// The options of every command that connects to a TARGET.
pub(crate) const CONNECT_OPTS: &[Opt] = &[
    Opt { name: "header", takes: Takes::Values },
    Opt { name: "transport", takes: Takes::Value },
    Opt { name: "mode", takes: Takes::Value },
    Opt { name: "env", takes: Takes::Values },
    Opt { name: "timeout", takes: Takes::Value },
    Opt { name: "verbose", takes: Takes::Nothing },
];

/// The connect options and a command's own.
pub(crate) fn with_connect_opts(own: &[Opt]) -> Vec<Opt> {
    CONNECT_OPTS.iter().chain(own).copied().collect()
}

/// Their help text.
pub(crate) const CONNECT_HELP: &str = "\
TARGET is one of:
  http://HOST:PORT/mcp     a server over Streamable HTTP (or the legacy HTTP+SSE transport)
  server.py[:OBJECT]       a server file, run with Python (server.mjs, .js, .ts: with Node)
  \"COMMAND ARGS...\"        a command line that starts a stdio server, quoted as one word,
                           or the words after `--` in place of TARGET

Connecting:
  --header 'NAME: VALUE'   an HTTP header for every request (repeatable)
  --transport auto|http|sse  HTTP: Streamable HTTP, else the legacy transport (auto), or one
  --mode auto|modern|legacy  the protocol era: 2026-07-28 when the server speaks it (auto)
  --env NAME=VALUE         an environment variable for a server this starts (repeatable)
  --timeout SECONDS        how long to wait for the server at each step (default 30)
  --verbose                show what a server this starts writes to its stderr
";

/// What a command talks to.
#[derive(Debug)]
pub(crate) enum Target {
    Url(String),
    File(ServerFile),
    Command(Vec<String>),
}

impl Target {
    /// The TARGET of a command: the words after `--`, else the first positional (which is
    /// removed from `p.positionals`).
    pub(crate) fn take(p: &mut Parsed, usage: &str) -> Outcome<Target> {
        if let Some(rest) = p.rest.take() {
            if rest.is_empty() {
                return Err(Failure::usage(format!("no command after `--`\n{usage}")));
            }
            return Ok(Target::Command(rest));
        }
        if p.positionals.is_empty() {
            return Err(Failure::usage(format!("no TARGET\n{usage}")));
        }
        let word = p.positionals.remove(0);
        Target::parse(&word)
    }

    pub(crate) fn parse(word: &str) -> Outcome<Target> {
        if word.starts_with("http://") || word.starts_with("https://") {
            return Ok(Target::Url(word.to_string()));
        }
        if let Some(f) = ServerFile::parse(word)? {
            return Ok(Target::File(f));
        }
        let words = split_command(word)?;
        if words.is_empty() {
            return Err(Failure::usage("the TARGET is empty"));
        }
        Ok(Target::Command(words))
    }

    /// How the target is named in messages.
    pub(crate) fn label(&self) -> String {
        match self {
            Target::Url(u) => u.clone(),
            Target::File(f) => f.path.display().to_string(),
            Target::Command(w) => w.join(" "),
        }
    }

    /// The program and arguments that start a stdio server (none for a URL).
    pub(crate) async fn command(&self, host: &Host) -> Outcome<Option<(std::path::PathBuf, Vec<String>)>> {
        match self {
            Target::Url(_) => Ok(None),
            Target::File(f) => f.command(host).await.map(Some),
            Target::Command(w) => Ok(Some((w[0].clone().into(), w[1..].to_vec()))),
        }
    }
}

/// The timeout of each step (`--timeout`).
pub(crate) fn timeout(p: &Parsed) -> Outcome<Duration> {
    Ok(Duration::from_secs_f64(p.number("timeout", 30.0, 0.001)?))
}

/// `--env NAME=VALUE` words.
pub(crate) fn env(p: &Parsed) -> Outcome<Vec<(String, String)>> {
    p.values("env")
        .into_iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(Failure::usage(format!("--env takes NAME=VALUE, not {w:?}"))),
        })
        .collect()
}

/// Connects to `target` with the options in `p`, showing a status line while it does.
pub(crate) async fn connect(target: &Target, p: &Parsed, host: &Host) -> Outcome<Client> {
    let mode = match p.value("mode").unwrap_or("auto") {
        "auto" => ClientMode::Auto,
        "modern" => ClientMode::Modern,
        "legacy" => ClientMode::Legacy,
        m => return Err(Failure::usage(format!("--mode takes auto, modern or legacy, not {m:?}"))),
    };
    let limit = timeout(p)?;
    let mut options = ClientOptions::new("hypermcp-cli", env!("CARGO_PKG_VERSION")).mode(mode);
    if p.flag("verbose") {
        options = options.on_stderr(|line| eprintln!("[server] {line}"));
    }
    let label = target.label();
    show::status(&format!("connecting to {label}…"));
    let connecting = async {
        match target.command(host).await? {
            None => {
                let Target::Url(url) = target else { unreachable!("only a URL has no command") };
                let mut http = HttpClientOptions::default();
                for h in p.values("header") {
                    let Some((name, value)) = h.split_once(':') else {
                        return Err(Failure::usage(format!("--header takes 'NAME: VALUE', not {h:?}")));
                    };
                    http.headers.push((name.trim().to_string(), value.trim().to_string()));
                }
                http.transport = match p.value("transport").unwrap_or("auto") {
                    "auto" => HttpTransport::Auto,
                    "http" => HttpTransport::Streamable,
                    "sse" => HttpTransport::Sse,
                    t => return Err(Failure::usage(format!("--transport takes auto, http or sse, not {t:?}"))),
                };
                http.connect_timeout = limit;
                Ok(Client::http(url, http, options).await?)
            }
            Some((program, args)) => {
                if !p.values("header").is_empty() || p.value("transport").is_some() {
                    return Err(Failure::usage(
                        "--header and --transport are for a URL; this TARGET starts a stdio server",
                    ));
                }
                let mut cmd = tokio::process::Command::new(&program);
                cmd.args(&args).env("HYPERMCP_TRANSPORT", "stdio");
                for (k, v) in env(p)? {
                    cmd.env(k, v);
                }
                Client::spawn_command(cmd, options).await.map_err(|e| match e {
                    crate::Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound => Failure::failed(format!(
                        "cannot start {}: no such program (is it installed, and on PATH?)",
                        program.display()
                    )),
                    e => Failure::failed(format!("{label}: {e}")),
                })
            }
        }
    };
    let r = tokio::time::timeout(limit, connecting).await;
    show::clear_status();
    match r {
        Ok(r) => r,
        Err(_) => Err(Failure::failed(format!(
            "{label} did not complete the handshake within {} s (--timeout)",
            limit.as_secs_f64()
        ))),
    }
}

/// Runs one request step within the timeout.
pub(crate) async fn step<T>(
    p: &Parsed,
    what: &str,
    f: impl std::future::Future<Output = crate::Result<T>>,
) -> Outcome<T> {
    let limit = timeout(p)?;
    match tokio::time::timeout(limit, f).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Failure::failed(format!("{what}: {e}"))),
        Err(_) => Err(Failure::failed(format!("{what}: no answer within {} s (--timeout)", limit.as_secs_f64()))),
    }
}
