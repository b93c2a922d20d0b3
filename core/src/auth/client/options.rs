//! What the app configures: [`OAuthOptions`] (readable from an object of a host language),
//! the [`AuthorizationHandler`] that sends the user to the authorization server, and the
//! grant to use.

use super::store::TokenStore;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use std::sync::Arc;

/// The authorization request the user has to complete.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    /// Where to send the user (the authorization endpoint with its query).
    pub url: String,
    /// The redirect URI the authorization server will send the user back to.
    pub redirect_uri: String,
}

/// Sends the user to the authorization server and hands back where it redirected to: the
/// redirect URI with `code`, `state` (and `iss`) in its query. The engine provides a
/// loopback-browser one and a headless one; apps with their own UI implement it.
pub trait AuthorizationHandler: Send + Sync {
    /// Completes `request`; `Err` with a message when the user could not authorize.
    fn authorize(&self, request: AuthorizationRequest) -> BoxFuture<'_, Result<String, String>>;
}

/// Which grant gets the tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum Grant {
    /// The authorization code grant with PKCE: a user authorizes (the default).
    #[default]
    #[serde(rename = "authorization_code", alias = "authorizationCode")]
    AuthorizationCode,
    /// The `client_credentials` grant: the client acts on its own behalf (the OAuth client
    /// credentials extension); needs a pre-registered client with a secret or a private key.
    #[serde(rename = "client_credentials", alias = "clientCredentials")]
    ClientCredentials,
    /// The JWT-bearer grant (RFC 7523 §2.1) with a workload's identity token as the assertion
    /// (workload identity federation); a failure is reported, never retried with another grant.
    #[serde(rename = "jwt_bearer", alias = "jwtBearer")]
    JwtBearer,
    /// Enterprise-managed authorization: the user's ID token is exchanged at the enterprise
    /// identity provider (RFC 8693) for an identity assertion grant (ID-JAG), which the MCP
    /// server's authorization server takes with the JWT-bearer grant.
    #[serde(rename = "enterprise_managed", alias = "enterpriseManaged")]
    EnterpriseManaged,
}

/// How the authorization URL reaches the user, when no handler is set in code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum AuthorizeMode {
    /// Open the system browser and receive the redirect on the loopback redirect URI.
    #[default]
    #[serde(rename = "browser")]
    Browser,
    /// Follow the authorization server's redirects without a browser (for servers that
    /// approve without user interaction: tests, trusted machine contexts).
    #[serde(rename = "headless")]
    Headless,
    /// The host language's callback (set by the Python and Node bindings).
    #[serde(rename = "host")]
    Host,
}

/// Scopes as a list or one space-separated string.
fn scope_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum S {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<S>::deserialize(d)? {
        None => None,
        Some(S::One(s)) => Some(super::super::challenge::split_scopes(&s)),
        Some(S::Many(v)) => Some(v),
    })
}

