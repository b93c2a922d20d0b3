//! The OAuth 2.1 client of the MCP authorization spec (2025-03-26 to 2026-07-28).
//!
//! An [`Authorizer`] sits beside one MCP server URL. The transport adds its
//! [`Authorizer::authorization`] header to every request; when the server answers `401`, or
//! `403` with `error="insufficient_scope"`, the transport calls [`Authorizer::challenge`],
//! which:
//!
//! 1. finds the Protected Resource Metadata (RFC 9728): the challenge's `resource_metadata`,
//!    else the path-inserted then the root well-known URI; checks that its `resource` covers
//!    the server URL. Without any (a 2025-03-26 server) the server's origin is the
//!    authorization server;
//! 2. reads the authorization server's metadata (RFC 8414, then OpenID Connect Discovery, in
//!    the spec's order) and refuses a document whose `issuer` differs from the issuer it was
//!    looked up for; without metadata at a 2025-03-26 server, the default endpoints;
//! 3. picks the scopes: the challenge's (joined to those asked before, for step-up), else the
//!    resource's `scopes_supported`, else none; plus `offline_access` where the authorization
//!    server offers it;
//! 4. uses a refresh token when it has one that covers them; else registers (pre-registered
//!    client, Client ID Metadata Document, a registration kept for this issuer, or Dynamic
//!    Client Registration with `application_type`), and runs the grant: the authorization code
//!    with PKCE S256, `state`, the RFC 8707 `resource`, and the RFC 9207 `iss` check of the
//!    response; or `client_credentials`;
//! 5. keeps the tokens in the [`TokenStore`], keyed by issuer and resource (registrations by
//!    issuer: a moved resource gets a new registration, never the old server's credentials).
//!
//! Each request may trigger at most `max_authorizations` authorizations (step-up included).

mod dpop;
mod http;
mod jwt;
mod options;
mod store;
pub mod url;

use super::now_secs;
pub(crate) use http::refused;
pub use http::{Fetch, HttpRequest, HttpResponse};
pub use options::{AuthorizationHandler, AuthorizationRequest, AuthorizeMode, Grant, OAuthOptions};
pub use store::{FileStore, MemoryStore, StoredClient, StoredTokens, TokenStore};

use super::challenge::{self, Challenge};
use serde::Deserialize;
use sha2::Digest;
use std::sync::{Arc, RwLock};
use url::Url;

/// Protected Resource Metadata (RFC 9728 §2), the fields the client reads.
#[derive(Debug, Clone, Deserialize)]
pub struct ResourceMetadata {
    /// The protected resource's identifier.
    pub resource: String,
    /// Issuers of the authorization servers it trusts.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// Scopes it uses.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 §2 / OpenID Connect Discovery), the fields the
/// client reads.
#[derive(Debug, Clone, Deserialize)]
pub struct ServerMetadata {
    /// The issuer identifier.
    pub issuer: String,
    /// The authorization endpoint.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    pub token_endpoint: String,
    /// The Dynamic Client Registration endpoint.
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// Scopes it issues.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// Token endpoint authentication methods (RFC 8414 default: `client_secret_basic`).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// PKCE methods; without `S256` the client refuses to proceed.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// RFC 9207: whether authorization responses carry `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Whether Client ID Metadata Documents are accepted as client ids.
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// RFC 9449: the JWS algorithms it accepts in DPoP proofs.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// The token the transport presents, and where it came from.
#[derive(Clone)]
struct Active {
    header: String,
    issuer: String,
    resource: String,
    tokens: StoredTokens,
}

/// What one authorization found out about the resource and its authorization server.
struct Discovered {
    issuer: String,
    meta: ServerMetadata,
    /// Whether `meta` came from a metadata document (not the 2025-03-26 default endpoints).
    documented: bool,
    /// The RFC 8707 resource to ask tokens for.
    resource: String,
    scopes_supported: Option<Vec<String>>,
}

#[derive(Default)]
struct FlowState {
    /// Every scope asked for so far (the union grows with step-up challenges).
    requested: Vec<String>,
}

/// The OAuth client of one MCP server URL; see the [module docs](self).
pub struct Authorizer {
    opts: OAuthOptions,
    server_url: String,
    fetch: Arc<dyn Fetch>,
    handler: Arc<dyn AuthorizationHandler>,
    store: Arc<dyn TokenStore>,
    active: RwLock<Option<Active>>,
    flow: tokio::sync::Mutex<FlowState>,
    /// The DPoP key, made when a token is first bound.
    dpop: std::sync::Mutex<Option<Arc<dpop::DpopKey>>>,
    /// The latest `DPoP-Nonce` of the authorization server and of the resource server.
    as_nonce: std::sync::Mutex<Option<String>>,
    rs_nonce: std::sync::Mutex<Option<String>>,
}

fn locked<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer").field("server_url", &self.server_url).field("opts", &self.opts).finish()
    }
}

