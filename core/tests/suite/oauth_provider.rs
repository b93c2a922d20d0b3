//! OAuth against a real authorization server: oidc-provider (a certified OpenID provider,
//! `tests/oauth/provider.mjs`) over HTTPS on loopback, with a certificate from a CA made here
//! (rcgen). The Rust client gets a token by authorization code + PKCE (the provider's login and
//! consent pages driven over HTTP by an [`AuthorizationHandler`], no browser) and calls the
//! Python server (`tests/oauth/server.py`), and by client credentials to call the Rust server.
//! The Rust server verifies tokens against the provider's JWKS and refuses, with the right
//! status and `WWW-Authenticate`, a token for another audience, from another issuer (a second
//! provider signing with the same key), expired, or without the scope (the server's, or a
//! tool's own: the client steps up); its handlers see who called (`ctx.auth()`); and it picks
//! up a key rotation at the provider (an unknown `kid` makes it fetch the JWKS again, at most
//! every `jwks_refetch_interval`, 1 s here). The Python and Node suites
//! (`tests/python/test_oauth_provider.py`, `tests/node/oauth_provider.test.mjs`) cover the
//! other languages.
//!
//! The provider is installed by `tests/interop/setup_peers.sh` into `<workspace>/.peers/oauth`
//! (or `$HYPERMCP_PEERS/oauth`); the Python server needs the package in `<workspace>/.venv`
//! (`make python`). Without them the tests are skipped with a message on stderr, unless
//! `HYPERMCP_REQUIRE_PEERS=1`, which makes them fail.

use crate::common;

use common::*;
use hypermcp::auth::client::{
    AuthorizationHandler, AuthorizationRequest, Fetch, Grant, HttpRequest, HttpResponse, OAuthOptions,
};
use hypermcp::auth::server::ResourceServerOptions;
use hypermcp::http::client::{HttpClientOptions, HttpFetch};
use hypermcp::http::server::{bind, serve_http};
use hypermcp::http::HttpOptions;
use hypermcp::{CallToolResult, Client, ClientOptions, Context, ScopeTarget, Server, Tool};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

const REDIRECT_URI: &str = "http://127.0.0.1:8765/callback";
/// The bound of a test that needs no waiting.
const LIMIT: Duration = Duration::from_secs(60);

// ---- what the tests need -------------------------------------------------------------------

fn peers_dir() -> PathBuf {
    match std::env::var_os("HYPERMCP_PEERS") {
        Some(p) => PathBuf::from(p),
        None => workspace_dir().join(".peers"),
    }
}

fn skip<T>(what: &str, why: String) -> Option<T> {
    if std::env::var("HYPERMCP_REQUIRE_PEERS").as_deref() == Ok("1") {
        panic!("HYPERMCP_REQUIRE_PEERS=1 but {what} is unavailable: {why}");
    }
    eprintln!("SKIPPED ({what}): {why}; set HYPERMCP_REQUIRE_PEERS=1 to make this a failure");
    None
}

/// `node`, when it and oidc-provider are there.
fn provider_available() -> Option<()> {
    let pkg = peers_dir().join("oauth/node_modules/oidc-provider/package.json");
    if !pkg.is_file() {
        return skip("oidc-provider", format!("{} not found (run make peers)", pkg.display()));
    }
    match std::process::Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => Some(()),
        _ => skip("oidc-provider", "node is not runnable".into()),
    }
}

/// The Python with the hypermcp package (`make python`).
fn python() -> Option<PathBuf> {
    let py = workspace_dir().join(".venv/bin/python");
    if !py.is_file() {
        return skip("the Python package", format!("{} not found (run make python)", py.display()));
    }
    Some(py)
}

// ---- a CA and a certificate for 127.0.0.1 ---------------------------------------------------

/// A CA and a certificate it signs for localhost and 127.0.0.1, as PEM files in a folder
/// removed on drop.
struct Pki {
    dir: PathBuf,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

impl Pki {
    fn new() -> Pki {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hypermcp-oauth-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        let pki = Pki { ca: dir.join("ca.pem"), cert: dir.join("cert.pem"), key: dir.join("key.pem"), dir };
        std::fs::write(&pki.ca, ca.pem()).unwrap();
        std::fs::write(&pki.cert, leaf.pem()).unwrap();
        std::fs::write(&pki.key, key.serialize_pem()).unwrap();
        pki
    }

