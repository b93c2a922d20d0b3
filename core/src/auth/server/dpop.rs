//! DPoP on the resource server (RFC 9449 §4.3, §7): the proof a request with a DPoP-bound
//! token carries is checked (its type, an asymmetric algorithm, the signature by the public
//! key in its header, the method and URL of the request, its age, the token's hash `ath`),
//! and the key's thumbprint must be the one the token is bound to (`cnf.jkt`). A proof is good
//! once: the [`ReplayCache`] remembers the `jti`s of recent proofs.

use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{decode, decode_header, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::Digest;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The proof algorithms accepted, as the `algs` of a `DPoP` challenge.
pub const ALGORITHMS: &str = "ES256 ES384 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA";

/// How old a proof may be (its `iat`), in seconds.
pub const MAX_AGE_SECS: u64 = 300;
/// How far in the future a proof's `iat` may be (clock skew), in seconds.
const SKEW_SECS: u64 = 60;

/// The request a proof must name.
pub struct Target<'a> {
    /// Its method (`htm`).
    pub method: &'a str,
    /// Its `Host` (the authority of `htu`; the scheme is not compared, so a server behind a
    /// TLS-terminating proxy accepts proofs for its public `https://` URL).
    pub host: Option<&'a str>,
    /// Its path (the path of `htu`).
    pub path: &'a str,
}

/// What a verified proof says.
#[derive(Debug, PartialEq)]
pub struct Proof {
    /// The SHA-256 thumbprint of its key (RFC 7638), base64url.
    pub jkt: String,
    /// Its unique id.
    pub jti: String,
    /// When it was made (seconds since the Unix epoch).
    pub iat: u64,
}

/// Verifies `proof` for a request to `target` carrying `token`, at `now`.
pub fn verify_proof(proof: &str, target: &Target<'_>, token: &str, now: u64) -> Result<Proof, String> {
    let header = decode_header(proof).map_err(|_| "the DPoP proof is not a JWT".to_string())?;
    if header.typ.as_deref() != Some("dpop+jwt") {
        return Err("the DPoP proof's typ is not dpop+jwt".into());
    }
    if !super::DEFAULT_ALGORITHMS.contains(&header.alg) {
        return Err(format!("the DPoP proof's algorithm {:?} is not accepted", header.alg));
    }
    let jwk = header.jwk.ok_or("the DPoP proof has no jwk header")?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| format!("the DPoP proof's key is unusable: {e}"))?;
    let mut v = Validation::new(header.alg);
    v.validate_exp = false;
    v.validate_aud = false;
    v.required_spec_claims.clear();
    let claims = decode::<Map<String, Value>>(proof, &key, &v)
        .map_err(|_| "the DPoP proof's signature does not verify".to_string())?
        .claims;
    let text = |k: &str| claims.get(k).and_then(Value::as_str);
    let jti = text("jti").filter(|j| !j.is_empty() && j.len() <= 256).ok_or("the DPoP proof has no jti")?;
    if text("htm") != Some(target.method) {
        return Err(format!("the DPoP proof is not for a {} request (htm)", target.method));
    }
    let htu = text("htu").ok_or("the DPoP proof has no htu")?;
    if !htu_matches(htu, target) {
        return Err("the DPoP proof is for another URL (htu)".into());
    }
    let iat = claims.get("iat").and_then(Value::as_u64).ok_or("the DPoP proof has no iat")?;
    if iat + MAX_AGE_SECS < now || iat > now + SKEW_SECS {
        return Err("the DPoP proof is too old or from the future (iat)".into());
    }
    let ath = crate::util::base64url_encode(&sha2::Sha256::digest(token.as_bytes()));
    if text("ath") != Some(ath.as_str()) {
        return Err("the DPoP proof is not for this access token (ath)".into());
    }
    Ok(Proof { jkt: jwk.thumbprint(ThumbprintHash::SHA256), jti: jti.to_string(), iat })
}

/// Whether `htu` names the request: same authority as its `Host` (any case) and the same path.
fn htu_matches(htu: &str, target: &Target<'_>) -> bool {
    let Some((_, rest)) = htu.split_once("://") else { return false };
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    let path_ok = path == target.path || (path.is_empty() && target.path == "/");
    let host_ok = target.host.is_none_or(|h| {
        let strip =
            |a: &str| a.strip_suffix(":443").or_else(|| a.strip_suffix(":80")).unwrap_or(a).to_ascii_lowercase();
        strip(authority) == strip(h)
    });
    path_ok && host_ok
}

/// The `jti`s of the proofs seen within their lifetime: a proof sent twice is refused.
/// Bounded: the oldest entries go first when it is full.
#[derive(Default)]
pub struct ReplayCache {
    inner: Mutex<Replays>,
}

#[derive(Default)]
struct Replays {
    seen: HashMap<String, u64>,
    order: VecDeque<(u64, String)>,
}

/// Most proofs remembered at once.
const REPLAY_CAPACITY: usize = 100_000;

impl ReplayCache {
    /// Records the proof `jti` made at `iat`; `Err` if it was seen already.
    pub fn check(&self, jti: &str, iat: u64) -> Result<(), String> {
        let mut r = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let horizon = crate::auth::now_secs().saturating_sub(MAX_AGE_SECS + SKEW_SECS);
        while let Some((t, _)) = r.order.front() {
            if *t >= horizon && r.order.len() < REPLAY_CAPACITY {
                break;
            }
            if let Some((_, j)) = r.order.pop_front() {
                r.seen.remove(&j);
            }
        }
        if r.seen.contains_key(jti) {
            return Err("the DPoP proof was used before (jti)".into());
        }
        r.seen.insert(jti.to_string(), iat);
        r.order.push_back((iat, jti.to_string()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn htu_names_the_host_and_path_of_the_request() {
        let t = Target { method: "POST", host: Some("MCP.example.com"), path: "/mcp" };
        assert!(htu_matches("https://mcp.example.com/mcp", &t));
        assert!(htu_matches("https://mcp.example.com:443/mcp?x=1#f", &t));
        assert!(htu_matches("http://mcp.example.com/mcp", &t), "the scheme is not compared (TLS proxies)");
        assert!(!htu_matches("https://mcp.example.com/other", &t));
        assert!(!htu_matches("https://evil.example.com/mcp", &t));
        assert!(!htu_matches("mcp.example.com/mcp", &t));
        let local = Target { method: "POST", host: Some("127.0.0.1:8000"), path: "/mcp" };
        assert!(htu_matches("http://127.0.0.1:8000/mcp", &local));
        assert!(!htu_matches("http://127.0.0.1:9000/mcp", &local));
    }

    #[test]
    fn a_proof_is_good_once() {
        let c = ReplayCache::default();
        let now = crate::auth::now_secs();
        assert!(c.check("a", now).is_ok());
        assert!(c.check("b", now).is_ok());
        assert!(c.check("a", now).unwrap_err().contains("used before"));
    }
}
