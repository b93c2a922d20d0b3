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

/// A 2048-bit RSA key and an Ed25519 key made with openssl for these tests only.
const RSA_PEM: &str = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCZzs4sUFLQGhk2\nwTO05IXaA2o4H6tAVNZVV0ULpqxzI+s1mB10Pe3Z3eqeTcxR3OMAIvuNgHkesGrv\nrBi7v6WgCHb4bDGK5IdN1/9DsNwUVKSr4TbYridgtyjoPxn3bJkV80aD/gjBpWeT\nWjcQRq/Zi3SLd1IQL1R2mvRXXuyJ9rX5XYsp+RgcJiyRwriPQzPsbNSRGk5ImbEB\nPr2G9jnz7RDwJNpjWizmg2jVvJa1gj6BJ+ozWzro78gmMqE8oSgcrMo6FRpCCLxb\nMbNzWxFKe5an8OQs8lnsP78V4tV1wohOgztJnbxtvrSeFy/asV/nR2T78v5aF81W\nVeH0aqEDAgMBAAECggEAF2YAs3kcwA/YWh4WMaS6QCpY1GTs9oJxgNYf6N/YSEPk\nmmijwnVRY92Avch0FtgVqIWp4yLyShroicGSma1UEv52quA6wTh25P7BFJkpQeaG\njqdaYqhL0UjL7lj7KErbFx3FUnso9dyl3yLQUaePRPcUKctjLpcksE5ucYQ9U9d5\n+4QrQGZQ27AQY5UCFb7WGS19Tto/xin+wyG+1MDrS8I36FaH/YXHUw72P/Bt7tkp\nixHaQWY2vDSIrV1xDgdoETjIYfxk5WuErUydA7rfs9U8QY0Ge2mVZqoYr809nCQ+\n3Jiax945nIHMj8wTboPUUEkIqW60TYRQIGC7qIqSgQKBgQDM+g1DaUEoKq1yLGOZ\nB6z2xZ0Qcywl9iAcOaqWeaJelRzA/KKaIUkgRwudYcGbMWPuPTyFJawBlwYVhJAA\nkbW9YTb9RIw/i8Z+YTKvmvpSCMvLJgt8hXD15UXeO+hFFAMuim4eiAUfav8UNFky\nT2fmdbP664a4t8svDnXDeADnoQKBgQDAGA/3HMGPPlMvsp+h5fO1EB+pGIyr4XNX\n8oyNl+MiK5MofztfvJpzdq969UXB3TCIv7LEvsrmeaDa5UP4ppgRGnF/PZ2hTYmE\n4CHGDragK1LXgQqiwGkUUcKweoNwC2zMhUpHn+7z7zKh3ICKFcGsR/7s5v8ZnizW\n2u5yKQ82IwKBgAoCK6OfAA92BgINKM/QECH8hC7JcN5ppie6qRmv1r3Hih/iNg5Q\nkcGBto94tntdbgOz+cCGll99gE6MqntcogMdPBIhxrdTm92P4Wmxp4dZ5pmEwgrS\neTGIgGDZi/3TfFRJbhcPjTB7iPjzlWdfeTNHjAI0fd+HGeSyUA27TlABAoGAPJ7b\nWvaeNuBKTEEok2UINdmyxCBVNGDfj5+hr4WBTmVF+X+9cwcIDuwjkMAalYWCLYWh\nmulDCtzTYID9pFieoLchnjAJsL/RaDd7MQ+vnnhNmmjEvHvQLXNn512iYReZ7Ckc\nOeJE/II+DkqR3gHjrsTBtG1pj+IU8HEC0tAWVtUCgYEApwJ7I7BXwDSlUD9vsh7T\n97K0i2Nu4ELKGGiH5AS6B1jy+93EiIH3qMEDpEMroSW+it4LjNeMJoSNaIp+aoQz\n2zaDNPqLHBQMoBsVdqCXqJ+FTM2hyBWo/5d53Nc+7AfOpAQ/GxKi6Lt0o8smEHTa\niCW5wRZggU9aM4WQToh+7Q4=\n-----END PRIVATE KEY-----";
const RSA_N: &str = "mc7OLFBS0BoZNsEztOSF2gNqOB-rQFTWVVdFC6ascyPrNZgddD3t2d3qnk3MUdzjACL7jYB5HrBq76wYu7-loAh2-GwxiuSHTdf_Q7DcFFSkq-E22K4nYLco6D8Z92yZFfNGg_4IwaVnk1o3EEav2Yt0i3dSEC9Udpr0V17sifa1-V2LKfkYHCYskcK4j0Mz7GzUkRpOSJmxAT69hvY58-0Q8CTaY1os5oNo1byWtYI-gSfqM1s66O_IJjKhPKEoHKzKOhUaQgi8WzGzc1sRSnuWp_DkLPJZ7D-_FeLVdcKIToM7SZ28bb60nhcv2rFf50dk-_L-WhfNVlXh9GqhAw";
const ED_PEM: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIE2oDUOPLmAPkawa1uebU2ToVGUL8yPLgkNrY6RdnfZu\n-----END PRIVATE KEY-----";
const ED_X: &str = "2lA0luKlllgwHbuF97ljo0c-CW9wkKzYgi11Q69rDoE";

#[tokio::test]
async fn rs256_ps256_and_eddsa_tokens_verify_too() {
    let rsa = json!({"kty": "RSA", "kid": "r1", "n": RSA_N, "e": "AQAB"});
    let ed = json!({"kty": "OKP", "crv": "Ed25519", "kid": "e1", "x": ED_X});
    let source = jwks(vec![rsa, ed]);
    let v = JwtVerifier::new(&format!("{AS}/jwks"), AS, RS, source.clone());
    let sign = |alg: Algorithm, kid: &str, key: &EncodingKey| {
        let mut h = Header::new(alg);
        h.kid = Some(kid.into());
        jsonwebtoken::encode(&h, &good_claims(), key).unwrap()
    };
    let rsa_key = EncodingKey::from_rsa_pem(RSA_PEM.as_bytes()).unwrap();
    let ed_key = EncodingKey::from_ed_pem(ED_PEM.as_bytes()).unwrap();
    for (alg, kid, key) in
        [(Algorithm::RS256, "r1", &rsa_key), (Algorithm::PS256, "r1", &rsa_key), (Algorithm::EdDSA, "e1", &ed_key)]
    {
        let info = v.verify(&sign(alg, kid, key)).await.unwrap_or_else(|e| panic!("{alg:?}: {e}"));
        assert_eq!(info.subject.as_deref(), Some("alice"), "{alg:?}");
    }
    // A token naming the RSA key but signed by the Ed25519 one does not verify.
    assert!(v.verify(&sign(Algorithm::EdDSA, "r1", &ed_key)).await.is_err());
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
    assert_eq!(v.generation(), 1, "k1 left the key set: tokens remembered are verified again");
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
