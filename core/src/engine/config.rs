//! What a server is, shared by all its sessions: its identity, the revisions it speaks,
//! the capabilities it declares, its limits, and the caching hints of its results.

use super::request_state::RequestStateOptions;
use crate::catalogue::ListKind;
use crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE;
use crate::protocol::{CacheHints, Implementation, ProtocolVersion};
use serde_json::{Map, Value};
use std::time::Duration;

/// What a server is, shared by all its sessions.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Name and version.
    pub info: Implementation,
    /// Instructions for the model.
    pub instructions: Option<String>,
    /// Revisions this server accepts (negotiation picks among these).
    pub versions: Vec<ProtocolVersion>,
    /// Declare the tools capability even with no tool registered yet.
    pub tools: bool,
    /// Declare the resources capability even with no resource registered yet.
    pub resources: bool,
    /// Declare the prompts capability even with no prompt registered yet.
    pub prompts: bool,
    /// Declare `completions` (a completion handler exists).
    pub completions: bool,
    /// Support `resources/subscribe`.
    pub subscriptions: bool,
    /// Extra experimental capabilities.
    pub experimental: Option<Map<String, Value>>,
    /// Extensions this server supports, by identifier, each with its settings (`{}`: none),
    /// declared in `capabilities.extensions` of `server/discover` and `initialize`. Every
    /// extension is off until the app names it here.
    pub extensions: Map<String, Value>,
    /// Largest accepted message in bytes.
    pub max_message_size: usize,
    /// Default timeout of server-to-client requests.
    pub request_timeout: Option<Duration>,
    /// Caching hints of cacheable results (2026-07-28).
    pub cache: CachePolicy,
    /// Name the server (`io.modelcontextprotocol/serverInfo`) in every modern result's
    /// `_meta` (default true).
    pub identify_in_results: bool,
    /// Most `subscriptions/listen` streams open at once (2026-07-28): per session over
    /// stdio, per service over HTTP (default 1,000).
    pub max_listeners: usize,
    /// How `requestState` is sealed for multi round-trip requests (2026-07-28): keys,
    /// lifetime, audience.
    pub request_state: RequestStateOptions,
    /// Serve the tasks of the tasks extension to 2025-11-25 sessions too, with that
    /// revision's experimental methods (`capabilities.tasks`, `params.task`,
    /// `tasks/get|result|list|cancel`): the task runtime answers them (default false).
    pub legacy_tasks: bool,
    /// Hide what unexpected failures of handlers say (FastMCP's `mask_error_details`): the
    /// client gets a generic message naming the tool, resource or prompt, and the failure,
    /// with its traceback, goes to the log (target `hypermcp::errors`). Errors a handler
    /// means the client to read (`ToolError`, `McpError`, `Error::Rpc`) pass. Default false.
    pub mask_error_details: bool,
    /// The identity 2026-07-28 results carry, made once for all the sessions sharing this
    /// configuration (a stateless server makes a session per request).
    pub(crate) identity: IdentityCache,
    /// The wall clock (milliseconds since the epoch) `requestState` expires by: what the
    /// replicas agree on, unlike a session's `Instant`s (injectable: tests move it).
    pub wall_clock: WallClock,
}

/// The server's identity as modern results carry it (see [`Identity`]). A clone starts empty
/// (the clone's `info` may be changed).
#[derive(Default)]
pub(crate) struct IdentityCache(pub(crate) std::sync::OnceLock<Identity>);

/// The server's name and version (`io.modelcontextprotocol/serverInfo`) as 2026-07-28 results
/// carry it.
pub(crate) struct Identity {
    /// Its JSON, whatever `identify_in_results` says (`server/discover` always names it).
    pub server: Vec<u8>,
    /// Whether results carry it (`identify_in_results`).
    pub in_results: bool,
    /// Its value in results (null when off).
    pub value: Value,
    /// The stamp of a plain result: `resultType`, and `_meta` with the identity.
    pub plain: Vec<u8>,
}

