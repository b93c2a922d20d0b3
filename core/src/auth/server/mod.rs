//! The resource server side of the authorization spec: what an MCP server needs to require a
//! token. Its Protected Resource Metadata (RFC 9728) and where it lives, the
//! `WWW-Authenticate` challenges of a refusal (401, or 403 `insufficient_scope`), and the
//! verification of a token: as a JWT against the authorization server's JWKS ([`JwtVerifier`]:
//! cached keys, fetched again for an unknown `kid`; `iss`, `aud`, `exp`, `nbf` checked), by
//! RFC 7662 introspection ([`IntrospectionVerifier`]), or by the app's own [`TokenVerifier`].
//! The JWKS and introspection exchanges go through the same [`Fetch`] as the client flows.

pub mod dpop;

use super::challenge::quote;
use super::client::url::Url;
use super::client::{refused, Fetch, HttpRequest};
use futures_util::future::BoxFuture;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Who a verified token speaks for. The token itself is not kept.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AuthInfo {
    /// The subject (`sub`): the user, or the client acting on its own behalf.
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id`, else `azp`).
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, or a `scp` list).
    pub scopes: Vec<String>,
    /// When the token expires (seconds since the Unix epoch).
    pub expires_at: Option<u64>,
    /// Every claim of the token (or of the introspection answer).
    pub claims: Map<String, Value>,
}

impl AuthInfo {
    /// The information in a JWT's claims or an introspection answer.
    pub fn from_claims(claims: Map<String, Value>) -> AuthInfo {
        let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_string);
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(s)), _) => super::challenge::split_scopes(s),
            (_, Some(Value::Array(a))) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            (_, Some(Value::String(s))) => super::challenge::split_scopes(s),
            _ => Vec::new(),
        };
        AuthInfo {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// Whether every scope of `required` was granted.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        required.iter().all(|r| self.scopes.contains(r))
    }
}

/// Checks a bearer token; `Err` says why it is not accepted (it goes into the 401's
/// `error_description`, so it names no secret).
pub trait TokenVerifier: Send + Sync {
    /// Verifies `token`.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, String>>;

    /// A number that changes when tokens verified before may no longer verify (a key left the
    /// key set): the server then verifies again the tokens it remembered. Default: never.
    fn generation(&self) -> u64 {
        0
    }
}

/// The Protected Resource Metadata document of `resource`.
pub fn resource_metadata(
    resource: &str,
    authorization_servers: &[String],
    scopes_supported: Option<&[String]>,
) -> Value {
    let mut doc = serde_json::json!({
        "resource": resource,
        "authorization_servers": authorization_servers,
        "bearer_methods_supported": ["header"],
    });
    if let Some(s) = scopes_supported {
        doc["scopes_supported"] = s.into();
    }
    doc
}

/// Where the metadata of `resource` is served: the well-known path with the resource's path
/// appended (RFC 9728 §3.1), e.g. `https://h/.well-known/oauth-protected-resource/mcp`.
pub fn resource_metadata_url(resource: &str) -> Result<String, String> {
    let u = Url::parse(resource)?;
    Ok(format!("{}/.well-known/oauth-protected-resource{}", u.origin(), u.trimmed_path()))
}

/// The `WWW-Authenticate` value of a refusal: `Bearer resource_metadata="…"`, the scopes the
/// request needs, and the error (`invalid_token`, `insufficient_scope`) with its description.
pub fn www_authenticate(resource_metadata: &str, scopes: &[String], error: Option<(&str, &str)>) -> String {
    let mut parts = vec![format!("resource_metadata={}", quote(resource_metadata))];
    if !scopes.is_empty() {
        parts.push(format!("scope={}", quote(&scopes.join(" "))));
    }
    if let Some((code, description)) = error {
        parts.push(format!("error={}", quote(code)));
        if !description.is_empty() {
            parts.push(format!("error_description={}", quote(description)));
        }
    }
    format!("Bearer {}", parts.join(", "))
}

/// What an MCP server requires of its clients as an OAuth 2.1 resource server (the HTTP
/// server's `auth` option). Reads from an object of these fields (snake_case or camelCase).
#[derive(Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResourceServerOptions {
    /// This server's canonical URI (the `resource` clients ask tokens for, and the audience a
    /// token must name), e.g. `https://mcp.example.com/mcp`.
    pub resource: String,
    /// The authorization servers whose tokens it accepts (issuer URLs; at least one).
    #[serde(alias = "authorizationServers")]
    pub authorization_servers: Vec<String>,
    /// The scopes it publishes in its metadata.
    #[serde(alias = "scopesSupported")]
    pub scopes_supported: Option<Vec<String>>,
    /// Scopes every request needs (403 `insufficient_scope` without them).
    #[serde(alias = "requiredScopes")]
    pub required_scopes: Vec<String>,
    /// Verify tokens as JWTs signed by a key of this JWKS.
    #[serde(alias = "jwksUri")]
    pub jwks_uri: Option<String>,
    /// The `iss` a JWT must carry (default: the first authorization server).
    pub issuer: Option<String>,
    /// The `aud` a token must name (default: `resource`).
    pub audience: Option<String>,
    /// Verify tokens by RFC 7662 introspection at this endpoint instead.
    #[serde(alias = "introspectionEndpoint")]
    pub introspection_endpoint: Option<String>,
    /// This server's client id at the introspection endpoint.
    #[serde(alias = "introspectionClientId")]
    pub introspection_client_id: Option<String>,
    /// This server's secret at the introspection endpoint.
    #[serde(alias = "introspectionClientSecret")]
    pub introspection_client_secret: Option<String>,
    /// A PEM file of CA certificates trusted for the JWKS and introspection endpoints besides
    /// the system's store.
    #[serde(alias = "caFile")]
    pub ca_file: Option<std::path::PathBuf>,
    /// How often at most a token signed by an unknown key (`kid`) makes the JWKS be fetched
    /// again: how soon a key rotation is picked up (default 30 s; durations in the binding's
    /// unit).
    #[serde(alias = "jwksRefetchInterval", deserialize_with = "crate::util::units::optional_duration")]
    pub jwks_refetch_interval: Option<Duration>,
    /// How long a verified token is remembered (keyed by its SHA-256), so that a client's
    /// requests cost one verification (a JWT signature check, an introspection exchange, the
    /// app's verifier) per token, not one each: never past the token's `exp`. Default 5 minutes;
    /// zero turns the cache off (a revoked token is then refused at once by introspection).
    #[serde(alias = "tokenCacheTtl", deserialize_with = "some_duration")]
    pub token_cache_ttl: Option<Duration>,
    /// Hide from a caller the tools, resources and prompts whose required scopes its token
    /// lacks: they are left out of its lists and, called by name, are "not found". Default
    /// false: they are listed, and a call answers 403 `insufficient_scope` (clients step up).
    #[serde(alias = "hideUnauthorized")]
    pub hide_unauthorized: bool,
    /// The app's own verifier (overrides `jwks_uri` and introspection).
    #[serde(skip)]
    pub verifier: Option<Arc<dyn TokenVerifier>>,
}

