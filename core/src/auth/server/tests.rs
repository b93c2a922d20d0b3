//! Token verification against a scripted JWKS and introspection endpoint.

use super::*;
use crate::auth::client::HttpResponse;
use jsonwebtoken::{EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use serde_json::json;
use std::sync::Mutex;

const AS: &str = "https://as.example";
const RS: &str = "https://mcp.example/mcp";

/// A P-256 key: its JWK (with `kid`) and a signer.
struct Key {
    kid: String,
    jwk: Value,
    enc: EncodingKey,
}

fn key(seed: u8, kid: &str) -> Key {
    let sk = p256::ecdsa::SigningKey::from_slice(&[seed; 32]).unwrap();
    let p = sk.verifying_key().to_encoded_point(false);
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
        "x": crate::util::base64url_encode(p.x().unwrap()),
        "y": crate::util::base64url_encode(p.y().unwrap()),
    });
    Key { kid: kid.into(), jwk, enc: EncodingKey::from_ec_der(sk.to_pkcs8_der().unwrap().as_bytes()) }
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

fn token(k: &Key, claims: Value) -> String {
    let mut h = Header::new(Algorithm::ES256);
    h.kid = Some(k.kid.clone());
    jsonwebtoken::encode(&h, &claims, &k.enc).unwrap()
}

fn good_claims() -> Value {
    json!({"iss": AS, "aud": RS, "sub": "alice", "client_id": "app", "scope": "tools:read tools:call", "exp": now() + 600, "iat": now()})
}

/// Serves the current key set; counts the fetches.
struct Jwks {
    keys: Mutex<Vec<Value>>,
    fetches: Mutex<u32>,
    introspection: Mutex<Value>,
}

impl Fetch for Jwks {
    fn fetch(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, String>> {
        let body = if req.url.ends_with("/jwks") {
            *self.fetches.lock().unwrap() += 1;
            json!({"keys": *self.keys.lock().unwrap()})
        } else {
            assert!(req.headers.iter().any(|(n, v)| n == "Authorization" && v.starts_with("Basic ")));
            self.introspection.lock().unwrap().clone()
        };
        Box::pin(async move { Ok(HttpResponse { status: 200, headers: vec![], body: body.to_string().into_bytes() }) })
    }
}

fn jwks(keys: Vec<Value>) -> Arc<Jwks> {
    Arc::new(Jwks { keys: Mutex::new(keys), fetches: Mutex::new(0), introspection: Mutex::new(json!({})) })
}

#[tokio::test]
async fn jwts_are_verified_and_refused_with_reasons() {
    let k1 = key(1, "k1");
    let source = jwks(vec![k1.jwk.clone()]);
    let v = JwtVerifier::new(&format!("{AS}/jwks"), AS, RS, source.clone());
    let info = v.verify(&token(&k1, good_claims())).await.unwrap();
    assert_eq!(info.subject.as_deref(), Some("alice"));
    assert_eq!(info.client_id.as_deref(), Some("app"));
    assert!(info.has_scopes(&["tools:call".into()]) && !info.has_scopes(&["admin".into()]));

    let mut c = good_claims();
    c["aud"] = json!("https://other.example/mcp");
    assert!(v.verify(&token(&k1, c)).await.unwrap_err().contains("not for this server"));
    let mut c = good_claims();
    c["iss"] = json!("https://evil.example");
    assert!(v.verify(&token(&k1, c)).await.unwrap_err().contains("not issued by"));
    let mut c = good_claims();
    c["exp"] = json!(now() - 3600);
    assert!(v.verify(&token(&k1, c)).await.unwrap_err().contains("expired"));
    let mut c = good_claims();
    c["nbf"] = json!(now() + 3600);
    assert!(v.verify(&token(&k1, c)).await.unwrap_err().contains("not valid yet"));
    // Signed by a key the server does not know (same kid): the signature fails.
    let forged = key(9, "k1");
    assert!(v.verify(&token(&forged, good_claims())).await.unwrap_err().contains("signature"));
    // Symmetric algorithms are refused outright, and garbage is not a JWT.
    let hs =
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &good_claims(), &EncodingKey::from_secret(b"s")).unwrap();
    assert!(v.verify(&hs).await.unwrap_err().contains("not accepted"));
    assert!(v.verify("not-a-jwt").await.unwrap_err().contains("not a JWT"));
    assert_eq!(*source.fetches.lock().unwrap(), 1, "the key set is cached");
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_then_unknown_kids_wait() {
    let k1 = key(1, "k1");
    let k2 = key(2, "k2");
    let source = jwks(vec![k1.jwk.clone()]);
    let v = JwtVerifier::new(&format!("{AS}/jwks"), AS, RS, source.clone()).refetch_interval(Duration::ZERO);
    v.verify(&token(&k1, good_claims())).await.unwrap();
    // The authorization server rotates to k2: the unknown kid makes the set be fetched again.
    *source.keys.lock().unwrap() = vec![k2.jwk.clone()];
    v.verify(&token(&k2, good_claims())).await.unwrap();
    assert_eq!(*source.fetches.lock().unwrap(), 2);
    // With the default interval, a kid nobody knows does not make every request refetch.
    let source = jwks(vec![k1.jwk.clone()]);
    let v = JwtVerifier::new(&format!("{AS}/jwks"), AS, RS, source.clone());
    v.verify(&token(&k1, good_claims())).await.unwrap();
    let stray = key(3, "k3");
    assert!(v.verify(&token(&stray, good_claims())).await.unwrap_err().contains("unknown key"));
    assert!(v.verify(&token(&stray, good_claims())).await.is_err());
    assert_eq!(*source.fetches.lock().unwrap(), 1);
}

#[tokio::test]
async fn introspection_answers_are_checked() {
    let source = jwks(vec![]);
    let v = IntrospectionVerifier::new(&format!("{AS}/introspect"), "rs", "secret", RS, source.clone());
    *source.introspection.lock().unwrap() =
        json!({"active": true, "sub": "bob", "scope": "a b", "aud": [RS], "exp": now() + 60});
    let info = v.verify("opaque").await.unwrap();
    assert_eq!((info.subject.as_deref(), info.scopes.len()), (Some("bob"), 2));
    *source.introspection.lock().unwrap() = json!({"active": false});
    assert!(v.verify("opaque").await.unwrap_err().contains("not active"));
    *source.introspection.lock().unwrap() = json!({"active": true, "aud": "https://other.example"});
    assert!(v.verify("opaque").await.unwrap_err().contains("not for this server"));
}

#[test]
fn metadata_and_challenges() {
    assert_eq!(resource_metadata_url(RS).unwrap(), "https://mcp.example/.well-known/oauth-protected-resource/mcp");
    assert_eq!(
        resource_metadata_url("https://mcp.example").unwrap(),
        "https://mcp.example/.well-known/oauth-protected-resource"
    );
    let doc = resource_metadata(RS, &[AS.to_string()], Some(&["tools:read".to_string()]));
    assert_eq!(doc["authorization_servers"][0], AS);
    assert_eq!(doc["scopes_supported"][0], "tools:read");
    let w = www_authenticate(
        "https://m/.well-known/x",
        &["a".into(), "b".into()],
        Some(("insufficient_scope", "needs \"b\"")),
    );
    assert_eq!(
        w,
        r#"Bearer resource_metadata="https://m/.well-known/x", scope="a b", error="insufficient_scope", error_description="needs \"b\"""#
    );
    let parsed = crate::auth::challenge::parse([w.as_str()]);
    assert_eq!(parsed[0].param("error_description"), Some("needs \"b\""));
}