impl Identity {
    /// Its JSON in results: empty when `identify_in_results` is off.
    pub fn json(&self) -> &[u8] {
        if self.in_results {
            &self.server
        } else {
            &[]
        }
    }
}

impl Clone for IdentityCache {
    fn clone(&self) -> Self {
        IdentityCache::default()
    }
}

impl std::fmt::Debug for IdentityCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdentityCache")
    }
}

impl ServerConfig {
    /// A configuration with defaults: every revision (legacy through `initialize`, 2026-07-28
    /// per request), 16 MiB messages, 60 s timeout, results stale at once and private.
    pub fn new(info: Implementation) -> Self {
        ServerConfig {
            info,
            instructions: None,
            versions: ProtocolVersion::ALL.to_vec(),
            tools: false,
            resources: false,
            prompts: false,
            completions: false,
            subscriptions: true,
            experimental: None,
            extensions: Map::new(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            request_timeout: Some(Duration::from_secs(60)),
            cache: CachePolicy::default(),
            legacy_tasks: false,
            mask_error_details: false,
            identify_in_results: true,
            max_listeners: 1_000,
            request_state: RequestStateOptions::default(),
            identity: IdentityCache::default(),
            wall_clock: WallClock::default(),
        }
    }
}

/// A wall clock in milliseconds since the epoch ([`ServerConfig::wall_clock`]).
#[derive(Clone)]
pub struct WallClock(pub std::sync::Arc<dyn Fn() -> u64 + Send + Sync>);

impl WallClock {
    /// Now, by this clock.
    pub fn now_ms(&self) -> u64 {
        (self.0)()
    }
}

impl Default for WallClock {
    /// The system's.
    fn default() -> Self {
        WallClock(std::sync::Arc::new(crate::util::unix_ms))
    }
}

impl std::fmt::Debug for WallClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WallClock")
    }
}

/// The caching hints (`ttlMs`, `cacheScope`) of the results the 2026-07-28 revision makes
/// cacheable. Each part falls back to [`CachePolicy::default`] when unset; a resource
/// handler may set its own on the result it returns. Deserializes from
/// `{"default": {"ttl_ms": 0, "cache_scope": "private"}, "tools": {...}, ...}` (camelCase too).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CachePolicy {
    /// Every cacheable result that names nothing more specific. Default: `ttlMs` 0,
    /// `private` (always safe: stale at once, never shared).
    pub default: CacheHints,
    /// `server/discover`.
    pub discover: Option<CacheHints>,
    /// `tools/list`.
    pub tools: Option<CacheHints>,
    /// `prompts/list`.
    pub prompts: Option<CacheHints>,
    /// `resources/list`.
    pub resources: Option<CacheHints>,
    /// `resources/templates/list`.
    #[serde(alias = "resourceTemplates")]
    pub resource_templates: Option<CacheHints>,
    /// `resources/read`.
    #[serde(alias = "resourceReads")]
    pub resource_reads: Option<CacheHints>,
    /// `skills/list`, `skills/get` and the reads of skill files.
    pub skills: Option<CacheHints>,
}

impl CachePolicy {
    /// The hints of one list.
    pub fn list(&self, kind: ListKind) -> CacheHints {
        let specific = match kind {
            ListKind::Tools => self.tools,
            ListKind::Prompts => self.prompts,
            ListKind::Resources => self.resources,
            ListKind::ResourceTemplates => self.resource_templates,
        };
        specific.unwrap_or(self.default)
    }

    /// The hints of `server/discover`.
    pub fn discover(&self) -> CacheHints {
        self.discover.unwrap_or(self.default)
    }

    /// The hints of the skills extension's results.
    pub fn skills(&self) -> CacheHints {
        self.skills.unwrap_or(self.default)
    }

    /// The hints of `resources/read` (when the handler set none).
    pub fn resource_reads(&self) -> CacheHints {
        self.resource_reads.unwrap_or(self.default)
    }
}