    fn fetch(&self) -> HttpFetch {
        HttpFetch::new(Some(self.ca.clone()), Duration::from_secs(10))
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

// ---- child processes: the provider, the Python server ----------------------------------------

/// A child process that printed one JSON line (`info`) when it was ready; killed on drop. Its
/// later stdout lines and its stderr are kept for the failure messages.
struct Child {
    _proc: tokio::process::Child,
    info: Value,
    what: String,
    out: Arc<Mutex<Vec<String>>>,
    err: Arc<Mutex<String>>,
}

impl Child {
    async fn start(program: &Path, args: &[&str], what: &str) -> Child {
        let mut proc = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {what} ({}): {e}", program.display()));
        let err = Arc::new(Mutex::new(String::new()));
        let mut stderr = proc.stderr.take().unwrap();
        let sink = err.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut lines = BufReader::new(proc.stdout.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line()).await;
        let stderr_now = || err.lock().unwrap().clone();
        let first = match first {
            Ok(Ok(Some(line))) => line,
            Ok(_) => panic!("{what} exited before it was ready; stderr:\n{}", stderr_now()),
            Err(_) => panic!("{what} was not ready within 20 s; stderr:\n{}", stderr_now()),
        };
        let info: Value = serde_json::from_str(&first)
            .unwrap_or_else(|e| panic!("{what} printed no JSON line ({e}): {first:?}; stderr:\n{}", stderr_now()));
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = out.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                sink.lock().unwrap().push(line);
            }
        });
        Child { _proc: proc, info, what: what.to_string(), out, err }
    }

    fn output(&self) -> String {
        format!(
            "{}: stdout:\n{}\nstderr:\n{}",
            self.what,
            self.out.lock().unwrap().join("\n"),
            self.err.lock().unwrap()
        )
    }

    fn s(&self, key: &str) -> String {
        self.info[key].as_str().unwrap_or_else(|| panic!("{} printed no {key}", self.what)).to_string()
    }

    fn client(&self, which: &str) -> String {
        self.info["clients"][which].as_str().unwrap().to_string()
    }
}

/// oidc-provider over HTTPS on 127.0.0.1 with `pki`'s certificate; `signing_key`: a file
/// sharing the signing key with another instance.
async fn start_provider(pki: &Pki, signing_key: Option<&Path>) -> Child {
    let script = workspace_dir().join("tests/oauth/provider.mjs");
    let (peers, cert, key, script) = (peers_dir(), pki.cert.display(), pki.key.display(), script.display());
    let (peers, cert, key, script) =
        (peers.display().to_string(), cert.to_string(), key.to_string(), script.to_string());
    let mut args = vec![&script[..], "--cert", &cert, "--key", &key, "--peers", &peers, "--exit-with-stdin"];
    args.extend(["--redirect-uri", REDIRECT_URI]);
    let shared = signing_key.map(|p| p.display().to_string());
    if let Some(s) = &shared {
        args.extend(["--signing-key", s]);
    }
    Child::start(Path::new("node"), &args, "the authorization server (tests/oauth/provider.mjs)").await
}

// ---- HTTP: the user's browser, tokens, raw MCP requests ---------------------------------------

/// `value="…"` (or `action="…"`) of an HTML tag, unescaped.
fn attr(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = start + tag[start..].find('"')?;
    Some(tag[start..end].replace("&amp;", "&").replace("&#x2F;", "/").replace("&quot;", "\""))
}

/// The first `<form … method="post">`'s action and its inputs (login and password filled in).
fn fill_form(page: &str) -> Option<(String, Vec<(String, String)>)> {
    let form_at = page.find("<form")?;
    let form_tag = &page[form_at..form_at + page[form_at..].find('>')?];
    let action = attr(form_tag, "action")?;
    let mut fields = Vec::new();
    let mut rest = &page[form_at..];
    while let Some(i) = rest.find("<input") {
        let tag = &rest[i..i + rest[i..].find('>').unwrap_or(rest.len() - i)];
        if let Some(name) = attr(tag, "name") {
            let value = match name.as_str() {
                "login" => "alice".to_string(),
                "password" => "wonderland".to_string(),
                _ => attr(tag, "value").unwrap_or_default(),
            };
            fields.push((name, value));
        }
        rest = &rest[i + 6..];
    }
    Some((action, fields))
}

