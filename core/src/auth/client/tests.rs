//! The flows against a scripted resource and authorization server (no sockets).

use super::*;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use std::sync::Mutex;

type Route = Box<dyn Fn(&HttpRequest) -> Option<HttpResponse> + Send + Sync>;

/// A scripted peer: each route answers the requests it recognises; every request is logged.
struct Sim {
    /// The PKCE challenge of the last authorization request (the token endpoint checks it).
    challenge: Arc<Mutex<String>>,
    routes: Vec<Route>,
    log: Mutex<Vec<HttpRequest>>,
}

/// `base` with the fields of `patch` set (a `null` removes one).
fn patched(mut base: Value, patch: Value) -> Value {
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            base.as_object_mut().unwrap().remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base
}

/// The resource's metadata at its path-inserted location and the AS metadata at its root one.
fn discovery_routes(prm: Value, meta: Value) -> Vec<Route> {
    vec![
        Box::new(move |r| {
            (r.url == "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp")
                .then(|| json_resp(200, prm.clone()))
        }),
        Box::new(move |r| {
            (r.url == format!("{AS}/.well-known/oauth-authorization-server")).then(|| json_resp(200, meta.clone()))
        }),
    ]
}

fn json_resp(status: u16, v: Value) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: v.to_string().into_bytes(),
    }
}

fn form(req: &HttpRequest) -> Vec<(String, String)> {
    form_urlencoded::parse(&req.body).into_owned().collect()
}

