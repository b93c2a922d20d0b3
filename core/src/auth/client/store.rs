//! Where credentials live between requests and runs: the client registrations (keyed by the
//! authorization server's issuer, as the spec requires) and the tokens (keyed by issuer and
//! resource). [`MemoryStore`] and [`FileStore`] are provided; the [`TokenStore`] trait is
//! public for the app's own (a keychain, a database).

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// A client registration at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClient {
    /// The `client_id` the authorization server issued (or the Client ID Metadata Document URL).
    pub client_id: String,
    /// The secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint (`client_secret_basic`,
    /// `client_secret_post` or `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URI registered with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

/// Tokens for one resource from one authorization server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or, when the server did not say, requested).
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the tokens themselves.
        f.debug_struct("StoredTokens")
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "<set>"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// Keeps client registrations and tokens. Implementations must be cheap to call: the flows
/// call them around every authorization.
pub trait TokenStore: Send + Sync {
    /// The registration at the authorization server `issuer`, if any.
    fn load_client<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Option<StoredClient>>;
    /// Saves the registration at `issuer`.
    fn save_client<'a>(&'a self, issuer: &'a str, client: StoredClient) -> BoxFuture<'a, Result<(), String>>;
    /// The tokens `issuer` issued for `resource`, if any.
    fn load_tokens<'a>(&'a self, issuer: &'a str, resource: &'a str) -> BoxFuture<'a, Option<StoredTokens>>;
    /// Saves tokens (`None` forgets them).
    fn save_tokens<'a>(
        &'a self,
        issuer: &'a str,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), String>>;
}

#[derive(Default, Clone, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    clients: BTreeMap<String, StoredClient>,
    /// Keyed by `issuer` + space + `resource`.
    #[serde(default)]
    tokens: BTreeMap<String, StoredTokens>,
}

fn token_key(issuer: &str, resource: &str) -> String {
    format!("{issuer} {resource}")
}

impl Contents {
    fn tokens(&self, issuer: &str, resource: &str) -> Option<StoredTokens> {
        self.tokens.get(&token_key(issuer, resource)).cloned()
    }
    fn put_tokens(&mut self, issuer: &str, resource: &str, tokens: Option<StoredTokens>) {
        match tokens {
            Some(t) => self.tokens.insert(token_key(issuer, resource), t),
            None => self.tokens.remove(&token_key(issuer, resource)),
        };
    }
}

/// Credentials in memory, for the life of the process (the default).
#[derive(Default)]
pub struct MemoryStore {
    contents: Mutex<Contents>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
    fn with<R>(&self, f: impl FnOnce(&mut Contents) -> R) -> R {
        f(&mut self.contents.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl TokenStore for MemoryStore {
    fn load_client<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Option<StoredClient>> {
        let c = self.with(|c| c.clients.get(issuer).cloned());
        Box::pin(async move { c })
    }
    fn save_client<'a>(&'a self, issuer: &'a str, client: StoredClient) -> BoxFuture<'a, Result<(), String>> {
        self.with(|c| c.clients.insert(issuer.to_string(), client));
        Box::pin(async { Ok(()) })
    }
    fn load_tokens<'a>(&'a self, issuer: &'a str, resource: &'a str) -> BoxFuture<'a, Option<StoredTokens>> {
        let t = self.with(|c| c.tokens(issuer, resource));
        Box::pin(async move { t })
    }
    fn save_tokens<'a>(
        &'a self,
        issuer: &'a str,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), String>> {
        self.with(|c| c.put_tokens(issuer, resource, tokens));
        Box::pin(async { Ok(()) })
    }
}

/// Credentials in a JSON file (created with mode 0600, replaced atomically on each save), so
/// that a CLI or desktop app authorizes once and reuses the registration and refresh token.
pub struct FileStore {
    path: PathBuf,
    cache: tokio::sync::Mutex<Option<Contents>>,
}

impl FileStore {
    /// A store in the file at `path` (read on first use; missing means empty).
    pub fn new(path: impl Into<PathBuf>) -> FileStore {
        FileStore { path: path.into(), cache: tokio::sync::Mutex::new(None) }
    }