/// Resolves `location` against `base` (absolute, or an absolute path on the same origin).
fn join(base: &str, location: &str) -> String {
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.to_string();
    }
    let origin_end = base.find("://").map(|i| i + 3).and_then(|i| base[i..].find('/').map(|j| i + j));
    format!("{}{location}", &base[..origin_end.unwrap_or(base.len())])
}

/// What a user does in a browser, over plain HTTP requests: opens the authorization URL,
/// follows the redirects (carrying the provider's cookies), fills the login form (any user
/// name and password) and the consent form, until the provider redirects to `redirect_uri`;
/// returns that URL. `steps` receives "METHOD path status" of each request.
async fn authorize_over_http(
    fetch: &HttpFetch,
    url: &str,
    redirect_uri: &str,
    steps: &Mutex<Vec<String>>,
) -> Result<String, String> {
    let mut cookies: Vec<(String, String)> = Vec::new();
    let (mut method, mut url, mut body): (&'static str, String, Option<String>) = ("GET", url.to_string(), None);
    for _ in 0..20 {
        let cookie = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        let mut headers = vec![("Cookie".to_string(), cookie)];
        if body.is_some() {
            headers.push(("Content-Type".into(), "application/x-www-form-urlencoded".into()));
        }
        let req = HttpRequest { method, url: url.clone(), headers, body: body.take().unwrap_or_default().into_bytes() };
        let r = fetch.fetch(req).await?;
        let path = url.split('?').next().unwrap_or_default().splitn(4, '/').nth(3).unwrap_or_default();
        steps.lock().unwrap().push(format!("{method} /{path} {}", r.status));
        for c in r.headers_named("set-cookie") {
            let pair = c.split(';').next().unwrap_or_default();
            if let Some((k, v)) = pair.split_once('=') {
                cookies.retain(|(n, _)| n != k.trim());
                cookies.push((k.trim().to_string(), v.to_string()));
            }
        }
        if (300..400).contains(&r.status) {
            let next = join(&url, r.header("location").ok_or("a redirect without a Location")?);
            if next.starts_with(redirect_uri) {
                return Ok(next);
            }
            (method, url) = ("GET", next);
            continue;
        }
        let page = String::from_utf8_lossy(&r.body).into_owned();
        let Some((action, fields)) = fill_form(&page).filter(|_| r.status == 200) else {
            return Err(format!("{url} answered {} without a form to fill:\n{page}", r.status));
        };
        let mut form = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &fields {
            form.append_pair(k, v);
        }
        (method, url, body) = ("POST", join(&url, &action), Some(form.finish()));
    }
    Err(format!("the authorization did not come back to {redirect_uri}"))
}

/// The authorization handler of the tests: [`authorize_over_http`].
struct Browser {
    fetch: HttpFetch,
    steps: Arc<Mutex<Vec<String>>>,
    redirects: Arc<Mutex<Vec<String>>>,
}

impl AuthorizationHandler for Browser {
    fn authorize(&self, request: AuthorizationRequest) -> futures_util::future::BoxFuture<'_, Result<String, String>> {
        Box::pin(async move {
            let back = authorize_over_http(&self.fetch, &request.url, &request.redirect_uri, &self.steps).await?;
            self.redirects.lock().unwrap().push(back.clone());
            Ok(back)
        })
    }
}

/// A token from the token endpoint by client credentials (client_secret_basic).
async fn client_credentials(
    fetch: &HttpFetch,
    provider: &Child,
    client_id: &str,
    resource: &str,
    scope: &str,
) -> String {
    let req = HttpRequest::post_form(
        provider.s("token_endpoint"),
        &[("grant_type", "client_credentials"), ("resource", resource), ("scope", scope)],
    )
    .basic_auth(client_id, &provider.client("service_secret"));
    let r = fetch.fetch(req).await.unwrap();
    assert_eq!(r.status, 200, "the token endpoint: {}", String::from_utf8_lossy(&r.body));
    r.json::<Value>().unwrap()["access_token"].as_str().unwrap().to_string()
}

