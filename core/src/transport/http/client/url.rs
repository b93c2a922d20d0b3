//! Where requests go: [`Target`], one `http://` URL split for connecting and for the
//! request line, and the resolution of the legacy transport's endpoint against it.

use http::header::HeaderValue;
use http::Uri;

/// Where requests go: one `http://` URL, split for connecting and for the request line.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) url: String,
    /// `https://`: the connection is TLS.
    pub(super) tls: bool,
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) authority: HeaderValue,
    pub(super) path: String,
}

impl Target {
    pub(super) fn parse(url: &str) -> std::result::Result<Target, String> {
        let uri: Uri = url.trim().parse().map_err(|e| format!("invalid URL {url:?}: {e}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => {
                return Err(format!("unsupported URL scheme {other:?} in {url} (expected http:// or https://)"))
            }
            None => return Err(format!("{url:?} is not an absolute http:// or https:// URL")),
        };
        let Some(auth) = uri.authority() else { return Err(format!("{url:?} has no host")) };
        let host = auth.host();
        if host.is_empty() {
            return Err(format!("{url:?} has no host"));
        }
        let port = auth.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let authority = match auth.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let authority = HeaderValue::from_str(&authority).map_err(|_| format!("invalid host in {url:?}"))?;
        let path = match uri.path_and_query().map(|p| p.as_str()) {
            Some(p) if !p.is_empty() => p.to_string(),
            _ => "/".to_string(),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
        Ok(Target { url: url.trim().to_string(), tls, host, port, authority, path })
    }

    fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }

    /// Resolves a reference (an absolute URL, or a path, relative or absolute) against this
    /// URL. Only the same origin is accepted: the custom headers often carry credentials.
    pub(super) fn resolve(&self, reference: &str) -> std::result::Result<Target, String> {
        let r = reference.trim();
        let target = if r.contains("://") {
            Target::parse(r)?
        } else if let Some(rest) = r.strip_prefix("//") {
            Target::parse(&format!("{}://{rest}", self.scheme()))?
        } else {
            let base_path = self.path.split(['?', '#']).next().unwrap_or("/");
            let path = if r.starts_with('/') {
                r.to_string()
            } else if r.starts_with('?') {
                format!("{base_path}{r}")
            } else {
                let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
                let dir = if dir.is_empty() { "/" } else { dir };
                format!("{dir}{r}")
            };
            let path = path.split('#').next().unwrap_or_default().to_string();
            http::uri::PathAndQuery::try_from(path.as_str()).map_err(|_| format!("invalid endpoint {r:?}"))?;
            let authority = self.authority.to_str().unwrap_or_default();
            Target { url: format!("{}://{authority}{path}", self.scheme()), path, ..self.clone() }
        };
        if !target.host.eq_ignore_ascii_case(&self.host) || target.port != self.port || target.tls != self.tls {
            return Err(format!(
                "the endpoint {r:?} is on another origin than {}; refusing to send messages there",
                self.url
            ));
        }
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("127.0.0.1", 8080, "/mcp"));
        assert_eq!(t.authority, "127.0.0.1:8080");
        let t = Target::parse("http://localhost").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("localhost", 80, "/"));
        assert_eq!(t.authority, "localhost");
        let t = Target::parse("http://[::1]:9000/a/b?x=1").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("::1", 9000, "/a/b?x=1"));
        assert_eq!(t.authority, "[::1]:9000");
        let t = Target::parse("https://example.com/mcp").unwrap();
        assert!(t.tls && t.port == 443 && t.host == "example.com");
        assert!(!Target::parse("http://example.com/mcp").unwrap().tls);
        let e = Target::parse("gopher://example.com/mcp").unwrap_err();
        assert!(e.contains("unsupported URL scheme"), "{e}");
        assert!(Target::parse("ftp://x/").is_err());
        assert!(Target::parse("/relative").is_err());
        assert!(Target::parse("not a url").is_err());
    }

    #[test]
    fn endpoint_resolution() {
        let base = Target::parse("http://127.0.0.1:8000/sse").unwrap();
        let r = base.resolve("/messages/?session_id=ab12").unwrap();
        assert_eq!(r.path, "/messages/?session_id=ab12");
        assert_eq!(r.url, "http://127.0.0.1:8000/messages/?session_id=ab12");
        let r = base.resolve("message?sessionId=1").unwrap();
        assert_eq!(r.path, "/message?sessionId=1");
        let base2 = Target::parse("http://127.0.0.1:8000/app/sse?x=1").unwrap();
        assert_eq!(base2.resolve("post").unwrap().path, "/app/post");
        assert_eq!(base2.resolve("?s=2").unwrap().path, "/app/sse?s=2");
        let r = base.resolve("http://127.0.0.1:8000/m").unwrap();
        assert_eq!(r.path, "/m");
        assert!(base.resolve("http://evil.example:8000/m").is_err());
        assert!(base.resolve("//127.0.0.1:9999/m").is_err());
        assert!(base.resolve("https://127.0.0.1:8000/m").is_err());
    }
}
