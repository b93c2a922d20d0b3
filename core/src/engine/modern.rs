//! The stateless revision (2026-07-28) on the server side.
//!
//! A request is served statelessly when it declares its protocol version or capabilities in
//! `_meta` (or is a method only that revision has): its `_meta` is checked and becomes its
//! [`RequestContext`], and everything the engine answers for it is shaped for the revision
//! (`resultType`, the server's identity in `_meta`, caching hints). An `initialize` still
//! starts a legacy session on the same stream: `basic/versioning.mdx`, "dual-era".

use super::config::Identity;
use super::outbox::Route;
use super::peer::{params, Inflight, Peer};
use super::server::{checked_tool_result, invalid_arguments, Outcome, ServerRole, ServerSession};
use super::RequestKey;
use crate::catalogue::ListKind;
use crate::jsonrpc::message::{json_str, JsonStr};
use crate::jsonrpc::{codes, RawJson, RequestId, RpcError};
use crate::protocol::meta_keys::{CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PREFIX, PROTOCOL_VERSION};
use crate::protocol::*;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::Arc;

mod headers;
pub(crate) use headers::check_param_headers;
use headers::{check_standard_headers, name_field};
pub use headers::{header_mismatch, RequestHeaders};

mod stamp;
use stamp::write_result_stamped;
pub(crate) use stamp::{identify, stamp, write_stamped};

/// What a modern request declares about itself in `_meta`, and the inputs it brings.
/// Serializes (camelCase) as bindings hand it to handlers.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestContext {
    /// The revision it speaks.
    #[serde(rename = "protocolVersion")]
    pub version: ProtocolVersion,
    /// The client's capabilities for this request (shared: a retry's context, which adds
    /// its inputs, copies no more than a pointer of them).
    pub client_capabilities: Arc<ClientCapabilities>,
    /// The client's name and version, when it said (shared as the capabilities are).
    pub client_info: Option<Arc<Implementation>>,
    /// The lowest level of log messages it wants; `None`: no log messages at all.
    pub log_level: Option<LoggingLevel>,
    /// The client's answers to input requests: those of this attempt (`inputResponses`)
    /// and of earlier rounds (carried in the sealed `requestState`). `None`: it sent none.
    pub input_responses: Option<serde_json::Map<String, Value>>,
    /// The state a handler returned with its own `input_required` result, on the retry.
    pub request_state: Option<String>,
    /// Rounds before this attempt (0 on the first).
    pub round: u32,
}

/// The methods only the stateless revision has.
const MODERN_ONLY: [&str; 2] = ["server/discover", "subscriptions/listen"];

/// Whether a request is to be served statelessly: it is a method only the modern revision
/// has, or its `_meta` declares a protocol version or client capabilities.
pub(crate) fn is_modern(method: &str, raw: Option<RawJson<'_>>) -> bool {
    if MODERN_ONLY.contains(&method) {
        return true;
    }
    let Some(raw) = raw else { return false };
    // Most legacy requests never mention the reserved prefix: no parse for them.
    // (A byte search, not a `memmem::Finder`: building one on the first legacy request pulls
    // ~110 KB of searcher code into a small server's resident memory.)
    if !mentions(raw.get().as_bytes(), PREFIX.as_bytes()) {
        return false;
    }
    // Whether the two keys are there, nothing built (no map, no key strings).
    #[derive(Deserialize)]
    struct Keys {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
        version: Option<IgnoredAny>,
        #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
        capabilities: Option<IgnoredAny>,
    }
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "_meta", default)]
        meta: Option<Keys>,
    }
    serde_json::from_str::<Probe>(raw.get())
        .ok()
        .and_then(|p| p.meta)
        .is_some_and(|m| m.version.is_some() || m.capabilities.is_some())
}

/// A request's `_meta` as its handler sees it (`deserialize_with`): the caller's own keys,
/// without the revision's reserved ones (`protocolVersion`, `clientCapabilities`,
/// `clientInfo`, `logLevel`: what they say is in the request's context). Those are skipped
/// while parsing, never built; an empty `_meta` is `None`.
pub(crate) fn caller_meta<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Meta>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Option<Meta>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object or null")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Meta::new();
            // Keys borrowed from the text: a reserved key costs no allocation.
            while let Some(JsonStr(key)) = map.next_key::<JsonStr<'de>>()? {
                if matches!(&*key, PROTOCOL_VERSION | CLIENT_CAPABILITIES | CLIENT_INFO | LOG_LEVEL) {
                    map.next_value::<IgnoredAny>()?;
                } else {
                    let value = map.next_value::<Value>()?;
                    out.insert(key.into_owned(), value);
                }
            }
            Ok((!out.is_empty()).then_some(out))
        }
    }
    d.deserialize_option(V)
}

