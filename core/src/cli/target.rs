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
    Opt { name: "auth", takes: Takes::Value },
    Opt { name: "client-id", takes: Takes::Value },
    Opt { name: "client-secret", takes: Takes::Value },
    Opt { name: "scope", takes: Takes::Values },
    Opt { name: "token-store", takes: Takes::Value },
    Opt { name: "redirect-uri", takes: Takes::Value },
    Opt { name: "ca-file", takes: Takes::Value },
];

/// The companions of `--auth`, which mean nothing without it.
const AUTH_COMPANIONS: &[&str] = &["client-id", "client-secret", "scope", "token-store", "redirect-uri"];

/// The options that only a URL target takes: these, and the companions of `--auth`.
const URL_ONLY: &[&str] = &["header", "transport", "auth", "ca-file"];

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

Authorization (a URL whose server requires OAuth 2.1):
  --auth browser|headless|client-credentials
                           browser: you authorize in the system browser (the URL is printed
                           too); headless: the authorization server's redirects are followed
                           without one (servers that approve without a user); client-credentials:
                           the client acts on its own behalf (needs --client-id, --client-secret)
  --client-id ID, --client-secret SECRET
                           a pre-registered client (else Dynamic Client Registration)
  --scope SCOPE            a scope to ask for (repeatable; default: what the server asks)
  --token-store PATH|none  where registrations and tokens are kept between runs (a 0600 JSON
                           file; default $XDG_CONFIG_HOME/hypermcp/oauth.json); none: in memory
  --redirect-uri URI       the loopback redirect URI (default http://127.0.0.1:8765/callback)
  --ca-file PEM            CA certificates to trust for https:// (the server's and the
                           authorization server's), besides the system's
  A bearer token you already have: --header 'Authorization: Bearer TOKEN'.
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
                if let Some(ca) = p.value("ca-file") {
                    http.ca_file = Some(ca.into());
                }
                if let Some(auth) = oauth(p)? {
                    http.auth = Some(auth);
                }
                let authorizing = http.auth.is_some();
                Client::http(url, http, options).await.map_err(|e| unauthorized_hint(e, authorizing))
            }
            Some((program, args)) => {
                if let Some(opt) = URL_ONLY.iter().chain(AUTH_COMPANIONS).find(|o| !p.values(o).is_empty()) {
                    return Err(Failure::usage(format!(
                        "--{opt} is for a URL; this TARGET starts a stdio server (which needs no authorization)"
                    )));
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

/// The OAuth options of `--auth` and its companions (none without `--auth`).
fn oauth(p: &Parsed) -> Outcome<Option<crate::auth::client::OAuthOptions>> {
    use crate::auth::client::{AuthorizeMode, Grant, OAuthOptions};
    let Some(mode) = p.value("auth") else {
        if let Some(opt) = AUTH_COMPANIONS.iter().find(|o| !p.values(o).is_empty()) {
            return Err(Failure::usage(format!("--{opt} goes with --auth (browser, headless or client-credentials)")));
        }
        return Ok(None);
    };
    let mut o = OAuthOptions { client_name: "hypermcp command line".into(), ..OAuthOptions::default() };
    match mode {
        "browser" => o.authorize = AuthorizeMode::Browser,
        "headless" => o.authorize = AuthorizeMode::Headless,
        "client-credentials" => o.grant = Grant::ClientCredentials,
        m => return Err(Failure::usage(format!("--auth takes browser, headless or client-credentials, not {m:?}"))),
    }
    o.client_id = p.value("client-id").map(str::to_string);
    o.client_secret = p.value("client-secret").map(str::to_string);
    if o.grant == Grant::ClientCredentials && (o.client_id.is_none() || o.client_secret.is_none()) {
        return Err(Failure::usage("--auth client-credentials needs --client-id and --client-secret"));
    }
    let scopes: Vec<String> = p.values("scope").iter().map(|s| s.to_string()).collect();
    if !scopes.is_empty() {
        o.scopes = Some(scopes);
    }
    if let Some(uri) = p.value("redirect-uri") {
        o.redirect_uri = uri.to_string();
    }
    o.token_store = match p.value("token-store") {
        Some("none") => None,
        Some(path) => Some(path.into()),
        None => default_token_store(),
    };
    o.validate().map_err(|e| Failure::usage(format!("--auth: {e}")))?;
    Ok(Some(o))
}

/// `$XDG_CONFIG_HOME/hypermcp/oauth.json` (or `~/.config/...`): registrations and tokens kept
/// between runs, so a server is authorized once, not at every command.
fn default_token_store() -> Option<std::path::PathBuf> {
    let config = match std::env::var_os("XDG_CONFIG_HOME") {
        Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
        _ => std::path::PathBuf::from(std::env::var_os("HOME")?).join(".config"),
    };
    let dir = config.join("hypermcp");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("oauth.json"))
}

/// A refusal for want of authorization, with what to do about it.
fn unauthorized_hint(e: crate::Error, authorizing: bool) -> Failure {
    let refused = e.rpc().is_some_and(|r| r.code == crate::jsonrpc::codes::UNAUTHORIZED);
    if refused && !authorizing {
        return Failure::failed(format!(
            "{e}\nthe server requires authorization: add --auth browser (OAuth in the browser), --auth \
             client-credentials --client-id ID --client-secret SECRET, or --header 'Authorization: Bearer TOKEN'"
        ));
    }
    Failure::failed(e.to_string())
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