fn some_duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    crate::util::units::duration(d).map(Some)
}

/// How long verified tokens are remembered by default.
pub const DEFAULT_TOKEN_CACHE_TTL: Duration = Duration::from_secs(300);

impl std::fmt::Debug for ResourceServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServerOptions")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("jwks_uri", &self.jwks_uri)
            .field("introspection_endpoint", &self.introspection_endpoint)
            .field("verifier", &self.verifier.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

impl ResourceServerOptions {
    /// Checks the options: a resource URI, an authorization server, and a way to verify.
    pub fn validate(&self) -> Result<(), String> {
        self.check(self.verifier.is_some())
    }

    /// [`ResourceServerOptions::validate`], `verifier_given` saying whether a verifier will
    /// be set in code (a host language's own function).
    pub(crate) fn check(&self, verifier_given: bool) -> Result<(), String> {
        Url::parse(&self.resource).map_err(|e| format!("auth.resource: {e}"))?;
        if self.authorization_servers.is_empty() {
            return Err("auth.authorization_servers: name at least one authorization server".into());
        }
        for a in &self.authorization_servers {
            Url::parse(a).map_err(|e| format!("auth.authorization_servers: {e}"))?;
        }
        let introspection = self.introspection_endpoint.is_some();
        if introspection && (self.introspection_client_id.is_none() || self.introspection_client_secret.is_none()) {
            return Err("auth: introspection needs introspection_client_id and introspection_client_secret".into());
        }
        if !verifier_given && self.jwks_uri.is_none() && !introspection {
            return Err(
                "auth: set jwks_uri (JWT access tokens) or introspection_endpoint, or a verifier in code".into()
            );
        }
        Ok(())
    }

    /// The verifier these options describe; `fetch` performs its HTTP exchanges.
    pub fn verifier(&self, fetch: Arc<dyn Fetch>) -> Result<Arc<dyn TokenVerifier>, String> {
        self.validate()?;
        if let Some(v) = &self.verifier {
            return Ok(v.clone());
        }
        let audience = self.audience.clone().unwrap_or_else(|| self.resource.clone());
        if let Some(endpoint) = &self.introspection_endpoint {
            return Ok(Arc::new(IntrospectionVerifier::new(
                endpoint,
                self.introspection_client_id.as_deref().unwrap_or_default(),
                self.introspection_client_secret.as_deref().unwrap_or_default(),
                &audience,
                fetch,
            )));
        }
        let issuer = self.issuer.clone().unwrap_or_else(|| self.authorization_servers[0].clone());
        let v = JwtVerifier::new(self.jwks_uri.as_deref().unwrap_or_default(), &issuer, &audience, fetch);
        Ok(Arc::new(match self.jwks_refetch_interval {
            Some(every) => v.refetch_interval(every),
            None => v,
        }))
    }
}

/// The JWS algorithms accepted by default: asymmetric ones only (a shared secret would let any
/// holder of it mint tokens).
pub const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The JWKS is fetched again for an unknown `kid` at most this often.
const REFETCH_INTERVAL: Duration = Duration::from_secs(30);
/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 30;

struct KeyCache {
    set: Option<JwkSet>,
    fetched: Option<Instant>,
}

/// Verifies JWT access tokens against the authorization server's JWKS: the signature (with a
/// key found by `kid`; the set is fetched again, at most every 30 s, when a token names an
/// unknown one, so a key rotation is picked up), `iss`, `aud` (the server's canonical URI),
/// `exp` and `nbf` (30 s of leeway), and the algorithm (asymmetric ones only).
pub struct JwtVerifier {
    jwks_uri: String,
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    refetch_interval: Duration,
    fetch: Arc<dyn Fetch>,
    cache: tokio::sync::Mutex<KeyCache>,
    /// Bumped when a fetched key set lacks a key the previous one had.
    generation: std::sync::atomic::AtomicU64,
}

impl JwtVerifier {
    /// A verifier of tokens `issuer` issues for `audience`, with keys from `jwks_uri`.
    pub fn new(jwks_uri: &str, issuer: &str, audience: &str, fetch: Arc<dyn Fetch>) -> JwtVerifier {
        JwtVerifier {
            jwks_uri: jwks_uri.to_string(),
            issuer: issuer.to_string(),
            audience: audience.to_string(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            refetch_interval: REFETCH_INTERVAL,
            fetch,
            cache: tokio::sync::Mutex::new(KeyCache { set: None, fetched: None }),
            generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// How often (at most) an unknown `kid` makes the key set be fetched again (default 30 s).
    pub fn refetch_interval(mut self, every: Duration) -> JwtVerifier {
        self.refetch_interval = every;
        self
    }

    /// Accepts only these algorithms.
    pub fn algorithms(mut self, algorithms: Vec<Algorithm>) -> JwtVerifier {
        self.algorithms = algorithms;
        self
    }

    async fn fetch_keys(&self) -> Result<JwkSet, String> {
        let what = format!("the JWKS at {}", self.jwks_uri);
        let resp = refused(&what, self.fetch.fetch(HttpRequest::get_json(&self.jwks_uri)).await)?;
        resp.json().map_err(|e| format!("{what}: {e}"))
    }

    /// The key for `kid` (or the only key, when the token names none).
    async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, String> {
        let mut cache = self.cache.lock().await;
        for attempt in 0..2 {
            if let Some(set) = &cache.set {
                let found = match kid {
                    Some(k) => set.find(k),
                    None if set.keys.len() == 1 => set.keys.first(),
                    None => None,
                };
                if let Some(jwk) = found {
                    return DecodingKey::from_jwk(jwk).map_err(|e| format!("the signing key is unusable: {e}"));
                }
            }
            let recently = cache.fetched.is_some_and(|t| t.elapsed() < self.refetch_interval);
            if attempt == 1 || (cache.set.is_some() && recently) {
                break;
            }
            let fresh = self.fetch_keys().await?;
            if let Some(old) = &cache.set {
                let gone =
                    old.keys.iter().any(|k| k.common.key_id.as_deref().is_none_or(|kid| fresh.find(kid).is_none()));
                if gone {
                    self.generation.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
                }
            }
            cache.set = Some(fresh);
            cache.fetched = Some(Instant::now());
        }
        Err(match kid {
            Some(k) => format!("the token is signed with an unknown key ({k:?})"),
            None => "the token names no key (kid) and the key set has several".into(),
        })
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, String> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| "the token is not a JWT".to_string())?;
        if !self.algorithms.contains(&header.alg) {
            return Err(format!("the token's algorithm {:?} is not accepted", header.alg));
        }
        let key = self.key(header.kid.as_deref()).await?;
        let mut v = Validation::new(header.alg);
        v.algorithms = vec![header.alg];
        v.leeway = LEEWAY_SECS;
        v.validate_nbf = true;
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&[&self.audience]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &v).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            match e.kind() {
                K::ExpiredSignature => "the token has expired".to_string(),
                K::ImmatureSignature => "the token is not valid yet (nbf)".to_string(),
                K::InvalidAudience => format!("the token is not for this server (aud is not {:?})", self.audience),
                K::InvalidIssuer => format!("the token was not issued by {:?}", self.issuer),
                K::InvalidSignature => "the token's signature does not verify".to_string(),
                K::MissingRequiredClaim(c) => format!("the token has no {c} claim"),
                other => format!("the token is invalid: {other:?}"),
            }
        })?;
        Ok(AuthInfo::from_claims(data.claims))
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, String>> {
        Box::pin(self.check(token))
    }

    fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// Verifies tokens by asking the authorization server (RFC 7662 token introspection), as a
/// client of it (`client_secret_basic`). An inactive token, one for another audience (when
/// the answer names one) or an expired one is refused.
pub struct IntrospectionVerifier {
    endpoint: String,
    client_id: String,
    client_secret: String,
    audience: String,
    fetch: Arc<dyn Fetch>,
}

impl IntrospectionVerifier {
    /// A verifier asking `endpoint`, authenticating as `client_id` / `client_secret`.
    pub fn new(
        endpoint: &str,
        client_id: &str,
        client_secret: &str,
        audience: &str,
        fetch: Arc<dyn Fetch>,
    ) -> IntrospectionVerifier {
        IntrospectionVerifier {
            endpoint: endpoint.to_string(),
            client_id: client_id.to_string(),
            client_secret: client_secret.to_string(),
            audience: audience.to_string(),
            fetch,
        }
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, String> {
        let req = HttpRequest::post_form(&self.endpoint, &[("token", token), ("token_type_hint", "access_token")])
            .basic_auth(&self.client_id, &self.client_secret);
        let what = format!("token introspection at {}", self.endpoint);
        let resp = refused(&what, self.fetch.fetch(req).await)?;
        let answer: Map<String, Value> = resp.json().map_err(|e| format!("{what}: {e}"))?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err("the token is not active".into());
        }
        let aud_ok = match answer.get("aud") {
            None => true,
            Some(Value::String(a)) => *a == self.audience,
            Some(Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(&self.audience)),
            Some(_) => false,
        };
        if !aud_ok {
            return Err(format!("the token is not for this server (aud is not {:?})", self.audience));
        }
        let info = AuthInfo::from_claims(answer);
        if info.expires_at.is_some_and(|e| e + LEEWAY_SECS < super::now_secs()) {
            return Err("the token has expired".into());
        }
        Ok(info)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, String>> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests;
