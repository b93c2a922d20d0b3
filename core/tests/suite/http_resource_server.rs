//! The HTTP server as an OAuth 2.1 resource server (the `auth` option): its Protected
//! Resource Metadata, 401 with `WWW-Authenticate` for a missing or invalid token, 403
//! `insufficient_scope`, and a verified token let through. Tokens are JWTs signed here with a
//! P-256 key whose JWKS a small HTTP server on loopback publishes.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::auth::server::ResourceServerOptions;
use hypermcp::http::client::HttpClientOptions;
use hypermcp::http::HttpOptions;
use hypermcp::{Client, ClientOptions};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{json, Value};

pub(crate) const RESOURCE: &str = "https://mcp.test/mcp";
pub(crate) const ISSUER: &str = "https://as.test";

pub(crate) struct Signer {
    enc: EncodingKey,
    pub(crate) jwks: Value,
}

/// Base64url without padding.
fn b64url(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

pub(crate) fn signer() -> Signer {
    let sk = p256::ecdsa::SigningKey::from_slice(&[42u8; 32]).unwrap();
    let p = sk.verifying_key().to_encoded_point(false);
    let b64 = b64url;
    let jwks = json!({"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
        "x": b64(p.x().unwrap()), "y": b64(p.y().unwrap())}]});
    Signer { enc: EncodingKey::from_ec_der(sk.to_pkcs8_der().unwrap().as_bytes()), jwks }
}

pub(crate) fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

impl Signer {
    pub(crate) fn token(&self, claims: Value) -> String {
        let mut h = Header::new(Algorithm::ES256);
        h.kid = Some("k1".into());
        jsonwebtoken::encode(&h, &claims, &self.enc).unwrap()
    }
}