/// OAuth for the HTTP client: how it registers, which scopes it asks for, how the user is
/// sent to authorize, and where credentials are kept. Reads from an object of these fields
/// (snake_case or camelCase).
#[derive(Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OAuthOptions {
    /// A pre-registered client id (used first, at whatever authorization server the resource
    /// names).
    #[serde(alias = "clientId")]
    pub client_id: Option<String>,
    /// The pre-registered client's secret.
    #[serde(alias = "clientSecret")]
    pub client_secret: Option<String>,
    /// How the pre-registered client authenticates at the token endpoint
    /// (`client_secret_basic`, `client_secret_post`, `none`); by default what the
    /// authorization server supports.
    #[serde(alias = "tokenEndpointAuthMethod")]
    pub token_endpoint_auth_method: Option<String>,
    /// The HTTPS URL of this client's Client ID Metadata Document: used as the client id where
    /// the authorization server supports such documents.
    #[serde(alias = "clientMetadataUrl")]
    pub client_metadata_url: Option<String>,
    /// The name registered by Dynamic Client Registration.
    #[serde(alias = "clientName")]
    pub client_name: String,
    /// Where the authorization server sends the user back (a loopback `http://` URI for
    /// native apps).
    #[serde(alias = "redirectUri")]
    pub redirect_uri: String,
    /// `native` or `web` for Dynamic Client Registration (default: `native` for a loopback
    /// redirect URI, else `web`).
    #[serde(alias = "applicationType")]
    pub application_type: Option<String>,
    /// Scopes always asked for, besides those the server challenges with.
    #[serde(deserialize_with = "scope_list")]
    pub scopes: Option<Vec<String>>,
    /// Ask for a refresh token (`offline_access`) where the authorization server offers it
    /// (default true).
    #[serde(alias = "offlineAccess")]
    pub offline_access: bool,
    /// The grant (default the authorization code grant).
    pub grant: Grant,
    /// How the user is sent to authorize (ignored when a handler is set in code).
    pub authorize: AuthorizeMode,
    /// A PEM private key (PKCS#8) to authenticate at the token endpoint with `private_key_jwt`
    /// (RFC 7523 §2.2) instead of a secret.
    #[serde(alias = "privateKeyPem")]
    pub private_key_pem: Option<String>,
    /// The JWS algorithm of `private_key_pem`: `ES256` (default), `ES384`, `RS256`, `RS384`,
    /// `RS512`, `PS256`, `PS384`, `PS512` or `EdDSA`.
    #[serde(alias = "signingAlgorithm")]
    pub signing_algorithm: Option<String>,
    /// The JWT-bearer grant's assertion (a workload identity token).
    pub assertion: Option<String>,
    /// A file holding the assertion, read at each token request (rotated workload tokens, as
    /// Kubernetes projects them).
    #[serde(alias = "assertionFile")]
    pub assertion_file: Option<std::path::PathBuf>,
    /// Enterprise-managed authorization: the user's ID token from the enterprise identity
    /// provider.
    #[serde(alias = "idToken")]
    pub id_token: Option<String>,
    /// Enterprise-managed authorization: the identity provider's token endpoint (where the ID
    /// token is exchanged for an ID-JAG).
    #[serde(alias = "idpTokenEndpoint")]
    pub idp_token_endpoint: Option<String>,
    /// Enterprise-managed authorization: this client's id at the identity provider.
    #[serde(alias = "idpClientId")]
    pub idp_client_id: Option<String>,
    /// Enterprise-managed authorization: this client's secret at the identity provider.
    #[serde(alias = "idpClientSecret")]
    pub idp_client_secret: Option<String>,
    /// A JSON file keeping registrations and tokens across runs (default: memory only).
    #[serde(alias = "tokenStore")]
    pub token_store: Option<std::path::PathBuf>,
    /// Bind tokens to a DPoP key (RFC 9449) where the authorization server accepts ES256
    /// proofs (`dpop_signing_alg_values_supported`); default true.
    pub dpop: bool,
    /// Authorizations one request may trigger before it fails (a server that keeps refusing
    /// the scopes it was granted must not loop; default 3).
    #[serde(alias = "maxAuthorizations")]
    pub max_authorizations: u32,
    /// The handler that sends the user to authorize (overrides `authorize`).
    #[serde(skip)]
    pub handler: Option<Arc<dyn AuthorizationHandler>>,
    /// The credential store (overrides `token_store`).
    #[serde(skip)]
    pub store: Option<Arc<dyn TokenStore>>,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        OAuthOptions {
            client_id: None,
            client_secret: None,
            token_endpoint_auth_method: None,
            client_metadata_url: None,
            client_name: "hypermcp client".into(),
            redirect_uri: "http://127.0.0.1:8765/callback".into(),
            application_type: None,
            scopes: None,
            offline_access: true,
            grant: Grant::AuthorizationCode,
            authorize: AuthorizeMode::Browser,
            token_store: None,
            private_key_pem: None,
            signing_algorithm: None,
            assertion: None,
            assertion_file: None,
            id_token: None,
            idp_token_endpoint: None,
            idp_client_id: None,
            idp_client_secret: None,
            max_authorizations: 3,
            dpop: true,
            handler: None,
            store: None,
        }
    }
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<set>"))
            .field("private_key_pem", &self.private_key_pem.as_ref().map(|_| "<set>"))
            .field("assertion", &self.assertion.as_ref().map(|_| "<set>"))
            .field("assertion_file", &self.assertion_file)
            .field("id_token", &self.id_token.as_ref().map(|_| "<set>"))
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("redirect_uri", &self.redirect_uri)
            .field("scopes", &self.scopes)
            .field("grant", &self.grant)
            .field("authorize", &self.authorize)
            .field("token_store", &self.token_store)
            .finish_non_exhaustive()
    }
}

