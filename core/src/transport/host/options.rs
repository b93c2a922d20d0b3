//! Options as host languages send them: one JSON object, parsed once, here.
//!
//! Each option is one field of a serde struct: snake_case, with the camelCase spelling
//! JavaScript uses as an alias, and durations in the unit of the language that sent them
//! ([`TimeUnit`]: seconds for Python, milliseconds for JavaScript). A `null` value means
//! "not given" (the default applies); an unknown name or a value of the wrong kind is an
//! [`OptionError`] that says which option and what it takes.

use crate::engine::{CachePolicy, ClientConfig, ClientMode, ServerConfig, StateKeys};
use crate::protocol::{Icon, Implementation, ProtocolVersion};
use crate::transport::http::{HttpClientOptions, HttpOptions};
pub use crate::util::units::TimeUnit;
use crate::util::units::{self, with_unit};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::time::Duration;

/// An option hypermcp does not know, or a value it cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

/// Parses `what` (named in errors, e.g. "HTTP option") from a JSON object, with durations in
/// `unit`. Keys whose value is `null` are left out first.
pub fn parse<T: DeserializeOwned>(value: Value, unit: TimeUnit, what: &str) -> Result<T, OptionError> {
    let value = match value {
        Value::Null => Value::Object(Default::default()),
        Value::Object(mut map) => {
            map.retain(|_, v| !v.is_null());
            Value::Object(map)
        }
        other => return Err(OptionError(format!("{what}s must be an object, not {other}"))),
    };
    with_unit(unit, || serde_path_to_error::deserialize(value)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        OptionError(match message.strip_prefix("unknown field ") {
            Some(rest) => format!("unknown {what} {rest}"),
            None if path == "." => format!("invalid {what}s: {message}"),
            None => format!("invalid {what} {path}: {message}"),
        })
    })
}

/// How a server describes itself and what it declares: what each binding's `Server`
/// sends when it opens a session or an HTTP service.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerOptions {
    /// Programmatic name. Default `hypermcp-server`.
    pub name: Option<String>,
    /// Version string. Default `0.0.0`.
    pub version: Option<String>,
    /// Human-readable name.
    pub title: Option<String>,
    /// What the server is for.
    pub description: Option<String>,
    /// Its website.
    #[serde(alias = "websiteUrl")]
    pub website_url: Option<String>,
    /// Its icons.
    pub icons: Option<Vec<Icon>>,
    /// Instructions for the model.
    pub instructions: Option<String>,
    /// Declare the tools capability even with no tool registered yet.
    pub tools: bool,
    /// Declare the resources capability even with no resource registered yet.
    pub resources: bool,
    /// Declare the prompts capability even with no prompt registered yet.
    pub prompts: bool,
    /// Declare `completions` (a completion handler exists).
    pub completions: bool,
    /// Largest accepted message in bytes.
    #[serde(alias = "maxMessageSize")]
    pub max_message_size: Option<usize>,
    /// Default timeout of the server's requests to the client. Default 60 s.
    #[serde(alias = "requestTimeout", deserialize_with = "some_duration")]
    pub request_timeout: Option<Duration>,
    /// Caching hints of 2026-07-28 results (`ttlMs`, `cacheScope`): `{"default": {...},
    /// "tools": {...}, "prompts", "resources", "resource_templates", "resource_reads",
    /// "discover"}`, each `{"ttl_ms": n, "cache_scope": "public" | "private"}`. Default:
    /// stale at once, private.
    pub cache: Option<CachePolicy>,
    /// Keys that seal `requestState` (2026-07-28 multi round-trip requests): base64 of 32
    /// bytes each; the first seals, all open (rotation; replicas share them). Default:
    /// `HYPERMCP_REQUEST_STATE_KEYS`, else a random key per process.
    #[serde(alias = "requestStateKeys")]
    pub request_state_keys: Option<Vec<String>>,
    /// How long a sealed `requestState` stays valid. Default 10 min.
    #[serde(alias = "requestStateTtl", deserialize_with = "some_duration")]
    pub request_state_ttl: Option<Duration>,
    /// The audience `requestState` is bound to. Default: the server's name.
    #[serde(alias = "requestStateAudience")]
    pub request_state_audience: Option<String>,
    /// Most `subscriptions/listen` streams open at once. Default 1,000.
    #[serde(alias = "maxListeners")]
    pub max_listeners: Option<usize>,
    /// Name the server in every 2026-07-28 result's `_meta`. Default true.
    #[serde(alias = "identifyInResults")]
    pub identify_in_results: Option<bool>,
    /// Hide what unexpected handler failures say (see [`ServerConfig::mask_error_details`]).
    #[serde(alias = "maskErrorDetails")]
    pub mask_error_details: bool,
    /// Extensions the server supports: `{identifier: settings}` (`{}`: no settings).
    pub extensions: Option<Map<String, Value>>,
    /// The server runs tasks (declares `io.modelcontextprotocol/tasks`, and serves them at
    /// 2025-11-25 too; the binding gives its sessions a [`super::HostTasks`], and its stream
    /// sessions a waker).
    pub tasks: bool,
}