/// A JWT's header (0) or payload (1).
fn jwt_part(token: &str, i: usize) -> Value {
    let part = token.split('.').nth(i).unwrap();
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in part.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => continue,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    serde_json::from_slice(&out).unwrap()
}

/// POSTs the JSON-RPC `message` to the MCP endpoint `url` with `token` and extra `headers`
/// (e.g. `Mcp-Session-Id`).
async fn post_mcp(
    fetch: &HttpFetch,
    url: &str,
    token: Option<&str>,
    message: &Value,
    headers: &[(&str, &str)],
) -> HttpResponse {
    let mut req = HttpRequest::post_json(url, message);
    req.headers.retain(|(k, _)| k != "Accept");
    req.headers.push(("Accept".into(), "application/json, text/event-stream".into()));
    if let Some(t) = token {
        req.headers.push(("Authorization".into(), format!("Bearer {t}")));
    }
    req.headers.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    fetch.fetch(req).await.unwrap()
}

/// [`post_mcp`] of an `initialize`.
async fn post_initialize(fetch: &HttpFetch, url: &str, token: Option<&str>) -> HttpResponse {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    post_mcp(fetch, url, token, &init, &[]).await
}

/// What the provider's token endpoint issued: one entry per access token.
async fn provider_events(fetch: &HttpFetch, provider: &Child) -> Vec<Value> {
    let r = fetch.fetch(HttpRequest::get_json(format!("{}/events", provider.s("control")))).await.unwrap();
    r.json().unwrap()
}

// ---- the Rust server ------------------------------------------------------------------------

/// Who called a tool, as its handler saw it (`ctx.auth()`): the tool, the subject, the client
/// id and the scopes.
type Caller = (String, Option<String>, Option<String>, Vec<String>);

