//! How a client session opens: the `initialize` handshake (legacy), or the `server/discover`
//! probe of an auto or modern client (2026-07-28), falling back to `initialize` when the
//! server turns out legacy; what each answer makes of the session.

use super::*;

impl ClientSession {
    /// Opens the session: in legacy mode sends `initialize`; in auto and modern mode probes
    /// with `server/discover` (2026-07-28) first, an auto client falling back to
    /// `initialize` when the server turns out legacy. The session reports
    /// [`Event::Initialized`] once the server is known (and, legacy, `notifications/initialized`
    /// was sent), or a failed [`Event::Response`] for the returned id.
    pub fn initialize(&mut self, now: Instant) -> OutboundId {
        let id = if self.role.config.mode == ClientMode::Legacy
            || !self.role.config.versions.contains(&ProtocolVersion::V2026_07_28)
        {
            self.send_initialize(now)
        } else {
            self.send_probe(now)
        };
        self.role.open_id = Some(id);
        self.role.state = State::Initializing;
        self.role.last_now = Some(now);
        id
    }

    pub(super) fn send_initialize(&mut self, now: Instant) -> OutboundId {
        let c = &self.role.config;
        let p = InitializeParams {
            protocol_version: c.protocol_version.as_str().to_string(),
            capabilities: c.capabilities.clone(),
            client_info: c.info.clone(),
            meta: None,
        };
        let value = serde_json::to_value(&p).unwrap_or(Value::Null);
        let id = self.peer.send_request("initialize", Some(value), &RequestOptions::default(), now);
        self.role.opening = Some(Opening::Initialize(id));
        id
    }

    pub(super) fn send_probe(&mut self, now: Instant) -> OutboundId {
        let params = Value::Object(Map::from_iter([("_meta".to_string(), Value::Object(self.role.meta.clone()))]));
        // The short probe timeout tells a silent legacy server apart; a modern-only client has
        // nothing to fall back to, so its probe waits as long as any request (over HTTP it may
        // hold an OAuth authorization, a user's login included).
        let opts = match self.role.config.mode {
            ClientMode::Modern => RequestOptions::default(),
            _ => RequestOptions { timeout: Some(self.role.config.probe_timeout), ..Default::default() },
        };
        let id = self.peer.send_request("server/discover", Some(params), &opts, now);
        self.role.probes += 1;
        self.role.opening = Some(Opening::Probe(id));
        id
    }

