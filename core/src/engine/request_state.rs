//! Sealed `requestState` for multi round-trip requests (2026-07-28, `basic/patterns/mrtr.mdx`).
//!
//! A server that ends a call with `input_required` keeps nothing: what it needs on the retry
//! (the answers gathered in earlier rounds, and a handler's own state) travels through the
//! client inside `requestState`. The client is not trusted with it, so it is sealed with
//! authenticated encryption (AES-256-GCM-SIV, RFC 8452, a 12-byte random nonce per seal)
//! under a key derived with HKDF-SHA256 from a configured secret, and bound to what it was issued
//! for: the method, the tool / prompt / resource, a digest of the arguments, the server's
//! audience, and an expiry. A state that was tampered with, has expired, was sealed by a key
//! this server does not hold, or is presented on another request is refused before any user
//! code runs.
//!
//! Keys: a list of 32-byte secrets. The first seals; every one opens (rotation: add the new
//! key first, drop the old one once its states have expired; replicas share the list). With
//! none configured, `HYPERMCP_REQUEST_STATE_KEYS` (comma-separated base64) is read once per
//! process; without it, a random key is drawn once per process.
//!
//! Format: `hmrs2.` then base64 of `key id (8) || nonce (12) || ciphertext || tag (16)`; the
//! plaintext is a small JSON object. The key id is derived from the secret (HKDF), so keys
//! are found without trial decryption and never revealed. GCM-SIV derives a key of its own
//! for every nonce, so random nonces stay safe for far more seals than a key ever makes, and
//! with AES instructions it seals and opens a state in about a third of the time
//! XChaCha20-Poly1305 took (bench/README.md, the optimisation log).
//!
//! States of the format before (`hmrs1.`: XChaCha20-Poly1305, a 24-byte nonce, the same key
//! ids) still open, so a request whose rounds straddle an upgrade completes; new states are
//! always `hmrs2.`.

use aes_gcm_siv::Aes256GcmSiv;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The environment variable read when no keys are configured.
pub const KEYS_ENV: &str = "HYPERMCP_REQUEST_STATE_KEYS";

/// What every state sealed now starts with.
const PREFIX: &str = "hmrs2.";
/// States sealed before (XChaCha20-Poly1305): opened, never sealed.
const PREFIX_V1: &str = "hmrs1.";
const SALT: &[u8] = b"hypermcp/requestState/v1";
const KID_LEN: usize = 8;
const NONCE_LEN: usize = 12;
const NONCE_LEN_V1: usize = 24;
// Both formats' names are authenticated in the same room ([`aad`]).
const _: () = assert!(PREFIX.len() == PREFIX_V1.len());

struct Key {
    id: [u8; KID_LEN],
    cipher: Aes256GcmSiv,
    /// Opens `hmrs1.` states.
    v1: XChaCha20Poly1305,
}

/// The keys that seal and open `requestState`: the first seals, all open. Cheap to clone.
#[derive(Clone)]
pub struct StateKeys {
    keys: Arc<Vec<Key>>,
    /// Where they came from, for messages (never the secrets).
    origin: &'static str,
}

impl std::fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKeys").field("count", &self.keys.len()).field("origin", &self.origin).finish()
    }
}

impl PartialEq for StateKeys {
    fn eq(&self, other: &Self) -> bool {
        self.keys.iter().map(|k| k.id).eq(other.keys.iter().map(|k| k.id))
    }
}

fn derive(secret: &[u8; 32]) -> Key {
    let hk = hkdf::Hkdf::<Sha256>::new(Some(SALT), secret);
    let mut siv = [0u8; 32];
    let mut v1 = [0u8; 32];
    let mut id = [0u8; KID_LEN];
    // Every length is far below HKDF's limit (255 blocks): expand cannot fail.
    let _ = hk.expand(b"aes-256-gcm-siv key", &mut siv);
    let _ = hk.expand(b"aead key", &mut v1);
    let _ = hk.expand(b"key id", &mut id);
    Key { id, cipher: Aes256GcmSiv::new((&siv).into()), v1: XChaCha20Poly1305::new((&v1).into()) }
}

