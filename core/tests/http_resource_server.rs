//! The HTTP server as an OAuth 2.1 resource server (the `auth` option): its Protected
//! Resource Metadata, 401 with `WWW-Authenticate` for a missing or invalid token, 403
//! `insufficient_scope`, and a verified token let through. Tokens are JWTs signed here with a
//! P-256 key whose JWKS a small HTTP server on loopback publishes.

mod common;
mod http_util;

use common::*;
use http_util::*;
use hypermcp::auth::server::ResourceServerOptions;
use hypermcp::http::client::HttpClientOptions;
use hypermcp::http::HttpOptions;
use hypermcp::{Client, ClientOptions};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{json, Value};

const RESOURCE: &str = "https://mcp.test/mcp";
const ISSUER: &str = "https://as.test";

struct Signer {
    enc: EncodingKey,
    jwks: Value,
}

fn signer() -> Signer {
    let sk = p256::ecdsa::SigningKey::from_slice(&[42u8; 32]).unwrap();
    let p = sk.verifying_key().to_encoded_point(false);
    let b64 = |b: &[u8]| -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::new();
        for c in b.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for i in 0..=c.len() {
                out.push(A[(n >> (18 - 6 * i)) as usize & 63] as char);
            }
        }
        out
    };
    let jwks = json!({"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
        "x": b64(p.x().unwrap()), "y": b64(p.y().unwrap())}]});
    Signer { enc: EncodingKey::from_ec_der(sk.to_pkcs8_der().unwrap().as_bytes()), jwks }
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

impl Signer {
    fn token(&self, claims: Value) -> String {
        let mut h = Header::new(Algorithm::ES256);
        h.kid = Some("k1".into());
        jsonwebtoken::encode(&h, &claims, &self.enc).unwrap()
    }
}

/// Publishes `jwks` at `http://127.0.0.1:PORT/jwks`; returns that URL.
async fn publish(jwks: Value) -> String {
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
