//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3): `Bearer
//! resource_metadata="...", scope="a b", error="insufficient_scope"`, possibly several
//! challenges in one header or several headers.

/// One challenge: its scheme and its parameters (names lower-cased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    /// The auth scheme as sent (`Bearer`, `DPoP`, ...).
    pub scheme: String,
    /// `name=value` parameters in order; a `token68` form is kept under the empty name.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of a parameter (names compare case-insensitively).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The `scope` parameter split on spaces (empty when absent).
    pub fn scopes(&self) -> Vec<String> {
        self.param("scope").map(split_scopes).unwrap_or_default()
    }

    /// Whether the scheme is `name` (case-insensitively).
    pub fn is(&self, name: &str) -> bool {
        self.scheme.eq_ignore_ascii_case(name)
    }
}

/// Splits a space-separated scope string.
pub fn split_scopes(s: &str) -> Vec<String> {
    s.split_ascii_whitespace().map(str::to_string).collect()
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }
    fn skip_ws_commas(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n' | b',') {
            self.i += 1;
        }
    }
    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.i < self.s.len() && is_tchar(self.s[self.i]) {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn quoted(&mut self) -> String {
        // At the opening quote.
        self.i += 1;
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(n) = self.peek() {
                        out.push(n);
                        self.i += 1;
                    }
                }
                _ => out.push(c),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Parses the challenges of `WWW-Authenticate` header values (each value may hold several).
/// Malformed parts are skipped; what can be read is kept.
pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Challenge> {
    let mut out = Vec::new();
    for value in values {
        let mut lx = Lexer { s: value.as_bytes(), i: 0 };
        let mut current: Option<Challenge> = None;
        loop {
            lx.skip_ws_commas();
            if lx.peek().is_none() {
                break;
            }
            let Some(word) = lx.token() else {
                // Not a token: skip one byte and go on.
                lx.i += 1;
                continue;
            };
            lx.skip_ws();
            if lx.peek() == Some(b'=') && current.is_some() {
                // A parameter of the current challenge (or a token68 ending in '=').
                lx.i += 1;
                lx.skip_ws();
                let value = match lx.peek() {
                    Some(b'"') => lx.quoted(),
                    _ => lx.token().unwrap_or_default(),
                };
                if let Some(c) = current.as_mut() {
                    c.params.push((word.to_ascii_lowercase(), value));
                }
                continue;
            }
            // A new challenge: `scheme [token68 | params]`.
            if let Some(c) = current.take() {
                out.push(c);
            }
            let mut c = Challenge { scheme: word, params: Vec::new() };
            // A token68 right after the scheme (`Negotiate abc==`), unless it is the name of
            // the first parameter (`Bearer scope="a"`).
            let save = lx.i;
            if lx.token().is_some() {
                let mut k = lx.i;
                while matches!(lx.s.get(k), Some(b' ' | b'\t')) {
                    k += 1;
                }
                let eqs = lx.s[k..].iter().take_while(|b| **b == b'=').count();
                let after = lx.s[k + eqs..].iter().find(|b| !matches!(b, b' ' | b'\t'));
                if eqs == 1 && !matches!(after, None | Some(b',')) {
                    lx.i = save;
                } else {
                    let t = String::from_utf8_lossy(&lx.s[save..lx.i]).into_owned();
                    c.params.push((String::new(), t + &"=".repeat(eqs)));
                    lx.i = k + eqs;
                }
            }
            current = Some(c);
        }
        if let Some(c) = current.take() {
            out.push(c);
        }
    }
    out
}

/// Quotes a parameter value for a challenge (`"` and `\` escaped).
pub fn quote(value: &str) -> String {
    let mut s = String::with_capacity(value.len() + 2);
    s.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_with_params() {
        let c = parse([
            r#"Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#,
        ]);
        assert_eq!(c.len(), 1);
        assert!(c[0].is("bearer"));
        assert_eq!(c[0].param("resource_metadata"), Some("https://a.example/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c[0].scopes(), vec!["files:read", "files:write"]);
    }

    #[test]
    fn several_challenges_and_escapes() {
        let c = parse([
            r#"DPoP algs="ES256 RS256", error="use_dpop_nonce", Bearer realm="x\"y", error=insufficient_scope"#,
            "Basic",
        ]);
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(c[0].is("DPoP"));
        assert_eq!(c[0].param("algs"), Some("ES256 RS256"));
        assert_eq!(c[0].param("ERROR"), Some("use_dpop_nonce"));
        assert_eq!(c[1].param("realm"), Some("x\"y"));
        assert_eq!(c[1].param("error"), Some("insufficient_scope"));
        assert!(c[2].is("basic") && c[2].params.is_empty());
    }

    #[test]
    fn token68_and_garbage() {
        let c = parse(["Negotiate abc123==", "Bearer", "", ",,, Bearer scope=\"a\""]);
        assert_eq!(c[0].param(""), Some("abc123=="));
        assert!(c[1].is("Bearer"));
        assert_eq!(c[2].scopes(), vec!["a"]);
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
    }
}