impl StateKeys {
    /// Keys from 32-byte secrets (the first seals). Errors when the list is empty.
    pub fn new(secrets: &[[u8; 32]]) -> Result<StateKeys, String> {
        if secrets.is_empty() {
            return Err("requestState keys: the list is empty (give at least one 32-byte key)".into());
        }
        Ok(StateKeys { keys: Arc::new(secrets.iter().map(derive).collect()), origin: "configured" })
    }

    /// Keys from base64 texts of 32 bytes each, as the option and the environment variable
    /// give them (`source` names where they came from, for the error).
    pub fn from_base64<S: AsRef<str>>(texts: &[S], source: &str) -> Result<StateKeys, String> {
        let mut secrets = Vec::with_capacity(texts.len());
        for (i, t) in texts.iter().enumerate() {
            let t = t.as_ref().trim();
            let bytes =
                crate::util::base64_decode(t).ok_or_else(|| format!("{source}: key {} is not valid base64", i + 1))?;
            let secret: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
                format!(
                    "{source}: key {} is {} bytes; requestState keys are 32 bytes (44 base64 characters)",
                    i + 1,
                    bytes.len()
                )
            })?;
            secrets.push(secret);
        }
        Self::new(&secrets)
    }

    /// A random key for this process alone (states do not survive a restart and are not
    /// understood by other replicas).
    pub fn random() -> StateKeys {
        let mut secret = [0u8; 32];
        if getrandom::fill(&mut secret).is_err() {
            // No OS randomness: mix the clock and addresses through SHA-256 (still unknown
            // to clients; better than refusing to serve).
            let mut h = Sha256::new();
            h.update(format!("{:?}{:p}", std::time::SystemTime::now(), &secret).as_bytes());
            secret.copy_from_slice(&h.finalize());
        }
        let mut k = Self::new(&[secret]).unwrap_or_else(|_| unreachable!("one key"));
        k.origin = "random (per process)";
        k
    }

    /// The keys `HYPERMCP_REQUEST_STATE_KEYS` gives, from its value (read by the layers above
    /// the engine, which reads no environment): `None` when it is unset or empty, `Err` when
    /// it is malformed.
    pub fn from_env_value(value: Option<&str>) -> Result<Option<StateKeys>, String> {
        let Some(v) = value.filter(|v| !v.trim().is_empty()) else { return Ok(None) };
        let parts: Vec<&str> = v.split(',').filter(|p| !p.trim().is_empty()).collect();
        Self::from_base64(&parts, KEYS_ENV).map(|mut k| {
            k.origin = "environment";
            Some(k)
        })
    }

    /// The random key of this process, made once: what a server seals with when it was
    /// given no keys.
    pub fn process_random() -> StateKeys {
        static RANDOM: OnceLock<StateKeys> = OnceLock::new();
        RANDOM.get_or_init(Self::random).clone()
    }

    fn sealing(&self) -> &Key {
        &self.keys[0]
    }
}

/// What a sealed state says it was issued for, and what it carries.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatePayload {
    /// The method (`tools/call`, `prompts/get`, `resources/read`).
    #[serde(rename = "m")]
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    #[serde(rename = "n")]
    pub name: String,
    /// The arguments it is bound to: [`args_binding`] (their canonical JSON after `=` when
    /// short, else [`args_digest`]).
    #[serde(rename = "a")]
    pub args: String,
    /// The server's audience.
    #[serde(rename = "aud")]
    pub audience: String,
    /// Expiry, in milliseconds since the Unix epoch.
    #[serde(rename = "exp")]
    pub expires_ms: u64,
    /// Answers of earlier rounds, by input key.
    #[serde(rename = "ans", default, skip_serializing_if = "Map::is_empty")]
    pub answers: Map<String, Value>,
    /// The handler's own state (the low-level form), if it gave one.
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Rounds so far.
    #[serde(rename = "r", default)]
    pub round: u32,
}

/// The digest a state binds the arguments by: SHA-256 of their canonical JSON (object keys
/// sorted at every level, whatever order the client sent them in), base64.
pub fn args_digest(args: &Value) -> String {
    digest_of(&canonical_json(args))
}

