//! The invocation path: the one way from an engine's [`Invocation`] to user code and back
//! to an [`Outcome`]. Every transport calls it ([`Invoke`]); the handler table is its
//! innermost link, and whatever wraps a call (the task runtime, middleware) is a link
//! around it.

use super::context::Context;
use crate::engine::{Invocation, Outcome};
use futures_util::future::BoxFuture;

/// Runs user code for an invocation: the future resolves with what the engine answers.
/// Called on the thread that polls the session, with no lock of the session held; the
/// future may be polled once in place (most handlers finish without waiting) and is then
/// kept by the driver until it resolves or the call is cancelled.
pub trait Invoke: Send + Sync + 'static {
    /// The outcome of `inv`, run with `ctx`.
    fn invoke(&self, inv: Invocation, ctx: Context) -> BoxFuture<'static, Outcome>;
}

/// An outcome known at once.
pub(crate) fn ready(o: Outcome) -> BoxFuture<'static, Outcome> {
    Box::pin(std::future::ready(o))
}

/// The message of a handler's panic (a `&str` or `String` payload, as `panic!` makes).
pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// The outcome of a handler that panicked, its message hidden from the client when `mask`
/// (the server's `mask_error_details`; the panic goes to the log then).
pub(crate) fn panicked_masked(p: Box<dyn std::any::Any + Send>, mask: bool) -> Outcome {
    let panic = panic_message(p);
    if mask {
        tracing::error!(target: "hypermcp::errors", panic, "handler panicked (the client was told less: mask_error_details)");
        return Outcome::Error(crate::jsonrpc::RpcError::new(crate::jsonrpc::codes::INTERNAL_ERROR, "handler failed"));
    }
    Outcome::Error(crate::jsonrpc::RpcError::internal(format!("handler panicked: {panic}")))
}
