//! HTTP serving for Node: the engine's `HostHttpServer` on its I/O thread, handing calls to
//! Node's loop in batches. The I/O thread never calls JS per call: when its queue was empty
//! it calls one thread-safe function (no arguments), and JS takes everything queued at that
//! moment as one JSON text with `poll`.

use crate::bridge::{parse_json, write_events, ContextSlots, Wake, WakeFn, UNIT};
use crate::errors::{option_err, state_err};
use crate::server::{Registry, ServerSession};
use hypermcp::engine::Origin;
use hypermcp::transport::host::options::http_options;
use hypermcp::transport::host::{HostHttpServer, HostItem};
use napi::bindgen_prelude::{Buffer, External};
use napi::{Env, Status};
use napi_derive::napi;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// The HTTP server of one `Server`: the engine's service, and what wakes Node's loop.
#[napi]
pub struct HttpServer {
    host: HostHttpServer,
    wake: Wake,
    /// The request contexts JS holds (`poll`'s events name them by slot).
    contexts: Mutex<ContextSlots>,
}

#[napi]
impl HttpServer {
    /// `config` as for `ServerSession`; `options`: JSON text of the HTTP options (camelCase,
    /// milliseconds; null values mean the default); `wake`: called with no arguments when
    /// items are waiting for `poll`.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        config: String,
        registry: &Registry,
        options: String,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: napi::threadsafe_function::ThreadsafeFunction<
            (),
            napi::bindgen_prelude::Unknown<'static>,
            (),
            Status,
            false,
            true,
        >,
    ) -> napi::Result<Self> {
        let (wake, signal): (Wake, _) = Wake::new(wake as WakeFn);
        let config = parse_json(&env, &config, "server config")?;
        let options = parse_json(&env, &options, "HTTP options")?;
        let host = HostHttpServer::new(config, registry.inner.clone(), options, UNIT, signal)
            .map_err(|e| option_err(&env, e))?;
        Ok(HttpServer { host, wake, contexts: Mutex::default() })
    }

    /// Lets the server's task runtime take what is its own in every session.
    #[napi]
    pub fn set_tasks(&self, tasks: Option<&crate::server::TaskRuntime>) {
        self.host.set_tasks(tasks.map(|t| t.inner.clone()));
    }

    /// Runs the server's built-in middleware around every session's calls.
    #[napi]
    pub fn set_middleware(&self, middleware: Option<&crate::server::BuiltinMiddleware>) {
        self.host.set_middleware(middleware.map(|m| m.inner.clone()));
    }

    /// Throws an `OptionError` for HTTP options (JSON text) the engine cannot take.
    #[napi]
    pub fn check_options(env: Env, options: String) -> napi::Result<()> {
        let options = parse_json(&env, &options, "HTTP options")?;
        http_options(options, UNIT).map(drop).map_err(|e| option_err(&env, e))
    }

    /// The Streamable HTTP endpoint's path.
    #[napi(getter)]
    pub fn path(&self) -> String {
        self.host.options().path
    }

    /// The legacy SSE endpoint's path (null when the legacy transport is not served).
    #[napi(getter)]
    pub fn sse_path(&self) -> Option<String> {
        self.host.options().legacy_paths().map(|(sse, _)| sse.to_string())
    }

    /// The legacy message endpoint's path (null when the legacy transport is not served).
    #[napi(getter)]
    pub fn messages_path(&self) -> Option<String> {
        self.host.options().legacy_paths().map(|(_, messages)| messages.to_string())
    }

    /// Whether requests for `path` are the server's to answer (others are for the app).
    #[napi]
    pub fn serves(&self, path: String) -> bool {
        self.host.options().serves(&path)
    }

    /// The largest request body accepted, in bytes.
    #[napi(getter)]
    pub fn max_body(&self) -> f64 {
        self.host.options().max_body as f64
    }

    /// Binds `host:port` (0: any free port) and starts serving; returns `[host, port]` as
    /// bound. Node stays alive until `stop` has finished (a "stopped" item is polled).
    #[napi]
    pub fn listen(&self, env: Env, host: String, port: u32) -> napi::Result<(String, u32)> {
        let port = u16::try_from(port).map_err(|_| option_err(&env, format!("bad port {port}")))?;
        let addr = self.host.listen(&host, port).map_err(state_err)?;
        self.wake.hold(&env, true)?;
        Ok((addr.ip().to_string(), u32::from(addr.port())))
    }

    /// Stops accepting, lets calls in progress finish (10 s at most), closes every session;
    /// a "stopped" item follows. False when not listening.
    #[napi]
    pub fn stop(&self) -> bool {
        self.host.stop()
    }

    /// Closes every session (for servers mounted with `handle`).
    #[napi]
    pub fn close_all(&self) {
        self.host.close_all();
    }

    /// Everything queued, as JSON text of an array (empty string when nothing is):
    /// `["e", session, [events]]` (events as `ServerSession.pollEvents`, but a 2026-07-28
    /// request context is the number of a slot JS keeps, or `[slot, context]` to keep in it,
    /// read in order; an HTTP request's origin is its index in what `takeOrigins` gives
    /// after this poll; the session's handle comes from `session(key)`), `["c", session]` (closed),
    /// `["h", request, status, [name, value, ...]]`, `["d", request, text]` (a body chunk),
    /// `["x", request]` (end), `["s"]` (stopped).
    #[napi]
    pub fn poll(&self, env: Env) -> napi::Result<String> {
        let items = self.host.take();
        if items.is_empty() {
            return Ok(String::new());
        }
        let mut out = String::with_capacity(256);
        let mut contexts = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
        // The origins of the last poll JS did not take (events it had no use for): the
        // indices of this poll's count from 0.
        contexts.take_origins();
        for item in items {
            out.push(if out.is_empty() { '[' } else { ',' });
            let _ = match item {
                HostItem::Events { session, events } => {
                    let mut text = Vec::with_capacity(256);
                    write_events(&events, Some(&mut contexts), &mut text);
                    // Every piece of it is JSON text: UTF-8.
                    write!(out, "[\"e\",{session},{}]", std::str::from_utf8(&text).unwrap_or("[]"))
                }
                HostItem::Closed(session) => write!(out, "[\"c\",{session}]"),
                HostItem::Head { request, status, headers } => {
                    let flat: Vec<String> = headers
                        .iter()
                        .flat_map(|(k, v)| [k.clone(), String::from_utf8_lossy(v).into_owned()])
                        .collect();
                    write!(out, "[\"h\",{request},{status},{}]", serde_json::to_string(&flat).unwrap_or_default())
                }
                // The engine writes JSON and SSE text: UTF-8.
                HostItem::Chunk { request, data } => {
                    let text = serde_json::to_string(&String::from_utf8_lossy(&data)).unwrap_or_default();
                    write!(out, "[\"d\",{request},{text}]")
                }
                HostItem::End(request) => write!(out, "[\"x\",{request}]"),
                HostItem::Verify { id, token } => {
                    write!(out, "[\"v\",{id},{}]", serde_json::to_string(&token).unwrap_or_default())
                }
                HostItem::Stopped => {
                    // Nothing more will come from the listener: Node may exit when idle.
                    self.wake.hold(&env, false)?;
                    write!(out, "[\"s\"]")
                }
            };
        }
        out.push(']');
        Ok(out)
    }

    /// The HTTP requests' origins the events of the last `poll` name by index (an event's
    /// `origin` field is the index): each an external value holding the origin until JS lets
    /// it go; `originJson` writes one out. Taken once: a second take gives what polls since
    /// have named.
    #[napi(ts_return_type = "ExternalObject<'Origin'>[]")]
    pub fn take_origins(&self) -> Vec<External<Arc<Origin>>> {
        let mut contexts = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
        contexts.take_origins().into_iter().map(External::new).collect()
    }

    /// The handle of a session named by `poll`, or null once it closed.
    #[napi]
    pub fn session(&self, key: f64) -> Option<ServerSession> {
        self.host.session(key as u64).map(ServerSession::wrap)
    }

    /// Serves one request that arrived through another HTTP stack (`node:http`, Express,
    /// Fastify): `headers` flat `[name, value, ...]`. Returns a request id; the answer comes
    /// back through `poll` as "h", "d"... and "x" items.
    #[napi]
    pub fn handle(
        &self,
        env: Env,
        method: String,
        target: String,
        headers: Vec<String>,
        body: Buffer,
    ) -> napi::Result<f64> {
        let pairs: Vec<(&str, &str)> = headers.chunks_exact(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
        let id = self.host.handle(&method, &target, pairs, body.to_vec()).map_err(|e| option_err(&env, e))?;
        Ok(id as f64)
    }

    /// The verdict on the token of a `["v", id, token]` item: its claims (JSON text of an
    /// object), or `error`, why it is refused.
    #[napi]
    pub fn answer_verify(&self, id: f64, claims: Option<String>, error: Option<String>) {
        let verdict = match (claims, error) {
            (Some(c), None) => serde_json::from_str(&c).map_err(|e| format!("the token's claims are not JSON: {e}")),
            (_, Some(e)) => Err(e),
            (None, None) => Err("the token was refused".to_string()),
        };
        self.host.answer_verify(id as u64, verdict);
    }

    /// The client of a request served with `handle` went away: its response stops (a call
    /// answering on it keeps running; the client may resume its stream).
    #[napi]
    pub fn cancel(&self, request: f64) {
        self.host.cancel(request as u64);
    }

    /// Open sessions.
    #[napi(getter)]
    pub fn session_count(&self) -> u32 {
        self.host.session_count() as u32
    }
}
