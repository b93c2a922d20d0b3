//! What the stateless revision (2026-07-28) adds to the wire model: the reserved `_meta`
//! keys every request and result carry (`basic/index`, "General fields"), `server/discover`
//! (`server/discover`), caching hints (`server/utilities/caching`), the
//! `subscriptions/listen` filter (`basic/patterns/subscriptions`) and the types of
//! multi round-trip requests (`basic/patterns/mrtr`).

use super::common::Meta;
use super::lifecycle::ServerCapabilities;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `_meta` keys the specification reserves.
pub mod meta_keys {
    /// The protocol version of a request (required on every modern request).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities for a request (required on every modern request).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The lowest level of log messages the client wants for a request.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, on every result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The `subscriptions/listen` request a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The prefix every key above starts with.
    pub const PREFIX: &str = "io.modelcontextprotocol/";
}

/// Who may cache a result (`cacheScope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any client or shared intermediary may cache it.
    Public,
    /// Only within the same authorization context. The default: it is always safe.
    #[default]
    Private,
}

impl CacheScope {
    /// `"public"` or `"private"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

impl std::str::FromStr for CacheScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "public" => Ok(CacheScope::Public),
            "private" => Ok(CacheScope::Private),
            other => Err(format!("cache scope {other:?}: expected \"public\" or \"private\"")),
        }
    }
}

/// The caching hints of a cacheable result (`ttlMs`, `cacheScope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheHints {
    /// How long the client may consider the result fresh, in milliseconds (0: stale at once).
    #[serde(alias = "ttl_ms")]
    pub ttl_ms: u64,
    /// Who may cache it.
    #[serde(alias = "cache_scope", default)]
    pub cache_scope: CacheScope,
}

/// The result of `server/discover`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Every protocol version the server speaks.
    pub supported_versions: Vec<String>,
    /// What it offers.
    pub capabilities: ServerCapabilities,
    /// How to use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata (the server's identity under [`meta_keys::SERVER_INFO`]).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Which change notifications a `subscriptions/listen` stream carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these tasks (tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// One request a server needs the client to answer before it can finish (an entry of
/// `inputRequests`): `elicitation/create`, `sampling/createMessage` or `roots/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// The method.
    pub method: String,
    /// Its params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// An interim result: the input the server needs, and its state, for the client's retry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// What to ask, by keys the server chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
