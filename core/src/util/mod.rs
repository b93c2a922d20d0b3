//! Small self-contained helpers: base64 (for blobs and images), pagination cursors, and
//! durations read in the unit of the host language that sent them ([`units`]).

pub(crate) mod units;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub(crate) fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(ALPHABET[(n >> 18) as usize & 63] as char);
        out.push(ALPHABET[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 { ALPHABET[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if chunk.len() > 2 { ALPHABET[n as usize & 63] as char } else { '=' });
    }
    out
}

/// Base64url without padding (RFC 4648 §5), as JOSE and PKCE write it.
pub(crate) fn base64url_encode(data: &[u8]) -> String {
    let mut s = base64_encode(data);
    while s.ends_with('=') {
        s.pop();
    }
    s.chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect()
}

/// Decodes standard base64 (padding optional); `None` on any invalid character.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
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
    base64_decode(text)
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
    fn cursors() {
        assert_eq!(decode_cursor(&encode_cursor(150)), Some(150));
        assert_eq!(decode_cursor("garbage"), None);
        assert_eq!(decode_cursor(""), None);
    }
}
