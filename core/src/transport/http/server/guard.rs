//! The OAuth 2.1 resource server in front of the MCP endpoints (the `auth` option): the
//! Protected Resource Metadata at its well-known URLs, and the token every request to the
//! MCP endpoints must carry (`Authorization: Bearer …`), verified before anything else
//! happens. A request without one, or with one that does not verify, gets 401 with
//! `WWW-Authenticate: Bearer resource_metadata=…`; one without the required scopes gets 403
//! `insufficient_scope`.

use super::reply::{plain, Reply};
use super::stream::HttpBody;
use crate::auth::client::url::Url;
use crate::auth::server::{
    resource_metadata, resource_metadata_url, www_authenticate, AuthInfo, ResourceServerOptions, TokenVerifier,
};
use crate::transport::http::client::HttpFetch;
use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct Guard {
    verifier: Result<Arc<dyn TokenVerifier>, String>,
    required: Vec<String>,
    metadata: Bytes,
    metadata_url: String,
    /// The paths the metadata is served at: the path-inserted one, and the root one.
    metadata_paths: Vec<String>,
}

impl Guard {
    pub(crate) fn new(o: &ResourceServerOptions) -> Guard {
        let fetch = Arc::new(HttpFetch::new(o.ca_file.clone(), Duration::from_secs(10)));
        let verifier = o.verifier(fetch);
        let metadata_url = resource_metadata_url(&o.resource).unwrap_or_default();
        let mut metadata_paths = Vec::new();
        if let Ok(u) = Url::parse(&metadata_url) {
            metadata_paths.push(u.path.clone());
            metadata_paths.push("/.well-known/oauth-protected-resource".to_string());
        }
        let doc = resource_metadata(&o.resource, &o.authorization_servers, o.scopes_supported.as_deref());
        Guard {
            verifier,
            required: o.required_scopes.clone(),
            metadata: Bytes::from(doc.to_string()),
            metadata_url,
            metadata_paths,
        }
    }

    /// Whether `path` is where the metadata is served.
    pub(crate) fn serves_metadata(&self, path: &str) -> bool {
        self.metadata_paths.iter().any(|p| p == path)
    }

    /// The Protected Resource Metadata document.
    pub(crate) fn metadata_reply(&self) -> Reply {
        let mut r = Response::new(HttpBody::Full(Some(self.metadata.clone())));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
        r
    }

    fn refusal(&self, status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]) -> Reply {
        let mut r = plain(status, if status == StatusCode::FORBIDDEN { "Forbidden" } else { "Unauthorized" });
        if let Ok(v) = HeaderValue::from_str(&www_authenticate(&self.metadata_url, scopes, error)) {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        r
    }

    /// The identity of the token in a request's `Authorization` header, or the refusal to
    /// answer with.
    pub(crate) async fn admit(&self, authorization: Option<String>) -> Result<AuthInfo, Reply> {
        let verifier = match &self.verifier {
            Ok(v) => v,
            Err(e) => {
                eprintln!("hypermcp: the auth option cannot verify tokens: {e}");
                return Err(plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the server's token verification is misconfigured",
                ));
            }
        };
        let token = authorization
            .as_deref()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim())
            .filter(|t| !t.is_empty());
        let Some(token) = token else {
            return Err(self.refusal(StatusCode::UNAUTHORIZED, None, &self.required));
        };
        let info = match verifier.verify(token).await {
            Ok(i) => i,
            Err(why) => {
                return Err(self.refusal(StatusCode::UNAUTHORIZED, Some(("invalid_token", &why)), &self.required))
            }
        };
        if !info.has_scopes(&self.required) {
            let why = format!("this server needs the scopes {}", self.required.join(" "));
            return Err(self.refusal(StatusCode::FORBIDDEN, Some(("insufficient_scope", &why)), &self.required));
        }
        Ok(info)
    }
}