impl ServerOptions {
    /// The engine's configuration; errors when the `requestState` keys (given, or from
    /// `HYPERMCP_REQUEST_STATE_KEYS`) are not valid.
    pub fn into_config(self) -> Result<ServerConfig, OptionError> {
        let mut info = Implementation::new(
            self.name.unwrap_or_else(|| "hypermcp-server".into()),
            self.version.unwrap_or_else(|| "0.0.0".into()),
        );
        info.title = self.title;
        info.description = self.description;
        info.website_url = self.website_url;
        info.icons = self.icons;
        let mut cfg = ServerConfig::new(info);
        for (id, settings) in self.extensions.unwrap_or_default() {
            crate::engine::check_extension_id(&id)
                .map_err(|e| OptionError(format!("server option extensions: {e}")))?;
            if !settings.is_object() {
                return Err(OptionError(format!(
                    "server option extensions: the settings of {id:?} must be an object ({{}} for none), not {settings}"
                )));
            }
            cfg.extensions.insert(id, settings);
        }
        if self.tasks {
            cfg.extensions.entry(crate::store::tasks::TASKS_EXTENSION).or_insert_with(|| Value::Object(Map::new()));
            cfg.legacy_tasks = true;
        }
        cfg.instructions = self.instructions;
        cfg.tools = self.tools;
        cfg.resources = self.resources;
        cfg.prompts = self.prompts;
        cfg.completions = self.completions;
        if let Some(n) = self.max_message_size {
            cfg.max_message_size = n;
        }
        if let Some(t) = self.request_timeout {
            cfg.request_timeout = Some(t);
        }
        if let Some(c) = self.cache {
            cfg.cache = c;
        }
        let rs = &mut cfg.request_state;
        rs.keys = match self.request_state_keys {
            Some(texts) => {
                Some(StateKeys::from_base64(&texts, "server option request_state_keys").map_err(OptionError)?)
            }
            // Checked now, so that a malformed environment variable stops the server at once.
            None => {
                let env = std::env::var(crate::engine::request_state::KEYS_ENV).ok();
                Some(match StateKeys::from_env_value(env.as_deref()).map_err(OptionError)? {
                    Some(k) => k,
                    None => StateKeys::process_random(),
                })
            }
        };
        if let Some(t) = self.request_state_ttl {
            rs.ttl = t;
        }
        rs.audience = self.request_state_audience;
        if let Some(n) = self.max_listeners {
            cfg.max_listeners = n;
        }
        if let Some(b) = self.identify_in_results {
            cfg.identify_in_results = b;
        }
        cfg.mask_error_details = self.mask_error_details;
        Ok(cfg)
    }
}

fn some_duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    units::duration(d).map(Some)
}

/// A server configuration from what a binding's `Server` sends.
pub fn server_config(value: Value, unit: TimeUnit) -> Result<ServerConfig, OptionError> {
    parse::<ServerOptions>(value, unit, "server option")?.into_config()
}

