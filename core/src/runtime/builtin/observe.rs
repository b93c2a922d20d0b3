//! [`Timing`] and [`Logging`]: what each request took, as histograms and as log lines.

use super::Options;
use crate::engine::{Origin, Outcome, Request};
use crate::runtime::middleware::{Hooks, Middleware};
use std::borrow::Cow;
use std::collections::HashSet;
use std::time::Instant;
use tracing::Level;

/// Duration histograms per method and per tool (`hypermcp_request_duration_seconds`,
/// `hypermcp_tool_duration_seconds`), on the Prometheus endpoint
/// ([`HttpOptions::metrics_path`](crate::http::HttpOptions::metrics_path)) and in
/// [`crate::metrics::prometheus`]. It times all of a call: the server's middleware and the
/// handler.
///
/// ```
/// let server = hypermcp::Server::new("timed", "1.0").middleware(hypermcp::middleware::Timing::new());
/// ```
#[derive(Debug, Default, Clone)]
pub struct Timing {}

impl Timing {
    /// Every method, every tool.
    pub fn new() -> Self {
        Timing {}
    }

    pub(super) fn from_options(o: &Options<'_>) -> Result<Self, String> {
        o.only(&[])?;
        Ok(Timing::new())
    }
}

impl Middleware for Timing {
    /// Runs at the edge of the server's code, not in the chain (see [`super::Builtins`]).
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }

    fn builtin(&self) -> Option<super::Builtin> {
        Some(super::Builtin::Timing(self.clone()))
    }
}

/// One request being timed.
#[derive(Debug)]
pub(crate) struct Timer {
    at: Instant,
    method: Cow<'static, str>,
    tool: Option<String>,
}

impl Timer {
    pub(crate) fn start(request: &Request) -> Timer {
        let tool = match request {
            Request::CallTool { name, .. } => Some(name.clone()),
            _ => None,
        };
        Timer { at: Instant::now(), method: static_method(request), tool }
    }

    pub(crate) fn stop(self) {
        crate::metrics::durations::observe(&self.method, self.tool.as_deref(), self.at.elapsed().as_nanos() as u64);
    }
}

/// A request's method, without a copy for the spec's.
fn static_method(request: &Request) -> Cow<'static, str> {
    Cow::Borrowed(match request {
        Request::Custom { method, .. } => return Cow::Owned(method.clone()),
        _ => match crate::runtime::middleware::method_of(request) {
            "tools/call" => "tools/call",
            "resources/read" => "resources/read",
            "prompts/get" => "prompts/get",
            "completion/complete" => "completion/complete",
            "tools/list" => "tools/list",
            "resources/list" => "resources/list",
            "resources/templates/list" => "resources/templates/list",
            "prompts/list" => "prompts/list",
            _ => "other",
        },
    })
}

/// One line per request (FastMCP's `LoggingMiddleware`), at `info` by default, under the
/// target `hypermcp::requests` (Python's logger `hypermcp.requests`, Node's `setLogger`):
///
/// `request method="tools/call" name="echo" outcome="ok" duration_ms=0.213 session="…" client="app/1.0"`
///
/// `outcome` is `ok`, `tool_error` (a tool result with `isError`), `error` (with `code`
/// and `error`), `task` or `input_required`. With `include_payloads` the arguments follow
/// (`payload=…`, cut at `max_payload_length` bytes). The line is formatted in the engine
/// and reaches the host's logger with others in a batch.
#[derive(Debug, Clone)]
pub struct Logging {
    level: Level,
    payloads: bool,
    max_payload: usize,
    methods: Option<HashSet<String>>,
}

impl Default for Logging {
    fn default() -> Self {
        Logging::new()
    }
}

/// The target of the lines.
pub const TARGET: &str = "hypermcp::requests";

impl Logging {
    /// Every request, at `info`, without payloads.
    pub fn new() -> Self {
        Logging { level: Level::INFO, payloads: false, max_payload: 1000, methods: None }
    }

    /// The level of the lines.
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    /// Adds each request's arguments to its line, cut at `max_length` bytes.
    pub fn include_payloads(mut self, max_length: usize) -> Self {
        self.payloads = true;
        self.max_payload = max_length;
        self
    }

    /// Only requests of these methods (`tools/call`, ...).
    pub fn methods<I: IntoIterator<Item = S>, S: Into<String>>(mut self, methods: I) -> Self {
        self.methods = Some(methods.into_iter().map(Into::into).collect());
        self
    }

