//! The URLs of the flows: parsing, origins, the well-known locations of RFC 9728 and
//! RFC 8414, the canonical resource URI, and query strings.

use http::Uri;

/// An absolute `http(s)://` URL split into what the flows use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https` (lower-case).
    pub scheme: String,
    /// The host, lower-case (IPv6 in brackets).
    pub host: String,
    /// The port when it is not the scheme's default.
    pub port: Option<u16>,
    /// The path (`""` when there is none).
    pub path: String,
    /// The query, without `?`.
    pub query: Option<String>,
}

impl Url {
    /// Parses an absolute `http://` or `https://` URL (a fragment is dropped).
    pub fn parse(s: &str) -> Result<Url, String> {
        let s = s.trim();
        let no_frag = s.split('#').next().unwrap_or_default();
        let uri: Uri = no_frag.parse().map_err(|e| format!("invalid URL {s:?}: {e}"))?;
        let scheme = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            Some("http") => "http".to_string(),
            Some("https") => "https".to_string(),
            _ => return Err(format!("{s:?} is not an absolute http:// or https:// URL")),
        };
        let auth = uri.authority().ok_or_else(|| format!("{s:?} has no host"))?;
        if auth.host().is_empty() {
            return Err(format!("{s:?} has no host"));
        }
        let default = if scheme == "https" { 443 } else { 80 };
        let port = auth.port_u16().filter(|p| *p != default);
        let path = if has_path(no_frag) { uri.path().to_string() } else { String::new() };
        Ok(Url { scheme, host: auth.host().to_ascii_lowercase(), port, path, query: uri.query().map(str::to_string) })
    }

    /// `scheme://host[:port]`.
    pub fn origin(&self) -> String {
        match self.port {
            Some(p) => format!("{}://{}:{p}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// The whole URL.
    pub fn as_string(&self) -> String {
        let mut s = self.origin() + &self.path;
        if let Some(q) = &self.query {
            s.push('?');
            s.push_str(q);
        }
        s
    }

    /// Whether the host is a loopback one (`localhost`, `127.0.0.0/8`, `::1`).
    pub fn is_loopback(&self) -> bool {
        is_loopback_host(&self.host)
    }

    /// The path without a trailing slash (`""` for the root).
    pub fn trimmed_path(&self) -> &str {
        self.path.trim_end_matches('/')
    }

    /// The URL with `pairs` added to its query.
    pub fn with_query(&self, pairs: &[(&str, &str)]) -> String {
        let mut ser = form_urlencoded::Serializer::new(self.query.clone().unwrap_or_default());
        for (k, v) in pairs {
            ser.append_pair(k, v);
        }
        let q = ser.finish();
        let mut s = self.origin() + &self.path;
        if !q.is_empty() {
            s.push('?');
            s.push_str(&q);
        }
        s
    }

    /// The decoded query pairs.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        form_urlencoded::parse(self.query.as_deref().unwrap_or_default().as_bytes()).into_owned().collect()
    }

    /// Resolves a `Location` header (absolute, or a path on this origin).
    pub fn join(&self, reference: &str) -> Result<Url, String> {
        let r = reference.trim();
        if r.contains("://") {
            return Url::parse(r);
        }
        if let Some(rest) = r.strip_prefix("//") {
            return Url::parse(&format!("{}://{rest}", self.scheme));
        }
        if r.starts_with('/') {
            return Url::parse(&(self.origin() + r));
        }
        let dir = &self.path[..self.path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        Url::parse(&format!("{}{dir}{r}", self.origin()))
    }
}

/// Whether a host (IPv6 with or without brackets) is a loopback one: `localhost`,
/// `*.localhost`, `127.0.0.0/8`, `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.to_ascii_lowercase().ends_with(".localhost")
        || h.parse::<std::net::IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false)
}

/// Whether the text after `scheme://authority` holds a path (a `/`).
fn has_path(s: &str) -> bool {
    let after = s.split_once("://").map(|(_, r)| r).unwrap_or(s);
    after.find(['/', '?']).is_some_and(|i| after.as_bytes()[i] == b'/')
}

/// The canonical URI of an MCP server (RFC 8707 §2 as the MCP spec defines it): scheme and
/// host lower-case, no default port, no query or fragment, no trailing slash.
pub fn canonical_resource(server_url: &str) -> Result<String, String> {
    let u = Url::parse(server_url)?;
    Ok(u.origin() + u.trimmed_path())
}