/// `n` random bytes, base64url without padding.
fn random_token(n: usize) -> Result<String, String> {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).map_err(|e| format!("no randomness for OAuth: {e}"))?;
    Ok(crate::util::base64url_encode(&b))
}

/// The JWT-bearer grant type (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The token type of an identity assertion JWT authorization grant.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
pub fn pkce_challenge(verifier: &str) -> String {
    crate::util::base64url_encode(&sha2::Sha256::digest(verifier.as_bytes()))
}

/// Joins scope lists, keeping the first occurrence's order.
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for s in b {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<serde_json::Value>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

impl Authorizer {
    /// The authorizer of `server_url`; `fetch` performs its HTTP exchanges and `handler`
    /// sends the user to authorize (the options' own handler wins when set).
    pub fn new(
        server_url: &str,
        opts: OAuthOptions,
        fetch: Arc<dyn Fetch>,
        handler: Arc<dyn AuthorizationHandler>,
    ) -> Result<Authorizer, String> {
        opts.validate()?;
        Url::parse(server_url)?;
        let handler = opts.handler.clone().unwrap_or(handler);
        let store: Arc<dyn TokenStore> = match (&opts.store, &opts.token_store) {
            (Some(s), _) => s.clone(),
            (None, Some(path)) => Arc::new(FileStore::new(path.clone())),
            (None, None) => Arc::new(MemoryStore::new()),
        };
        Ok(Authorizer {
            opts,
            server_url: server_url.to_string(),
            fetch,
            handler,
            store,
            active: RwLock::new(None),
            flow: tokio::sync::Mutex::new(FlowState::default()),
            dpop: std::sync::Mutex::new(None),
            as_nonce: std::sync::Mutex::new(None),
            rs_nonce: std::sync::Mutex::new(None),
        })
    }

    /// The options.
    pub fn options(&self) -> &OAuthOptions {
        &self.opts
    }

    /// The `Authorization` header value to send, once a token is held.
    pub fn authorization(&self) -> Option<String> {
        self.active.read().unwrap_or_else(|e| e.into_inner()).as_ref().map(|a| a.header.clone())
    }

    /// The `DPoP` proof a request to the MCP server carries (`method` on `url`), when the token
    /// held is DPoP-bound.
    pub fn proof(&self, method: &str, url: &str) -> Option<String> {
        let a = self.active()?;
        if !a.tokens.token_type.eq_ignore_ascii_case("dpop") {
            return None;
        }
        let key = locked(&self.dpop).clone()?;
        let nonce = locked(&self.rs_nonce).clone();
        let jti = random_token(16).ok()?;
        key.proof(method, &dpop::htu(url), nonce.as_deref(), Some(&a.tokens.access_token), now_secs(), &jti).ok()
    }

    /// Records the MCP server's `DPoP-Nonce` (RFC 9449 §9), for the proofs that follow.
    pub fn note_dpop_nonce(&self, nonce: &str) {
        *locked(&self.rs_nonce) = Some(nonce.to_string());
    }

    fn dpop_key(&self) -> Result<Arc<dpop::DpopKey>, String> {
        let mut k = locked(&self.dpop);
        if let Some(k) = &*k {
            return Ok(k.clone());
        }
        let made = Arc::new(dpop::DpopKey::generate()?);
        *k = Some(made.clone());
        Ok(made)
    }

    /// Whether tokens from this authorization server get bound to the DPoP key.
    fn uses_dpop(&self, d: &Discovered) -> bool {
        self.opts.dpop
            && d.meta.dpop_signing_alg_values_supported.as_deref().is_some_and(|a| a.iter().any(|x| x == "ES256"))
    }

    fn set_active(&self, a: Option<Active>) {
        *self.active.write().unwrap_or_else(|e| e.into_inner()) = a;
    }

    fn active(&self) -> Option<Active> {
        self.active.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Before a request: when the token held expires within 30 s and a refresh token is at
    /// hand, refreshes it (a failed refresh leaves the next `401` to authorize again).
    pub async fn before_request(&self) {
        let expiring =
            |a: &Active| a.tokens.refresh_token.is_some() && a.tokens.expires_at.is_some_and(|t| t <= now_secs() + 30);
        if !self.active.read().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(expiring) {
            return;
        }
        let _flow = self.flow.lock().await;
        let Some(a) = self.active() else { return };
        if a.tokens.expires_at.is_none_or(|t| t > now_secs() + 30) {
            return; // refreshed meanwhile
        }
        let Ok(d) = self.discover_issuer(&a.issuer, &a.resource, None).await else { return };
        if self.refresh(&d, &a.tokens).await.is_err() {
            self.set_active(None);
        }
    }

    /// The server refused a request (`status` 401, or 403 with `insufficient_scope`) that
    /// carried `sent` (the `Authorization` value, if any) and these `WWW-Authenticate`
    /// values: authorizes (or sees another request already did) so the request can be sent
    /// again. `Err` explains why it cannot be.
    pub async fn challenge(&self, status: u16, www_authenticate: &[&str], sent: Option<&str>) -> Result<(), String> {
        let mut flow = self.flow.lock().await;
        let challenges = challenge::parse(www_authenticate.iter().copied());
        // RFC 9449 §9: the server wants its nonce in the proof (the transport noted it).
        if status == 401 && challenges.iter().any(|c| c.is("DPoP") && c.param("error") == Some("use_dpop_nonce")) {
            return if locked(&self.rs_nonce).is_some() {
                Ok(())
            } else {
                Err("the server asked for a DPoP nonce (use_dpop_nonce) without sending one".into())
            };
        }
        // Another request authorized while this one waited: retry with that token.
        if let Some(now) = self.authorization() {
            if sent != Some(now.as_str()) {
                return Ok(());
            }
        }
        let bearer: Challenge = challenges.iter().find(|c| c.is("Bearer") || c.is("DPoP")).cloned().unwrap_or_default();
        if status == 403 && bearer.param("error") != Some("insufficient_scope") {
            return Err(
                "HTTP 403 Forbidden without an insufficient_scope challenge: the token is not allowed this operation"
                    .into(),
            );
        }
        let d = self.discover(bearer.param("resource_metadata")).await?;
        let challenged = bearer.scopes();
        let mut scopes = if !challenged.is_empty() {
            union(&flow.requested, &challenged)
        } else if let Some(s) = &d.scopes_supported {
            union(&flow.requested, s)
        } else {
            flow.requested.clone()
        };
        if let Some(extra) = &self.opts.scopes {
            scopes = union(&scopes, extra);
        }
        flow.requested = scopes.clone();
        let offered = d.meta.scopes_supported.as_deref().unwrap_or_default();
        if self.opts.offline_access
            && self.opts.grant == Grant::AuthorizationCode
            && offered.iter().any(|s| s == "offline_access")
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".into());
        }
        // A refresh token that covers the scopes answers a 401 without the user.
        if status == 401 {
            if let Some(stored) = self.store.load_tokens(&d.issuer, &d.resource).await {
                let covers = scopes.iter().all(|s| s == "offline_access" || stored.scopes.contains(s));
                let same = sent.is_some_and(|h| h.ends_with(&stored.access_token));
                if stored.refresh_token.is_some() && covers {
                    if self.refresh(&d, &stored).await.is_ok() {
                        return Ok(());
                    }
                } else if !same && covers && stored.expires_at.is_none_or(|t| t > now_secs()) {
                    // Stored from an earlier run and not tried yet.
                    self.activate(&d, stored);
                    return Ok(());
                }
            }
        }
        let client = self.client_for(&d).await?;
        let tokens = match self.opts.grant {
            Grant::AuthorizationCode => self.authorization_code(&d, &client, &scopes).await?,
            Grant::ClientCredentials => self.client_credentials(&d, &client, &scopes).await?,
            Grant::JwtBearer => {
                let assertion = self.workload_assertion().await?;
                self.jwt_bearer(&d, &client, &assertion, &scopes).await?
            }
            Grant::EnterpriseManaged => {
                let id_jag = self.exchange_id_token(&d, &scopes).await?;
                self.jwt_bearer(&d, &client, &id_jag, &scopes).await?
            }
        };
        self.keep(&d, tokens).await
    }

    fn activate(&self, d: &Discovered, tokens: StoredTokens) {
        let scheme = if tokens.token_type.eq_ignore_ascii_case("dpop") { "DPoP" } else { "Bearer" };
        self.set_active(Some(Active {
            header: format!("{scheme} {}", tokens.access_token),
            issuer: d.issuer.clone(),
            resource: d.resource.clone(),
            tokens,
        }));
    }

    async fn keep(&self, d: &Discovered, tokens: StoredTokens) -> Result<(), String> {
        self.store.save_tokens(&d.issuer, &d.resource, Some(tokens.clone())).await?;
        self.activate(d, tokens);
        Ok(())
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<Option<T>, String> {
        let resp = self.fetch.fetch(HttpRequest::get_json(url)).await.map_err(|e| format!("GET {url}: {e}"))?;
        if !resp.ok() {
            return Ok(None);
        }
        resp.json().map(Some).map_err(|e| format!("GET {url}: {e}"))
    }

    /// Steps 1 and 2: the resource's metadata and its authorization server's.
    async fn discover(&self, resource_metadata: Option<&str>) -> Result<Discovered, String> {
        let mut prm: Option<(String, ResourceMetadata)> = None;
        let candidates = match resource_metadata {
            Some(u) => vec![u.to_string()],
            None => url::resource_metadata_urls(&self.server_url)?,
        };
        for u in candidates {
            if let Some(m) = self.get_json::<ResourceMetadata>(&u).await? {
                prm = Some((u, m));
                break;
            }
        }
        let Some((at, prm)) = prm else {
            // A 2025-03-26 server: no resource metadata; its origin is the authorization server.
            let origin = Url::parse(&self.server_url)?.origin();
            let resource = url::canonical_resource(&self.server_url)?;
            if let Some(meta) = self.find_metadata(&origin).await? {
                return Ok(Discovered { issuer: origin, meta, documented: true, resource, scopes_supported: None });
            }
            return Ok(Discovered {
                meta: ServerMetadata {
                    issuer: origin.clone(),
                    authorization_endpoint: Some(format!("{origin}/authorize")),
                    token_endpoint: format!("{origin}/token"),
                    registration_endpoint: Some(format!("{origin}/register")),
                    scopes_supported: None,
                    token_endpoint_auth_methods_supported: None,
                    code_challenge_methods_supported: None,
                    authorization_response_iss_parameter_supported: None,
                    client_id_metadata_document_supported: None,
                    dpop_signing_alg_values_supported: None,
                },
                issuer: origin,
                documented: false,
                resource,
                scopes_supported: None,
            });
        };
        if !url::resource_covers(&prm.resource, &self.server_url) {
            return Err(format!(
                "the protected resource metadata at {at} is for {:?}, not for {}: refusing to authorize (RFC 9728 §3.3)",
                prm.resource, self.server_url
            ));
        }
        let Some(issuer) = prm.authorization_servers.first() else {
            return Err(format!("the protected resource metadata at {at} names no authorization server"));
        };
        self.discover_issuer(issuer, &prm.resource, prm.scopes_supported.clone()).await
    }

    async fn discover_issuer(
        &self,
        issuer: &str,
        resource: &str,
        scopes_supported: Option<Vec<String>>,
    ) -> Result<Discovered, String> {
        match self.find_metadata(issuer).await? {
            Some(meta) => Ok(Discovered {
                issuer: issuer.to_string(),
                meta,
                documented: true,
                resource: resource.to_string(),
                scopes_supported,
            }),
            None => Err(format!(
                "no authorization server metadata found for {issuer} (tried RFC 8414 and OpenID Connect discovery)"
            )),
        }
    }

    /// The metadata of the authorization server `issuer` (`None` when none is published);
    /// `Err` for a document naming another issuer.
    async fn find_metadata(&self, issuer: &str) -> Result<Option<ServerMetadata>, String> {
        for u in url::authorization_server_metadata_urls(issuer)? {
            let Some(meta) = self.get_json::<ServerMetadata>(&u).await? else { continue };
            if meta.issuer != issuer {
                return Err(format!(
                    "the authorization server metadata at {u} names the issuer {:?}, not {issuer:?}: refusing to use it (RFC 8414 §3.3)",
                    meta.issuer
                ));
            }
            return Ok(Some(meta));
        }
        Ok(None)
    }

    /// Step 4: the client registration to use at this authorization server.
    async fn client_for(&self, d: &Discovered) -> Result<StoredClient, String> {
        if let Some(id) = &self.opts.client_id {
            return Ok(StoredClient {
                client_id: id.clone(),
                client_secret: self.opts.client_secret.clone(),
                token_endpoint_auth_method: self
                    .opts
                    .token_endpoint_auth_method
                    .clone()
                    .or_else(|| self.opts.private_key_pem.as_ref().map(|_| "private_key_jwt".into())),
                redirect_uri: Some(self.opts.redirect_uri.clone()),
            });
        }
        if self.opts.grant != Grant::AuthorizationCode {
            return Err("this grant needs a pre-registered client_id".into());
        }
        if let (Some(u), Some(true)) = (&self.opts.client_metadata_url, d.meta.client_id_metadata_document_supported) {
            return Ok(StoredClient {
                client_id: u.clone(),
                client_secret: None,
                token_endpoint_auth_method: Some("none".into()),
                redirect_uri: Some(self.opts.redirect_uri.clone()),
            });
        }
        if let Some(c) = self.store.load_client(&d.issuer).await {
            if c.redirect_uri.as_deref().is_none_or(|r| r == self.opts.redirect_uri) {
                return Ok(c);
            }
        }
        let Some(endpoint) = &d.meta.registration_endpoint else {
            return Err(format!(
                "the authorization server {} offers no client registration (no registration_endpoint, no Client ID Metadata Documents): configure a pre-registered client_id",
                d.issuer
            ));
        };
        let supported = d.meta.token_endpoint_auth_methods_supported.as_deref();
        let method = match supported {
            Some(m) if m.iter().any(|x| x == "none") => "none",
            Some(m) if m.iter().any(|x| x == "client_secret_basic") => "client_secret_basic",
            Some(m) if m.iter().any(|x| x == "client_secret_post") => "client_secret_post",
            Some(_) => "none",
            None => "client_secret_basic",
        };
        // Only the authorization code grant registers (the others need a pre-registered client).
        let grant_types = ["authorization_code", "refresh_token"];
        let body = serde_json::json!({
            "client_name": self.opts.client_name,
            "redirect_uris": [self.opts.redirect_uri],
            "grant_types": grant_types,
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": self.opts.application_type(),
        });
        let what = format!("client registration at {endpoint}");
        let resp = refused(&what, self.fetch.fetch(HttpRequest::post_json(endpoint, &body)).await)?;
        #[derive(Deserialize)]
        struct Registered {
            client_id: String,
            #[serde(default)]
            client_secret: Option<String>,
            #[serde(default)]
            token_endpoint_auth_method: Option<String>,
        }
        let r: Registered = resp.json().map_err(|e| format!("{what}: {e}"))?;
        let client = StoredClient {
            client_id: r.client_id,
            token_endpoint_auth_method: r.token_endpoint_auth_method.or_else(|| {
                Some(if r.client_secret.is_some() && method == "none" { "client_secret_basic" } else { method }.into())
            }),
            client_secret: r.client_secret,
            redirect_uri: Some(self.opts.redirect_uri.clone()),
        };
        self.store.save_client(&d.issuer, client.clone()).await?;
        Ok(client)
    }

    /// Adds the client's authentication to a token request (RFC 6749 §2.3, OAuth 2.1 §2.4,
    /// RFC 7523 §2.2 for `private_key_jwt`, whose assertion's audience is the issuer).
    fn authenticate(&self, d: &Discovered, client: &StoredClient, req: HttpRequest) -> Result<HttpRequest, String> {
        let supported = d.meta.token_endpoint_auth_methods_supported.as_deref();
        let method = match (&client.token_endpoint_auth_method, &client.client_secret) {
            (Some(m), _) => m.as_str(),
            (None, None) => "none",
            (None, Some(_)) => match supported {
                Some(m)
                    if !m.iter().any(|x| x == "client_secret_basic") && m.iter().any(|x| x == "client_secret_post") =>
                {
                    "client_secret_post"
                }
                _ => "client_secret_basic",
            },
        };
        Ok(match (method, &client.client_secret, &self.opts.private_key_pem) {
            ("client_secret_basic", Some(secret), _) => req.basic_auth(&client.client_id, secret),
            ("client_secret_post", Some(secret), _) => {
                req.form_pairs(&[("client_id", &client.client_id), ("client_secret", secret)])
            }
            ("private_key_jwt", _, Some(pem)) => {
                let jti = random_token(16)?;
                let assertion = jwt::client_assertion(
                    pem,
                    self.opts.signing_algorithm.as_deref(),
                    &client.client_id,
                    &d.issuer,
                    now_secs(),
                    &jti,
                )?;
                req.form_pairs(&[
                    ("client_id", &client.client_id),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", &assertion),
                ])
            }
            _ => req.form_pairs(&[("client_id", &client.client_id)]),
        })
    }

    async fn token_request(
        &self,
        d: &Discovered,
        client: &StoredClient,
        pairs: &[(&str, &str)],
    ) -> Result<StoredTokens, String> {
        let endpoint = &d.meta.token_endpoint;
        let dpop = if self.uses_dpop(d) { Some(self.dpop_key()?) } else { None };
        let mut attempt = 0;
        let resp = loop {
            attempt += 1;
            let mut req = self.authenticate(d, client, HttpRequest::post_form(endpoint, pairs))?;
            if let Some(key) = &dpop {
                let nonce = locked(&self.as_nonce).clone();
                let proof =
                    key.proof("POST", &dpop::htu(endpoint), nonce.as_deref(), None, now_secs(), &random_token(16)?)?;
                req.headers.push(("DPoP".into(), proof));
            }
            let resp = self.fetch.fetch(req).await.map_err(|e| format!("the token request to {endpoint}: {e}"))?;
            let nonce = resp.header("dpop-nonce").map(str::to_string);
            if let (Some(n), Some(_)) = (&nonce, &dpop) {
                *locked(&self.as_nonce) = Some(n.clone());
            }
            // RFC 9449 §8: retry once with the nonce the authorization server asked for.
            if resp.status == 400
                && dpop.is_some()
                && nonce.is_some()
                && attempt == 1
                && resp.oauth_error().starts_with("use_dpop_nonce")
            {
                continue;
            }
            break resp;
        };
        let resp = refused(&format!("the token request to {endpoint}"), Ok(resp))?;
        let t: TokenAnswer = resp.json().map_err(|e| format!("token request to {endpoint}: {e}"))?;
        let token_type = t.token_type.unwrap_or_else(|| "Bearer".into());
        if !token_type.eq_ignore_ascii_case("bearer") && !token_type.eq_ignore_ascii_case("dpop") {
            return Err(format!("the token endpoint {endpoint} issued a token of the unsupported type {token_type:?}"));
        }
        let expires_in = match t.expires_in {
            Some(serde_json::Value::Number(n)) => n.as_u64(),
            Some(serde_json::Value::String(s)) => s.parse().ok(),
            _ => None,
        };
        let requested = pairs.iter().find(|(k, _)| *k == "scope").map(|(_, v)| challenge::split_scopes(v));
        Ok(StoredTokens {
            access_token: t.access_token,
            token_type,
            refresh_token: t.refresh_token,
            expires_at: expires_in.map(|s| now_secs() + s),
            scopes: t.scope.as_deref().map(challenge::split_scopes).or(requested).unwrap_or_default(),
        })
    }

    async fn refresh(&self, d: &Discovered, stored: &StoredTokens) -> Result<(), String> {
        let Some(rt) = &stored.refresh_token else { return Err("no refresh token".into()) };
        let client = self.client_for(d).await?;
        let mut tokens = self
            .token_request(
                d,
                &client,
                &[("grant_type", "refresh_token"), ("refresh_token", rt), ("resource", &d.resource)],
            )
            .await;
        if let Ok(t) = &mut tokens {
            if t.refresh_token.is_none() {
                t.refresh_token = Some(rt.clone());
            }
            if t.scopes.is_empty() {
                t.scopes = stored.scopes.clone();
            }
        }
        match tokens {
            Ok(t) => self.keep(d, t).await,
            Err(e) => {
                self.store.save_tokens(&d.issuer, &d.resource, None).await?;
                Err(e)
            }
        }
    }

    async fn client_credentials(
        &self,
        d: &Discovered,
        client: &StoredClient,
        scopes: &[String],
    ) -> Result<StoredTokens, String> {
        let scope = scopes.join(" ");
        let mut pairs = vec![("grant_type", "client_credentials"), ("resource", d.resource.as_str())];
        if !scope.is_empty() {
            pairs.push(("scope", &scope));
        }
        self.token_request(d, client, &pairs).await
    }

    /// The JWT-bearer grant (RFC 7523 §2.1) with `assertion`.
    async fn jwt_bearer(
        &self,
        d: &Discovered,
        client: &StoredClient,
        assertion: &str,
        scopes: &[String],
    ) -> Result<StoredTokens, String> {
        let scope = scopes.join(" ");
        let mut pairs = vec![("grant_type", JWT_BEARER), ("assertion", assertion), ("resource", d.resource.as_str())];
        if !scope.is_empty() {
            pairs.push(("scope", &scope));
        }
        self.token_request(d, client, &pairs).await
    }

    /// The workload's identity token: the option, or the file's current contents.
    async fn workload_assertion(&self) -> Result<String, String> {
        if let Some(path) = &self.opts.assertion_file {
            let text = tokio::fs::read_to_string(path)
                .await
                .map_err(|e| format!("cannot read the assertion file {}: {e}", path.display()))?;
            return Ok(text.trim().to_string());
        }
        self.opts.assertion.clone().ok_or_else(|| "the jwt_bearer grant needs an assertion".into())
    }

    /// Enterprise-managed authorization, step one: exchanges the user's ID token at the
    /// identity provider (RFC 8693) for an ID-JAG naming this authorization server and resource.
    async fn exchange_id_token(&self, d: &Discovered, scopes: &[String]) -> Result<String, String> {
        let (Some(endpoint), Some(id_token)) = (&self.opts.idp_token_endpoint, &self.opts.id_token) else {
            return Err("enterprise-managed authorization needs id_token and idp_token_endpoint".into());
        };
        let scope = scopes.join(" ");
        let mut pairs = vec![
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("requested_token_type", ID_JAG),
            ("audience", d.issuer.as_str()),
            ("resource", d.resource.as_str()),
            ("subject_token", id_token.as_str()),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ];
        if !scope.is_empty() {
            pairs.push(("scope", &scope));
        }
        let req = HttpRequest::post_form(endpoint, &pairs);
        let req = match (&self.opts.idp_client_id, &self.opts.idp_client_secret) {
            (Some(id), Some(secret)) => req.basic_auth(id, secret),
            (Some(id), None) => req.form_pairs(&[("client_id", id)]),
            _ => req,
        };
        let what = format!("the token exchange at the identity provider {endpoint}");
        let resp = refused(&what, self.fetch.fetch(req).await)?;
        #[derive(Deserialize)]
        struct Exchanged {
            access_token: String,
            #[serde(default)]
            issued_token_type: Option<String>,
        }
        let x: Exchanged = resp.json().map_err(|e| format!("{what}: {e}"))?;
        if x.issued_token_type.as_deref().is_some_and(|t| t != ID_JAG) {
            return Err(format!(
                "the identity provider issued a {:?}, not an ID-JAG ({ID_JAG})",
                x.issued_token_type.unwrap_or_default()
            ));
        }
        Ok(x.access_token)
    }

    async fn authorization_code(
        &self,
        d: &Discovered,
        client: &StoredClient,
        scopes: &[String],
    ) -> Result<StoredTokens, String> {
        let Some(endpoint) = &d.meta.authorization_endpoint else {
            return Err(format!("the authorization server {} has no authorization_endpoint", d.issuer));
        };
        if d.documented
            && !d.meta.code_challenge_methods_supported.as_deref().unwrap_or_default().iter().any(|m| m == "S256")
        {
            return Err(format!(
                "the authorization server {} does not advertise PKCE S256 (code_challenge_methods_supported): refusing to proceed, as the MCP spec requires",
                d.issuer
            ));
        }
        let verifier = random_token(32)?;
        let state = random_token(16)?;
        let challenge = pkce_challenge(&verifier);
        let scope = scopes.join(" ");
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", self.opts.redirect_uri.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", d.resource.as_str()),
        ];
        if !scope.is_empty() {
            pairs.push(("scope", &scope));
        }
        // OpenID Connect Core §11: `offline_access` is honoured only with the user's consent
        // asked (`prompt=consent`); an OpenID provider drops it otherwise, and no refresh token
        // comes.
        if scopes.iter().any(|s| s == "offline_access") {
            pairs.push(("prompt", "consent"));
        }
        let url = Url::parse(endpoint)?.with_query(&pairs);
        let redirected = self
            .handler
            .authorize(AuthorizationRequest { url, redirect_uri: self.opts.redirect_uri.clone() })
            .await
            .map_err(|e| format!("authorization at {} did not complete: {e}", d.issuer))?;
        let back = Url::parse(&redirected).map_err(|e| format!("the authorization redirect: {e}"))?;
        let q = back.query_pairs();
        let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        // RFC 9207 §2.4, before anything of the response is acted on.
        match (d.meta.authorization_response_iss_parameter_supported == Some(true), get("iss")) {
            (_, Some(iss)) if iss != d.issuer => {
                return Err(format!(
                    "the authorization response names the issuer {iss:?}, not {:?}: rejected (RFC 9207 mix-up protection)",
                    d.issuer
                ))
            }
            (true, None) => {
                return Err(format!(
                    "the authorization server {} advertises authorization_response_iss_parameter_supported but its response has no iss: rejected (RFC 9207)",
                    d.issuer
                ))
            }
            _ => {}
        }
        if get("state") != Some(state.as_str()) {
            return Err("the authorization response's state does not match the request: rejected".into());
        }
        if let Some(err) = get("error") {
            let desc = get("error_description").map(|d| format!(": {d}")).unwrap_or_default();
            return Err(format!("the authorization server {} refused: {err}{desc}", d.issuer));
        }
        let Some(code) = get("code") else {
            return Err("the authorization response has no code".into());
        };
        self.token_request(
            d,
            client,
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.opts.redirect_uri),
                ("code_verifier", &verifier),
                ("resource", &d.resource),
            ],
        )
        .await
        .map(|mut t| {
            if t.scopes.is_empty() {
                t.scopes = scopes.to_vec();
            }
            t
        })
    }
}