    pub(super) fn from_options(o: &Options<'_>) -> Result<Self, String> {
        o.only(&["level", "includePayloads", "maxPayloadLength", "methods"])?;
        let mut m = Logging::new();
        if let Some(level) = o.text("level")? {
            m.level = match crate::log::parse_level(level)?.into_level() {
                Some(l) => l,
                None => return Err(o.wrong("level", "error, warn, info, debug or trace")),
            };
        }
        m.payloads = o.flag("includePayloads")?.unwrap_or(false);
        if let Some(n) = o.positive("maxPayloadLength")? {
            m.max_payload = n as usize;
        }
        m.methods = o.names("methods")?.map(|v| v.into_iter().collect());
        Ok(m)
    }

    fn enabled(&self) -> bool {
        match self.level {
            Level::ERROR => tracing::enabled!(target: TARGET, Level::ERROR),
            Level::WARN => tracing::enabled!(target: TARGET, Level::WARN),
            Level::INFO => tracing::enabled!(target: TARGET, Level::INFO),
            Level::DEBUG => tracing::enabled!(target: TARGET, Level::DEBUG),
            _ => tracing::enabled!(target: TARGET, Level::TRACE),
        }
    }
}

/// What a line says of a request, taken before it runs.
#[derive(Debug)]
pub(crate) struct Line {
    level: Level,
    at: Instant,
    method: String,
    name: Option<String>,
    session: Option<String>,
    client: Option<String>,
    payload: Option<String>,
}

impl Logging {
    /// The line of `request` (from `origin`, by client `client`), when one is to be said.
    pub(crate) fn start(
        &self,
        request: &Request,
        origin: Option<&Origin>,
        client: impl FnOnce() -> Option<String>,
    ) -> Option<Line> {
        let method = crate::runtime::middleware::method_of(request);
        // Nothing is taken of a request whose line nobody would read.
        if !self.enabled() || self.methods.as_ref().is_some_and(|m| !m.contains(method)) {
            return None;
        }
        Some(Line::of(self.level, request, origin, client(), self.payloads.then_some(self.max_payload)))
    }
}

impl Line {
    fn of(
        level: Level,
        request: &Request,
        origin: Option<&Origin>,
        client: Option<String>,
        payloads: Option<usize>,
    ) -> Line {
        let payload = payloads.map(|max| {
            let v = match request {
                Request::CallTool { arguments, .. } => serde_json::to_string(arguments),
                Request::GetPrompt { arguments, .. } => serde_json::to_string(arguments),
                Request::Custom { params, .. } => serde_json::to_string(params),
                Request::Complete(p) => serde_json::to_string(p),
                _ => Ok(String::new()),
            };
            let mut s = v.unwrap_or_default();
            if s.len() > max {
                let mut cut = max;
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                s.truncate(cut);
                s.push('…');
            }
            s
        });
        let name = match request {
            Request::CallTool { name, .. } | Request::GetPrompt { name, .. } => Some(name.clone()),
            Request::ReadResource { uri, .. } => Some(uri.clone()),
            _ => None,
        };
        Line {
            level,
            at: Instant::now(),
            method: crate::runtime::middleware::method_of(request).to_string(),
            name,
            session: origin.and_then(|o| o.session_id.clone()),
            client,
            payload,
        }
    }

    /// Says the line of the request, now that it ended with `outcome` (`cached`: answered
    /// from the response cache).
    pub(crate) fn emit(self, outcome: &Outcome, cached: bool) {
        let level = self.level;
        let duration_ms = self.at.elapsed().as_secs_f64() * 1000.0;
        let (kind, code, error) = match outcome {
            Outcome::Tool(r) if r.is_error == Some(true) => ("tool_error", None, None),
            Outcome::Error(e) => ("error", Some(e.code), Some(e.message.as_str())),
            Outcome::InvalidArguments(_) => ("error", Some(crate::jsonrpc::codes::INVALID_PARAMS), None),
            Outcome::TaskCreated(_) => ("task", None, None),
            Outcome::InputRequired(_) => ("input_required", None, None),
            _ => ("ok", None, None),
        };
        let duration_ms = (duration_ms * 1000.0).round() / 1000.0;
        macro_rules! line {
            ($level:expr) => {
                tracing::event!(
                    target: TARGET,
                    $level,
                    method = self.method.as_str(),
                    name = self.name.as_deref(),
                    outcome = kind,
                    cached,
                    code,
                    error,
                    duration_ms,
                    session = self.session.as_deref(),
                    client = self.client.as_deref(),
                    payload = self.payload.as_deref(),
                    "request"
                )
            };
        }
        match level {
            Level::ERROR => line!(Level::ERROR),
            Level::WARN => line!(Level::WARN),
            Level::INFO => line!(Level::INFO),
            Level::DEBUG => line!(Level::DEBUG),
            _ => line!(Level::TRACE),
        }
    }
}

impl Middleware for Logging {
    /// Runs at the edge of the server's code, not in the chain (see [`super::Builtins`]).
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }

    fn builtin(&self) -> Option<super::Builtin> {
        Some(super::Builtin::Logging(self.clone()))
    }
}