/// How a host's server keeps tasks (see [`crate::server::tasks::TaskOptions`]).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct TaskSettings {
    #[serde(deserialize_with = "some_duration")]
    ttl: Option<Duration>,
    #[serde(alias = "pollInterval", deserialize_with = "some_duration")]
    poll_interval: Option<Duration>,
    #[serde(alias = "maxTasks")]
    max_tasks: Option<usize>,
    #[serde(alias = "cancelGrace", deserialize_with = "some_duration")]
    cancel_grace: Option<Duration>,
    #[serde(alias = "maskErrorDetails")]
    mask_error_details: bool,
}

/// Task options from what a binding sends: `ttl`, `poll_interval`, `max_tasks`,
/// `cancel_grace` (durations in `unit`), each optional.
pub fn task_options(value: Value, unit: TimeUnit) -> Result<crate::runtime::tasks::TaskOptions, OptionError> {
    let t: TaskSettings = parse(value, unit, "task option")?;
    let mut o = crate::runtime::tasks::TaskOptions::default();
    if let Some(d) = t.ttl {
        if d.is_zero() {
            return Err(OptionError("task option ttl must be more than 0".into()));
        }
        o.ttl = d;
    }
    if let Some(d) = t.poll_interval {
        o.poll_interval = d;
    }
    if let Some(n) = t.max_tasks {
        if n == 0 {
            return Err(OptionError("task option max_tasks must be at least 1".into()));
        }
        o.max_tasks = n;
    }
    if let Some(d) = t.cancel_grace {
        o.cancel_grace = d;
    }
    o.mask_error_details = t.mask_error_details;
    Ok(o)
}

/// The options of an HTTP server (see [`HttpOptions`] for each). `auth.verify: true` says
/// the host verifies tokens itself (its own function, see [`super::HostItem::Verify`]).
pub fn http_options(value: Value, unit: TimeUnit) -> Result<HttpOptions, OptionError> {
    host_http_options(value, unit).map(|(o, _)| o)
}

/// [`http_options`], and whether the host verifies tokens itself.
pub(crate) fn host_http_options(mut value: Value, unit: TimeUnit) -> Result<(HttpOptions, bool), OptionError> {
    let host_verifies = match value.get_mut("auth").and_then(Value::as_object_mut).and_then(|a| a.remove("verify")) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(other) => {
            return Err(OptionError(format!("HTTP option auth.verify: expected a function, got {other}")));
        }
    };
    let options: HttpOptions = parse(value, unit, "HTTP option")?;
    if options.tls_cert.is_some() != options.tls_key.is_some() {
        return Err(OptionError("HTTPS needs both tls_cert and tls_key (PEM files)".into()));
    }
    if let Some(auth) = &options.auth {
        auth.check(host_verifies).map_err(OptionError)?;
    }
    Ok((options, host_verifies))
}

/// The options of an HTTP client connection (see [`HttpClientOptions`] for each).
/// `auth.token_store: true` says the host keeps the credentials itself (its own store object,
/// see [`super::HostStoreOp`]).
pub fn http_client_options(value: Value, unit: TimeUnit) -> Result<HttpClientOptions, OptionError> {
    host_http_client_options(value, unit).map(|(o, _)| o)
}

/// [`http_client_options`], and whether the host keeps the credentials itself.
pub(crate) fn host_http_client_options(
    mut value: Value,
    unit: TimeUnit,
) -> Result<(HttpClientOptions, bool), OptionError> {
    // `true` (the host's own store) is taken out; a path stays for the options to read.
    let mut host_store = false;
    if let Some(a) = value.get_mut("auth").and_then(Value::as_object_mut) {
        for key in ["token_store", "tokenStore"] {
            if a.get(key) == Some(&Value::Bool(true)) {
                a.remove(key);
                host_store = true;
            }
        }
    }
    let options: HttpClientOptions = parse(value, unit, "HTTP client option")?;
    if let Some(auth) = &options.auth {
        auth.validate().map_err(OptionError)?;
    }
    Ok((options, host_store))
}