/// Publishes `jwks` at `http://127.0.0.1:PORT/jwks`; returns that URL.
pub(crate) async fn publish(jwks: Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    let body = jwks.to_string();
    let app = axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let body = body.clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_required_verified_and_scoped() {
    bounded(async {
        let s = signer();
        let jwks_uri = publish(s.jwks.clone()).await;
        let auth = ResourceServerOptions {
            resource: RESOURCE.into(),
            authorization_servers: vec![ISSUER.into()],
            scopes_supported: Some(vec!["mcp:tools".into()]),
            required_scopes: vec!["mcp:tools".into()],
            jwks_uri: Some(jwks_uri),
            ..Default::default()
        };
        let ts = TestServer::start(&test_server(), HttpOptions { auth: Some(auth), ..options() }).await;

        // The metadata, at the path-inserted and the root well-known URL.
        for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
            let mut r = ts.send(Req::new("GET", path)).await;
            assert_eq!(r.status, 200, "{path}");
            let doc: Value = serde_json::from_slice(&r.body().await).unwrap();
            assert_eq!(doc["resource"], RESOURCE);
            assert_eq!(doc["authorization_servers"][0], ISSUER);
            assert_eq!(doc["scopes_supported"][0], "mcp:tools");
        }

        let init = initialize_request("2025-11-25", 1);
        // No token: 401 and where to learn more.
        let r = ts.send(Req::post(&init)).await;
        assert_eq!(r.status, 401);
        let www = r.header("www-authenticate").unwrap().to_string();
        assert!(
            www.starts_with("Bearer ")
                && www.contains(r#"resource_metadata="https://mcp.test/.well-known/oauth-protected-resource/mcp""#),
            "{www}"
        );
        assert!(www.contains(r#"scope="mcp:tools""#), "{www}");

        let claims = |f: &dyn Fn(&mut Value)| {
            let mut c =
                json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "scope": "mcp:tools", "exp": now() + 600});
            f(&mut c);
            s.token(c)
        };
        let refused = |status: u16, token: String, error: &'static str| {
            let ts = &ts;
            let init = &init;
            async move {
                let r = ts.send(Req::post(init).header("Authorization", &format!("Bearer {token}"))).await;
                assert_eq!(r.status, status);
                let www = r.header("www-authenticate").unwrap_or_default().to_string();
                assert!(www.contains(&format!(r#"error="{error}""#)), "{www}");
                www
            }
        };
        let www = refused(401, claims(&|c| c["aud"] = json!("https://other.test/mcp")), "invalid_token").await;
        assert!(www.contains("not for this server"), "{www}");
        let www = refused(401, claims(&|c| c["iss"] = json!("https://evil.test")), "invalid_token").await;
        assert!(www.contains("not issued by"), "{www}");
        let www = refused(401, claims(&|c| c["exp"] = json!(now() - 3600)), "invalid_token").await;
        assert!(www.contains("expired"), "{www}");
        refused(401, "garbage".into(), "invalid_token").await;
        refused(403, claims(&|c| c["scope"] = json!("other")), "insufficient_scope").await;

        // A good token: the request is served; our client with it calls a tool.
        let good = claims(&|_| {});
        let r = ts.send(Req::post(&init).header("Authorization", &format!("Bearer {good}"))).await;
        assert_eq!(r.status, 200);
        let url = format!("http://{}/mcp", ts.host());
        let client = Client::http(&url, HttpClientOptions::default().bearer_token(&good), ClientOptions::default())
            .await
            .unwrap();
        let r = client.call_tool("echo", json!({"text": "authorized"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("authorized"));
        let _ = client.close().await;
        // Without it, the client's error says what the server wants.
        let e =
            Client::http(&url, HttpClientOptions::default(), ClientOptions::default()).await.unwrap_err().to_string();
        assert!(e.contains("401") && e.contains("auth"), "{e}");
    })
    .await;
}

#[test]
fn resource_server_options_are_checked() {
    let o: ResourceServerOptions = serde_json::from_value(json!({
        "resource": RESOURCE, "authorizationServers": [ISSUER], "jwksUri": "https://as.test/jwks", "requiredScopes": ["a"]
    }))
    .unwrap();
    assert!(o.validate().is_ok());
    let bad = |v: Value, want: &str| {
        let o: ResourceServerOptions = serde_json::from_value(v).unwrap();
        let e = o.validate().unwrap_err();
        assert!(e.contains(want), "{e}");
    };
    bad(json!({"authorization_servers": [ISSUER], "jwks_uri": "https://as.test/jwks"}), "auth.resource");
    bad(json!({"resource": RESOURCE, "jwks_uri": "https://as.test/jwks"}), "at least one authorization server");
    bad(json!({"resource": RESOURCE, "authorization_servers": [ISSUER]}), "jwks_uri");
    bad(
        json!({"resource": RESOURCE, "authorization_servers": [ISSUER], "introspection_endpoint": "https://as.test/i"}),
        "introspection_client_id",
    );
}

/// A server whose `whoami` tool reports what its handler sees of the request, and whose
/// `admin` tool, `secret://{name}` resources and `audit` prompt need more scopes.
fn scoped_server() -> hypermcp::Server {
    use hypermcp::{CallToolResult, GetPromptResult, ReadResourceResult, ResourceTemplate, ScopeTarget, Tool};
    hypermcp::Server::new("scoped", "1.0.0")
        .tool(Tool::new("whoami"), |_args, ctx| async move {
            let auth = ctx.auth().cloned().unwrap_or_default();
            json!({
                "subject": auth.subject, "client_id": auth.client_id, "scopes": auth.scopes,
                "custom": ctx.header("X-Custom"), "authorization": ctx.header("authorization"),
                "session": ctx.session_id(), "claim": auth.claims.get("tenant"),
            })
        })
        .tool(Tool::new("admin"), |_args, _ctx| async move { CallToolResult::text("admin done") })
        .resource_template(ResourceTemplate::new("secret://{name}", "secret"), |req, _ctx| async move {
            Ok(ReadResourceResult::text(req.uri.clone(), "classified", None))
        })
        .prompt(hypermcp::Prompt::new("audit"), |_args, _ctx| async move { Ok(GetPromptResult::messages(vec![])) })
        .require_scopes(ScopeTarget::Tool("admin".into()), ["mcp:admin"])
        .require_scopes(ScopeTarget::Resource("secret://{name}".into()), ["mcp:secrets"])
        .require_scopes(ScopeTarget::Prompt("audit".into()), ["mcp:admin"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_see_the_token_and_entries_need_their_scopes() {
    bounded(async {
        let s = signer();
        let jwks_uri = publish(s.jwks.clone()).await;
        let auth = ResourceServerOptions {
            resource: RESOURCE.into(),
            authorization_servers: vec![ISSUER.into()],
            required_scopes: vec!["mcp:tools".into()],
            jwks_uri: Some(jwks_uri),
            ..Default::default()
        };
        let ts = TestServer::start(&scoped_server(), HttpOptions { auth: Some(auth), ..options() }).await;
        let token = |scope: &str| {
            s.token(json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "app", "scope": scope,
                "tenant": "t1", "exp": now() + 600}))
        };
        let user = token("mcp:tools");
        let bearer = format!("Bearer {user}");
        let mut r = ts.send(Req::post(&initialize_request("2025-11-25", 1)).header("Authorization", &bearer)).await;
        assert_eq!(r.status, 200);
        let session = McpSession { id: r.header("mcp-session-id").unwrap().to_string(), version: "2025-11-25".into() };
        let _ = r.body().await;
        let post = |msg: Value, bearer: String| {
            let (ts, session) = (&ts, &session);
            async move { ts.send(Req::post(&msg).session(session).header("Authorization", &bearer)).await }
        };
        let r = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), bearer.clone()).await;
        assert_eq!(r.status, 202);

        // The handler sees who the token speaks for, the headers (not the token), the session.
        let msg = call(2, "whoami", json!({}));
        let r =
            ts.send(Req::post(&msg).session(&session).header("Authorization", &bearer).header("X-Custom", "yes")).await;
        let a = read_answer(r).await;
        let seen = &a.response(2)["result"]["structuredContent"];
        assert_eq!(seen["subject"], "alice", "{seen}");
        assert_eq!(seen["client_id"], "app");
        assert_eq!(seen["scopes"], json!(["mcp:tools"]));
        assert_eq!(seen["claim"], "t1");
        assert_eq!(seen["custom"], "yes");
        assert_eq!(seen["authorization"], Value::Null, "the verified token is not handed to handlers");
        assert_eq!(seen["session"], session.id.as_str());

        // Entries with scopes of their own: 403 naming them, until the token has them.
        let need = |msg: Value, bearer: String, scope: &'static str| {
            let post = &post;
            async move {
                let r = post(msg, bearer).await;
                assert_eq!(r.status, 403, "{scope}");
                let www = r.header("www-authenticate").unwrap().to_string();
                assert!(www.contains(r#"error="insufficient_scope""#), "{www}");
                assert!(www.contains(&format!(r#"scope="mcp:tools {scope}""#)), "{www}");
            }
        };
        need(call(3, "admin", json!({})), bearer.clone(), "mcp:admin").await;
        need(
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "secret://plans"}}),
            bearer.clone(),
            "mcp:secrets",
        )
        .await;
        need(
            json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "audit"}}),
            bearer.clone(),
            "mcp:admin",
        )
        .await;
        // A batch (2025-03-26) with one scoped request is refused whole.
        let r = ts
            .send(
                Req::post(&json!([call(6, "whoami", json!({})), call(7, "admin", json!({}))]))
                    .header("Authorization", &bearer)
                    .header("Mcp-Session-Id", &session.id),
            )
            .await;
        assert_eq!(r.status, 403);
        // Entries without scopes of their own need only the server's.
        let a = read_answer(post(call(8, "whoami", json!({})), bearer.clone()).await).await;
        assert_eq!(a.status, 200);
        let admin = format!("Bearer {}", token("mcp:tools mcp:admin"));
        let a = read_answer(post(call(9, "admin", json!({})), admin).await).await;
        assert_eq!(a.response(9)["result"]["content"][0]["text"], "admin done");
    })
    .await;
}

/// A DPoP proof (RFC 9449) by `key` for `method url`, bound to `token`.
fn dpop_proof(key: &p256::ecdsa::SigningKey, method: &str, url: &str, token: &str, jti: &str) -> (String, String) {
    use jsonwebtoken::jwk::{
        AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters, EllipticCurveKeyType, Jwk,
        ThumbprintHash,
    };
    use sha2::Digest;
    let b64 = b64url;
    let p = key.verifying_key().to_encoded_point(false);
    let jwk = Jwk {
        common: CommonParameters::default(),
        algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
            key_type: EllipticCurveKeyType::EC,
            curve: EllipticCurve::P256,
            x: b64(p.x().unwrap()),
            y: b64(p.y().unwrap()),
        }),
    };
    let jkt = jwk.thumbprint(ThumbprintHash::SHA256);
    let mut h = Header::new(Algorithm::ES256);
    h.typ = Some("dpop+jwt".into());
    h.jwk = Some(jwk);
    let claims = json!({"jti": jti, "htm": method, "htu": url, "iat": now(),
        "ath": b64(&sha2::Sha256::digest(token.as_bytes()))});
    let enc = EncodingKey::from_ec_der(key.to_pkcs8_der().unwrap().as_bytes());
    (jsonwebtoken::encode(&h, &claims, &enc).unwrap(), jkt)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_bound_tokens_need_their_proof() {
    bounded(async {
        let s = signer();
        let jwks_uri = publish(s.jwks.clone()).await;
        let auth = ResourceServerOptions {
            resource: RESOURCE.into(),
            authorization_servers: vec![ISSUER.into()],
            jwks_uri: Some(jwks_uri),
            ..Default::default()
        };
        let ts = TestServer::start(&test_server(), HttpOptions { auth: Some(auth), ..options() }).await;
        let key = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
        let url = format!("http://{}/mcp", ts.host());
        let (_, jkt) = dpop_proof(&key, "POST", &url, "x", "j0");
        let token =
            s.token(json!({"iss": ISSUER, "aud": RESOURCE, "sub": "bob", "exp": now() + 600, "cnf": {"jkt": jkt}}));
        let init = initialize_request("2025-11-25", 1);
        let send = |scheme: &'static str, proof: Option<String>| {
            let (ts, init, token) = (&ts, &init, &token);
            async move {
                let mut req = Req::post(init).header("Authorization", &format!("{scheme} {token}"));
                if let Some(p) = proof {
                    req = req.header("DPoP", &p);
                }
                ts.send(req).await
            }
        };
        let refused = |r: Resp, why: &str| {
            assert_eq!(r.status, 401, "{why}");
            let www: Vec<&str> =
                r.headers.iter().filter(|(k, _)| k == "www-authenticate").map(|(_, v)| v.as_str()).collect();
            assert!(www.iter().any(|v| v.contains(why)), "{why}: {www:?}");
        };
        // A bound token as a plain bearer token, or without its proof: refused.
        refused(send("Bearer", None).await, "bound to a DPoP key");
        refused(send("DPoP", None).await, "exactly one DPoP proof");
        // A proof for another URL, another key, or another token: refused.
        refused(send("DPoP", Some(dpop_proof(&key, "POST", "http://elsewhere.test/mcp", &token, "j1").0)).await, "htu");
        refused(send("DPoP", Some(dpop_proof(&key, "GET", &url, &token, "j2").0)).await, "htm");
        let other = p256::ecdsa::SigningKey::from_slice(&[9u8; 32]).unwrap();
        refused(send("DPoP", Some(dpop_proof(&other, "POST", &url, &token, "j3").0)).await, "another key");
        refused(send("DPoP", Some(dpop_proof(&key, "POST", &url, "another-token", "j4").0)).await, "ath");
        // The right proof: served. The same proof again: a replay, refused.
        let proof = dpop_proof(&key, "POST", &url, &token, "j5").0;
        let r = send("DPoP", Some(proof.clone())).await;
        assert_eq!(r.status, 200, "{r:?}");
        let r = send("DPoP", Some(proof)).await;
        refused(r, "used before");
        let www = send("DPoP", None).await;
        assert!(www
            .headers
            .iter()
            .any(|(k, v)| k == "www-authenticate" && v.starts_with("DPoP ") && v.contains("invalid_dpop_proof")));
    })
    .await;
}