    async fn read(&self) -> Result<Contents, String> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("the token store {} is not valid JSON: {e}", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Contents::default()),
            Err(e) => Err(format!("cannot read the token store {}: {e}", self.path.display())),
        }
    }

    async fn write(&self, c: &Contents) -> Result<(), String> {
        let bytes = serde_json::to_vec_pretty(c).map_err(|e| e.to_string())?;
        let tmp = self.path.with_extension("tmp");
        let fail = |e: std::io::Error| format!("cannot write the token store {}: {e}", self.path.display());
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await.map_err(fail)?;
        }
        let mut opts = tokio::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        opts.mode(0o600);
        let mut f = opts.open(&tmp).await.map_err(fail)?;
        tokio::io::AsyncWriteExt::write_all(&mut f, &bytes).await.map_err(fail)?;
        f.sync_all().await.map_err(fail)?;
        drop(f);
        tokio::fs::rename(&tmp, &self.path).await.map_err(fail)
    }

    async fn update(&self, f: impl FnOnce(&mut Contents)) -> Result<(), String> {
        let mut cache = self.cache.lock().await;
        let mut c = match cache.take() {
            Some(c) => c,
            None => self.read().await?,
        };
        f(&mut c);
        let r = self.write(&c).await;
        *cache = Some(c);
        r
    }

    async fn get<R>(&self, f: impl FnOnce(&Contents) -> R) -> R {
        let mut cache = self.cache.lock().await;
        if cache.is_none() {
            *cache = Some(self.read().await.unwrap_or_default());
        }
        f(cache.as_ref().expect("filled above"))
    }
}

impl TokenStore for FileStore {
    fn load_client<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Option<StoredClient>> {
        Box::pin(self.get(move |c| c.clients.get(issuer).cloned()))
    }
    fn save_client<'a>(&'a self, issuer: &'a str, client: StoredClient) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(self.update(move |c| {
            c.clients.insert(issuer.to_string(), client);
        }))
    }
    fn load_tokens<'a>(&'a self, issuer: &'a str, resource: &'a str) -> BoxFuture<'a, Option<StoredTokens>> {
        Box::pin(self.get(move |c| c.tokens(issuer, resource)))
    }
    fn save_tokens<'a>(
        &'a self,
        issuer: &'a str,
        resource: &'a str,
        tokens: Option<StoredTokens>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(self.update(move |c| c.put_tokens(issuer, resource, tokens)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(a: &str) -> StoredTokens {
        StoredTokens {
            access_token: a.into(),
            token_type: "Bearer".into(),
            refresh_token: Some("r".into()),
            expires_at: Some(5),
            scopes: vec!["s".into()],
        }
    }

    #[tokio::test]
    async fn memory_store_keys_by_issuer_and_resource() {
        let s = MemoryStore::new();
        let c = StoredClient {
            client_id: "id".into(),
            client_secret: None,
            token_endpoint_auth_method: None,
            redirect_uri: None,
        };
        s.save_client("https://as1", c.clone()).await.unwrap();
        assert_eq!(s.load_client("https://as1").await, Some(c));
        assert_eq!(s.load_client("https://as2").await, None);
        s.save_tokens("https://as1", "https://r", Some(tokens("a"))).await.unwrap();
        assert!(s.load_tokens("https://as1", "https://r").await.is_some());
        assert!(s.load_tokens("https://as2", "https://r").await.is_none());
        s.save_tokens("https://as1", "https://r", None).await.unwrap();
        assert!(s.load_tokens("https://as1", "https://r").await.is_none());
        assert!(!format!("{:?}", tokens("secret-token")).contains("secret-token"));
    }

    #[tokio::test]
    async fn file_store_persists_privately() {
        let dir = std::env::temp_dir().join(format!("hypermcp-store-{}", std::process::id()));
        let path = dir.join("tokens.json");
        let s = FileStore::new(&path);
        s.save_tokens("https://as", "https://r", Some(tokens("a"))).await.unwrap();
        let again = FileStore::new(&path);
        assert_eq!(again.load_tokens("https://as", "https://r").await.map(|t| t.access_token), Some("a".into()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, b"not json").unwrap();
        let broken = FileStore::new(&path);
        assert!(broken
            .save_client(
                "x",
                StoredClient {
                    client_id: "c".into(),
                    client_secret: None,
                    token_endpoint_auth_method: None,
                    redirect_uri: None
                }
            )
            .await
            .unwrap_err()
            .contains("not valid JSON"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
