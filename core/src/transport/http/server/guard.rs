//! The OAuth 2.1 resource server in front of the MCP endpoints (the `auth` option): the
//! Protected Resource Metadata at its well-known URLs, and the token every request to the
//! MCP endpoints must carry (`Authorization: Bearer …`), verified before anything else
//! happens. A request without one, or with one that does not verify, gets 401 with
//! `WWW-Authenticate: Bearer resource_metadata=…`; one without the required scopes gets 403
//! `insufficient_scope`.

use super::reply::{plain, Reply};
use super::stream::HttpBody;
use crate::auth::client::url::Url;
use crate::auth::server::{
    dpop, resource_metadata, resource_metadata_url, www_authenticate, AuthInfo, ResourceServerOptions, TokenVerifier,
};
use crate::transport::http::client::HttpFetch;
use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, Response, StatusCode, Uri};
use std::sync::Arc;
use std::time::Duration;

/// What the guard reads of a request (borrowed apart, so a request body that is not `Sync`
/// does not keep the future from being `Send`).
#[derive(Clone, Copy)]
pub(crate) struct Head<'a> {
    pub headers: &'a HeaderMap,
    pub method: &'a Method,
    pub uri: &'a Uri,
}

pub(crate) struct Guard {
    /// Entries whose scopes a token lacks are hidden from it, not answered 403.
    pub(crate) hide_unauthorized: bool,
    verifier: Result<Arc<dyn TokenVerifier>, String>,
    required: Vec<String>,
    metadata: Bytes,
    metadata_url: String,
    /// The paths the metadata is served at: the path-inserted one, and the root one.
    metadata_paths: Vec<String>,
    /// The DPoP proofs seen lately (a proof is good once).
    replays: dpop::ReplayCache,
    /// Tokens verified lately.
    cache: TokenCache,
}

/// Most verified tokens remembered at once.
const TOKEN_CACHE_CAPACITY: usize = 10_000;

/// Verified tokens by their SHA-256 (the tokens themselves are not kept), each until the
/// earlier of the cache's time to live and its own expiry. Bounded: the oldest go first.
struct TokenCache {
    ttl: Duration,
    inner: std::sync::Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    /// Each token's identity, until when it is good, and the verifier's generation then.
    map: std::collections::HashMap<[u8; 32], (Arc<AuthInfo>, std::time::Instant, u64)>,
    order: std::collections::VecDeque<[u8; 32]>,
}

impl TokenCache {
    fn key(token: &str) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(token.as_bytes()).into()
    }

    fn get(&self, key: &[u8; 32], generation: u64) -> Option<Arc<AuthInfo>> {
        if self.ttl.is_zero() {
            return None;
        }
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        match c.map.get(key) {
            Some((info, until, g)) if *until > std::time::Instant::now() && *g == generation => Some(info.clone()),
            Some(_) => {
                c.map.remove(key);
                None
            }
            None => None,
        }
    }

    fn put(&self, key: [u8; 32], info: &Arc<AuthInfo>, generation: u64) {
        if self.ttl.is_zero() {
            return;
        }
        let mut ttl = self.ttl;
        if let Some(exp) = info.expires_at {
            ttl = ttl.min(Duration::from_secs(exp.saturating_sub(crate::auth::now_secs())));
        }
        if ttl.is_zero() {
            return;
        }
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        while c.map.len() >= TOKEN_CACHE_CAPACITY {
            match c.order.pop_front() {
                Some(old) => {
                    c.map.remove(&old);
                }
                None => break,
            }
        }
        if c.map.insert(key, (info.clone(), std::time::Instant::now() + ttl, generation)).is_none() {
            c.order.push_back(key);
        }
        // The queue may name entries that expired and were dropped: keep it bounded too.
        if c.order.len() > 2 * TOKEN_CACHE_CAPACITY {
            let CacheInner { map, order } = &mut *c;
            order.retain(|k| map.contains_key(k));
        }
    }
}

