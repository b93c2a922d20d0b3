//! Host adapters: what a binding drives from a host language's own event loop (Python's
//! asyncio, Node's), so that every protocol and transport rule lives here once and the
//! bindings only bind.
//!
//! - [`HostSession`]: one server session wherever its bytes go (a byte stream the host
//!   owns, or an HTTP session of the engine's service), with one set of methods for both;
//! - [`HostHttpServer`]: the engine's HTTP service on the I/O runtime, handing the host its
//!   work in batches ([`HostItem`]s, one wake-up a batch);
//! - [`HostStream`]: the HTTP client transport as a byte stream the host feeds to its
//!   client session;
//! - [`HostTasks`]: the task runtime of a host's server, with the session its tasks'
//!   handlers run on;
//! - [`events`]: the layout of the event tuples hosts receive, named once;
//! - [`options`]: server, HTTP and client options parsed from the JSON a binding sends,
//!   durations in the language's [`TimeUnit`].
//!
//! The host's only part is its wake-up (a byte on a socket its loop watches, a thread-safe
//! function) and how it encodes events and items for its language.

pub mod events;
mod gate;
mod late;
pub mod options;
mod runtime;
mod server;
mod session;
mod stream;
mod tasks;

pub use gate::HostMiddleware;
pub use options::{OptionError, TimeUnit};
pub use server::{HostHttpServer, HostItem};
pub use session::{HostSession, NotAStream};
pub use stream::{HostAuthorization, HostChunk, HostStoreOp, HostStream};
pub use tasks::HostTasks;