/// A client's reconnect policy from a host's value: `true` (the defaults), `false` or
/// `null` (none), or an object of [`crate::engine::Reconnect`]'s fields.
pub fn reconnect(value: Value, unit: TimeUnit) -> Result<Option<crate::engine::Reconnect>, OptionError> {
    let policy: crate::engine::Reconnect = match value {
        Value::Null | Value::Bool(false) => return Ok(None),
        Value::Bool(true) => Default::default(),
        other => parse(other, unit, "reconnect option")?,
    };
    policy.validate().map_err(OptionError)?;
    Ok(Some(policy))
}

/// How a client session presents itself, and its defaults.
#[derive(Debug)]
pub struct ClientSettings {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// What the client can answer and the extensions it names (JSON of
    /// [`ClientFeatures`](crate::engine::ClientFeatures)): its capabilities follow.
    pub features: Option<Value>,
    /// The revision to ask for; the latest this release serves when `None`.
    pub protocol_version: Option<String>,
    /// Default timeout of the client's requests, in the binding's unit; `None`: no timeout.
    pub timeout: Option<f64>,
    /// `auto` (the default), `modern` or `legacy`: see [`ClientMode`].
    pub mode: Option<String>,
    /// The log level 2026-07-28 requests carry until `logging/setLevel` (`None`: none, so a
    /// modern server sends no log messages).
    pub log_level: Option<String>,
    /// Legacy sessions: the keep-alive ping interval, in the binding's unit (`None`: no
    /// pings); see [`ClientConfig::ping_interval`].
    pub ping_interval: Option<f64>,
    /// The connection is HTTP: the `server/discover` probe waits as long as any request
    /// ([`ClientConfig::probe_as_request`]).
    pub http: bool,
}