/// The Rust server on 127.0.0.1 (its URL is the resource), requiring `mcp:tools` (and
/// `mcp:admin` for its tool `admin`), with tokens verified against `provider`'s JWKS; its calls
/// are recorded. Stops on drop.
struct RustServer {
    url: String,
    calls: Arc<Mutex<Vec<String>>>,
    callers: Arc<Mutex<Vec<Caller>>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A tool recording its calls and who made them.
fn recorded(
    name: &'static str,
    reply: &'static str,
    calls: &Arc<Mutex<Vec<String>>>,
    callers: &Arc<Mutex<Vec<Caller>>>,
) -> (Tool, impl Fn(Map<String, Value>, Context) -> futures_util::future::Ready<CallToolResult> + Send + Sync + 'static)
{
    let (calls, callers) = (calls.clone(), callers.clone());
    let tool = Tool::new(name).input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
    (tool, move |args: Map<String, Value>, ctx: Context| {
        let text = args.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
        calls.lock().unwrap().push(text.clone());
        let auth = ctx.auth().expect("a handler of a server with the auth option sees ctx.auth()");
        callers.lock().unwrap().push((name.into(), auth.subject.clone(), auth.client_id.clone(), auth.scopes.clone()));
        futures_util::future::ready(CallToolResult::text(format!("{reply}: {text}")))
    })
}

/// [`rust_server_with`] the default JWKS refetch interval.
async fn rust_server(provider: &Child, pki: &Pki) -> RustServer {
    rust_server_with(provider, pki, None).await
}

async fn rust_server_with(provider: &Child, pki: &Pki, jwks_refetch_interval: Option<Duration>) -> RustServer {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let callers = Arc::new(Mutex::new(Vec::new()));
    let (echo, echo_fn) = recorded("echo", "rust", &calls, &callers);
    let (admin, admin_fn) = recorded("admin", "rust admin", &calls, &callers);
    let server = Server::new("oauth-rust", "1.0.0")
        .tool(echo, echo_fn)
        .tool(admin, admin_fn)
        .require_scopes(ScopeTarget::Tool("admin".into()), ["mcp:admin"]);
    let mut options = HttpOptions::default();
    let listener = bind("127.0.0.1:0", &mut options).await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    options.auth = Some(ResourceServerOptions {
        resource: url.clone(),
        authorization_servers: vec![provider.s("issuer")],
        jwks_uri: Some(provider.s("jwks_uri")),
        required_scopes: vec!["mcp:tools".into()],
        scopes_supported: Some(vec!["mcp:tools".into(), "mcp:admin".into()]),
        ca_file: Some(pki.ca.clone()),
        jwks_refetch_interval,
        ..Default::default()
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http(server.http_service(options), listener, async move {
        let _ = stopped.await;
    }));
    RustServer { url, calls, callers, _stop: stop }
}

fn cc_options(provider: &Child, pki: &Pki) -> HttpClientOptions {
    let auth = OAuthOptions::default()
        .client(provider.client("service"), Some(provider.client("service_secret")))
        .grant(Grant::ClientCredentials);
    let mut http = HttpClientOptions::default().auth(auth);
    http.ca_file = Some(pki.ca.clone());
    http
}

// ---- the tests ------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_server_refuses_foreign_expired_and_unscoped_tokens_and_serves_client_credentials() {
    if provider_available().is_none() {
        return;
    }
    let pki = Pki::new();
    let key = pki.dir.join("signing-key.json");
    let provider = start_provider(&pki, Some(&key)).await;
    let other = start_provider(&pki, Some(&key)).await;
    bounded_for(LIMIT, async {
        let fetch = pki.fetch();
        let rs = rust_server(&provider, &pki).await;
        let service = provider.client("service");
        let metadata =
            format!(r#"resource_metadata="{}""#, rs.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"));
        // A refusal: its status and a WWW-Authenticate naming the metadata, the scope, the error.
        let refused = |token: Option<String>, status: u16, error: Option<&'static str>, why: &'static str| {
            let (fetch, rs, metadata) = (&fetch, &rs, &metadata);
            async move {
                let r = post_initialize(fetch, &rs.url, token.as_deref()).await;
                let www = r.header("www-authenticate").unwrap_or_default().to_string();
                assert_eq!(r.status, status, "{why}: {}", String::from_utf8_lossy(&r.body));
                assert!(www.starts_with("Bearer ") && www.contains(metadata.as_str()), "{why}: {www}");
                assert!(www.contains(r#"scope="mcp:tools""#), "{why}: {www}");
                if let Some(e) = error {
                    assert!(www.contains(&format!(r#"error="{e}""#)), "{why}: {www}");
                }
                www
            }
        };
        refused(None, 401, None, "no token").await;
        let good = client_credentials(&fetch, &provider, &service, &rs.url, "mcp:tools").await;
        assert_eq!(jwt_part(&good, 0)["typ"], "at+jwt");
        assert_eq!(jwt_part(&good, 1)["aud"], rs.url.as_str());
        assert_eq!(post_initialize(&fetch, &rs.url, Some(&good)).await.status, 200, "a good token");

        let elsewhere =
            client_credentials(&fetch, &provider, &service, "http://127.0.0.1:1/elsewhere", "mcp:tools").await;
        let www = refused(Some(elsewhere), 401, Some("invalid_token"), "another audience").await;
        assert!(www.contains("not for this server"), "{www}");
        let foreign = client_credentials(&fetch, &other, &service, &rs.url, "mcp:tools").await;
        assert_eq!(jwt_part(&foreign, 0)["kid"], jwt_part(&good, 0)["kid"], "the two issuers share the key");
        let www = refused(Some(foreign), 401, Some("invalid_token"), "another issuer").await;
        assert!(www.contains("not issued by"), "{www}");
        let expired =
            client_credentials(&fetch, &provider, &provider.client("serviceBackdated"), &rs.url, "mcp:tools").await;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        assert!(jwt_part(&expired, 1)["exp"].as_u64().unwrap() < now - 60, "the backdated token has expired");
        let www = refused(Some(expired), 401, Some("invalid_token"), "expired").await;
        assert!(www.contains("expired"), "{www}");
        let admin = client_credentials(&fetch, &provider, &service, &rs.url, "mcp:admin").await;
        refused(Some(admin), 403, Some("insufficient_scope"), "without the scope").await;

        // A tool with its own scope (`require_scopes(ScopeTarget::Tool("admin"), ["mcp:admin"])`)
        // called with a mcp:tools token: 403 naming both scopes, before the handler runs (no
        // session needed to learn that).
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "admin", "arguments": {"text": "no"}}});
        let r = post_mcp(&fetch, &rs.url, Some(&good), &call, &[]).await;
        let www = r.header("www-authenticate").unwrap_or_default().to_string();
        assert_eq!(r.status, 403, "a tool's own scope: {}", String::from_utf8_lossy(&r.body));
        assert!(www.contains(r#"error="insufficient_scope""#), "{www}");
        assert!(www.contains(r#"scope="mcp:tools mcp:admin""#) && www.contains(metadata.as_str()), "{www}");
        assert!(rs.calls.lock().unwrap().is_empty());

        // The Rust client by client credentials (client_secret_basic); the tool with its own
        // scope makes it step up: a new token for both scopes, and the call again.
        let client = Client::http(&rs.url, cc_options(&provider, &pki), ClientOptions::default())
            .await
            .unwrap_or_else(|e| panic!("client credentials: {e}\n{}", provider.output()));
        let r = client.call_tool("echo", json!({"text": "as a service"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("rust: as a service"));
        let r = client
            .call_tool("admin", json!({"text": "stepped up"}))
            .await
            .unwrap_or_else(|e| panic!("the step-up: {e}\n{}", provider.output()));
        assert_eq!(r.content[0].as_text(), Some("rust admin: stepped up"));
        let _ = client.close().await;
        assert_eq!(*rs.calls.lock().unwrap(), ["as a service", "stepped up"]);
        let issued: Vec<_> = provider_events(&fetch, &provider)
            .await
            .into_iter()
            .filter(|e| e["aud"] == rs.url.as_str() && e["client_id"] == service.as_str())
            .map(|e| (e["grant_type"].as_str().unwrap_or_default().to_string(), e["scope"].clone()))
            .collect();
        let cc = || "client_credentials".to_string();
        assert_eq!(
            issued,
            [
                (cc(), json!("mcp:tools")),
                (cc(), json!("mcp:admin")),
                (cc(), json!("mcp:tools")),
                (cc(), json!("mcp:tools mcp:admin"))
            ],
            "the test's tokens, then the client's, then its step-up"
        );
        // The handlers saw the token's subject (the client itself, acting on its own behalf).
        let (s, tools) = (Some(service.clone()), || vec!["mcp:tools".to_string()]);
        let both = vec!["mcp:tools".to_string(), "mcp:admin".to_string()];
        assert_eq!(
            *rs.callers.lock().unwrap(),
            [("echo".to_string(), s.clone(), s.clone(), tools()), ("admin".to_string(), s.clone(), s, both)]
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_client_gets_a_token_by_authorization_code_and_calls_the_python_server() {
    if provider_available().is_none() {
        return;
    }
    let Some(python) = python() else { return };
    let pki = Pki::new();
    let provider = start_provider(&pki, None).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let (script, ca, issuer) =
        (workspace_dir().join("tests/oauth/server.py"), pki.ca.display().to_string(), provider.s("issuer"));
    let script = script.display().to_string();
    let server = Child::start(
        &python,
        &[&script, "--port", &port, "--issuer", &issuer, "--ca-file", &ca, "--required-scope", "mcp:tools"],
        "the Python server (tests/oauth/server.py)",
    )
    .await;
    let url = server.s("url");
    bounded_for(LIMIT, async {
        let browser = Arc::new(Browser { fetch: pki.fetch(), steps: Arc::default(), redirects: Arc::default() });
        let auth = OAuthOptions::new(REDIRECT_URI).client(provider.client("public"), None).handler(browser.clone());
        let mut http = HttpClientOptions::default().auth(auth);
        http.ca_file = Some(pki.ca.clone());
        let client = Client::http(&url, http, ClientOptions::default())
            .await
            .unwrap_or_else(|e| panic!("authorization code: {e}\n{}\n{}", provider.output(), server.output()));
        let r = client.call_tool("echo", json!({"text": "from rust"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("python server: from rust"));
        let _ = client.close().await;

        // The provider's own pages: a login form, then a consent form, each answered by a redirect.
        let steps = browser.steps.lock().unwrap().clone();
        let posts: Vec<_> =
            steps.iter().filter(|s| s.starts_with("POST")).map(|s| s.rsplit(' ').next().unwrap()).collect();
        assert_eq!(posts, ["303", "303"], "{steps:?}");
        let back = browser.redirects.lock().unwrap()[0].clone();
        let iss = form_urlencoded::byte_serialize(issuer.as_bytes()).collect::<String>();
        assert!(back.contains(&format!("iss={iss}")), "RFC 9207 iss in the authorization response: {back}");
        let issued: Vec<_> = provider_events(&pki.fetch(), &provider)
            .await
            .into_iter()
            .filter(|e| e["aud"] == url.as_str())
            .map(|e| (e["grant_type"].clone(), e["client_id"].clone(), e["scope"].clone()))
            .collect();
        assert_eq!(issued, [(json!("authorization_code"), json!(provider.client("public")), json!("mcp:tools"))]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(server.out.lock().unwrap().iter().any(|l| l.contains(r#""from rust""#)), "{}", server.output());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_rotation_at_the_provider_is_picked_up_by_the_running_rust_server() {
    if provider_available().is_none() {
        return;
    }
    let pki = Pki::new();
    let provider = start_provider(&pki, None).await;
    // The server fetches the JWKS again for an unknown kid at most every `jwks_refetch_interval`
    // (30 s by default): 1 s here, so the test waits about that long.
    let every = Duration::from_secs(1);
    bounded_for(LIMIT, async {
        let fetch = pki.fetch();
        let rs = rust_server_with(&provider, &pki, Some(every)).await;
        let service = provider.client("service");
        let old = client_credentials(&fetch, &provider, &service, &rs.url, "mcp:tools").await;
        let asked = Instant::now(); // the server fetches the JWKS after this
        assert_eq!(post_initialize(&fetch, &rs.url, Some(&old)).await.status, 200, "the first key");
        let fetched = Instant::now(); // and before this

        let r = fetch
            .fetch(HttpRequest::post_form(format!("{}/rotate", provider.s("control")), &[]))
            .await
            .unwrap()
            .json::<Value>()
            .unwrap();
        assert_eq!(r["previous"], jwt_part(&old, 0)["kid"]);
        let jwks: Value = fetch.fetch(HttpRequest::get_json(provider.s("jwks_uri"))).await.unwrap().json().unwrap();
        assert_eq!(jwks["keys"].as_array().unwrap().len(), 1, "the old key left the JWKS");
        assert_eq!(jwks["keys"][0]["kid"], r["kid"]);
        let new = client_credentials(&fetch, &provider, &service, &rs.url, "mcp:tools").await;
        assert_eq!(jwt_part(&new, 0)["kid"], r["kid"]);
        // Within the interval of its last fetch the server keeps its keys: the new kid is not
        // known yet (checked only when this request goes out in time, on a slow machine).
        let sent = Instant::now();
        let early = post_initialize(&fetch, &rs.url, Some(&new)).await;
        if sent < asked + every {
            assert_eq!(early.status, 401, "{early:?}");
            assert!(early.header("www-authenticate").unwrap_or_default().contains("unknown key"), "{early:?}");
        } else {
            eprintln!("the refusal within the refetch interval is not checked: its request went out too late");
        }

        tokio::time::sleep_until((fetched + every + Duration::from_millis(100)).into()).await;
        // Past that, the unknown kid makes it fetch the JWKS again: a new client's token (signed
        // with the new key) is accepted, the old key's is not any more.
        let client = Client::http(&rs.url, cc_options(&provider, &pki), ClientOptions::default())
            .await
            .unwrap_or_else(|e| panic!("after the rotation: {e}\n{}", provider.output()));
        let r = client.call_tool("echo", json!({"text": "new key"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("rust: new key"));
        let _ = client.close().await;
        let stale = post_initialize(&fetch, &rs.url, Some(&old)).await;
        assert_eq!(stale.status, 401, "a token of the removed key");
        assert!(stale.header("www-authenticate").unwrap_or_default().contains("unknown key"), "{stale:?}");
    })
    .await;
}