/// What a state binds the arguments by: their canonical JSON itself after `=` when it is no
/// longer than a digest (most calls' arguments; the state is sealed, so they stay
/// confidential, and no SHA-256 is computed), else [`args_digest`]. A digest never starts
/// with `=`, so the two cannot be taken for each other.
pub fn args_binding(args: &Value) -> String {
    let bytes = canonical_json(args);
    if bytes.len() < SHORT_ARGS {
        let mut s = String::with_capacity(bytes.len() + 1);
        s.push('=');
        s.push_str(std::str::from_utf8(&bytes).unwrap_or_default());
        s
    } else {
        digest_of(&bytes)
    }
}

/// Arguments whose canonical JSON is shorter than this are bound by that JSON.
const SHORT_ARGS: usize = 44;

/// Base64 of the SHA-256 of `bytes`.
fn digest_of(bytes: &[u8]) -> String {
    crate::util::base64_encode(&Sha256::digest(bytes))
}

/// Whether a state's binding `sealed` names the arguments `expected` (an [`args_binding`]):
/// the same text, or, for a state sealed before short arguments were bound by their JSON,
/// the digest of that JSON.
fn same_args(sealed: &str, expected: &str) -> bool {
    sealed == expected
        || expected
            .strip_prefix('=')
            .is_some_and(|json| !sealed.starts_with('=') && sealed == digest_of(json.as_bytes()))
}

/// The canonical JSON of `args`: object keys sorted at every level.
fn canonical_json(args: &Value) -> Vec<u8> {
    fn canonical(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Object(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                out.push(b'{');
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut *out, k);
                    out.push(b':');
                    canonical(v, out);
                }
                out.push(b'}');
            }
            Value::Array(a) => {
                out.push(b'[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    canonical(v, out);
                }
                out.push(b']');
            }
            other => {
                let _ = serde_json::to_writer(&mut *out, other);
            }
        }
    }
    let mut bytes = Vec::new();
    canonical(args, &mut bytes);
    bytes
}

/// The additional data every seal authenticates: the format and the key id.
fn aad(prefix: &str, kid: &[u8]) -> [u8; PREFIX.len() + KID_LEN] {
    let mut v = [0u8; PREFIX.len() + KID_LEN];
    v[..PREFIX.len()].copy_from_slice(prefix.as_bytes());
    v[PREFIX.len()..].copy_from_slice(kid);
    v
}

/// What [`seal`] writes, borrowed: the same members as [`StatePayload`], in its order.
#[derive(Serialize)]
pub(crate) struct Sealing<'a> {
    #[serde(rename = "m")]
    pub method: &'a str,
    #[serde(rename = "n")]
    pub name: &'a str,
    #[serde(rename = "a")]
    pub args: &'a str,
    #[serde(rename = "aud")]
    pub audience: &'a str,
    #[serde(rename = "exp")]
    pub expires_ms: u64,
    #[serde(rename = "ans", skip_serializing_if = "Map::is_empty")]
    pub answers: &'a Map<String, Value>,
    #[serde(rename = "u", skip_serializing_if = "Option::is_none")]
    pub user: Option<&'a str>,
    #[serde(rename = "r")]
    pub round: u32,
}

/// Seals `payload` with the first key.
pub fn seal(keys: &StateKeys, payload: &StatePayload) -> Result<String, String> {
    seal_borrowed(
        keys,
        &Sealing {
            method: &payload.method,
            name: &payload.name,
            args: &payload.args,
            audience: &payload.audience,
            expires_ms: payload.expires_ms,
            answers: &payload.answers,
            user: payload.user.as_deref(),
            round: payload.round,
        },
    )
}

/// [`seal`] of a borrowed payload.
pub(crate) fn seal_borrowed(keys: &StateKeys, payload: &Sealing<'_>) -> Result<String, String> {
    let key = keys.sealing();
    let mut raw = Vec::with_capacity(KID_LEN + NONCE_LEN + 160);
    raw.extend_from_slice(&key.id);
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce).map_err(|e| format!("no randomness for a requestState nonce: {e}"))?;
    raw.extend_from_slice(&nonce);
    // The plaintext is written after the id and nonce, then encrypted in place.
    crate::jsonrpc::fastser::to_writer(&mut raw, payload).map_err(|e| e.to_string())?;
    let (head, plain) = raw.split_at_mut(KID_LEN + NONCE_LEN);
    let tag = key
        .cipher
        .encrypt_in_place_detached((&nonce).into(), &aad(PREFIX, &head[..KID_LEN]), plain)
        .map_err(|_| "requestState could not be sealed".to_string())?;
    raw.extend_from_slice(&tag);
    let mut out = String::with_capacity(PREFIX.len() + raw.len().div_ceil(3) * 4);
    out.push_str(PREFIX);
    crate::util::base64_encode_into(&raw, &mut out);
    Ok(out)
}

