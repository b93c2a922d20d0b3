//! Events as hosts receive them: positional tuples (fast to build and to read in Python and
//! JavaScript) whose layout is named here, once.
//!
//! An event is `[kind, field, field, ...]`; [`LAYOUTS`] names the fields of each kind in
//! order (index 0 is the kind, so a field's index is its place in the list plus one). The
//! bindings export the table; host code takes its named indices from it, and every suite
//! checks it against `tests/fixtures/events.json`. [`visit`] hands out an event's values in
//! that order, for a binding to convert one by one into its language's values.

use crate::engine::{Event, Origin, Request, RequestContext};
use crate::jsonrpc::{RequestId, RpcError};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The fields every invocation (an event that runs a handler) starts with. `context` is a
/// 2026-07-28 request's own context as JSON ([`crate::engine::RequestContext`]), `null` in a
/// legacy session; `origin` the HTTP request it came in ([`crate::engine::Origin`]: headers,
/// session id, auth), `null` over stdio.
const CALL: [&str; 6] = ["key", "id", "progress_token", "meta", "context", "origin"];

macro_rules! call_layout {
    ($($field:literal),*) => { &[CALL[0], CALL[1], CALL[2], CALL[3], CALL[4], CALL[5], $($field),*] };
}

/// Each kind of event and the names of its fields, in order.
pub const LAYOUTS: &[(&str, &[&str])] = &[
    // Server side: calls into the server's handlers.
    // `task`: the id of the task the call runs as (on the task session), else null.
    ("tool", call_layout!("name", "arguments", "task")),
    ("resource", call_layout!("uri", "template", "variables")),
    ("prompt", call_layout!("name", "arguments")),
    ("complete", call_layout!("params")),
    // A request method of the server's own (`server.method`): its params without `_meta`.
    ("method", call_layout!("method", "params")),
    // A list some middleware hook sees (`list`: "tools", "resources", "resource_templates",
    // "prompts"): every entry the caller sees; the host answers with the list to send.
    ("list", call_layout!("list", "items")),
    // Client side: the server's requests to the client's handlers.
    ("sampling", call_layout!("params")),
    ("elicitation", call_layout!("params")),
    ("roots", call_layout!()),
    // Both sides.
    ("cancelled", &["key", "reason"]),
    ("response", &["id", "ok", "result"]),
    ("progress", &["id", "progress", "total", "message"]),
    ("initialized", &[]),
    ("notification", &["method", "params", "subscription"]),
    ("lost", &["reason"]),
];