/// An [`AuthorizationHandler`] that follows the authorization server's redirects without a
/// browser until they reach the redirect URI: for authorization servers that approve without
/// user interaction (test servers, trusted machine-to-machine set-ups). A page that needs the
/// user (a login form) fails with an error saying so.
pub struct Headless {
    fetch: Arc<dyn Fetch>,
}

impl Headless {
    /// A headless handler doing its requests with `fetch`.
    pub fn new(fetch: Arc<dyn Fetch>) -> Headless {
        Headless { fetch }
    }
}

impl AuthorizationHandler for Headless {
    fn authorize(&self, request: AuthorizationRequest) -> futures_util::future::BoxFuture<'_, Result<String, String>> {
        Box::pin(async move {
            let redirect = Url::parse(&request.redirect_uri)?;
            let mut at = Url::parse(&request.url)?;
            for _ in 0..10 {
                let resp = self
                    .fetch
                    .fetch(HttpRequest { method: "GET", url: at.as_string(), headers: vec![], body: vec![] })
                    .await?;
                let Some(loc) = resp.header("location").filter(|_| (300..400).contains(&resp.status)) else {
                    return Err(format!(
                        "{} answered HTTP {} instead of redirecting: it needs a user (use a browser-based authorization handler)",
                        at.as_string(),
                        resp.status
                    ));
                };
                let next = at.join(loc)?;
                if next.origin() == redirect.origin() && next.path == redirect.path {
                    return Ok(next.as_string());
                }
                at = next;
            }
            Err("too many redirects during authorization".into())
        })
    }
}

#[cfg(test)]
mod tests;
