//! Small self-contained helpers: the wall clock, base64 (for blobs and images), pagination
//! cursors, and durations read in the unit of the host language that sent them ([`units`]).

pub(crate) mod units;

/// Milliseconds since the Unix epoch: the wall clock of what crosses processes (a sealed
/// `requestState`'s expiry, a task's timestamps), where the monotonic clock that drives the
/// engine's timers means nothing to another replica.
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::Engine;

/// Decoding that takes padding or its absence, and stray bits after the last byte.
const fn lenient(alphabet: &'static alphabet::Alphabet) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}
const LENIENT_STANDARD: GeneralPurpose = lenient(&alphabet::STANDARD);
const LENIENT_URL: GeneralPurpose = lenient(&alphabet::URL_SAFE);

/// Standard base64 with padding.
pub(crate) fn base64_encode(data: &[u8]) -> String {
    STANDARD.encode(data)
}

/// Standard base64 with padding, appended to `out`.
pub(crate) fn base64_encode_into(data: &[u8], out: &mut String) {
    STANDARD.encode_string(data, out)
}

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE write it.
pub(crate) fn base64url_encode(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// Decodes base64 as peers write it: either alphabet (standard or URL-safe), padded or not;
/// `None` on any character of neither. Whatever the `base64` crate refuses (`=` inside, a
/// length no encoder makes, both alphabets at once) is read bit by bit, as this function
/// always has.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    LENIENT_STANDARD.decode(text).or_else(|_| LENIENT_URL.decode(text)).ok().or_else(|| base64_decode_loose(text))
}

fn base64_decode_loose(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Decodes standard base64 strictly: the standard alphabet, padded to a multiple of four,
/// `=` only at the end (as header values and sealed states must be). `None` otherwise.
pub(crate) fn base64_decode_strict(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let pad = b.iter().rev().take_while(|c| **c == b'=').count();
    if pad > 2 || b[..b.len() - pad].iter().any(|c| !(c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')) {
        return None;
    }
    LENIENT_STANDARD.decode(text).ok()
}

/// Encodes a list offset as an opaque cursor. Stateless: any session (or replica) can
/// decode it.
pub(crate) fn encode_cursor(offset: usize) -> String {
    base64_encode(format!("hmcp:{offset}").as_bytes())
}

/// Decodes a cursor made by [`encode_cursor`].
pub(crate) fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64_decode(cursor)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix("hmcp:")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = base64_encode(s.as_bytes());
            assert_eq!(base64_decode(&e).unwrap(), s.as_bytes());
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert!(base64_decode("a*b").is_none());
    }

    #[test]
    fn base64_decoding_takes_what_peers_write() {
        let bytes = [0xfb, 0xff, 0xbf, 0x41];
        assert_eq!(base64_encode(&bytes), "+/+/QQ==");
        assert_eq!(base64url_encode(&bytes), "-_-_QQ");
        for text in ["+/+/QQ==", "+/+/QQ", "-_-_QQ==", "-_-_QQ", "+_-/QQ", "+/+/Q=Q="] {
            assert_eq!(base64_decode(text).as_deref(), Some(&bytes[..]), "{text}");
        }
        // Stray bits after the last byte are dropped, as before.
        assert_eq!(base64_decode("QR==").as_deref(), Some(&b"A"[..]));
        // Strict: the standard alphabet, padded, `=` only at the end.
        assert_eq!(base64_decode_strict("+/+/QQ==").as_deref(), Some(&bytes[..]));
        for text in ["+/+/QQ", "-_-_QQ==", "+/+/Q=Q=", "QQ=", "Q===", "a*b="] {
            assert!(base64_decode_strict(text).is_none(), "{text}");
        }
    }

    #[test]
    fn cursors() {
        assert_eq!(decode_cursor(&encode_cursor(150)), Some(150));
        assert_eq!(decode_cursor("garbage"), None);
        assert_eq!(decode_cursor(""), None);
    }
}
