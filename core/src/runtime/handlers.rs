//! The handler table: the Rust handlers of one server's tools, resources, templates,
//! prompts and completion, by name (or URI, or URI template). It is the innermost link of
//! the invocation path: what it runs is user code.

use super::context::Context;
use super::invoke::{ready, Invoke};
use crate::engine::{failure, Failed};
use crate::engine::{Invocation, Outcome, Request};
use crate::error::{Error, Result};
use crate::jsonrpc::RpcError;
use crate::protocol::*;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A tool's handler: its arguments and context in, what it answered out.
pub(crate) type ToolFn =
    std::sync::Arc<dyn Fn(Map<String, Value>, Context) -> BoxFuture<'static, ToolAnswer> + Send + Sync>;

/// What a tool's handler answered ([`crate::IntoToolResult::into_tool_answer`]).
#[doc(hidden)]
#[derive(Debug)]
pub enum ToolAnswer {
    /// A result, an `isError` one included.
    Result(CallToolResult),
    /// A JSON-RPC error.
    Error(RpcError),
    /// An error the handler did not mean the client to read (its message): sent as an
    /// `isError` result, or masked ([`crate::engine::ServerConfig::mask_error_details`]).
    Failed(String),
}
/// A resource's (or a template's) handler.
pub(crate) type ResourceFn =
    std::sync::Arc<dyn Fn(ResourceRequest, Context) -> BoxFuture<'static, Result<ReadResourceResult>> + Send + Sync>;
/// A prompt's handler.
pub(crate) type PromptFn = std::sync::Arc<
    dyn Fn(HashMap<String, String>, Context) -> BoxFuture<'static, Result<GetPromptResult>> + Send + Sync,
>;
/// The handler of a request method of the server's own: its params in, its result out.
pub(crate) type MethodFn =
    std::sync::Arc<dyn Fn(Map<String, Value>, Context) -> BoxFuture<'static, Result<Value>> + Send + Sync>;
/// The handler of a notification method of the server's own.
pub(crate) type NotificationFn = std::sync::Arc<dyn Fn(Map<String, Value>) -> BoxFuture<'static, ()> + Send + Sync>;
/// The completion handler.
pub(crate) type CompleteFn =
    std::sync::Arc<dyn Fn(CompleteParams, Context) -> BoxFuture<'static, Result<CompleteResult>> + Send + Sync>;

/// A read of a static resource or of a URI matched by a template.
#[derive(Debug, Clone)]
pub struct ResourceRequest {
    /// The URI read.
    pub uri: String,
    /// Variables extracted by the template (empty for a static resource).
    pub variables: HashMap<String, String>,
}

/// The handlers, by what the engine names in an [`Invocation`].
#[derive(Default)]
pub(crate) struct Handlers {
    pub tools: HashMap<String, ToolFn>,
    /// Static resources by URI, templates by their URI template.
    pub resources: HashMap<String, ResourceFn>,
    pub prompts: HashMap<String, PromptFn>,
    pub completion: Option<CompleteFn>,
    /// Request methods of the server's own, by method.
    pub methods: HashMap<String, MethodFn>,
    /// Notifications of the server's own, by method.
    pub notifications: HashMap<String, NotificationFn>,
}

/// The handlers of one server, changed while it serves.
#[derive(Default)]
pub(crate) struct HandlerTable {
    handlers: RwLock<Handlers>,
    /// Whether unexpected failures are masked (the server's `mask_error_details`).
    mask: AtomicBool,
}

impl HandlerTable {
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Handlers> {
        self.handlers.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Handlers> {
        self.handlers.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Masks (or not) what unexpected failures say.
    pub(crate) fn set_mask(&self, mask: bool) {
        self.mask.store(mask, Ordering::Relaxed);
    }

    /// Whether unexpected failures are masked.
    pub(crate) fn masks(&self) -> bool {
        self.mask.load(Ordering::Relaxed)
    }
}

impl Invoke for HandlerTable {
    fn invoke(&self, inv: Invocation, ctx: Context) -> BoxFuture<'static, Outcome> {
        let h = self.read();
        let mask = self.masks();
        match inv.request {
            Request::CallTool { name, arguments } => match h.tools.get(&name) {
                Some(f) => {
                    let fut = f(arguments, ctx);
                    Box::pin(async move {
                        match fut.await {
                            ToolAnswer::Result(r) => Outcome::Tool(r),
                            ToolAnswer::Error(e) => Outcome::Error(e),
                            ToolAnswer::Failed(e) => failure(Failed::Tool(&name), &e, None, mask),
                        }
                    })
                }
                None => ready(Outcome::Error(RpcError::unknown_tool(&name))),
            },
            Request::ReadResource { uri, template, variables } => {
                let key = template.as_ref().map(|t| t.template.uri_template.clone()).unwrap_or_else(|| uri.clone());
                match h.resources.get(&key) {
                    Some(f) => {
                        let fut = f(ResourceRequest { uri: uri.clone(), variables }, ctx);
                        Box::pin(async move {
                            to_outcome(fut.await, Outcome::Resource, mask.then_some(Failed::Resource(&uri)))
                        })
                    }
                    None => ready(Outcome::Error(RpcError::resource_not_found(&uri))),
                }
            }
            Request::GetPrompt { name, arguments } => match h.prompts.get(&name) {
                Some(f) => {
                    let fut = f(arguments, ctx);
                    Box::pin(
                        async move { to_outcome(fut.await, Outcome::Prompt, mask.then_some(Failed::Prompt(&name))) },
                    )
                }
                None => ready(Outcome::Error(RpcError::unknown_prompt(&name))),
            },
            Request::Complete(params) => match &h.completion {
                Some(f) => {
                    let fut = f(params, ctx);
                    Box::pin(
                        async move { to_outcome(fut.await, Outcome::Completion, mask.then_some(Failed::Completion)) },
                    )
                }
                None => ready(Outcome::Completion(Default::default())),
            },
            // The end of a list's chain: the entries the engine built.
            Request::List { items, .. } => ready(Outcome::Listed(items)),
            Request::Custom { method, params } => match h.methods.get(&method) {
                Some(f) => {
                    let fut = f(params, ctx);
                    Box::pin(
                        async move { to_outcome(fut.await, Outcome::Json, mask.then_some(Failed::Method(&method))) },
                    )
                }
                None => ready(Outcome::Error(RpcError::method_not_found(&method))),
            },
            // The runtime answers task operations before the table is asked.
            Request::Task(_) => {
                ready(Outcome::Error(RpcError::method_not_found("tasks (this server runs no task runtime)")))
            }
            Request::CreateMessage(_) | Request::Elicit(_) | Request::ListRoots => {
                ready(Outcome::Error(RpcError::method_not_found("client request sent to a server")))
            }
        }
    }
}

/// A handler's outcome; an error other than a JSON-RPC one is masked when `masked` names
/// what failed.
fn to_outcome<T>(r: Result<T>, f: impl FnOnce(T) -> Outcome, masked: Option<Failed<'_>>) -> Outcome {
    match r {
        Ok(v) => f(v),
        Err(Error::Rpc(e)) => Outcome::Error(e),
        Err(e) => match masked {
            Some(what) => failure(what, &e.to_string(), None, true),
            None => Outcome::Error(RpcError::internal(e)),
        },
    }
}