/// One value of an event, borrowed from it where it can be.
#[derive(Debug)]
pub enum Field<'a> {
    /// A request key or an outbound id.
    Int(i64),
    /// A JSON-RPC id (number or string).
    Id(&'a RequestId),
    /// Text.
    Str(&'a str),
    /// Text, or nothing.
    OptStr(Option<&'a str>),
    /// A number.
    Float(f64),
    /// A number, or nothing.
    OptFloat(Option<f64>),
    /// An outbound id, or nothing.
    OptInt(Option<i64>),
    /// A flag.
    Bool(bool),
    /// A JSON object (arguments, `_meta`), or nothing.
    Object(Option<&'a Map<String, Value>>),
    /// String-valued arguments (template variables, prompt arguments).
    Strings(&'a HashMap<String, String>),
    /// Any JSON value.
    Json(Option<&'a Value>),
    /// A JSON value made for the occasion (typed params, serialized).
    Owned(Value),
    /// A list of JSON values (a list's entries), borrowed.
    Values(&'a [Value]),
    /// A JSON-RPC error (the host makes it its error type).
    Error(&'a RpcError),
    /// A 2026-07-28 request's own context (a JSON object). Shared, so that a host may keep it
    /// and convert it only when a handler reads it.
    Context(&'a Arc<RequestContext>),
    /// The HTTP request an invocation came in (a JSON object), shared like `Context`.
    Origin(&'a Arc<Origin>),
}

/// The most fields an event has.
pub const MAX_FIELDS: usize = 9;

/// A kind of event: its place in [`LAYOUTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind(usize);

impl Kind {
    const TOOL: Kind = Kind(0);
    const RESOURCE: Kind = Kind(1);
    const PROMPT: Kind = Kind(2);
    const COMPLETE: Kind = Kind(3);
    const METHOD: Kind = Kind(4);
    const LIST: Kind = Kind(5);
    const SAMPLING: Kind = Kind(6);
    const ELICITATION: Kind = Kind(7);
    const ROOTS: Kind = Kind(8);
    const CANCELLED: Kind = Kind(9);
    const RESPONSE: Kind = Kind(10);
    const PROGRESS: Kind = Kind(11);
    const INITIALIZED: Kind = Kind(12);
    const NOTIFICATION: Kind = Kind(13);
    const LOST: Kind = Kind(14);

    /// Its name (`"tool"`, `"response"`...).
    pub fn name(self) -> &'static str {
        LAYOUTS[self.0].0
    }

    /// Its place in [`LAYOUTS`] (for hosts that keep one value per kind).
    pub fn index(self) -> usize {
        self.0
    }
}

/// The kind of `ev`.
pub fn kind(ev: &Event) -> Kind {
    match ev {
        Event::Invoke(inv) => match &inv.request {
            Request::CallTool { .. } => Kind::TOOL,
            Request::ReadResource { .. } => Kind::RESOURCE,
            Request::GetPrompt { .. } => Kind::PROMPT,
            Request::Complete(_) => Kind::COMPLETE,
            Request::CreateMessage(_) => Kind::SAMPLING,
            Request::Elicit(_) => Kind::ELICITATION,
            Request::ListRoots => Kind::ROOTS,
            Request::Custom { .. } => Kind::METHOD,
            Request::List { .. } => Kind::LIST,
            // Answered in Rust by the host adapters (`HostSession::poll_event`), never handed over.
            Request::Task(_) => Kind::TOOL,
        },
        Event::Cancelled { .. } => Kind::CANCELLED,
        Event::Response { .. } => Kind::RESPONSE,
        Event::Progress { .. } => Kind::PROGRESS,
        Event::Initialized => Kind::INITIALIZED,
        Event::Notification { .. } => Kind::NOTIFICATION,
        Event::Lost { .. } => Kind::LOST,
    }
}

/// Hands `f` the fields of `ev`, one by one, in the order [`LAYOUTS`] names them (nothing is
/// collected: the host builds its value as they come).
pub fn visit<'a>(ev: &'a Event, mut f: impl FnMut(Field<'a>)) {
    match ev {
        Event::Invoke(inv) => {
            f(Field::Int(inv.key.0 as i64));
            f(Field::Id(&inv.id));
            f(match &inv.progress_token {
                Some(t) => Field::Id(t),
                None => Field::Json(None),
            });
            f(Field::Object(inv.meta.as_ref()));
            f(match &inv.context {
                Some(c) => Field::Context(c),
                None => Field::Json(None),
            });
            f(match &inv.origin {
                Some(o) => Field::Origin(o),
                None => Field::Json(None),
            });
            match &inv.request {
                Request::CallTool { name, arguments } => {
                    f(Field::Str(name));
                    f(Field::Object(Some(arguments)));
                    f(match &inv.task {
                        Some(crate::engine::TaskPlan::Running(id)) => Field::Str(id),
                        _ => Field::Json(None),
                    });
                }
                Request::ReadResource { uri, template, variables } => {
                    f(Field::Str(uri));
                    f(Field::OptStr(template.as_ref().map(|t| t.template.uri_template.as_str())));
                    f(Field::Strings(variables));
                }
                Request::GetPrompt { name, arguments } => {
                    f(Field::Str(name));
                    f(Field::Strings(arguments));
                }
                Request::Complete(p) => f(owned(p)),
                Request::CreateMessage(p) => f(owned(&**p)),
                Request::Elicit(p) => f(owned(&**p)),
                Request::ListRoots => {}
                Request::Custom { method, params } => {
                    f(Field::Str(method));
                    f(Field::Object(Some(params)));
                }
                Request::List { kind, items } => {
                    f(Field::Str(kind.name()));
                    f(Field::Values(items));
                }
                Request::Task(op) => {
                    f(Field::Str(op.task_id()));
                    f(Field::Object(None));
                    f(Field::Json(None));
                }
            }
        }
        Event::Cancelled { key, reason } => {
            f(Field::Int(key.0 as i64));
            f(Field::OptStr(reason.as_deref()));
        }
        Event::Response { id, result } => {
            f(Field::Int(id.0));
            f(Field::Bool(result.is_ok()));
            f(match result {
                Ok(v) => Field::Json(Some(v)),
                Err(e) => Field::Error(e),
            });
        }
        Event::Progress { id, progress, total, message } => {
            f(Field::Int(id.0));
            f(Field::Float(*progress));
            f(Field::OptFloat(*total));
            f(Field::OptStr(message.as_deref()));
        }
        Event::Initialized => {}
        Event::Notification { method, params, subscription } => {
            f(Field::Str(method));
            f(Field::Json(params.as_ref()));
            f(Field::OptInt(subscription.map(|s| s.0)));
        }
        Event::Lost { reason } => f(Field::Str(reason)),
    }
}

/// A field as JSON (an error as its JSON-RPC error object).
impl serde::Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Int(n) => s.serialize_i64(*n),
            Field::Id(id) => id.serialize(s),
            Field::Str(v) => s.serialize_str(v),
            Field::OptStr(v) => v.serialize(s),
            Field::Float(x) => s.serialize_f64(*x),
            Field::OptFloat(x) => x.serialize(s),
            Field::OptInt(x) => x.serialize(s),
            Field::Bool(b) => s.serialize_bool(*b),
            Field::Object(m) => m.serialize(s),
            Field::Strings(m) => m.serialize(s),
            Field::Json(v) => v.serialize(s),
            Field::Owned(v) => v.serialize(s),
            Field::Values(v) => v.serialize(s),
            Field::Error(e) => e.serialize(s),
            Field::Context(c) => c.serialize(s),
            Field::Origin(o) => o.serialize(s),
        }
    }
}

/// An event as the JSON array `[kind, field, ...]`, appended to `out` (for hosts that take
/// JSON text). A request context is written by `context`: [`write_context`] writes it whole;
/// a host that keeps contexts it was given may name one instead (the context is shared
/// between requests whose `_meta` read the same).
pub fn write_json(ev: &Event, out: &mut Vec<u8>, context: impl FnMut(&Arc<RequestContext>, &mut Vec<u8>)) {
    write_json_with(ev, out, context, write_origin);
}

/// [`write_json`], the HTTP request's origin written by `origin`: [`write_origin`] writes it
/// whole; a host may hand it over another way and write what names it (the origin holds
/// every header of the request, which most handlers never read).
pub fn write_json_with(
    ev: &Event,
    out: &mut Vec<u8>,
    mut context: impl FnMut(&Arc<RequestContext>, &mut Vec<u8>),
    mut origin: impl FnMut(&Arc<Origin>, &mut Vec<u8>),
) {
    out.push(b'[');
    let _ = serde_json::to_writer(&mut *out, kind(ev).name());
    visit(ev, |f| {
        out.push(b',');
        match f {
            Field::Context(c) => context(c, out),
            Field::Origin(o) => origin(o, out),
            f => {
                let _ = serde_json::to_writer(&mut *out, &f);
            }
        }
    });
    out.push(b']');
}

/// A request context as JSON, whole (for [`write_json`]).
pub fn write_context(c: &Arc<RequestContext>, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, &**c);
}

/// An HTTP request's origin as JSON, whole (for [`write_json_with`]).
pub fn write_origin(o: &Arc<Origin>, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, &**o);
}

/// Typed params as JSON.
fn owned<T: serde::Serialize>(v: &T) -> Field<'static> {
    Field::Owned(serde_json::to_value(v).unwrap_or_default())
}

/// Whether `kind` is an event that runs a handler (a host needs a connection for it).
pub fn is_call(kind: &str) -> bool {
    LAYOUTS.iter().take_while(|(k, _)| *k != "cancelled").any(|(k, _)| *k == kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Invocation, OutboundId, RequestKey};

    fn layout(kind: &str) -> &'static [&'static str] {
        LAYOUTS.iter().find(|(k, _)| *k == kind).map(|(_, f)| *f).expect("a kind of the table")
    }

    #[test]
    fn every_event_has_the_fields_its_layout_names() {
        let inv = |request| {
            Event::Invoke(Invocation {
                key: RequestKey(1),
                id: RequestId::Number(2),
                request,
                progress_token: None,
                meta: None,
                context: None,
                origin: None,
                task: None,
            })
        };
        let events = vec![
            inv(Request::CallTool { name: "t".into(), arguments: Map::new() }),
            inv(Request::ReadResource { uri: "u".into(), template: None, variables: HashMap::new() }),
            inv(Request::GetPrompt { name: "p".into(), arguments: HashMap::new() }),
            inv(Request::ListRoots),
            inv(Request::Custom { method: "acme/x".into(), params: Map::new() }),
            inv(Request::List { kind: crate::catalogue::ListKind::Tools, items: vec![] }),
            Event::Cancelled { key: RequestKey(1), reason: None },
            Event::Response { id: OutboundId(1), result: Ok(Value::Null) },
            Event::Response { id: OutboundId(1), result: Err(RpcError::new(1, "x")) },
            Event::Progress { id: OutboundId(1), progress: 1.0, total: None, message: None },
            Event::Initialized,
            Event::Notification { method: "m".into(), params: None, subscription: None },
            Event::Lost { reason: "r".into() },
        ];
        for ev in &events {
            let mut n = 0;
            visit(ev, |_| n += 1);
            assert_eq!(n, layout(kind(ev).name()).len(), "{ev:?}");
            // As JSON text: the kind, then each field, in one array.
            let mut out = Vec::new();
            write_json(ev, &mut out, write_context);
            let v: Vec<Value> = serde_json::from_slice(&out).unwrap();
            assert_eq!((v[0].as_str(), v.len()), (Some(kind(ev).name()), n + 1), "{ev:?}");
        }
        // The kinds' constants name their places in the table.
        for (i, (name, _)) in LAYOUTS.iter().enumerate() {
            assert_eq!(Kind(i).name(), *name);
        }
        assert_eq!(Kind::NOTIFICATION.name(), "notification");
        assert_eq!(LAYOUTS.iter().map(|(_, f)| f.len()).max(), Some(MAX_FIELDS));
        assert!(is_call("tool") && is_call("roots") && !is_call("cancelled") && !is_call("notification"));
    }
}
