//! The native half of the Node package: handles to the engine's host adapters
//! (`hypermcp::transport::host`) and registry. Protocol payloads and events cross as JSON
//! text (V8's `JSON.parse` builds objects faster than property-by-property construction
//! from native code); errors are built by `errors.cjs`'s factory ([`errors`]). stdio needs
//! no runtime and no thread: Node's own streams feed the sessions. HTTP runs on the
//! engine's I/O thread (`http.rs`, `http_client.rs`), which hands work to Node's loop in
//! batches.
#![deny(unsafe_code)]

mod bridge;
mod client;
mod errors;
mod http;
mod http_client;
mod ops;
mod server;

pub use ops::{
    client_event, log_from_env, metrics_json, metrics_text, set_log_handler, take_log_records, trace_context,
};
pub use server::{check_skill_entry, read_app, verify_skill_read};

use napi_derive::napi;

/// The allocator of the addon's own (Rust) allocations: mimalloc. Over HTTP, the engine's
/// I/O thread allocates what Node's main thread frees (requests, events, answers) and the
/// other way round; glibc's malloc serialises those frees on the allocating thread's arena
/// lock, where mimalloc frees across threads without one (the Python module, of the same
/// design, waited a fifth of its time on that lock at 50 connections). Echo calls/s at 50
/// connections, 2026-07-28 and legacy stateless: +21% each (servers side by side, in turns).
/// JavaScript's objects keep V8's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Registers the function that builds the errors this module throws:
/// `(kind, message, rpcCode, dataJson)`, `kind` being "rpc", "definition" or "option".
#[napi]
#[allow(clippy::type_complexity)]
pub fn set_error_factory(
    env: napi::Env,
    // Spelled out: a type alias here would leak into the generated index.d.ts.
    make: napi::bindgen_prelude::Function<
        napi::bindgen_prelude::FnArgs<(&'static str, String, Option<i32>, Option<String>)>,
        napi::bindgen_prelude::Unknown<'static>,
    >,
) -> napi::Result<()> {
    errors::register(&env, make)
}

/// The engine version.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Each kind of event array and the names of its fields (see `events.cjs`).
#[napi]
pub fn event_layouts() -> Vec<(String, Vec<String>)> {
    hypermcp::transport::host::events::LAYOUTS
        .iter()
        .map(|(k, f)| (k.to_string(), f.iter().map(|s| s.to_string()).collect()))
        .collect()
}

/// An HTTP request's origin `HttpServer.takeOrigins` handed out, as JSON text: `{headers:
/// [[name, value], ...], sessionId, auth}`.
#[napi(ts_args_type = "origin: ExternalObject<'Origin'>")]
pub fn origin_json(origin: &napi::bindgen_prelude::External<std::sync::Arc<hypermcp::engine::Origin>>) -> String {
    serde_json::to_string(&***origin).unwrap_or_default()
}

/// Protocol revisions this release speaks.
#[napi]
pub fn protocol_versions() -> Vec<String> {
    hypermcp::ProtocolVersion::LEGACY.iter().map(|v| v.as_str().to_string()).collect()
}

/// What the npm package knows of its host, for the command line.
#[napi(object)]
pub struct CliHost {
    /// The Node executable running the package.
    pub node: Option<String>,
    /// The package's runner of server files (`bindings-node/js/runner.mjs`).
    pub node_runner: Option<String>,
}

/// Runs the `hypermcp` command line (`args` without the program name) and returns its exit
/// status. Blocks until the command ends (the command line is the whole process).
#[napi]
pub fn cli_main(args: Vec<String>, host: CliHost) -> i32 {
    hypermcp::cli::main(
        args,
        hypermcp::cli::Host {
            program: Some("hypermcp".into()),
            python: None,
            node: host.node.map(Into::into),
            node_runner: host.node_runner.map(Into::into),
        },
    )
}