/// `hide_unauthorized`: what a token may not use is left out of its lists and, called by
/// name, "not found" (no 403, no step-up), in both eras; a token with the scopes sees it all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hide_unauthorized_leaves_out_what_the_token_may_not_use() {
    use hypermcp::ClientMode;
    bounded(async {
        let s = signer();
        let jwks_uri = publish(s.jwks.clone()).await;
        let auth = ResourceServerOptions {
            resource: RESOURCE.into(),
            authorization_servers: vec![ISSUER.into()],
            required_scopes: vec!["mcp:tools".into()],
            jwks_uri: Some(jwks_uri),
            hide_unauthorized: true,
            ..Default::default()
        };
        let ts = TestServer::start(&scoped_server(), HttpOptions { auth: Some(auth), ..options() }).await;
        let url = format!("http://{}/mcp", ts.host());
        let token = |scope: &str| {
            s.token(json!({"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "client_id": "app", "scope": scope,
                "exp": now() + 600}))
        };
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let connect = |scope: &str| {
                let http = HttpClientOptions::default().bearer_token(token(scope));
                Client::http(&url, http, ClientOptions::new("t", "1").mode(mode))
            };
            let user = connect("mcp:tools").await.unwrap();
            let names: Vec<String> = user.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
            assert_eq!(names, ["whoami"], "{mode:?}");
            assert!(user.list_resource_templates().await.unwrap().is_empty());
            assert!(user.list_prompts().await.unwrap().is_empty());
            let e = user.call_tool("admin", json!({})).await.unwrap_err();
            assert!(e.to_string().contains("Unknown tool: admin"), "{mode:?}: {e}");
            assert!(user.read_resource("secret://plans").await.is_err());
            assert!(user.get_prompt("audit", Default::default()).await.is_err());
            user.close().await.unwrap();

            let admin = connect("mcp:tools mcp:admin mcp:secrets").await.unwrap();
            let names: Vec<String> = admin.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
            assert_eq!(names, ["whoami", "admin"], "{mode:?}");
            assert_eq!(admin.list_resource_templates().await.unwrap().len(), 1);
            assert_eq!(admin.call_tool("admin", json!({})).await.unwrap().content[0].as_text(), Some("admin done"));
            assert_eq!(admin.read_resource("secret://plans").await.unwrap().contents.len(), 1);
            admin.close().await.unwrap();
        }
    })
    .await;
}
