//! The engine's integration tests, as one test binary: one link of the engine and its
//! dependencies instead of one per file, and every test of every file spread over the test
//! threads together. A file here is a module; the helpers are `common` and `http_util`.
//! Three tests stay binaries of their own (core/tests/*.rs), because they measure the whole
//! process: its resident memory (http_memory, http_unread_stream) or its log subscriber and
//! counters (observability); so does the generated doc_snippets.rs.

#[path = "../common/mod.rs"]
mod common;
#[path = "../http_util/mod.rs"]
mod http_util;

mod apps;
mod builtin_middleware;
mod cancellation;
mod client_features;
mod client_interceptors;
mod client_reconnect;
mod completion;
mod conformance_server;
mod custom_methods;
mod extensions;
mod fuzz_replay;
mod handshake;
mod host_http;
mod http_axum;
mod http_bad_input;
mod http_client;
mod http_cluster;
mod http_keepalive;
mod http_legacy;
mod http_limits;
mod http_modes;
mod http_resource_server;
mod http_resume;
mod http_routing;
mod http_sessions;
mod http_shutdown;
mod http_tls;
mod interop_modern;
mod list_changed;
mod logging;
mod middleware;
mod modern_http;
mod modern_stdio;
mod oauth_provider;
mod panics;
mod progress;
mod prompts;
mod resources;
mod server_everything;
mod shared_tables;
mod skills;
mod stdio_child;
mod subject_visibility;
mod tasks;
mod tools;
mod trace_context;
mod visibility;
mod wire_schema;
