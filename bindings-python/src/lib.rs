//! `hypermcp._core`: the native half of the Python package.
//!
//! It holds only handles to the engine's host adapters (`hypermcp::transport::host`) and
//! registry, the conversion of protocol payloads and events between JSON values and Python
//! objects and the loop's wake-up ([`bridge`]), and the mapping of engine errors to
//! `hypermcp.errors` ([`errors`]). For stdio and in-memory connections there is no runtime
//! and no thread: the asyncio loop owns the I/O and calls straight into the sessions. HTTP
//! runs on the engine's I/O thread ([`http`], [`http_client`]), which hands work to the
//! loop in batches.
#![deny(unsafe_code)]

mod alloc;
mod bridge;
mod client;
mod errors;
mod http;
mod http_client;
mod ops;
mod server;

use pyo3::prelude::*;

/// The allocator of the module's own (Rust) allocations: mimalloc. Over HTTP, the engine's
/// I/O thread allocates what the loop's thread frees (requests, events, answers) and the other
/// way round; glibc's malloc serialises those frees on the allocating thread's arena lock, and
/// at 50 connections the loop's thread spent a fifth of its time waiting for it (py-spy).
/// mimalloc frees across threads without a lock: 2026-07-28 echo calls/s at 50 connections
/// +42%, legacy stateless +15% (bench/eras.py's servers, in turns). Python's own objects keep
/// Python's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PROTOCOL_VERSIONS", hypermcp::ProtocolVersion::LEGACY.iter().map(|v| v.as_str()).collect::<Vec<_>>())?;
    m.add("EVENT_LAYOUTS", hypermcp::transport::host::events::LAYOUTS.to_vec())?;
    m.add_class::<server::Registry>()?;
    m.add_class::<server::ServerSession>()?;
    m.add_class::<server::TaskRuntime>()?;
    m.add_class::<server::BuiltinMiddleware>()?;
    m.add_class::<client::ClientSession>()?;
    m.add_class::<client::ReconnectPolicy>()?;
    m.add_class::<http::HttpServer>()?;
    m.add_class::<bridge::Deferred>()?;
    m.add_class::<http_client::HttpClientStream>()?;
    m.add_function(wrap_pyfunction!(alloc::keep_freed_memory, m)?)?;
    m.add_function(wrap_pyfunction!(server::verify_skill_read, m)?)?;
    m.add_function(wrap_pyfunction!(server::check_skill_entry, m)?)?;
    m.add_function(wrap_pyfunction!(server::read_app, m)?)?;
    m.add_function(wrap_pyfunction!(ops::set_log_handler, m)?)?;
    m.add_function(wrap_pyfunction!(ops::metrics, m)?)?;
    m.add_function(wrap_pyfunction!(ops::metrics_text, m)?)?;
    m.add_function(wrap_pyfunction!(ops::client_event, m)?)?;
    m.add_function(wrap_pyfunction!(ops::trace_context, m)?)?;
    m.add_function(wrap_pyfunction!(ops::cli_main, m)?)?;
    // HYPERMCP_LOG=info (or debug...) sends the engine's events to stderr.
    hypermcp::log::from_env();
    Ok(())
}