fn field(pairs: &[(String, String)], k: &str) -> Option<String> {
    pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

impl Sim {
    fn requests(&self, needle: &str) -> Vec<HttpRequest> {
        self.log.lock().unwrap().iter().filter(|r| r.url.contains(needle)).cloned().collect()
    }
}

impl Fetch for Sim {
    fn fetch(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, String>> {
        self.log.lock().unwrap().push(req.clone());
        let resp =
            self.routes.iter().find_map(|r| r(&req)).unwrap_or(HttpResponse { status: 404, ..Default::default() });
        Box::pin(async move { Ok(resp) })
    }
}

const RS: &str = "http://127.0.0.1:9/mcp";
const AS: &str = "http://127.0.0.1:7";

/// The server side of a flow: PRM at the path-inserted location, AS metadata (with these
/// changes), DCR and a token endpoint checking PKCE and the resource.
fn sim(meta_patch: Value, prm_patch: Value) -> Arc<Sim> {
    let challenge = Arc::new(Mutex::new(String::new()));
    let c2 = challenge.clone();
    let meta = patched(
        json!({
            "issuer": AS,
            "authorization_endpoint": format!("{AS}/authorize"),
            "token_endpoint": format!("{AS}/token"),
            "registration_endpoint": format!("{AS}/register"),
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["none"],
        }),
        meta_patch,
    );
    let prm = patched(json!({"resource": RS, "authorization_servers": [AS]}), prm_patch);
    let mut routes = discovery_routes(prm, meta);
    routes.extend::<Vec<Route>>(vec![
        Box::new(|r| {
            (r.url.ends_with("/register")).then(|| {
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                assert_eq!(body["application_type"], "native");
                assert_eq!(body["grant_types"], json!(["authorization_code", "refresh_token"]));
                json_resp(201, json!({"client_id": "dyn-client", "token_endpoint_auth_method": "none"}))
            })
        }),
        Box::new(move |r| {
            (r.url.ends_with("/token")).then(|| {
                let f = form(r);
                match field(&f, "grant_type").as_deref() {
                    Some("authorization_code") => {
                        let v = field(&f, "code_verifier").unwrap();
                        assert_eq!(pkce_challenge(&v), *c2.lock().unwrap(), "PKCE verifier matches");
                        assert_eq!(field(&f, "resource").as_deref(), Some(RS));
                        if !r.headers.iter().any(|(n, _)| n == "Authorization") {
                            assert_eq!(field(&f, "client_id").as_deref(), Some("dyn-client"));
                        }
                        json_resp(200, json!({"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"}))
                    }
                    Some("refresh_token") => {
                        assert_eq!(field(&f, "refresh_token").as_deref(), Some("rt-1"));
                        json_resp(200, json!({"access_token": "tok-2", "token_type": "Bearer", "expires_in": 3600}))
                    }
                    _ => json_resp(400, json!({"error": "unsupported_grant_type"})),
                }
            })
        }),
    ]);
    Arc::new(Sim { challenge, routes, log: Mutex::new(Vec::new()) })
}

/// Approves at once: records the request's query and redirects with a code (and `iss`).
struct Approve {
    iss: Option<String>,
    challenge: Arc<Mutex<String>>,
    seen: Mutex<Vec<Vec<(String, String)>>>,
}

impl AuthorizationHandler for Approve {
    fn authorize(&self, request: AuthorizationRequest) -> BoxFuture<'_, Result<String, String>> {
        let u = Url::parse(&request.url).unwrap();
        let q = u.query_pairs();
        *self.challenge.lock().unwrap() = field(&q, "code_challenge").unwrap_or_default();
        let state = field(&q, "state").unwrap();
        self.seen.lock().unwrap().push(q);
        let mut pairs = vec![("code", "c0de".to_string()), ("state", state)];
        if let Some(i) = &self.iss {
            pairs.push(("iss", i.clone()));
        }
        let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let out = Url::parse(&request.redirect_uri).unwrap().with_query(&refs);
        Box::pin(async move { Ok(out) })
    }
}

fn authorizer(s: &Arc<Sim>, iss: Option<&str>, opts: OAuthOptions) -> (Authorizer, Arc<Approve>) {
    let challenge = s.challenge.clone();
    let h = Arc::new(Approve { iss: iss.map(str::to_string), challenge, seen: Mutex::new(vec![]) });
    (Authorizer::new(RS, opts, s.clone(), h.clone()).unwrap(), h)
}

const WWW: &str =
    r#"Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp", scope="mcp:basic""#;

#[tokio::test]
async fn authorization_code_flow_end_to_end() {
    let s = sim(json!({}), json!({}));
    let (a, h) = authorizer(&s, Some(AS), OAuthOptions::default());
    assert_eq!(a.authorization(), None);
    a.challenge(401, &[WWW], None).await.unwrap();
    assert_eq!(a.authorization().as_deref(), Some("Bearer tok-1"));
    let q = h.seen.lock().unwrap()[0].clone();
    assert_eq!(field(&q, "scope").as_deref(), Some("mcp:basic"));
    assert_eq!(field(&q, "resource").as_deref(), Some(RS));
    assert_eq!(field(&q, "code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(field(&q, "client_id").as_deref(), Some("dyn-client"));
    assert_eq!(field(&q, "prompt"), None, "no consent forced without offline_access");
    // The token held failed: the refresh token answers without the user.
    a.challenge(401, &[WWW], Some("Bearer tok-1")).await.unwrap();
    assert_eq!(a.authorization().as_deref(), Some("Bearer tok-2"));
    assert_eq!(h.seen.lock().unwrap().len(), 1);
    // A request that still carried the old token just retries with the new one.
    a.challenge(401, &[WWW], Some("Bearer tok-1")).await.unwrap();
    assert_eq!(s.requests("/token").len(), 2);
}

#[tokio::test]
async fn step_up_asks_for_the_union_of_scopes() {
    let s = sim(json!({}), json!({}));
    let (a, h) = authorizer(&s, Some(AS), OAuthOptions::default());
    a.challenge(401, &[WWW], None).await.unwrap();
    let up = r#"Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp""#;
    a.challenge(403, &[up], Some("Bearer tok-1")).await.unwrap();
    assert_eq!(field(&h.seen.lock().unwrap()[1], "scope").as_deref(), Some("mcp:basic mcp:write"));
    let held = a.authorization();
    let err = a.challenge(403, &["Bearer error=\"invalid_token\""], held.as_deref()).await;
    assert!(err.unwrap_err().contains("403"));
}

#[tokio::test]
async fn iss_is_checked_by_simple_comparison() {
    for (iss, advertised, ok) in [
        (Some(AS.to_string()), true, true),
        (None, true, false),
        (Some("https://evil.example.com".into()), true, false),
        (Some(format!("{AS}/")), true, false),
        (Some("https://evil.example.com".into()), false, false),
        (None, false, true),
    ] {
        let patch =
            if advertised { json!({}) } else { json!({"authorization_response_iss_parameter_supported": null}) };
        let s = sim(patch, json!({}));
        let (a, _) = authorizer(&s, iss.as_deref(), OAuthOptions::default());
        let r = a.challenge(401, &[WWW], None).await;
        assert_eq!(r.is_ok(), ok, "iss {iss:?} advertised {advertised}: {r:?}");
        assert_eq!(s.requests("/token").len(), usize::from(ok), "no code is sent after a rejected response");
    }
}

#[tokio::test]
async fn metadata_and_resource_are_validated() {
    let s = sim(json!({"issuer": "https://attacker.example.com"}), json!({}));
    let (a, _) = authorizer(&s, Some(AS), OAuthOptions::default());
    let e = a.challenge(401, &[WWW], None).await.unwrap_err();
    assert!(e.contains("refusing to use it"), "{e}");
    assert!(s.requests("/register").is_empty() && s.requests("/authorize").is_empty());

    let s = sim(json!({}), json!({"resource": "https://evil.example.com/mcp"}));
    let (a, h) = authorizer(&s, Some(AS), OAuthOptions::default());
    let e = a.challenge(401, &[WWW], None).await.unwrap_err();
    assert!(e.contains("not for"), "{e}");
    assert!(h.seen.lock().unwrap().is_empty());

    let s = sim(json!({"code_challenge_methods_supported": null}), json!({}));
    let (a, _) = authorizer(&s, Some(AS), OAuthOptions::default());
    assert!(a.challenge(401, &[WWW], None).await.unwrap_err().contains("PKCE"));
}

#[tokio::test]
async fn offline_access_and_scopes_supported() {
    let s = sim(
        json!({"scopes_supported": ["mcp:basic", "offline_access"]}),
        json!({"scopes_supported": ["mcp:basic", "mcp:read"]}),
    );
    let (a, h) = authorizer(&s, Some(AS), OAuthOptions::default());
    a.challenge(401, &["Bearer"], None).await.unwrap();
    let seen = h.seen.lock().unwrap();
    assert_eq!(field(&seen[0], "scope").as_deref(), Some("mcp:basic mcp:read offline_access"));
    // OpenID providers honour offline_access only with consent asked (OIDC Core §11).
    assert_eq!(field(&seen[0], "prompt").as_deref(), Some("consent"));
}

#[tokio::test]
async fn pre_registered_clients_authenticate_as_configured() {
    let s = sim(json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}), json!({}));
    let opts = OAuthOptions::default().client("dyn-client", Some("s3cret:x".into()));
    let (a, _) = authorizer(&s, Some(AS), opts);
    a.challenge(401, &[WWW], None).await.unwrap();
    let t = &s.requests("/token")[0];
    let auth = t.headers.iter().find(|(n, _)| n == "Authorization").map(|(_, v)| v.clone()).unwrap();
    let raw = crate::util::base64_decode(auth.strip_prefix("Basic ").unwrap()).unwrap();
    assert_eq!(String::from_utf8(raw).unwrap(), "dyn-client:s3cret%3Ax");
    assert!(s.requests("/register").is_empty());
    assert!(field(&form(t), "client_secret").is_none());
}

#[test]
fn options_are_checked() {
    assert!(OAuthOptions::new("http://example.com/cb").validate().unwrap_err().contains("loopback"));
    assert!(OAuthOptions::new("https://app.example/cb").validate().is_ok());
    let o = OAuthOptions::default().client_metadata_url("http://x.example/m.json");
    assert!(o.validate().unwrap_err().contains("https"));
    let o: OAuthOptions = serde_json::from_value(
        json!({"clientId": "a", "scopes": "x y", "grant": "client_credentials", "clientSecret": "s"}),
    )
    .unwrap();
    assert_eq!(o.scopes, Some(vec!["x".into(), "y".into()]));
    assert!(o.validate().is_ok());
    assert!(serde_json::from_value::<OAuthOptions>(json!({"nope": 1})).is_err());
    assert_eq!(
        pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
}

/// An AS for the non-interactive grants: metadata with DPoP (ES256), and a token endpoint
/// that records the form and answers with `answer`.
fn grant_sim(answer: HttpResponse, extra_meta: Value) -> Arc<Sim> {
    let meta = patched(
        json!({
            "issuer": AS,
            "token_endpoint": format!("{AS}/token"),
            "code_challenge_methods_supported": ["S256"],
        }),
        extra_meta,
    );
    let mut routes = discovery_routes(json!({"resource": RS, "authorization_servers": [AS]}), meta);
    routes.push(Box::new(move |r| r.url.ends_with("/token").then(|| answer.clone())));
    Arc::new(Sim { challenge: Arc::default(), routes, log: Mutex::new(Vec::new()) })
}

fn no_user() -> Arc<Approve> {
    Arc::new(Approve { iss: None, challenge: Arc::new(Mutex::new(String::new())), seen: Mutex::new(vec![]) })
}

#[tokio::test]
async fn client_credentials_with_private_key_jwt() {
    use p256::pkcs8::{EncodePrivateKey, LineEnding};
    let key = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
    let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap().to_string();
    let s = grant_sim(json_resp(200, json!({"access_token": "cc", "token_type": "Bearer"})), json!({}));
    let mut o = OAuthOptions::default().client("svc", None).grant(Grant::ClientCredentials);
    o.private_key_pem = Some(pem);
    let a = Authorizer::new(RS, o, s.clone(), no_user()).unwrap();
    a.challenge(401, &[WWW], None).await.unwrap();
    assert_eq!(a.authorization().as_deref(), Some("Bearer cc"));
    let f = form(&s.requests("/token")[0]);
    assert_eq!(field(&f, "grant_type").as_deref(), Some("client_credentials"));
    assert_eq!(
        field(&f, "client_assertion_type").as_deref(),
        Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    );
    let jwt = field(&f, "client_assertion").unwrap();
    let public = jsonwebtoken::DecodingKey::from_ec_der(key.verifying_key().to_encoded_point(false).as_bytes());
    let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    v.set_audience(&[AS]);
    let claims = jsonwebtoken::decode::<Value>(&jwt, &public, &v).unwrap().claims;
    assert_eq!((claims["iss"].as_str(), claims["sub"].as_str()), (Some("svc"), Some("svc")));
}

#[tokio::test]
async fn jwt_bearer_reports_a_refusal_without_retrying() {
    let s = grant_sim(json_resp(400, json!({"error": "invalid_grant", "error_description": "expired"})), json!({}));
    let mut o = OAuthOptions::default().client("wl", None).grant(Grant::JwtBearer);
    o.assertion = Some("workload.jwt.token".into());
    let a = Authorizer::new(RS, o, s.clone(), no_user()).unwrap();
    let e = a.challenge(401, &[WWW], None).await.unwrap_err();
    assert!(e.contains("invalid_grant: expired"), "{e}");
    let reqs = s.requests("/token");
    assert_eq!(reqs.len(), 1, "no retry, no other grant");
    let f = form(&reqs[0]);
    assert_eq!(field(&f, "grant_type").as_deref(), Some("urn:ietf:params:oauth:grant-type:jwt-bearer"));
    assert_eq!(field(&f, "assertion").as_deref(), Some("workload.jwt.token"));
    assert_eq!(field(&f, "client_id").as_deref(), Some("wl"));
}

#[tokio::test]
async fn dpop_binds_the_token_and_proves_each_request() {
    let s = grant_sim(
        json_resp(200, json!({"access_token": "bound", "token_type": "DPoP"})),
        json!({"dpop_signing_alg_values_supported": ["ES256"]}),
    );
    let o = OAuthOptions::default().client("svc", Some("sec".into())).grant(Grant::ClientCredentials);
    let a = Authorizer::new(RS, o, s.clone(), no_user()).unwrap();
    a.challenge(401, &[WWW], None).await.unwrap();
    assert_eq!(a.authorization().as_deref(), Some("DPoP bound"));
    let t = &s.requests("/token")[0];
    let proof =
        t.headers.iter().find(|(n, _)| n == "DPoP").map(|(_, v)| v.clone()).expect("a proof at the token endpoint");
    assert_eq!(jsonwebtoken::decode_header(&proof).unwrap().typ.as_deref(), Some("dpop+jwt"));
    // Each request to the server gets its own proof; the server's nonce goes in after a challenge.
    let p1 = a.proof("POST", RS).unwrap();
    let p2 = a.proof("POST", RS).unwrap();
    assert_ne!(p1, p2);
    a.note_dpop_nonce("n-1");
    a.challenge(401, &[r#"DPoP error="use_dpop_nonce""#], Some("DPoP bound")).await.unwrap();
    let claims: Value = serde_json::from_slice(
        &crate::util::base64_decode(a.proof("GET", RS).unwrap().split('.').nth(1).unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!((claims["nonce"].as_str(), claims["htm"].as_str()), (Some("n-1"), Some("GET")));
    assert_eq!(s.requests("/token").len(), 1, "a nonce challenge is not a new authorization");
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_the_request() {
    let s = grant_sim(
        json_resp(
            200,
            json!({"access_token": "short", "token_type": "Bearer", "expires_in": 5, "refresh_token": "r1"}),
        ),
        json!({}),
    );
    let o = OAuthOptions::default().client("svc", Some("sec".into())).grant(Grant::ClientCredentials);
    let a = Authorizer::new(RS, o, s.clone(), no_user()).unwrap();
    a.before_request().await; // nothing held yet: nothing to do
    assert!(s.requests("/token").is_empty());
    a.challenge(401, &[WWW], None).await.unwrap();
    a.before_request().await;
    let reqs = s.requests("/token");
    assert_eq!(reqs.len(), 2);
    let f = form(&reqs[1]);
    assert_eq!(field(&f, "grant_type").as_deref(), Some("refresh_token"));
    assert_eq!(field(&f, "refresh_token").as_deref(), Some("r1"));
    assert_eq!(field(&f, "resource").as_deref(), Some(RS));
}