impl Guard {
    pub(crate) fn new(o: &ResourceServerOptions) -> Guard {
        let fetch = Arc::new(HttpFetch::new(o.ca_file.clone(), Duration::from_secs(10)));
        let verifier = o.verifier(fetch);
        let metadata_url = resource_metadata_url(&o.resource).unwrap_or_default();
        let mut metadata_paths = Vec::new();
        if let Ok(u) = Url::parse(&metadata_url) {
            metadata_paths.push(u.path.clone());
            metadata_paths.push("/.well-known/oauth-protected-resource".to_string());
        }
        let doc = resource_metadata(&o.resource, &o.authorization_servers, o.scopes_supported.as_deref());
        Guard {
            hide_unauthorized: o.hide_unauthorized,
            verifier,
            required: o.required_scopes.clone(),
            metadata: Bytes::from(doc.to_string()),
            metadata_url,
            metadata_paths,
            replays: dpop::ReplayCache::default(),
            cache: TokenCache {
                ttl: o.token_cache_ttl.unwrap_or(crate::auth::server::DEFAULT_TOKEN_CACHE_TTL),
                inner: Default::default(),
            },
        }
    }

    /// Whether `path` is where the metadata is served.
    pub(crate) fn serves_metadata(&self, path: &str) -> bool {
        self.metadata_paths.iter().any(|p| p == path)
    }

    /// The Protected Resource Metadata document.
    pub(crate) fn metadata_reply(&self) -> Reply {
        let mut r = Response::new(HttpBody::Full(Some(self.metadata.clone())));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
        r
    }