    pub(super) fn on_probe(&mut self, result: Result<Value, RpcError>, now: Instant) -> Vec<Event> {
        let open = self.role.open_id.unwrap_or(OutboundId(0));
        let mode = self.role.config.mode;
        if self.role.state == State::Closed || self.peer.closed {
            // The connection ended during the probe: nothing to fall back on.
            let e = result.err().unwrap_or_else(|| RpcError::new(codes::CONNECTION_CLOSED, "the session is closed"));
            return self.fail_open(open, e);
        }
        let fall_back = |this: &mut Self| {
            this.send_initialize(now);
            Vec::new()
        };
        match result {
            Ok(v) => match serde_json::from_value::<DiscoverResult>(v.clone()) {
                Ok(d) if d.supported_versions.iter().any(|s| s == ProtocolVersion::V2026_07_28.as_str()) => {
                    let info = d
                        .meta
                        .as_ref()
                        .and_then(|m| m.get(meta_keys::SERVER_INFO))
                        .or_else(|| v.get("serverInfo"))
                        .and_then(|i| serde_json::from_value::<Implementation>(i.clone()).ok())
                        .unwrap_or_else(|| Implementation::new("unknown", ""));
                    self.role.server = Some(InitializeResult {
                        protocol_version: ProtocolVersion::V2026_07_28.as_str().to_string(),
                        capabilities: d.capabilities,
                        server_info: info,
                        instructions: d.instructions,
                        meta: d.meta,
                    });
                    self.role.modern = true;
                    self.role.opening = None;
                    self.peer.version = Some(ProtocolVersion::V2026_07_28);
                    self.role.state = State::Operating;
                    self.reopen_listen(now);
                    vec![Event::Initialized]
                }
                Ok(d) if mode == ClientMode::Auto => {
                    let _ = d;
                    fall_back(self)
                }
                Ok(d) => self.fail_open(
                    open,
                    RpcError::new(
                        codes::UNSUPPORTED_PROTOCOL_VERSION,
                        format!("the server speaks {} but not 2026-07-28 (this client is modern-only)", d.supported_versions.join(", ")),
                    ),
                ),
                Err(e) if mode == ClientMode::Auto => {
                    let _ = e;
                    fall_back(self)
                }
                Err(e) => self.fail_open(open, RpcError::invalid_params(format!("bad server/discover result: {e}"))),
            },
            Err(e) if cm::is_modern_error(&e) => {
                let supported = cm::supported_versions(&e);
                let ours = ProtocolVersion::V2026_07_28.as_str();
                if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION
                    && supported.iter().any(|s| s == ours)
                    && self.role.probes < 2
                {
                    // The server lists the version it refused: retry with it, once.
                    self.send_probe(now);
                    return Vec::new();
                }
                let legacy_ok = supported.iter().any(|s| {
                    s.parse::<ProtocolVersion>().is_ok_and(|v| v.era() == Era::Legacy && self.role.config.versions.contains(&v))
                });
                if mode == ClientMode::Auto && e.code == codes::UNSUPPORTED_PROTOCOL_VERSION && legacy_ok {
                    return fall_back(self);
                }
                let why = if supported.is_empty() {
                    format!("the server refused server/discover: {}", e.message)
                } else {
                    format!("no protocol version in common: the server supports {}", supported.join(", "))
                };
                self.fail_open(open, RpcError { message: why, ..e })
            }
            // Not an era question: the server wants an authorization the client lacks.
            Err(e) if e.code == codes::UNAUTHORIZED => self.fail_open(open, e),
            Err(e) if mode == ClientMode::Auto => {
                let _ = e;
                fall_back(self)
            }
            Err(e) => self.fail_open(
                open,
                RpcError::new(
                    e.code,
                    format!(
                        "the server does not speak 2026-07-28 (server/discover: {}); use mode \"auto\" or \"legacy\" for a legacy server",
                        e.message
                    ),
                ),
            ),
        }
    }

    pub(super) fn fail_open(&mut self, open: OutboundId, e: RpcError) -> Vec<Event> {
        self.role.opening = None;
        self.role.state = State::Closed;
        vec![Event::Response { id: open, result: Err(e) }]
    }

    pub(super) fn on_initialize(&mut self, result: Result<Value, RpcError>, now: Instant) -> Vec<Event> {
        let open = self.role.open_id.unwrap_or(OutboundId(0));
        self.role.opening = None;
        let outcome = result.and_then(|v| {
            let r: InitializeResult = serde_json::from_value(v)
                .map_err(|e| RpcError::invalid_params(format!("bad initialize result: {e}")))?;
            let v: ProtocolVersion = r.protocol_version.parse().map_err(|_| {
                RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("server chose unsupported protocol version {:?}", r.protocol_version),
                )
            })?;
            if !self.role.config.versions.contains(&v) || v.era() != Era::Legacy {
                return Err(RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("server chose unsupported protocol version {v}"),
                ));
            }
            Ok((r, v))
        });
        match outcome {
            Ok((r, v)) => {
                self.peer.version = Some(v);
                self.role.server = Some(r);
                self.role.state = State::Operating;
                self.peer.notify::<Value>(Route::Standalone, "notifications/initialized", None);
                self.role.next_ping = self.role.config.ping_interval.map(|i| now + i);
                vec![Event::Initialized]
            }
            Err(e) => {
                self.role.state = State::Closed;
                vec![Event::Response { id: open, result: Err(e) }]
            }
        }
    }
}