impl ClientSettings {
    /// The engine's client configuration; an error names a setting it cannot take.
    pub fn into_config(self, unit: TimeUnit) -> Result<ClientConfig, OptionError> {
        let mut cfg = ClientConfig::new(Implementation::new(self.name, self.version));
        if let Some(features) = self.features {
            let features: crate::engine::ClientFeatures =
                serde_json::from_value(features).map_err(|e| OptionError(format!("invalid client features: {e}")))?;
            cfg.capabilities = features.capabilities().map_err(OptionError)?;
        }
        let protocol_pinned = self.protocol_version.is_some();
        if let Some(v) = self.protocol_version {
            let v: ProtocolVersion = v.parse().map_err(|e| OptionError(format!("{e}")))?;
            if !ProtocolVersion::LEGACY.contains(&v) {
                return Err(OptionError(format!(
                    "protocol_version names the legacy revision asked for with initialize; {v} is not one \
                     (2026-07-28 needs no handshake: use mode \"modern\" or \"auto\")"
                )));
            }
            cfg.protocol_version = v;
        }
        match self.mode {
            Some(m) => cfg.mode = m.parse::<ClientMode>().map_err(OptionError)?,
            // Naming a legacy revision asks for that revision: the initialize handshake.
            None if protocol_pinned => cfg.mode = ClientMode::Legacy,
            None => {}
        }
        if let Some(l) = self.log_level {
            cfg.log_level = Some(
                serde_json::from_value(Value::String(l.clone()))
                    .map_err(|_| OptionError(format!("unknown log level {l:?}")))?,
            );
        }
        cfg.ping_interval = match self.ping_interval {
            None => None,
            Some(t) => match unit.duration(t) {
                Some(d) if !d.is_zero() => Some(d),
                _ => {
                    return Err(OptionError(format!(
                        "ping_interval must be a positive number of {}, not {t}",
                        unit.name()
                    )))
                }
            },
        };
        cfg.request_timeout = match self.timeout {
            None => None,
            Some(t) => Some(unit.duration(t).ok_or_else(|| {
                OptionError(format!("timeout must be a non-negative number of {}, not {t}", unit.name()))
            })?),
        };
        if self.http {
            cfg.probe_as_request();
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_units_and_nulls() {
        let secs =
            http_options(json!({"json_response": true, "session_idle_timeout": 2.5, "path": null}), TimeUnit::Seconds)
                .expect("valid");
        assert!(secs.json_response);
        assert_eq!(secs.session_idle_timeout, Duration::from_millis(2500));
        assert_eq!(secs.path, "/mcp");
        let ms = http_options(
            json!({"jsonResponse": true, "sessionIdleTimeout": 2500, "keepAlive": false}),
            TimeUnit::Milliseconds,
        )
        .expect("valid");
        assert!(ms.json_response);
        assert_eq!(ms.session_idle_timeout, Duration::from_millis(2500));
        assert_eq!(ms.keep_alive, None);
    }

    #[test]
    fn refusals_name_the_option() {
        let e = http_options(json!({"bogus": 1}), TimeUnit::Seconds).expect_err("unknown");
        assert!(e.0.starts_with("unknown HTTP option `bogus`"), "{e}");
        let e = http_options(json!({"retry": -1}), TimeUnit::Milliseconds).expect_err("negative");
        assert!(e.0.contains("non-negative number of milliseconds"), "{e}");
        let e = http_options(json!({"allowed_hosts": "localhost"}), TimeUnit::Seconds).expect_err("not a list");
        assert!(e.0.starts_with("invalid HTTP option"), "{e}");
        let e = http_client_options(json!({"transport": "websocket"}), TimeUnit::Seconds).expect_err("transport");
        assert!(e.0.contains("transport") || e.0.contains("websocket"), "{e}");
    }

    #[test]
    fn server_and_client_configs() {
        let cfg = server_config(
            json!({"name": "s", "websiteUrl": "https://x", "tools": true, "requestTimeout": 1500}),
            TimeUnit::Milliseconds,
        )
        .expect("valid");
        assert_eq!(cfg.info.website_url.as_deref(), Some("https://x"));
        assert!(cfg.tools);
        assert_eq!(cfg.request_timeout, Some(Duration::from_millis(1500)));
        assert!(server_config(json!({"nme": "s"}), TimeUnit::Seconds).is_err());
        let settings = |v: &str| ClientSettings {
            name: "c".into(),
            version: "1".into(),
            features: None,
            protocol_version: Some(v.into()),
            timeout: Some(2.0),
            mode: None,
            log_level: None,
            ping_interval: None,
            http: false,
        };
        let cfg = settings("2025-03-26").into_config(TimeUnit::Seconds).expect("legacy revision");
        assert_eq!(cfg.request_timeout, Some(Duration::from_secs(2)));
        assert!(settings("2026-07-28").into_config(TimeUnit::Seconds).is_err());
        assert!(settings("1999-01-01").into_config(TimeUnit::Seconds).is_err());
        let mode =
            |m: &str| ClientSettings { mode: Some(m.into()), ..settings("2025-11-25") }.into_config(TimeUnit::Seconds);
        assert_eq!(mode("modern").expect("modern").mode, ClientMode::Modern);
        assert_eq!(settings("2025-06-18").into_config(TimeUnit::Seconds).expect("pinned").mode, ClientMode::Legacy);
        assert_eq!(mode("legacy").expect("legacy").mode, ClientMode::Legacy);
        assert!(mode("stateless").unwrap_err().0.contains("unknown client mode"));
        // The probe: 10 s, except over HTTP, where it waits as long as any request.
        assert_eq!(mode("auto").expect("auto").probe_timeout, Duration::from_secs(10));
        let http = ClientSettings { mode: Some("auto".into()), http: true, ..settings("2025-11-25") };
        assert_eq!(http.into_config(TimeUnit::Seconds).expect("http").probe_timeout, Duration::from_secs(2));
        let untimed = ClientSettings { timeout: None, http: true, ..settings("2025-11-25") };
        assert!(untimed.into_config(TimeUnit::Seconds).expect("no timeout").probe_timeout > Duration::from_secs(3600));
    }
}