/// Whether the resource a Protected Resource Metadata document names covers the server URL
/// (same origin; the server's path is the resource's path or below it).
pub fn resource_covers(resource: &str, server_url: &str) -> bool {
    let (Ok(r), Ok(s)) = (Url::parse(resource), Url::parse(server_url)) else { return false };
    if r.origin() != s.origin() {
        return false;
    }
    let rp = r.trimmed_path();
    let sp = s.trimmed_path();
    sp == rp || rp.is_empty() || sp.strip_prefix(rp).is_some_and(|rest| rest.starts_with('/'))
}

/// Where to look for Protected Resource Metadata when no `resource_metadata` was given
/// (RFC 9728 §3.1; the MCP spec's order): the path-inserted location, then the root one.
pub fn resource_metadata_urls(server_url: &str) -> Result<Vec<String>, String> {
    let u = Url::parse(server_url)?;
    let root = format!("{}/.well-known/oauth-protected-resource", u.origin());
    let path = u.trimmed_path();
    Ok(if path.is_empty() { vec![root] } else { vec![format!("{root}{path}"), root] })
}

/// Where to look for the metadata of the authorization server `issuer` (RFC 8414 §3.1 and
/// OpenID Connect Discovery, in the MCP spec's order).
pub fn authorization_server_metadata_urls(issuer: &str) -> Result<Vec<String>, String> {
    let u = Url::parse(issuer)?;
    let o = u.origin();
    let path = u.trimmed_path();
    Ok(if path.is_empty() {
        vec![format!("{o}/.well-known/oauth-authorization-server"), format!("{o}/.well-known/openid-configuration")]
    } else {
        vec![
            format!("{o}/.well-known/oauth-authorization-server{path}"),
            format!("{o}/.well-known/openid-configuration{path}"),
            format!("{o}{path}/.well-known/openid-configuration"),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_origin() {
        let u = Url::parse("HTTPS://Example.COM:443/a/b?x=1#frag").unwrap();
        assert_eq!(u.origin(), "https://example.com");
        assert_eq!(u.path, "/a/b");
        assert_eq!(u.query.as_deref(), Some("x=1"));
        let u = Url::parse("http://localhost:3000").unwrap();
        assert_eq!((u.origin().as_str(), u.path.as_str()), ("http://localhost:3000", ""));
        assert_eq!(Url::parse("http://localhost:3000/").unwrap().path, "/");
        assert!(u.is_loopback() && Url::parse("http://127.0.0.9/").unwrap().is_loopback());
        assert!(Url::parse("http://[::1]:8/x").unwrap().is_loopback());
        assert!(!Url::parse("https://example.com/").unwrap().is_loopback());
        assert!(Url::parse("ftp://x/").is_err() && Url::parse("/rel").is_err());
    }

    #[test]
    fn well_known_locations() {
        assert_eq!(
            resource_metadata_urls("http://h:1/mcp").unwrap(),
            vec![
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h:1/").unwrap(),
            vec!["http://h:1/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com/tenant1").unwrap(),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(authorization_server_metadata_urls("https://a.example").unwrap().len(), 2);
    }

    #[test]
    fn resources() {
        assert_eq!(canonical_resource("HTTP://Host:80/mcp/?q=1").unwrap(), "http://host/mcp");
        assert!(resource_covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(resource_covers("http://h:1", "http://h:1/mcp"));
        assert!(resource_covers("http://h:1/", "http://h:1/mcp"));
        assert!(!resource_covers("http://h:1/mc", "http://h:1/mcp"));
        assert!(!resource_covers("https://evil.example.com/mcp", "http://h:1/mcp"));
        assert!(!resource_covers("http://h:1/other", "http://h:1/mcp"));
    }

    #[test]
    fn queries_and_joins() {
        let u = Url::parse("http://h/cb?a=1").unwrap();
        assert_eq!(
            u.with_query(&[("code", "x y"), ("iss", "http://i/")]),
            "http://h/cb?a=1&code=x+y&iss=http%3A%2F%2Fi%2F"
        );
        let r = Url::parse("http://h/cb?code=abc&state=s%20t").unwrap();
        assert_eq!(r.query_pairs(), vec![("code".into(), "abc".into()), ("state".into(), "s t".into())]);
        assert_eq!(u.join("/login").unwrap().as_string(), "http://h/login");
        assert_eq!(u.join("https://o/x").unwrap().as_string(), "https://o/x");
        assert_eq!(Url::parse("http://h/a/b").unwrap().join("c").unwrap().as_string(), "http://h/a/c");
    }
}
