//! The HTTP server: Streamable HTTP on one endpoint (POST, GET, DELETE) and, beside it, the
//! legacy HTTP+SSE transport (`GET /sse`, `POST /messages`).
//!
//! [`HttpService`] is a hyper (and tower) service: mount it in an existing app, or let
//! [`serve_http`] / [`crate::Server::serve_http`] run it on a socket.
//!
//! How a POST is answered: the engine answers what it can at once (`initialize`, lists,
//! `ping`…) and the reply is one JSON body. A call into user code gets a JSON body too when
//! it finishes within [`HttpOptions::json_wait`] having sent nothing else; a call that
//! sends progress, logs or requests to the client, or takes longer, gets an SSE stream
//! (priming event with an id and `retry`, then its messages, then its answer).

// The files: `service` (HttpService and its routing), `streamable` (POST, GET, DELETE on
// the MCP endpoint), `legacy` (HTTP+SSE), `request` (the checks of a request), `reply` (the
// replies made up here), `classify` (what a POST body holds), `table` (the session table),
// `session` (one session), `stream` (its SSE streams), `events` (the event store),
// `dispatch` (the Rust dispatcher), `views` (what callers without a session see), `options`,
// `serve` (running on a socket) and `h1` (HTTP/1.1 on one connection).
mod classify;
mod cluster;
mod dispatch;
mod events;
mod guard;
pub(crate) mod h1;
mod legacy;
mod options;
mod reply;
mod request;
mod serve;
mod service;
mod session;
mod stream;
mod streamable;
mod table;
mod views;

pub use events::{EventStore, InMemoryEventStore};
pub use options::HttpOptions;
pub use serve::{bind, serve_http, shutdown_signal, tls_acceptor, ClientAddr};
pub(crate) use serve::{serve_with, serving_checks};
pub use service::HttpService;
pub use session::{Dispatcher, Session};
pub use stream::HttpBody;
