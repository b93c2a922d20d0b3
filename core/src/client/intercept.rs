//! Client request interceptors ([`Interceptor`], [`ClientOptions::interceptor`]): links around
//! every request a [`Client`] sends, in the order they were added, the counterpart of a
//! server's middleware. A link may change the request's params, answer by itself without
//! sending, change or observe the result, or turn it into an error.

use super::{CallOptions, Client};
use crate::error::Result;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

#[cfg(doc)]
use super::ClientOptions;

/// A request the client is about to send, as an interceptor sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientRequest {
    /// The JSON-RPC method (`tools/call`, ...).
    pub method: String,
    /// Its params (change them to change what is sent).
    pub params: Option<Value>,
}

/// One link around a client's requests ([`ClientOptions::interceptor`]).
///
/// ```
/// use hypermcp::client::{ClientNext, ClientRequest, Interceptor};
/// use futures_util::future::BoxFuture;
///
/// /// Counts the calls that fail.
/// struct Failures(std::sync::atomic::AtomicU64);
///
/// impl Interceptor for Failures {
///     fn intercept<'a>(&'a self, request: ClientRequest, next: ClientNext<'a>) -> BoxFuture<'a, hypermcp::Result<serde_json::Value>> {
///         Box::pin(async move {
///             let result = next.run(request).await;
///             if result.is_err() {
///                 self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///             }
///             result
///         })
///     }
/// }
/// let options = hypermcp::ClientOptions::new("app", "1.0").interceptor(Failures(Default::default()));
/// ```
pub trait Interceptor: Send + Sync + 'static {
    /// Runs around one request: `next.run(request)` sends it (through the links after this
    /// one) and resolves with the result as the server sent it.
    fn intercept<'a>(&'a self, request: ClientRequest, next: ClientNext<'a>) -> BoxFuture<'a, Result<Value>>;
}

/// The send at the end of the links.
type Sender<'a> = Box<dyn FnOnce(ClientRequest) -> BoxFuture<'a, Result<Value>> + Send + 'a>;

/// The rest of the links ([`Interceptor::intercept`]).
pub struct ClientNext<'a> {
    rest: &'a [Arc<dyn Interceptor>],
    send: Sender<'a>,
}

impl<'a> ClientNext<'a> {
    /// Sends `request` through the rest of the links.
    pub fn run(self, request: ClientRequest) -> BoxFuture<'a, Result<Value>> {
        match self.rest.split_first() {
            Some((link, rest)) => link.intercept(request, ClientNext { rest, send: self.send }),
            None => (self.send)(request),
        }
    }
}

impl Client {
    /// `method` through the interceptors, then sent with `opts`.
    pub(super) async fn intercepted(&self, method: &str, params: Option<Value>, opts: CallOptions) -> Result<Value> {
        let links = self.interceptors.clone();
        let send: Sender<'_> =
            Box::new(move |r: ClientRequest| Box::pin(async move { self.send(&r.method, r.params, opts).await }));
        ClientNext { rest: &links, send }.run(ClientRequest { method: method.to_string(), params }).await
    }
}