/// Why a `requestState` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    /// Not a state this software issues (wrong format, truncated, not base64).
    Malformed,
    /// Sealed by a key this server does not hold (another server, or a retired key).
    UnknownKey,
    /// It fails authentication: modified after sealing.
    Tampered,
    /// Its time ran out.
    Expired,
    /// Issued for another request (method, tool, arguments) or another server (audience).
    Mismatch(String),
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Malformed => f.write_str("requestState is malformed (not one this server issued)"),
            StateError::UnknownKey => f.write_str(
                "requestState was sealed with a key this server does not hold (another server, or a retired key)",
            ),
            StateError::Tampered => f.write_str("requestState failed its integrity check (it was modified)"),
            StateError::Expired => f.write_str("requestState has expired: start the request again without it"),
            StateError::Mismatch(why) => write!(f, "requestState does not belong to this request: {why}"),
        }
    }
}

/// Opens a sealed state and checks it was issued for `expect` (method, name, arguments,
/// audience) and is not past its expiry at `now_ms`.
pub fn open(keys: &StateKeys, text: &str, expect: &StatePayload, now_ms: u64) -> Result<StatePayload, StateError> {
    let expected =
        Expected { method: &expect.method, name: &expect.name, args: &expect.args, audience: &expect.audience };
    open_with(keys, text, &expected, now_ms, |p| StatePayload {
        method: p.method.into_owned(),
        name: p.name.into_owned(),
        args: p.args.into_owned(),
        audience: p.audience.into_owned(),
        expires_ms: p.expires_ms,
        answers: p.answers,
        user: p.user,
        round: p.round,
    })
}

/// What a state must have been issued for, borrowed (as [`open`] reads it from its `expect`).
pub(crate) struct Expected<'a> {
    pub method: &'a str,
    pub name: &'a str,
    pub args: &'a str,
    pub audience: &'a str,
}

/// A state's payload as opened: the strings that are only compared borrowed from the
/// plaintext where they can be.
#[derive(Deserialize)]
pub(crate) struct Opened<'a> {
    #[serde(rename = "m", borrow)]
    pub method: Cow<'a, str>,
    #[serde(rename = "n", borrow)]
    pub name: Cow<'a, str>,
    #[serde(rename = "a", borrow)]
    pub args: Cow<'a, str>,
    #[serde(rename = "aud", borrow)]
    pub audience: Cow<'a, str>,
    #[serde(rename = "exp")]
    pub expires_ms: u64,
    #[serde(rename = "ans", default)]
    pub answers: Map<String, Value>,
    #[serde(rename = "u", default)]
    pub user: Option<String>,
    #[serde(rename = "r", default)]
    pub round: u32,
}

