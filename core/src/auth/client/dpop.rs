//! DPoP (RFC 9449): an ephemeral P-256 key per client, and the proofs that bind its tokens to
//! it: one fresh proof (its own `jti`) per request, with the server's nonce when it gave one
//! and, towards the resource, the access token's hash (`ath`).

use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, EllipticCurveKeyParameters, EllipticCurveKeyType, Jwk,
};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use sha2::Digest;

/// A DPoP key pair (ES256).
pub(super) struct DpopKey {
    encoding: EncodingKey,
    jwk: Jwk,
}

impl DpopKey {
    /// A new random key.
    pub(super) fn generate() -> Result<DpopKey, String> {
        let signing = loop {
            let mut b = [0u8; 32];
            getrandom::fill(&mut b).map_err(|e| format!("no randomness for a DPoP key: {e}"))?;
            // Almost every 32-byte string is a valid scalar; draw again otherwise.
            if let Ok(k) = p256::ecdsa::SigningKey::from_slice(&b) {
                break k;
            }
        };
        let der = signing.to_pkcs8_der().map_err(|e| format!("DPoP key: {e}"))?;
        let encoding = EncodingKey::from_ec_der(der.as_bytes());
        let point = signing.verifying_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else { return Err("DPoP key: no public point".into()) };
        let jwk = Jwk {
            common: CommonParameters::default(),
            algorithm: AlgorithmParameters::EllipticCurve(EllipticCurveKeyParameters {
                key_type: EllipticCurveKeyType::EC,
                curve: EllipticCurve::P256,
                x: crate::util::base64url_encode(x),
                y: crate::util::base64url_encode(y),
            }),
        };
        Ok(DpopKey { encoding, jwk })
    }

    /// A proof for `htm htu` (the URI without query or fragment), with the server's `nonce`
    /// and, for a resource request, the hash of `access_token`.
    pub(super) fn proof(
        &self,
        htm: &str,
        htu: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
        now: u64,
        jti: &str,
    ) -> Result<String, String> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        let mut claims = serde_json::json!({"jti": jti, "htm": htm, "htu": htu, "iat": now});
        if let Some(n) = nonce {
            claims["nonce"] = n.into();
        }
        if let Some(t) = access_token {
            claims["ath"] = crate::util::base64url_encode(&sha2::Sha256::digest(t.as_bytes())).into();
        }
        jsonwebtoken::encode(&header, &claims, &self.encoding).map_err(|e| format!("signing a DPoP proof: {e}"))
    }
}

/// `htu` of a URL: scheme, authority and path (RFC 9449 §4.2: no query, no fragment).
pub(super) fn htu(url: &str) -> String {
    url.split(['?', '#']).next().unwrap_or(url).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{decode, decode_header, DecodingKey, Validation};

    #[test]
    fn proofs_verify_with_their_own_jwk() {
        let k = DpopKey::generate().unwrap();
        let p = k
            .proof("POST", &htu("https://as.example/token?x=1"), Some("n1"), Some("tok"), 1_700_000_000, "j1")
            .unwrap();
        let h = decode_header(&p).unwrap();
        assert_eq!(h.typ.as_deref(), Some("dpop+jwt"));
        let jwk = h.jwk.expect("jwk in the header");
        let key = DecodingKey::from_jwk(&jwk).unwrap();
        let mut v = Validation::new(Algorithm::ES256);
        v.validate_exp = false;
        v.required_spec_claims.clear();
        let claims = decode::<serde_json::Value>(&p, &key, &v).unwrap().claims;
        assert_eq!(claims["htu"], "https://as.example/token");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], crate::util::base64url_encode(&sha2::Sha256::digest(b"tok")));
        assert!(serde_json::to_value(&jwk).unwrap().get("d").is_none(), "no private part");
    }
}