    fn refusal(&self, status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]) -> Reply {
        let mut r = plain(status, if status == StatusCode::FORBIDDEN { "Forbidden" } else { "Unauthorized" });
        if let Ok(v) = HeaderValue::from_str(&www_authenticate(&self.metadata_url, scopes, error)) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    }

    /// The identity of the token a request carries (`Authorization: Bearer …`, or `DPoP …`
    /// with its proof), or the refusal to answer with.
    pub(crate) async fn admit(&self, req: Head<'_>) -> Result<Arc<AuthInfo>, Reply> {
        let verifier = match &self.verifier {
            Ok(v) => v,
            Err(e) => {
                eprintln!("hypermcp: the auth option cannot verify tokens: {e}");
                return Err(plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the server's token verification is misconfigured",
                ));
            }
        };
        let authorization = req.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let credentials = authorization.and_then(|v| v.split_once(' ')).map(|(scheme, t)| (scheme, t.trim())).filter(
            |(scheme, t)| {
                (scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop")) && !t.is_empty()
            },
        );
        let Some((scheme, token)) = credentials else {
            return Err(self.refusal(StatusCode::UNAUTHORIZED, None, &self.required));
        };
        // A token remembered is good while the verifier's keys have not changed under it.
        let key = TokenCache::key(token);
        let generation = verifier.generation();
        let info = match self.cache.get(&key, generation) {
            Some(info) => info,
            None => match verifier.verify(token).await {
                Ok(i) => {
                    let info = Arc::new(i);
                    self.cache.put(key, &info, generation);
                    info
                }
                Err(why) => {
                    return Err(self.refusal(StatusCode::UNAUTHORIZED, Some(("invalid_token", &why)), &self.required))
                }
            },
        };
        // A token bound to a DPoP key (`cnf.jkt`) is only good with a proof of that key, sent
        // as `Authorization: DPoP` (RFC 9449 §7); a DPoP proof is checked whatever the token.
        let bound = info.claims.get("cnf").and_then(|c| c.get("jkt")).and_then(|j| j.as_str());
        if scheme.eq_ignore_ascii_case("dpop") || bound.is_some() {
            if let Err(why) = self.check_dpop(req, scheme, token, bound) {
                let mut r = self.refusal(StatusCode::UNAUTHORIZED, Some(("invalid_token", &why)), &self.required);
                let dpop = format!(
                    "DPoP algs=\"{}\", error=\"invalid_dpop_proof\", error_description={}",
                    dpop::ALGORITHMS,
                    crate::auth::challenge::quote(&why)
                );
                if let Ok(v) = HeaderValue::from_str(&dpop) {
                    r.headers_mut().append(header::WWW_AUTHENTICATE, v);
                }
                return Err(r);
            }
        }
        self.check_scopes(&info, &[]).map_err(|r| *r)?;
        Ok(info)
    }

    /// Checks the DPoP proof of a request whose token is `token` (bound to the key `bound`).
    fn check_dpop(&self, req: Head<'_>, scheme: &str, token: &str, bound: Option<&str>) -> Result<(), String> {
        if !scheme.eq_ignore_ascii_case("dpop") {
            return Err("the token is bound to a DPoP key: send it as `Authorization: DPoP` with a proof".into());
        }
        let mut proofs = req.headers.get_all("dpop").iter();
        let (Some(proof), None) = (proofs.next(), proofs.next()) else {
            return Err("a DPoP token needs exactly one DPoP proof header".into());
        };
        let proof = proof.to_str().map_err(|_| "the DPoP proof is not text".to_string())?;
        let host = req.headers.get(header::HOST).and_then(|v| v.to_str().ok()).or_else(|| req.uri.host());
        let target = dpop::Target { method: req.method.as_str(), host, path: req.uri.path() };
        let checked = dpop::verify_proof(proof, &target, token, crate::auth::now_secs())?;
        match bound {
            Some(jkt) if jkt != checked.jkt => {
                return Err("the DPoP proof is signed by another key than the token is bound to".into())
            }
            None => return Err("the token is not bound to a DPoP key (no cnf.jkt)".into()),
            _ => {}
        }
        self.replays.check(&checked.jti, checked.iat)
    }

    /// 403 `insufficient_scope` unless the token has the server's required scopes and
    /// `more` (an entry's).
    pub(crate) fn check_scopes(&self, info: &AuthInfo, more: &[String]) -> Result<(), Box<Reply>> {
        if info.has_scopes(&self.required) && info.has_scopes(more) {
            return Ok(());
        }
        let mut needed = self.required.clone();
        needed.extend(more.iter().filter(|s| !self.required.contains(s)).cloned());
        let why = format!("this request needs the scopes {}", needed.join(" "));
        Err(Box::new(self.refusal(StatusCode::FORBIDDEN, Some(("insufficient_scope", &why)), &needed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(expires_at: Option<u64>) -> Arc<AuthInfo> {
        Arc::new(AuthInfo { subject: Some("alice".into()), expires_at, ..Default::default() })
    }

    #[test]
    fn verified_tokens_are_remembered_until_the_ttl_or_their_expiry() {
        let cache = TokenCache { ttl: Duration::from_secs(300), inner: Default::default() };
        let (a, b, c) = (TokenCache::key("a"), TokenCache::key("b"), TokenCache::key("c"));
        cache.put(a, &info(Some(crate::auth::now_secs() + 600)), 0);
        assert_eq!(cache.get(&a, 0).unwrap().subject.as_deref(), Some("alice"));
        // The verifier's keys changed: verified again.
        assert!(cache.get(&a, 1).is_none());
        // Expired (or expiring now): not kept.
        cache.put(b, &info(Some(crate::auth::now_secs().saturating_sub(1))), 0);
        assert!(cache.get(&b, 0).is_none());
        assert!(cache.get(&c, 0).is_none());
        // Off: nothing kept.
        let off = TokenCache { ttl: Duration::ZERO, inner: Default::default() };
        off.put(a, &info(None), 0);
        assert!(off.get(&a, 0).is_none());
        // Bounded: the oldest go first.
        for n in 0..TOKEN_CACHE_CAPACITY + 10 {
            cache.put(TokenCache::key(&n.to_string()), &info(None), 0);
        }
        let inner = cache.inner.lock().unwrap();
        assert!(inner.map.len() <= TOKEN_CACHE_CAPACITY);
        assert!(!inner.map.contains_key(&a));
    }
}