impl<'a> Opened<'a> {
    /// Reads an opened plaintext. It was written by [`seal`] and authenticated, so it is
    /// valid JSON: its members are found by a scan (a few instructions a byte) instead of
    /// serde's field-by-field pass, strings borrowed. Anything the scan does not take as it
    /// is (an escaped key, a member twice, a value of an unexpected type) goes to serde,
    /// which reads it, or refuses it, as it always did.
    fn read(plain: &'a [u8]) -> Result<Opened<'a>, StateError> {
        let text = std::str::from_utf8(plain).map_err(|_| StateError::Malformed)?;
        match Self::scan(text) {
            Some(p) => Ok(p),
            None => serde_json::from_str(text).map_err(|_| StateError::Malformed),
        }
    }

    fn scan(text: &'a str) -> Option<Opened<'a>> {
        use crate::jsonrpc::message::{json_str_text, pick};
        // Members not named here are ignored, as serde ignores them.
        let [method, name, args, audience, expires_ms, answers, user, round] =
            pick(text, ["m", "n", "a", "aud", "exp", "ans", "u", "r"], None)?;
        Some(Opened {
            method: json_str_text(method?)?,
            name: json_str_text(name?)?,
            args: json_str_text(args?)?,
            audience: json_str_text(audience?)?,
            expires_ms: expires_ms?.parse().ok()?,
            answers: match answers {
                Some(a) => serde_json::from_str(a).ok()?,
                None => Map::new(),
            },
            user: match user {
                None | Some("null") => None,
                Some(u) => Some(json_str_text(u)?.into_owned()),
            },
            round: match round {
                Some(r) => r.parse().ok()?,
                None => 0,
            },
        })
    }
}

/// [`open`] against a borrowed `expect`, handing the checked payload to `take`.
pub(crate) fn open_with<T>(
    keys: &StateKeys,
    text: &str,
    expect: &Expected<'_>,
    now_ms: u64,
    take: impl FnOnce(Opened<'_>) -> T,
) -> Result<T, StateError> {
    let (prefix, nonce_len) = if text.starts_with(PREFIX) {
        (PREFIX, NONCE_LEN)
    } else if text.starts_with(PREFIX_V1) {
        (PREFIX_V1, NONCE_LEN_V1)
    } else {
        return Err(StateError::Malformed);
    };
    let mut raw = crate::util::base64_decode_strict(&text[prefix.len()..]).ok_or(StateError::Malformed)?;
    if raw.len() < KID_LEN + nonce_len + 16 {
        return Err(StateError::Malformed);
    }
    let (kid, rest) = raw.split_at_mut(KID_LEN);
    let key = keys.keys.iter().find(|k| k.id == *kid).ok_or(StateError::UnknownKey)?;
    let aad = aad(prefix, kid);
    let (nonce, sealed) = rest.split_at_mut(nonce_len);
    let plain_len = sealed.len() - 16;
    let (plain, tag) = sealed.split_at_mut(plain_len);
    let opened = if prefix == PREFIX {
        key.cipher.decrypt_in_place_detached((&*nonce).into(), &aad, plain, (&*tag).into())
    } else {
        key.v1.decrypt_in_place_detached(XNonce::from_slice(nonce), &aad, plain, (&*tag).into())
    };
    opened.map_err(|_| StateError::Tampered)?;
    let p = Opened::read(plain)?;
    if p.audience != expect.audience {
        return Err(StateError::Mismatch(format!("it was issued by server {:?}", p.audience)));
    }
    if p.method != expect.method || p.name != expect.name {
        return Err(StateError::Mismatch(format!("it was issued for {} of {:?}", p.method, p.name)));
    }
    if !same_args(&p.args, expect.args) {
        return Err(StateError::Mismatch("it was issued for other arguments".into()));
    }
    if now_ms > p.expires_ms {
        return Err(StateError::Expired);
    }
    Ok(take(p))
}

/// How `requestState` is sealed: keys, lifetime and audience.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestStateOptions {
    /// The keys; `None`: [`StateKeys::process_random`].
    pub keys: Option<StateKeys>,
    /// Why the keys configured could not be used (a malformed `HYPERMCP_REQUEST_STATE_KEYS`):
    /// the requests that need them are answered with it, rather than with states no other
    /// replica opens.
    pub keys_error: Option<String>,
    /// How long a state stays valid (default 10 minutes: a person may be answering).
    pub ttl: Duration,
    /// The audience states are bound to; `None`: the server's name.
    pub audience: Option<String>,
    /// Most rounds one request may take (default 16); one more is refused.
    pub max_rounds: u32,
}

impl Default for RequestStateOptions {
    fn default() -> Self {
        RequestStateOptions {
            keys: None,
            keys_error: None,
            ttl: Duration::from_secs(600),
            audience: None,
            max_rounds: 16,
        }
    }
}

impl RequestStateOptions {
    /// The keys in force.
    pub fn keys(&self) -> Result<StateKeys, String> {
        match (&self.keys_error, &self.keys) {
            (Some(e), _) => Err(e.clone()),
            (None, Some(k)) => Ok(k.clone()),
            (None, None) => Ok(StateKeys::process_random()),
        }
    }

    /// These options with the keys of `HYPERMCP_REQUEST_STATE_KEYS`, whose value is `env`
    /// (kept when keys are set already).
    pub fn with_env_keys(mut self, env: Option<&str>) -> Self {
        if self.keys.is_none() {
            match StateKeys::from_env_value(env) {
                Ok(k) => self.keys = k,
                Err(e) => self.keys_error = Some(e),
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_come_from_the_value_given_never_from_the_environment() {
        let key = crate::util::base64_encode(&[5u8; 32]);
        let given = RequestStateOptions::default().with_env_keys(Some(&key));
        assert_eq!(given.keys().unwrap(), StateKeys::new(&[[5u8; 32]]).unwrap());
        let bad = RequestStateOptions::default().with_env_keys(Some("not base64"));
        assert!(bad.keys().unwrap_err().contains(KEYS_ENV));
        let none = RequestStateOptions::default().with_env_keys(None);
        assert_eq!(none.keys().unwrap(), StateKeys::process_random(), "one random key a process");
        let set = RequestStateOptions { keys: Some(StateKeys::new(&[[1u8; 32]]).unwrap()), ..Default::default() };
        assert_eq!(set.clone().with_env_keys(Some("not base64")), set, "keys set are kept");
    }

    fn payload() -> StatePayload {
        StatePayload {
            method: "tools/call".into(),
            name: "book".into(),
            args: args_digest(&json!({"city": "Paris"})),
            audience: "srv".into(),
            expires_ms: 10_000,
            answers: json!({"when": {"action": "accept", "content": {"d": "monday"}}}).as_object().cloned().unwrap(),
            user: Some("step-2".into()),
            round: 1,
        }
    }

    /// The scan of an opened payload reads what serde reads, and refuses what serde refuses.
    #[test]
    fn opened_scan_is_serdes() {
        let sealed = serde_json::to_string(&payload()).unwrap();
        let texts = [
            sealed.as_str(),
            r#"{"m":"tools/call","n":"ask","a":"{}","aud":"s","exp":5,"r":1}"#,
            r#"{"m":"tools/call","n":"a\"sk","a":"{\"k\":1}","aud":"s","exp":5,"u":null,"r":0,"other":[1,{"x":"}"}]}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":5}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s"}"#,
            r#"{"m":"x","m":"y","n":"y","a":"z","aud":"s","exp":5}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":-5}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":5.5}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":5,"ans":null}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":5,"r":null}"#,
            r#"{"m":"x","n":7,"a":"z","aud":"s","exp":5}"#,
            r#"{"\u006d":"x","n":"y","a":"z","aud":"s","exp":5}"#,
            r#"{"m":"x","n":"y","a":"z","aud":"s","exp":5,"u":"state","ans":{"k":{"action":"accept"}}}"#,
            r#"[1]"#,
        ];
        for text in texts {
            let ours = Opened::scan(text);
            let serde: Result<Opened<'_>, _> = serde_json::from_str(text);
            match (ours, serde) {
                (Some(a), Ok(b)) => {
                    assert_eq!(
                        (&a.method, &a.name, &a.args, &a.audience, a.expires_ms, &a.answers, &a.user, a.round),
                        (&b.method, &b.name, &b.args, &b.audience, b.expires_ms, &b.answers, &b.user, b.round),
                        "{text}"
                    );
                }
                // Left to serde, which reads it (or refuses it) itself.
                (None, _) => {}
                (Some(_), Err(e)) => panic!("{text}: the scan took what serde refuses ({e})"),
            }
            let read = Opened::read(text.as_bytes());
            assert_eq!(read.is_ok(), serde_json::from_str::<Opened<'_>>(text).is_ok(), "{text}");
        }
        // What seal writes is taken by the scan, its strings borrowed.
        let p = Opened::scan(&sealed).expect("scanned");
        assert!(matches!(p.name, Cow::Borrowed("book")) && p.round == 1 && p.user.as_deref() == Some("step-2"));
        assert!(Opened::scan(texts[2]).is_some_and(|p| p.name == "a\"sk" && p.args == "{\"k\":1}"));
    }

    fn expect() -> StatePayload {
        StatePayload { answers: Map::new(), user: None, round: 0, expires_ms: 0, ..payload() }
    }

    #[test]
    fn a_sealed_state_opens_to_what_was_sealed() {
        let keys = StateKeys::new(&[[7; 32]]).unwrap();
        let s = seal(&keys, &payload()).unwrap();
        assert!(s.starts_with(PREFIX));
        assert!(!s.contains("monday"), "the answers are encrypted, not only signed");
        assert_eq!(open(&keys, &s, &expect(), 5_000).unwrap(), payload());
        // Two seals of the same payload differ (fresh nonce).
        assert_ne!(s, seal(&keys, &payload()).unwrap());
    }

    #[test]
    fn tampering_is_refused() {
        let keys = StateKeys::new(&[[7; 32]]).unwrap();
        let s = seal(&keys, &payload()).unwrap();
        let raw = crate::util::base64_decode(&s[PREFIX.len()..]).unwrap();
        for i in [KID_LEN + 1, KID_LEN + NONCE_LEN + 3, raw.len() - 1] {
            let mut bad = raw.clone();
            bad[i] ^= 1;
            let t = format!("{PREFIX}{}", crate::util::base64_encode(&bad));
            assert_eq!(open(&keys, &t, &expect(), 5_000), Err(StateError::Tampered), "byte {i}");
        }
        assert_eq!(open(&keys, &format!("{s}-TAMPERED"), &expect(), 5_000), Err(StateError::Malformed));
        assert_eq!(open(&keys, "hello", &expect(), 5_000), Err(StateError::Malformed));
        assert_eq!(open(&keys, &s[..40], &expect(), 5_000), Err(StateError::Malformed));
    }

    #[test]
    fn expiry_binding_and_foreign_keys() {
        let keys = StateKeys::new(&[[7; 32]]).unwrap();
        let s = seal(&keys, &payload()).unwrap();
        assert_eq!(open(&keys, &s, &expect(), 10_001), Err(StateError::Expired));
        let other_tool = StatePayload { name: "cancel".into(), ..expect() };
        assert!(matches!(open(&keys, &s, &other_tool, 5_000), Err(StateError::Mismatch(_))));
        let other_args = StatePayload { args: args_digest(&json!({"city": "Rome"})), ..expect() };
        assert!(matches!(open(&keys, &s, &other_args, 5_000), Err(StateError::Mismatch(_))));
        let other_server = StatePayload { audience: "other".into(), ..expect() };
        assert!(matches!(open(&keys, &s, &other_server, 5_000), Err(StateError::Mismatch(_))));
        let other_method = StatePayload { method: "prompts/get".into(), ..expect() };
        assert!(matches!(open(&keys, &s, &other_method, 5_000), Err(StateError::Mismatch(_))));
        let stranger = StateKeys::new(&[[9; 32]]).unwrap();
        assert_eq!(open(&stranger, &s, &expect(), 5_000), Err(StateError::UnknownKey));
    }

    /// A state sealed the way before `hmrs2.` (XChaCha20-Poly1305, a 24-byte nonce).
    fn seal_v1(keys: &StateKeys, payload: &StatePayload) -> String {
        let key = keys.sealing();
        let mut plain = serde_json::to_vec(payload).unwrap();
        let nonce = [5u8; NONCE_LEN_V1];
        let tag =
            key.v1.encrypt_in_place_detached(XNonce::from_slice(&nonce), &aad(PREFIX_V1, &key.id), &mut plain).unwrap();
        let raw = [&key.id[..], &nonce, &plain, &tag].concat();
        format!("{PREFIX_V1}{}", crate::util::base64_encode(&raw))
    }

    #[test]
    fn states_of_the_format_before_still_open() {
        let keys = StateKeys::new(&[[7; 32]]).unwrap();
        let v1 = seal_v1(&keys, &payload());
        assert_eq!(open(&keys, &v1, &expect(), 5_000).unwrap(), payload());
        // Checked as strictly: binding, expiry, foreign keys, tampering, and the format's
        // name is authenticated (a v1 body under the v2 prefix does not open).
        assert_eq!(open(&keys, &v1, &expect(), 10_001), Err(StateError::Expired));
        let other_tool = StatePayload { name: "cancel".into(), ..expect() };
        assert!(matches!(open(&keys, &v1, &other_tool, 5_000), Err(StateError::Mismatch(_))));
        let stranger = StateKeys::new(&[[9; 32]]).unwrap();
        assert_eq!(open(&stranger, &v1, &expect(), 5_000), Err(StateError::UnknownKey));
        let mut raw = crate::util::base64_decode(&v1[PREFIX_V1.len()..]).unwrap();
        let last = raw.len() - 1;
        raw[last] ^= 1;
        let tampered = format!("{PREFIX_V1}{}", crate::util::base64_encode(&raw));
        assert_eq!(open(&keys, &tampered, &expect(), 5_000), Err(StateError::Tampered));
        let renamed = format!("{PREFIX}{}", &v1[PREFIX_V1.len()..]);
        assert_eq!(open(&keys, &renamed, &expect(), 5_000), Err(StateError::Tampered));
        // New states are always the current format.
        assert!(seal(&keys, &payload()).unwrap().starts_with("hmrs2."));
    }

    #[test]
    fn keys_rotate() {
        let old = StateKeys::new(&[[1; 32]]).unwrap();
        let rotated = StateKeys::new(&[[2; 32], [1; 32]]).unwrap();
        let by_old = seal(&old, &payload()).unwrap();
        let by_new = seal(&rotated, &payload()).unwrap();
        // The new list opens both; the old list does not know the new key.
        assert!(open(&rotated, &by_old, &expect(), 0).is_ok());
        assert!(open(&rotated, &by_new, &expect(), 0).is_ok());
        assert_eq!(open(&old, &by_new, &expect(), 0), Err(StateError::UnknownKey));
    }

    #[test]
    fn keys_from_text() {
        let k = crate::util::base64_encode(&[3; 32]);
        assert!(StateKeys::from_base64(&[k.as_str()], "test").is_ok());
        let e = StateKeys::from_base64(&["AAAA"], "HYPERMCP_REQUEST_STATE_KEYS").unwrap_err();
        assert!(e.contains("3 bytes") && e.contains("HYPERMCP_REQUEST_STATE_KEYS"), "{e}");
        assert!(StateKeys::from_base64(&["not base64!"], "x").unwrap_err().contains("not valid base64"));
        assert!(StateKeys::from_base64::<&str>(&[], "x").is_err());
        assert_eq!(args_digest(&json!({"b": 1, "a": 2})), args_digest(&json!({"a": 2, "b": 1})));
    }

    #[test]
    fn short_arguments_are_bound_by_their_json() {
        assert_eq!(args_binding(&json!({})), "={}");
        assert_eq!(args_binding(&json!({"b": 1, "a": [2, {"d": 3, "c": "x"}]})), r#"={"a":[2,{"c":"x","d":3}],"b":1}"#);
        assert_eq!(args_binding(&json!({"b": 1, "a": 2})), args_binding(&json!({"a": 2, "b": 1})));
        // Past a digest's length: the digest.
        let long = json!({"text": "a string long enough to make the JSON longer than a digest"});
        assert_eq!(args_binding(&long), args_digest(&long));
        assert!(!args_binding(&long).starts_with('='));
        // A state sealed when short arguments were bound by their digest still opens; a
        // binding never matches another arguments' one in either form.
        let short = json!({"city": "Paris"});
        let (now, was) = (args_binding(&short), args_digest(&short));
        assert!(same_args(&now, &now) && same_args(&was, &now));
        assert!(!same_args(&now, &args_binding(&json!({"city": "Rome"}))));
        assert!(!same_args(&was, &args_binding(&json!({"city": "Rome"}))));
        assert!(!same_args(&args_digest(&long), &now) && !same_args(&now, &args_digest(&long)));
        let keys = StateKeys::new(&[[7; 32]]).unwrap();
        let old = seal(&keys, &StatePayload { args: was, ..payload() }).unwrap();
        assert!(open(&keys, &old, &StatePayload { args: now.clone(), ..expect() }, 5_000).is_ok());
        let new = seal(&keys, &StatePayload { args: now, ..payload() }).unwrap();
        let rome = StatePayload { args: args_binding(&json!({"city": "Rome"})), ..expect() };
        assert!(matches!(open(&keys, &new, &rome, 5_000), Err(StateError::Mismatch(_))));
    }
}
