//! The JWTs the client signs: `private_key_jwt` client assertions (RFC 7523 §2.2), with the
//! JOSE crate `jsonwebtoken` (RustCrypto backend).

use jsonwebtoken::{Algorithm, EncodingKey, Header};

/// The key and algorithm of a PEM private key (`ES256` unless `alg` says otherwise).
pub(super) fn signing_key(pem: &str, alg: Option<&str>) -> Result<(EncodingKey, Algorithm), String> {
    let alg = match alg.unwrap_or("ES256") {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "EdDSA" => Algorithm::EdDSA,
        other => return Err(format!("unsupported signing algorithm {other:?}")),
    };
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| format!("not a PEM private key for {alg:?}: {e}"))?;
    Ok((key, alg))
}

/// A client assertion: `iss` = `sub` = the client id, `aud` = the authorization server's
/// issuer, valid for 60 s, with a fresh `jti`.
pub(super) fn client_assertion(
    pem: &str,
    alg: Option<&str>,
    client_id: &str,
    audience: &str,
    now: u64,
    jti: &str,
) -> Result<String, String> {
    let (key, alg) = signing_key(pem, alg)?;
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 60,
        "jti": jti,
    });
    jsonwebtoken::encode(&Header::new(alg), &claims, &key).map_err(|e| format!("signing the client assertion: {e}"))
}