impl OAuthOptions {
    /// Options for the authorization code grant with this redirect URI.
    pub fn new(redirect_uri: impl Into<String>) -> OAuthOptions {
        OAuthOptions { redirect_uri: redirect_uri.into(), ..OAuthOptions::default() }
    }
    /// A pre-registered client.
    pub fn client(mut self, id: impl Into<String>, secret: Option<String>) -> OAuthOptions {
        self.client_id = Some(id.into());
        self.client_secret = secret;
        self
    }
    /// The Client ID Metadata Document URL.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> OAuthOptions {
        self.client_metadata_url = Some(url.into());
        self
    }
    /// The handler that sends the user to authorize.
    pub fn handler(mut self, h: Arc<dyn AuthorizationHandler>) -> OAuthOptions {
        self.handler = Some(h);
        self
    }
    /// The credential store.
    pub fn store(mut self, s: Arc<dyn TokenStore>) -> OAuthOptions {
        self.store = Some(s);
        self
    }
    /// The grant.
    pub fn grant(mut self, g: Grant) -> OAuthOptions {
        self.grant = g;
        self
    }

    /// Checks the options (the redirect URI, the metadata document URL, the grant's needs).
    pub fn validate(&self) -> Result<(), String> {
        let r = super::url::Url::parse(&self.redirect_uri).map_err(|e| format!("auth.redirect_uri: {e}"))?;
        if r.scheme != "https" && !r.is_loopback() {
            return Err(format!(
                "auth.redirect_uri {:?} must be https:// or a loopback http:// URI (the MCP spec's rule)",
                self.redirect_uri
            ));
        }
        if let Some(u) = &self.client_metadata_url {
            let p = super::url::Url::parse(u).map_err(|e| format!("auth.client_metadata_url: {e}"))?;
            if p.scheme != "https" || p.trimmed_path().is_empty() {
                return Err(format!(
                    "auth.client_metadata_url {u:?} must be an https:// URL with a path (the Client ID Metadata Document rule)"
                ));
            }
        }
        if let Some(m) = &self.token_endpoint_auth_method {
            if !matches!(m.as_str(), "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none") {
                return Err(format!(
                    "auth.token_endpoint_auth_method {m:?}: expected client_secret_basic, client_secret_post, private_key_jwt or none"
                ));
            }
        }
        if let Some(pem) = &self.private_key_pem {
            super::jwt::signing_key(pem, self.signing_algorithm.as_deref())
                .map_err(|e| format!("auth.private_key_pem: {e}"))?;
        }
        let credentials = self.client_secret.is_some() || self.private_key_pem.is_some();
        match self.grant {
            Grant::ClientCredentials if self.client_id.is_none() || !credentials => {
                return Err(
                    "auth: the client_credentials grant needs client_id and client_secret (or private_key_pem)".into()
                )
            }
            Grant::JwtBearer if self.assertion.is_none() && self.assertion_file.is_none() => {
                return Err("auth: the jwt_bearer grant needs assertion or assertion_file".into())
            }
            Grant::JwtBearer | Grant::EnterpriseManaged if self.client_id.is_none() => {
                return Err("auth: this grant needs a pre-registered client_id".into())
            }
            Grant::EnterpriseManaged if self.id_token.is_none() || self.idp_token_endpoint.is_none() => {
                return Err("auth: enterprise-managed authorization needs id_token and idp_token_endpoint".into())
            }
            _ => {}
        }
        if let Some(t) = &self.application_type {
            if t != "native" && t != "web" {
                return Err(format!("auth.application_type {t:?}: expected \"native\" or \"web\""));
            }
        }
        if self.max_authorizations == 0 {
            return Err("auth.max_authorizations must be at least 1".into());
        }
        Ok(())
    }

    /// `native` or `web`, as configured or from the redirect URI.
    pub(super) fn application_type(&self) -> String {
        if let Some(t) = &self.application_type {
            return t.clone();
        }
        match super::url::Url::parse(&self.redirect_uri) {
            Ok(u) if u.is_loopback() => "native".into(),
            _ => "web".into(),
        }
    }
}