/// Whether `needle` (not empty) occurs in `hay`: `memchr` for its first byte, then a compare.
fn mentions(hay: &[u8], needle: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = memchr::memchr(needle[0], &hay[at..]) {
        if hay[at + i..].starts_with(needle) {
            return true;
        }
        at += i + 1;
    }
    false
}

/// The revision's `_meta` keys, borrowed from the request's text (each parsed into its type
/// once: no `Value` in between), and whether the caller put keys of its own there.
#[derive(Default)]
struct MetaFields<'a> {
    version: Option<&'a RawValue>,
    capabilities: Option<&'a RawValue>,
    client_info: Option<&'a RawValue>,
    log_level: Option<&'a RawValue>,
    others: bool,
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaFields<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = MetaFields<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut m = MetaFields::default();
                while let Some(JsonStr(key)) = map.next_key::<JsonStr<'de>>()? {
                    let slot = match &*key {
                        PROTOCOL_VERSION => &mut m.version,
                        CLIENT_CAPABILITIES => &mut m.capabilities,
                        CLIENT_INFO => &mut m.client_info,
                        LOG_LEVEL => &mut m.log_level,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            m.others = true;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(serde::de::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                    *slot = Some(map.next_value::<&'de RawValue>()?);
                }
                Ok(m)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// What a modern request's params are read for before dispatch, in one pass: its `_meta`
/// keys, the fields the `Mcp-Name` header mirrors, and a call's arguments (each the text of
/// its JSON value; `null` is absent, as serde reads an `Option`).
#[derive(Default, Deserialize)]
struct MetaEnvelope<'a> {
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
    #[serde(default, borrow)]
    name: Option<&'a RawValue>,
    #[serde(default, borrow)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "taskId", default, borrow)]
    task_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// [`MetaEnvelope`]'s fields as text.
#[derive(Default, Debug, PartialEq, Eq)]
struct ParamsRead<'a> {
    meta: Option<&'a str>,
    name: Option<&'a str>,
    uri: Option<&'a str>,
    task_id: Option<&'a str>,
    arguments: Option<&'a str>,
}

impl<'a> ParamsRead<'a> {
    /// Reads `text`, a request's params (valid JSON: the envelope's parse checked it);
    /// `last_meta` is the `_meta` this thread read last, which a client usually sends again.
    fn read(text: &'a str, last_meta: Option<&str>) -> Result<ParamsRead<'a>, RpcError> {
        match Self::scan(text, last_meta) {
            Some(p) => Ok(p),
            None => {
                let env: MetaEnvelope = serde_json::from_str(text).map_err(RpcError::invalid_params)?;
                let get = |r: Option<&'a RawValue>| r.map(RawValue::get);
                Ok(ParamsRead {
                    meta: get(env.meta),
                    name: get(env.name),
                    uri: get(env.uri),
                    task_id: get(env.task_id),
                    arguments: get(env.arguments),
                })
            }
        }
    }

    /// The fast read, by [`members`](crate::jsonrpc::message::members): `None` for anything
    /// out of the ordinary (params that are not an object, a key with an escape, a field
    /// twice), which serde then reads, and refuses when it must, as it always did.
    fn scan(text: &'a str, last_meta: Option<&str>) -> Option<ParamsRead<'a>> {
        let keys = ["_meta", "name", "uri", "taskId", "arguments"];
        let [meta, name, uri, task_id, arguments] =
            crate::jsonrpc::message::pick(text, keys, last_meta)?.map(|v| v.filter(|v| *v != "null"));
        Some(ParamsRead { meta, name, uri, task_id, arguments })
    }
}

/// What [`request_context_with`] read of a request's params besides its context, so that the
/// method need not read them again: a `tools/call`'s name and arguments (their JSON text),
/// and whether its `_meta` holds keys of the caller's own (which the handler then gets).
#[derive(Default)]
pub(crate) struct Preparsed<'a> {
    pub(crate) name: Option<&'a str>,
    pub(crate) arguments: Option<&'a str>,
    pub(crate) caller_meta: bool,
}

/// A request's `_meta`, read: every key parsed and checked, save what depends on the server
/// (whether it speaks the version, the headers' agreement), and the context it makes.
struct MetaRead {
    requested: Box<str>,
    /// The request's context before its inputs (if any) are read: shared by every request
    /// whose `_meta` reads the same.
    context: Arc<RequestContext>,
    /// Keys of the caller's own are there too.
    others: bool,
}

/// The last `_meta` a thread read, by its exact text. A client of the stateless revision
/// repeats the same `_meta` (its version, capabilities and identity) in every request, byte
/// for byte: sharing the last reading, and the context made of it, costs a fraction of
/// reading it again (about 2,000 instructions a request for a typical client, and four
/// allocations). Only `_meta` that read without error is kept, so a hit answers exactly as
/// a reading would.
struct LastMeta(std::cell::RefCell<Option<(Box<str>, std::rc::Rc<MetaRead>)>>);

impl LastMeta {
    fn get(&self, text: &str) -> Option<std::rc::Rc<MetaRead>> {
        match &*self.0.borrow() {
            Some((seen, read)) if **seen == *text => Some(read.clone()),
            _ => None,
        }
    }

    fn put(&self, text: &str, read: &std::rc::Rc<MetaRead>) {
        // A thread keeps one, of bounded size, whatever clients send.
        if text.len() <= 4096 {
            *self.0.borrow_mut() = Some((text.into(), read.clone()));
        }
    }
}

thread_local! {
    static LAST_META: LastMeta = const { LastMeta(std::cell::RefCell::new(None)) };
}

/// Runs `f` with the `_meta` text this thread read last (which a client sends again with
/// each request: a scan of its params takes it by one comparison).
pub(crate) fn with_last_meta<R>(f: impl FnOnce(Option<&str>) -> R) -> R {
    LAST_META.with(|m| f(m.0.borrow().as_ref().map(|(t, _)| &**t)))
}

/// A `_meta` value parsed into `T`; `None` when absent or null.
fn meta_value<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>, key: &str) -> Result<Option<T>, RpcError> {
    match raw {
        None => Ok(None),
        Some(r) if r.get() == "null" => Ok(None),
        Some(r) => {
            serde_json::from_str(r.get()).map(Some).map_err(|e| RpcError::invalid_params(format!("invalid {key}: {e}")))
        }
    }
}

/// -32021: the request needs a capability the client did not declare; `required` names it
/// as a `ClientCapabilities` object (e.g. `{"sampling": {}}`).
pub fn missing_capability(required: Value) -> RpcError {
    // Extensions are named by their identifiers (`extensions` alone says little).
    let names: Vec<String> = required
        .as_object()
        .map(|m| {
            m.iter()
                .flat_map(|(k, v)| match (k.as_str(), v.as_object()) {
                    ("extensions", Some(ext)) if !ext.is_empty() => {
                        ext.keys().map(|id| format!("extension {id}")).collect()
                    }
                    _ => vec![k.clone()],
                })
                .collect()
        })
        .unwrap_or_default();
    RpcError::new(
        codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: {}", names.join(", ")),
    )
    .with_data(serde_json::json!({ "requiredCapabilities": required }))
}

/// -32021 for an extension the client did not declare: `data.requiredCapabilities.extensions`
/// names it (`{"extensions": {id: {}}}`), as the extensions' specifications ask.
pub fn missing_extension(id: &str) -> RpcError {
    missing_capability(serde_json::json!({ "extensions": { id: {} } }))
}

/// Checks an extension identifier: a mandatory prefix of dot-separated labels (each starting
/// with a letter, ending with a letter or digit, hyphens inside) then `/` and a name (starting
/// and ending with a letter or digit; letters, digits, `-`, `_`, `.` inside), as `_meta` keys
/// are named (e.g. `io.modelcontextprotocol/tasks`, `com.example/widgets`).
pub fn check_extension_id(id: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("extension id {id:?}: {why} (e.g. \"com.example/my-extension\")"));
    let Some((prefix, name)) = id.split_once('/') else { return bad("it needs a prefix, then '/', then a name") };
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    for label in prefix.split('.') {
        let ok = label.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && alnum(label.chars().last())
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !ok {
            return bad("each label of the prefix starts with a letter, ends with a letter or digit, and holds letters, digits and hyphens");
        }
    }
    let ok = alnum(name.chars().next())
        && alnum(name.chars().last())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        return bad("the name starts and ends with a letter or digit, and holds letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

/// -32022: the requested revision is not one this server speaks.
pub fn unsupported_version(requested: &str, supported: &[ProtocolVersion]) -> RpcError {
    let mut list: Vec<&str> = supported.iter().rev().map(|v| v.as_str()).collect();
    list.dedup();
    RpcError::new(codes::UNSUPPORTED_PROTOCOL_VERSION, format!("Unsupported protocol version: {requested}"))
        .with_data(serde_json::json!({ "supported": list, "requested": requested }))
}

/// Checks a modern request's `_meta` (and, over HTTP, its headers) and returns its context.
/// `supported` is every revision the server speaks.
#[cfg(test)]
pub(crate) fn request_context(
    method: &str,
    raw: Option<RawJson<'_>>,
    supported: &[ProtocolVersion],
    headers: Option<&RequestHeaders>,
) -> Result<RequestContext, RpcError> {
    request_context_with(method, raw, supported, headers).map(|(ctx, _)| Arc::unwrap_or_clone(ctx))
}

/// [`request_context`], with what it read of the params for the method ([`Preparsed`]).
pub(crate) fn request_context_with<'a>(
    method: &str,
    raw: Option<RawJson<'a>>,
    supported: &[ProtocolVersion],
    headers: Option<&RequestHeaders>,
) -> Result<(Arc<RequestContext>, Preparsed<'a>), RpcError> {
    let text = raw.map(|r| r.get()).unwrap_or("{}");
    let env = LAST_META.with(|m| ParamsRead::read(text, m.0.borrow().as_ref().map(|(t, _)| &**t)))?;
    let Some(meta) = env.meta else {
        return Err(RpcError::invalid_params(format!(
            "the request has no _meta: a {} request declares {PROTOCOL_VERSION} and {CLIENT_CAPABILITIES} there",
            ProtocolVersion::V2026_07_28
        )));
    };
    let read = match LAST_META.with(|m| m.get(meta)) {
        Some(read) => {
            // The same text read the same: only what depends on this server and request
            // is checked again (the context's version is what this check gives).
            check_version(&read.requested, supported, headers)?;
            read
        }
        None => {
            let read = std::rc::Rc::new(read_meta(meta, supported, headers)?);
            LAST_META.with(|m| m.put(meta, &read));
            read
        }
    };
    if let Some(h) = headers {
        let named = match name_field(method) {
            Some("uri") => env.uri,
            Some("taskId") => env.task_id,
            _ => env.name,
        };
        check_standard_headers(method, named, h)?;
    }
    Ok((read.context.clone(), Preparsed { name: env.name, arguments: env.arguments, caller_meta: read.others }))
}

/// Reads a request's `_meta` (`text`), checking it in the order the errors are answered in.
fn read_meta(
    text: &str,
    supported: &[ProtocolVersion],
    headers: Option<&RequestHeaders>,
) -> Result<MetaRead, RpcError> {
    let meta: MetaFields = serde_json::from_str(text).map_err(RpcError::invalid_params)?;
    let mut missing = Vec::new();
    if meta.version.is_none() {
        missing.push(PROTOCOL_VERSION);
    }
    if meta.capabilities.is_none() {
        missing.push(CLIENT_CAPABILITIES);
    }
    if !missing.is_empty() {
        return Err(RpcError::invalid_params(format!("missing _meta keys: {}", missing.join(", ")))
            .with_data(serde_json::json!({ "missing": missing })));
    }
    let Some(requested) = meta.version.and_then(json_str) else {
        return Err(RpcError::invalid_params(format!("{PROTOCOL_VERSION} must be a string")));
    };
    let version = check_version(&requested, supported, headers)?;
    let capabilities: ClientCapabilities = match meta.capabilities {
        Some(r) => serde_json::from_str(r.get())
            .map_err(|e| RpcError::invalid_params(format!("invalid {CLIENT_CAPABILITIES}: {e}")))?,
        None => ClientCapabilities::default(),
    };
    let client_info = meta_value::<Implementation>(meta.client_info, CLIENT_INFO)?.map(Arc::new);
    let log_level = meta_value(meta.log_level, LOG_LEVEL)?;
    let context = Arc::new(RequestContext {
        version,
        client_capabilities: Arc::new(capabilities),
        client_info,
        log_level,
        input_responses: None,
        request_state: None,
        round: 0,
    });
    Ok(MetaRead { requested: (*requested).into(), context, others: meta.others })
}

/// The revision a request asks for (`requested`, from its `_meta`), checked against its
/// `MCP-Protocol-Version` header (HTTP) and the revisions the server speaks.
fn check_version(
    requested: &str,
    supported: &[ProtocolVersion],
    headers: Option<&RequestHeaders>,
) -> Result<ProtocolVersion, RpcError> {
    if let Some(h) = headers {
        match &h.protocol_version {
            None => return Err(header_mismatch("the MCP-Protocol-Version header is missing")),
            Some(v) if *v != requested => {
                return Err(header_mismatch(format!(
                    "MCP-Protocol-Version header {v:?} does not match _meta {PROTOCOL_VERSION} {requested:?}"
                )))
            }
            Some(_) => {}
        }
    }
    match requested.parse::<ProtocolVersion>() {
        Ok(v) if v.era() == Era::Modern && supported.contains(&v) => Ok(v),
        _ => Err(unsupported_version(requested, supported)),
    }
}

#[derive(Deserialize)]
struct CursorParams {
    #[serde(default)]
    cursor: Option<String>,
}

impl ServerRole {
    /// Made once per configuration (shared by its sessions).
    pub(super) fn identity(&self) -> &Identity {
        self.config.identity.0.get_or_init(|| {
            let info = edge::implementation(&self.config.info, ProtocolVersion::V2026_07_28);
            let value = serde_json::to_value(&*info).unwrap_or(Value::Null);
            let server = serde_json::to_vec(&value).unwrap_or_default();
            if !self.config.identify_in_results {
                return Identity { server, in_results: false, value: Value::Null, plain: stamp(None, b"") };
            }
            let plain = stamp(None, &server);
            Identity { server, in_results: true, value, plain }
        })
    }

    /// Serves a request of the stateless revision.
    pub(super) fn modern_request(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
    ) {
        let (mut ctx, pre) = match request_context_with(method, raw, &self.config.versions, self.headers.as_ref()) {
            Ok(c) => c,
            Err(e) => return peer.write_error(Some(&id), batch, Route::Standalone, &e),
        };
        if let Some(m) = super::mrtr::supports_input(method) {
            if let Err(e) = self.read_inputs(m, raw, &mut ctx) {
                return peer.write_error(Some(&id), batch, Route::Standalone, &e);
            }
        }
        let caps = self.build_capabilities();
        let list = |kind| match kind {
            ListKind::Tools => caps.tools.is_some(),
            ListKind::Prompts => caps.prompts.is_some(),
            ListKind::Resources | ListKind::ResourceTemplates => caps.resources.is_some(),
        };
        if let Some(r) = self.skills_request(peer, &id, method, raw, batch, true) {
            if let Err(e) = r {
                peer.write_error(Some(&id), batch, Route::Standalone, &e);
            }
            return;
        }
        let result = match method {
            "server/discover" => return self.discover(peer, &id, batch, &caps),
            "tools/list" if list(ListKind::Tools) => {
                return self.modern_list(peer, &id, ListKind::Tools, raw, batch, &ctx)
            }
            "prompts/list" if list(ListKind::Prompts) => {
                return self.modern_list(peer, &id, ListKind::Prompts, raw, batch, &ctx)
            }
            "resources/list" if list(ListKind::Resources) => {
                return self.modern_list(peer, &id, ListKind::Resources, raw, batch, &ctx)
            }
            "resources/templates/list" if list(ListKind::ResourceTemplates) => {
                return self.modern_list(peer, &id, ListKind::ResourceTemplates, raw, batch, &ctx)
            }
            "tools/call" if caps.tools.is_some() => self.call_tool(peer, id.clone(), raw, batch, Some((&ctx, &pre))),
            "resources/read" if caps.resources.is_some() => {
                self.read_resource(peer, id.clone(), raw, batch, Some(&ctx))
            }
            "prompts/get" if caps.prompts.is_some() => self.get_prompt(peer, id.clone(), raw, batch, Some(&ctx)),
            "completion/complete" if caps.completions.is_some() => {
                self.complete(peer, id.clone(), raw, batch, Some(&ctx))
            }
            "subscriptions/listen" => self.listen(peer, id.clone(), raw, ctx),
            "tasks/get" | "tasks/update" | "tasks/cancel"
                if self.config.extensions.contains_key(crate::store::tasks::TASKS_EXTENSION) =>
            {
                self.task_request(peer, id.clone(), method, raw, batch, &ctx)
            }
            _ if self.registry.has_method(method) => self.custom(peer, id.clone(), method, raw, batch, Some(&ctx)),
            // Everything else, the methods 2026-07-28 removed (initialize, ping,
            // logging/setLevel, resources/subscribe and unsubscribe) included.
            _ => Err(RpcError::method_not_found(method)),
        };
        if let Err(e) = result {
            peer.write_error(Some(&id), batch, Route::Standalone, &e);
        }
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel` (tasks extension): the client must have
    /// declared the extension with the request (-32021 otherwise); the task runtime answers.
    fn task_request(
        &self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: &Arc<RequestContext>,
    ) -> Result<(), RpcError> {
        use crate::store::tasks::TASKS_EXTENSION;
        let declared = ctx.client_capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        if !declared {
            return Err(missing_extension(TASKS_EXTENSION));
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct P {
            task_id: String,
            #[serde(default)]
            input_responses: Option<serde_json::Map<String, Value>>,
        }
        let p: P = params(raw)?;
        let op = match method {
            "tasks/get" => super::TaskOp::Get { task_id: p.task_id },
            "tasks/cancel" => super::TaskOp::Cancel { task_id: p.task_id },
            _ => super::TaskOp::Update {
                task_id: p.task_id,
                responses: p
                    .input_responses
                    .ok_or_else(|| RpcError::invalid_params("tasks/update needs inputResponses"))?,
            },
        };
        peer.invoke(id, batch, None, super::Request::Task(op), None, Some(ctx.clone()));
        Ok(())
    }

    /// `server/discover`: the revisions, capabilities, identity and instructions.
    fn discover(&self, peer: &mut Peer, id: &RequestId, batch: Option<u64>, caps: &ServerCapabilities) {
        let mut capabilities = edge::server_capabilities(caps, ProtocolVersion::V2026_07_28).into_owned();
        capabilities.tasks = None;
        let result = DiscoverResult {
            supported_versions: self.config.versions.iter().rev().map(|v| v.as_str().to_string()).collect(),
            capabilities,
            instructions: self.config.instructions.clone(),
            meta: None,
        };
        let body = serde_json::to_vec(&result).unwrap_or_default();
        // Discovery names the server even when other results do not (`identify_in_results`):
        // the spec asks it of this result in particular.
        let fields = stamp(Some(self.config.cache.discover()), &self.identity().server);
        peer.respond(batch, Route::Standalone, |out| write_stamped(out, id, &fields, &body));
    }

    /// A list page from the registry's cached bytes, stamped.
    fn modern_list(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        kind: ListKind,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: &Arc<RequestContext>,
    ) {
        if self.registry.list_hooked(kind) {
            let v = ProtocolVersion::V2026_07_28;
            return self.list_through_middleware(peer, id.clone(), kind, v, raw, batch, Some(ctx));
        }
        let page = params::<CursorParams>(raw).and_then(|p| {
            let v = ProtocolVersion::V2026_07_28;
            self.registry.list_page_for(kind, v, p.cursor.as_deref(), self.caller(peer))
        });
        match page {
            Ok(bytes) => {
                let mut hints = self.config.cache.list(kind);
                // A caller's own view is its alone: never a shared cache's.
                if !self.visibility.is_empty() {
                    hints.cache_scope = crate::protocol::CacheScope::Private;
                }
                let fields = stamp(Some(hints), self.identity().json());
                peer.respond(batch, Route::Standalone, |out| write_stamped(out, id, &fields, &bytes));
            }
            Err(e) => peer.write_error(Some(id), batch, Route::Standalone, &e),
        }
    }

    /// Writes a modern result: `resultType` (and `hints`) in front of `value`, which carries
    /// the server's identity in its own `_meta` already.
    pub(super) fn write_modern<T: serde::Serialize + ?Sized>(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        batch: Option<u64>,
        route: Route,
        hints: Option<CacheHints>,
        value: &T,
    ) {
        let fields = stamp(hints, b"");
        peer.respond(batch, route, |out| write_result_stamped(out, id, &fields, value));
    }

    /// [`ServerRole::write_modern`] of a result that has no `_meta` of its own and is not
    /// cacheable: the server's identity goes in with `resultType` (those members made once).
    pub(super) fn write_identified<T: serde::Serialize + ?Sized>(
        &self,
        peer: &mut Peer,
        id: &RequestId,
        batch: Option<u64>,
        route: Route,
        value: &T,
    ) {
        let fields = &self.identity().plain;
        peer.respond(batch, route, |out| write_result_stamped(out, id, fields, value));
    }
}

impl ServerSession {
    /// Answers a request served statelessly with the outcome of its handler.
    pub(super) fn complete_modern(&mut self, key: RequestKey, inf: Inflight, ctx: &RequestContext, outcome: Outcome) {
        let (role, peer) = (&self.role, &mut self.peer);
        let identity = &role.identity().value;
        let v = ctx.version;
        let (id, batch, route) = (&inf.id, inf.batch, Route::Reply(key));
        match outcome {
            Outcome::Tool(result) => {
                let checked = checked_tool_result(&inf, result);
                let r = edge::call_tool_result(&checked, v);
                if r.meta.is_none() {
                    // The common case: the identity goes in with the stamp, nothing copied.
                    role.write_identified(peer, id, batch, route, &*r);
                } else {
                    let mut r = r.into_owned();
                    identify(&mut r.meta, identity);
                    role.write_modern(peer, id, batch, route, None, &r);
                }
            }
            Outcome::InvalidArguments(errors) => {
                let tool = inf.tool.as_ref().map_or("", |t| t.tool.name.as_str());
                match invalid_arguments(v, tool, errors) {
                    Ok(mut r) => {
                        identify(&mut r.meta, identity);
                        role.write_modern(peer, id, batch, route, None, &r);
                    }
                    Err(e) => peer.write_error(Some(id), batch, route, &e),
                }
            }
            Outcome::Resource(mut r) => {
                let default = role.config.cache.resource_reads();
                let hints = CacheHints {
                    ttl_ms: r.ttl_ms.take().unwrap_or(default.ttl_ms),
                    cache_scope: r.cache_scope.take().unwrap_or(default.cache_scope),
                };
                identify(&mut r.meta, identity);
                role.write_modern(peer, id, batch, route, Some(hints), &r);
            }
            Outcome::Prompt(p) => {
                let mut p = edge::get_prompt_result(&p, v).into_owned();
                identify(&mut p.meta, identity);
                role.write_modern(peer, id, batch, route, None, &p);
            }
            Outcome::Completion(mut c) => {
                identify(&mut c.meta, identity);
                role.write_modern(peer, id, batch, route, None, &c);
            }
            Outcome::Json(j) => role.write_modern(peer, id, batch, route, None, &j),
            // A list middleware saw may be the caller's own: private.
            Outcome::Listed(items) => match role.listed_page(&inf, items) {
                Ok(bytes) => {
                    let kind = inf.list.map_or(ListKind::Tools, |(k, _)| k);
                    let hints = CacheHints {
                        cache_scope: crate::protocol::CacheScope::Private,
                        ..role.config.cache.list(kind)
                    };
                    let fields = stamp(Some(hints), role.identity().json());
                    peer.respond(batch, route, |out| write_stamped(out, id, &fields, &bytes));
                }
                Err(e) => peer.write_error(Some(id), batch, route, &e),
            },
            Outcome::TaskCreated(t) => {
                let mut fields = b"\"resultType\":\"task\"".to_vec();
                let identity = role.identity().json();
                if !identity.is_empty() {
                    fields.extend_from_slice(b",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":");
                    fields.extend_from_slice(identity);
                    fields.push(b'}');
                }
                peer.respond(batch, route, |out| write_result_stamped(out, id, &fields, &t));
            }
            Outcome::InputRequired(own) => self.complete_input_required(key, inf, ctx, own),
            Outcome::Error(mut e) => {
                // 2026-07-28 reports an unknown resource as invalid params.
                if e.code == codes::RESOURCE_NOT_FOUND {
                    e.code = codes::INVALID_PARAMS;
                }
                peer.write_error(Some(id), batch, route, &e);
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn mentions_is_a_substring_search() {
        assert!(mentions(b"{\"_meta\":{\"io.modelcontextprotocol/x\":1}}", b"io.modelcontextprotocol/"));
        assert!(mentions(b"io.", b"io."));
        assert!(!mentions(b"iiiio.modelcontextprotocol", b"io.modelcontextprotocol/"));
        assert!(!mentions(b"", b"io."));
        assert!(!mentions(b"i", b"io."));
    }

    use super::*;
    use crate::jsonrpc::RequestId;

    fn raw(s: &str) -> RawJson<'_> {
        RawJson::from(serde_json::from_str::<&RawValue>(s).expect("json"))
    }

    #[test]
    fn modern_requests_are_told_by_their_meta() {
        assert!(is_modern("server/discover", None));
        assert!(!is_modern("tools/list", None));
        assert!(!is_modern("tools/call", Some(raw(r#"{"name":"x","_meta":{"progressToken":1}}"#))));
        assert!(is_modern(
            "tools/list",
            Some(raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#))
        ));
        // The prefix inside an argument is not a declaration.
        assert!(!is_modern(
            "tools/call",
            Some(raw(r#"{"arguments":{"t":"io.modelcontextprotocol/protocolVersion"}}"#))
        ));
    }

    #[test]
    fn contexts_are_checked() {
        let all = ProtocolVersion::ALL;
        let ok = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"info"}}"#;
        let ctx = request_context("tools/list", Some(raw(ok)), &all, None).expect("valid");
        assert_eq!(ctx.version, ProtocolVersion::V2026_07_28);
        assert!(ctx.client_capabilities.sampling.is_some());
        assert_eq!(ctx.log_level, Some(LoggingLevel::Info));
        let code = |s: &str, h: Option<&RequestHeaders>| {
            request_context("tools/list", Some(raw(s)), &all, h).unwrap_err().code
        };
        assert_eq!(code("{}", None), codes::INVALID_PARAMS);
        assert_eq!(code(r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}"#, None), codes::INVALID_PARAMS);
        let v999 = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}"#;
        let e = request_context("tools/list", Some(raw(v999)), &all, None).unwrap_err();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(e.data.as_ref().unwrap()["requested"], "v999");
        assert_eq!(e.data.as_ref().unwrap()["supported"][0], "2026-07-28");
        // Over HTTP the header must match the body.
        let h = |v: &str| RequestHeaders {
            protocol_version: Some(v.into()),
            method: Some("tools/list".into()),
            ..Default::default()
        };
        assert_eq!(code(v999, Some(&h("2026-07-28"))), codes::HEADER_MISMATCH);
        assert_eq!(code(v999, Some(&h("v999"))), codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(code(ok, Some(&RequestHeaders::default())), codes::HEADER_MISMATCH);
        let wrong = RequestHeaders { method: Some("tools/call".into()), ..h("2026-07-28") };
        assert_eq!(code(ok, Some(&wrong)), codes::HEADER_MISMATCH);
        assert!(request_context("tools/list", Some(raw(ok)), &all, Some(&h("2026-07-28"))).is_ok());
    }

    /// The fast read of the params finds what serde finds, and leaves the unusual to serde
    /// (which refuses a field twice, as before).
    #[test]
    fn params_read_fast_as_serde_reads() {
        let serde_read = |text: &str| {
            let env: MetaEnvelope = serde_json::from_str(text).expect("reads");
            let get = |r: Option<&RawValue>| r.map(|r| r.get().to_string());
            [get(env.meta), get(env.name), get(env.uri), get(env.task_id), get(env.arguments)]
        };
        let fast_read = |text: &str| {
            let p = ParamsRead::scan(text, None).expect("fast");
            let hinted = ParamsRead::scan(text, Some(r#"{"a":[1,{"b":"\""}]}"#)).expect("fast");
            assert_eq!(p, hinted);
            let get = |r: Option<&str>| r.map(str::to_string);
            [get(p.meta), get(p.name), get(p.uri), get(p.task_id), get(p.arguments)]
        };
        for text in [
            "{}",
            r#"{"name":"echo","arguments":{"text":"}{"},"_meta":{"a":[1,{"b":"\""}]},"other":[]}"#,
            r#"{ "uri" : "file:///x" , "taskId":"t-1", "name": null, "arguments": null }"#,
            r#"{"_meta":null,"extra":{"name":"not this one"},"name":"x\u0041"}"#,
        ] {
            assert_eq!(fast_read(text), serde_read(text), "{text}");
        }
        for unusual in [r#"{"name":"a","name":"b"}"#, r#"{"n\u0061me":"a"}"#, "[1,2]"] {
            assert!(ParamsRead::scan(unusual, None).is_none(), "{unusual}");
        }
        let twice = ParamsRead::read(r#"{"_meta":{},"_meta":{}}"#, Some("{}")).unwrap_err();
        assert_eq!(twice.code, codes::INVALID_PARAMS);
        assert!(twice.message.contains("duplicate field"), "{}", twice.message);
    }

    /// A thread keeps its last `_meta` reading (`LAST_META`): the same text read again gives
    /// the same context, and what depends on the server and the headers is checked each time.
    #[test]
    fn a_repeated_meta_reads_the_same() {
        let all = ProtocolVersion::ALL;
        let ok = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"x/own":1}}"#;
        let (a, b) = (raw(ok), raw(ok));
        let first = request_context_with("tools/list", Some(a), &all, None).expect("valid");
        let again = request_context_with("tools/list", Some(b), &all, None).expect("valid");
        assert_eq!(first.0, again.0);
        assert_eq!(again.0.client_info.as_ref().map(|i| i.name.as_str()), Some("c"));
        assert!(again.0.client_capabilities.elicitation.is_some());
        assert!(first.1.caller_meta && again.1.caller_meta);
        // A server that does not speak the revision refuses it, read before or not.
        let legacy = [ProtocolVersion::V2025_11_25];
        let e = request_context("tools/list", Some(raw(ok)), &legacy, None).unwrap_err();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        // The header is compared each time.
        let h = RequestHeaders {
            protocol_version: Some("2026-07-27".into()),
            method: Some("tools/list".into()),
            ..Default::default()
        };
        assert_eq!(
            request_context("tools/list", Some(raw(ok)), &all, Some(&h)).unwrap_err().code,
            codes::HEADER_MISMATCH
        );
        // A `_meta` that fails to read is refused every time, with the same error.
        let bad = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":7}}}"#;
        let e1 = request_context("tools/list", Some(raw(bad)), &all, None).unwrap_err();
        let e2 = request_context("tools/list", Some(raw(bad)), &all, None).unwrap_err();
        assert_eq!((e1.code, &e1.message), (codes::INVALID_PARAMS, &e2.message));
        assert!(e1.message.contains("invalid io.modelcontextprotocol/clientInfo"), "{}", e1.message);
        // A different `_meta` is read anew.
        let other = ok.replace(r#""name":"c""#, r#""name":"d""#);
        let ctx = request_context("tools/list", Some(raw(&other)), &all, None).expect("valid");
        assert_eq!(ctx.client_info.map(|i| i.name.clone()), Some("d".to_string()));
    }

    #[test]
    fn names_in_headers_may_be_base64() {
        let all = ProtocolVersion::ALL;
        let body = r#"{"name":"héllo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
        let h = |name: &str| RequestHeaders {
            protocol_version: Some("2026-07-28".into()),
            method: Some("tools/call".into()),
            name: Some(name.into()),
            params: vec![],
        };
        let encoded = format!("=?base64?{}?=", crate::util::base64_encode("héllo".as_bytes()));
        assert!(request_context("tools/call", Some(raw(body)), &all, Some(&h(&encoded))).is_ok());
        let e = request_context("tools/call", Some(raw(body)), &all, Some(&h("hello"))).unwrap_err();
        assert_eq!(e.code, codes::HEADER_MISMATCH);
    }

    #[test]
    fn stamps_go_in_front() {
        let mut out = Vec::new();
        let s =
            stamp(Some(CacheHints { ttl_ms: 5, cache_scope: CacheScope::Public }), br#"{"name":"s","version":"1"}"#);
        write_stamped(&mut out, &RequestId::Number(1), &s, br#"{"tools":[]}"#);
        let v: Value = serde_json::from_slice(&out).expect("json");
        assert_eq!(v["result"]["resultType"], "complete");
        assert_eq!(v["result"]["ttlMs"], 5);
        assert_eq!(v["result"]["cacheScope"], "public");
        assert_eq!(v["result"]["tools"], serde_json::json!([]));
        assert_eq!(v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "s");
        out.clear();
        write_stamped(&mut out, &RequestId::Number(2), &stamp(None, b""), b"{}");
        let v: Value = serde_json::from_slice(&out).expect("json");
        assert_eq!(v["result"], serde_json::json!({"resultType": "complete"}));
    }
}
