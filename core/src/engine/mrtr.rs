//! Multi round-trip requests (2026-07-28, `basic/patterns/mrtr.mdx`), with one handler
//! contract for both eras.
//!
//! A handler asks the client for input through [`ServerSession::request_input`]. In a legacy
//! session that sends a real request (the answer comes as [`super::Event::Response`]). In a
//! modern request there is no channel back to the client while the call runs: the input is
//! looked up among the answers the client sent with this attempt (`inputResponses`) and
//! earlier ones (carried in the sealed `requestState`); when it is not there, the call ends
//! with an `input_required` result listing everything asked in this round, and the client
//! retries with the answers. The handler runs again from the start on the retry; the awaited
//! call then returns the client's answer.

use super::modern::{missing_capability, RequestContext};
use super::outbox::Route;
use super::peer::Inflight;
use super::request_state;
use super::server::ServerSession;
use super::{OutboundId, RequestKey, RequestOptions};
use crate::jsonrpc::{codes, RawJson, RpcError};
use crate::protocol::*;
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::time::Instant;

/// What became of a request for input.
#[derive(Clone, Debug, PartialEq)]
pub enum InputAnswer {
    /// Legacy session: a request went to the client; its answer comes as
    /// [`super::Event::Response`] with this id.
    Sent(OutboundId),
    /// Modern request: the client already answered it (this attempt or an earlier round).
    Answered(Value),
    /// Modern request: the client has yet to answer. The handler must stop (complete with
    /// [`super::Outcome::InputRequired`]); it runs again when the client retries.
    Required,
}

/// A handler's own `input_required` result (the low-level form): requests by key, and its
/// own state. Both may be empty when the handler asked through
/// [`ServerSession::request_input`]: what it asked is added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRequired {
    /// Requests by key (`{"method": ..., "params": ...}` each).
    pub requests: Map<String, Value>,
    /// The handler's state, handed back on the retry as
    /// [`RequestContext::request_state`] (sealed with the engine's own; never seen by the
    /// client in clear).
    pub state: Option<String>,
}

/// The per-attempt bookkeeping of a modern call that may end with `input_required`.
#[derive(Debug, Default)]
pub(crate) struct Round {
    /// The request's params as received (name and arguments are bound into the state).
    params: Option<Box<str>>,
    method: &'static str,
    /// Answers the handler used (they are carried to the next round).
    consumed: Vec<String>,
    /// What it asked and was not answered, in the order asked: key, method, params.
    pending: Vec<(String, &'static str, Option<Value>)>,
    /// Requests made so far (default keys are numbered by it).
    calls: u32,
}

impl Round {
    /// Boxed: an in-flight entry holds a pointer's worth of it (a listen stream is an
    /// in-flight request too, and a server may hold thousands).
    pub(crate) fn new(method: &'static str, params: Option<RawJson<'_>>) -> Box<Round> {
        Box::new(Round { params: params.map(|p| p.get().into()), method, ..Default::default() })
    }
}

/// The methods whose results may be `input_required`.
pub(crate) fn supports_input(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => Some("tools/call"),
        "prompts/get" => Some("prompts/get"),
        "resources/read" => Some("resources/read"),
        _ => None,
    }
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Binding<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
    arguments: Option<Value>,
    #[serde(rename = "inputResponses", deserialize_with = "present")]
    input_responses: Option<Value>,
    #[serde(rename = "requestState", deserialize_with = "state_field")]
    request_state: Option<StateField<'a>>,
}

/// `requestState` as sent: a string (borrowed from the params when it holds no escape, as
/// a sealed state never does), or another JSON value (refused).
#[derive(Debug, PartialEq)]
enum StateField<'a> {
    Text(Cow<'a, str>),
    NotText,
}

fn state_field<'de, D: Deserializer<'de>>(d: D) -> Result<Option<StateField<'static>>, D::Error> {
    Ok(Some(match Value::deserialize(d)? {
        Value::String(s) => StateField::Text(Cow::Owned(s)),
        _ => StateField::NotText,
    }))
}

impl<'a> Binding<'a> {
    /// The binding members of a request's params (valid JSON text, as every request's is by
    /// the time it is served): each read on its own, the rest stepped over by a scan instead
    /// of parsed (`_meta`, when it is the one this thread read last, by one comparison).
    /// Strings are borrowed when they hold no escape. Whatever the scan does not take as it
    /// is (not an object, an escaped or repeated key, a name that is not a string) is left to
    /// serde, errors included.
    fn read(text: &'a str) -> Result<Binding<'a>, serde_json::Error> {
        use crate::jsonrpc::message::{json_str_text, pick};
        let keys = ["name", "uri", "arguments", "inputResponses", "requestState"];
        let Some([name, uri, arguments, inputs, state]) =
            super::modern::with_last_meta(|known| pick(text, keys, known))
        else {
            return serde_json::from_str(text);
        };
        // A string, or null (absent); anything else is serde's to refuse.
        let string = |v: Option<&'a str>| match v {
            None | Some("null") => Some(None),
            Some(v) => json_str_text(v).map(Some),
        };
        let (Some(name), Some(uri)) = (string(name), string(uri)) else { return serde_json::from_str(text) };
        Ok(Binding {
            name,
            uri,
            arguments: arguments.map(serde_json::from_str).transpose()?.flatten(),
            input_responses: inputs.map(serde_json::from_str).transpose()?,
            request_state: state.map(|v| json_str_text(v).map_or(StateField::NotText, StateField::Text)),
        })
    }
}

/// What a state is bound to: the method, the tool / prompt / resource, the arguments.
fn binding<'b>(method: &str, b: &'b Binding<'_>) -> (&'b str, String) {
    let name = match method {
        "resources/read" => b.uri.as_deref(),
        _ => b.name.as_deref(),
    }
    .unwrap_or_default();
    let empty;
    let args = match (method, &b.arguments) {
        ("resources/read", _) => &Value::Null,
        (_, None | Some(Value::Null)) => {
            empty = Value::Object(Map::new());
            &empty
        }
        (_, Some(a)) => a,
    };
    (name, request_state::args_binding(args))
}

/// The capability `method` needs of the client, as the name and the `ClientCapabilities`
/// object that would declare it; `None` when `caps` has it.
pub(crate) fn missing_client_capability(
    method: &str,
    params: Option<&Value>,
    caps: &ClientCapabilities,
    v: ProtocolVersion,
) -> Option<(&'static str, Value)> {
    match method {
        "sampling/createMessage" => {
            if caps.sampling.is_none() {
                return Some(("sampling", json!({"sampling": {}})));
            }
            let tools = params.is_some_and(|p| p.get("tools").is_some() || p.get("toolChoice").is_some());
            (tools && !(caps.sampling_tools() && v.supports(Feature::SamplingTools)))
                .then(|| ("sampling with tools", json!({"sampling": {"tools": {}}})))
        }
        "elicitation/create" => {
            if !v.supports(Feature::Elicitation) {
                return Some(("elicitation", json!({"elicitation": {}})));
            }
            let url = params.is_some_and(|p| p.get("mode").and_then(Value::as_str) == Some("url"));
            if url {
                (!(v.supports(Feature::UrlElicitation) && caps.elicitation_url()))
                    .then(|| ("URL-mode elicitation", json!({"elicitation": {"url": {}}})))
            } else {
                (!caps.elicitation_form()).then(|| ("form elicitation", json!({"elicitation": {}})))
            }
        }
        "roots/list" => caps.roots.is_none().then(|| ("roots", json!({"roots": {}}))),
        _ => None,
    }
}

/// The short name default input keys start with.
pub(crate) fn key_prefix(method: &str) -> &'static str {
    match method {
        "elicitation/create" => "elicitation",
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        _ => "input",
    }
}

/// Checks an answer has the shape of its method's result.
fn check_answer(key: &str, method: &str, v: &Value) -> Result<(), RpcError> {
    let r = match method {
        "elicitation/create" if v.as_object().is_some_and(elicit_result_shape) => Ok(()),
        "elicitation/create" => ElicitResult::deserialize(v).map(drop),
        "sampling/createMessage" => CreateMessageResult::deserialize(v).map(drop),
        "roots/list" => ListRootsResult::deserialize(v).map(drop),
        _ => Ok(()),
    };
    r.map_err(|e| RpcError::invalid_params(format!("inputResponses[{key:?}] is not a valid {method} result: {e}")))
}

/// Whether `o` is what serde reads as an [`ElicitResult`], checked without building one: an
/// `action` naming one of the three, `content` and `_meta` objects or null when present
/// (other members are ignored, as serde ignores them).
fn elicit_result_shape(o: &Map<String, Value>) -> bool {
    let object_or_null = |k: &str| o.get(k).is_none_or(|v| v.is_object() || v.is_null());
    matches!(o.get("action").and_then(Value::as_str), Some("accept" | "decline" | "cancel"))
        && object_or_null("content")
        && object_or_null("_meta")
}

impl super::server::ServerRole {
    /// Reads the inputs a modern `tools/call`, `prompts/get` or `resources/read` brings
    /// (`inputResponses`, and the sealed `requestState` of an earlier round) into its
    /// context. A state that fails its checks is refused here: user code never sees it.
    pub(super) fn read_inputs(
        &self,
        method: &'static str,
        raw: Option<RawJson<'_>>,
        ctx: &mut std::sync::Arc<RequestContext>,
    ) -> Result<(), RpcError> {
        let text = raw.map_or("", |r| r.get());
        static INPUTS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"inputResponses\""));
        static STATE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"requestState\""));
        if INPUTS.find(text.as_bytes()).is_none() && STATE.find(text.as_bytes()).is_none() {
            return Ok(());
        }
        let b = Binding::read(text).map_err(RpcError::invalid_params)?;
        // The context may be shared with other requests of the same `_meta`: this one's
        // inputs go into its own copy.
        let ctx = std::sync::Arc::make_mut(ctx);
        let mut answers = Map::new();
        if let Some(state) = &b.request_state {
            let StateField::Text(state) = state else {
                return Err(RpcError::invalid_params("requestState must be a string"));
            };
            let (name, args) = binding(method, &b);
            let expect = request_state::Expected { method, name, args: &args, audience: self.audience() };
            let keys = self.config.request_state.keys().map_err(RpcError::internal)?;
            let (opened_answers, user, round) =
                request_state::open_with(&keys, state, &expect, self.config.wall_clock.now_ms(), |p| {
                    (p.answers, p.user, p.round)
                })
                .map_err(|e| RpcError::invalid_params(e.to_string()))?;
            answers = opened_answers;
            ctx.request_state = user;
            ctx.round = round;
        }
        match b.input_responses {
            None => {}
            Some(Value::Object(given)) => {
                for (k, v) in given {
                    if !v.is_object() {
                        return Err(RpcError::invalid_params(format!(
                            "inputResponses[{k:?}] must be an object (the client's result for that input request)"
                        )));
                    }
                    answers.insert(k, v);
                }
            }
            Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object")),
        }
        ctx.input_responses = Some(answers);
        Ok(())
    }

    /// The audience states are bound to.
    fn audience(&self) -> &str {
        self.config.request_state.audience.as_deref().unwrap_or(&self.config.info.name)
    }
}

impl ServerSession {
    /// Asks the client for input on behalf of the request `key`: `elicitation/create`,
    /// `sampling/createMessage`, `roots/list` (or, in a legacy session, any request, such
    /// as `ping`). `input_key` names the input in a modern request's `inputRequests`
    /// (default: the method's short name and the number of the call, e.g. `elicitation_1`,
    /// stable across retries as long as the handler asks in the same order).
    ///
    /// Errors: the client did not declare the capability (-32021 in a modern request), or
    /// the request is over.
    pub fn request_input(
        &mut self,
        key: RequestKey,
        input_key: Option<&str>,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        now: Instant,
    ) -> Result<InputAnswer, RpcError> {
        let Some(inf) = self.peer.inflight.get_mut(&key) else {
            return Err(RpcError::invalid_request("the request is over (answered or cancelled)"));
        };
        let Some(ctx) = inf.modern.clone() else {
            let opts = RequestOptions { related: Some(key), ..opts.clone() };
            return self.request(method, params, &opts, now).map(InputAnswer::Sent);
        };
        let Some(round) = inf.round.as_mut() else {
            return Err(RpcError::invalid_request(
                "this 2026-07-28 request cannot ask the client for input (only tools/call, prompts/get and \
                 resources/read can)",
            ));
        };
        let Some(method) = input_method(method) else {
            return Err(RpcError::invalid_request(format!(
                "a 2026-07-28 request can ask the client only for elicitation/create, sampling/createMessage or \
                 roots/list, not {method}"
            )));
        };
        if let Some((_, required)) =
            missing_client_capability(method, params.as_ref(), &ctx.client_capabilities, ctx.version)
        {
            // Raised in the handler: uncaught, it fails the request with -32021; caught, the
            // handler goes on without that input.
            return Err(missing_capability(required));
        }
        round.calls += 1;
        let name = match input_key {
            Some(k) => k.to_string(),
            None => {
                // One allocation, its size known (`format!` grows its string as it goes).
                let prefix = key_prefix(method);
                let mut name = String::with_capacity(prefix.len() + 4);
                let _ = write!(name, "{prefix}_{}", round.calls);
                name
            }
        };
        if let Some(answer) = ctx.input_responses.as_ref().and_then(|a| a.get(&name)) {
            check_answer(&name, method, answer)?;
            if !round.consumed.contains(&name) {
                round.consumed.push(name);
            }
            return Ok(InputAnswer::Answered(answer.clone()));
        }
        match round.pending.iter_mut().find(|(k, ..)| *k == name) {
            Some(slot) => (slot.1, slot.2) = (method, params),
            None => round.pending.push((name, method, params)),
        }
        Ok(InputAnswer::Required)
    }

    /// Ends a modern call with `input_required`: what the handler asked (and did not get)
    /// plus what it returned itself, and the sealed state of this round.
    pub(super) fn complete_input_required(
        &mut self,
        key: RequestKey,
        inf: Inflight,
        ctx: &RequestContext,
        own: InputRequired,
    ) {
        let mut inf = inf;
        let result = self.input_required_result(&mut inf, ctx, own);
        let (id, batch, route) = (&inf.id, inf.batch, Route::Reply(key));
        match result {
            Ok(body) => {
                let peer = &mut self.peer;
                peer.respond(batch, route, |out| {
                    out.reserve(body.len() + 64);
                    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                    id.write_json(out);
                    out.extend_from_slice(b",\"result\":");
                    out.extend_from_slice(&body);
                    out.push(b'}');
                });
            }
            Err(e) => self.peer.write_error(Some(id), batch, route, &e),
        }
    }

    /// The `input_required` result's JSON: what the handler asked in this round (taken out
    /// of it), and the round's sealed state.
    fn input_required_result(
        &self,
        inf: &mut Inflight,
        ctx: &RequestContext,
        own: InputRequired,
    ) -> Result<Vec<u8>, RpcError> {
        let Some(round) = inf.round.as_mut() else {
            return Err(RpcError::internal(
                "the handler returned input_required, which only tools/call, prompts/get and resources/read may",
            ));
        };
        let role = &self.role;
        let cfg = &role.config.request_state;
        if ctx.round + 1 >= cfg.max_rounds {
            return Err(RpcError::internal(format!(
                "the request still needs input after {} rounds (the server's limit)",
                ctx.round + 1
            )));
        }
        // Each input request's JSON by key (the handler's own win over the same key asked
        // through the context), in key order.
        let mut requests: Vec<(String, Vec<u8>)> = Vec::with_capacity(round.pending.len() + own.requests.len());
        for (k, method, params) in std::mem::take(&mut round.pending) {
            let mut json = Vec::with_capacity(96);
            json.extend_from_slice(b"{\"method\":\"");
            json.extend_from_slice(method.as_bytes());
            json.extend_from_slice(b"\",\"params\":");
            match params {
                Some(p) => write_json(&mut json, &p)?,
                None => json.extend_from_slice(b"{}"),
            }
            json.push(b'}');
            requests.push((k, json));
        }
        for (k, v) in own.requests {
            let method = v.get("method").and_then(Value::as_str).unwrap_or("");
            if input_method(method).is_none() {
                return Err(RpcError::internal(format!(
                    "inputRequests[{k:?}] has method {method:?}; input requests are elicitation/create, \
                     sampling/createMessage or roots/list"
                )));
            }
            if let Some((_, required)) =
                missing_client_capability(method, v.get("params"), &ctx.client_capabilities, ctx.version)
            {
                return Err(missing_capability(required));
            }
            let mut json = Vec::new();
            write_json(&mut json, &v)?;
            match requests.iter_mut().find(|(have, _)| *have == k) {
                Some(slot) => slot.1 = json,
                None => requests.push((k, json)),
            }
        }
        if requests.is_empty() && own.state.is_none() {
            return Err(RpcError::internal(
                "the handler ended the call with input_required but asked for nothing and kept no state",
            ));
        }
        requests.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let b: Binding =
            round.params.as_deref().map(Binding::read).transpose().map_err(RpcError::internal)?.unwrap_or_default();
        let (name, args) = binding(round.method, &b);
        let answers: Map<String, Value> = match &ctx.input_responses {
            Some(given) => round.consumed.iter().filter_map(|k| Some((k.clone(), given.get(k)?.clone()))).collect(),
            None => Map::new(),
        };
        let payload = request_state::Sealing {
            method: round.method,
            name,
            args: &args,
            audience: role.config.request_state.audience.as_deref().unwrap_or(&role.config.info.name),
            expires_ms: role.config.wall_clock.now_ms().saturating_add(cfg.ttl.as_millis() as u64),
            answers: &answers,
            user: own.state.as_deref(),
            round: ctx.round + 1,
        };
        let keys = cfg.keys().map_err(RpcError::internal)?;
        let state = request_state::seal_borrowed(&keys, &payload).map_err(RpcError::internal)?;
        // The members in the order a JSON object map would write them (sorted by name).
        let identity = role.identity().json();
        let size = state.len() + identity.len() + requests.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>();
        let mut out = Vec::with_capacity(size + 128);
        out.push(b'{');
        if !identity.is_empty() {
            out.extend_from_slice(b"\"_meta\":{\"io.modelcontextprotocol/serverInfo\":");
            out.extend_from_slice(identity);
            out.extend_from_slice(b"},");
        }
        if !requests.is_empty() {
            out.extend_from_slice(b"\"inputRequests\":{");
            for (i, (k, json)) in requests.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                crate::jsonrpc::fastser::write_str(&mut out, k);
                out.push(b':');
                out.extend_from_slice(json);
            }
            out.extend_from_slice(b"},");
        }
        out.extend_from_slice(b"\"requestState\":");
        crate::jsonrpc::fastser::write_str(&mut out, &state);
        out.extend_from_slice(b",\"resultType\":\"input_required\"}");
        Ok(out)
    }
}

/// `value`'s JSON appended to `out`.
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), RpcError> {
    crate::jsonrpc::fastser::to_writer(out, value).map_err(RpcError::internal)
}

/// The methods a 2026-07-28 request may ask the client for input with.
fn input_method(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation/create"),
        "sampling/createMessage" => Some("sampling/createMessage"),
        "roots/list" => Some("roots/list"),
        _ => None,
    }
}

/// A legacy request cannot end with `input_required`.
pub(crate) fn legacy_input_required(v: ProtocolVersion) -> RpcError {
    RpcError::new(
        codes::INTERNAL_ERROR,
        format!(
            "the handler returned input_required, a 2026-07-28 result, to a {v} client (ask through the context's \
             elicit / sample / list_roots instead: they work in both eras)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape check of an elicitation answer takes exactly what serde's reading takes.
    #[test]
    fn elicit_result_shape_is_serdes() {
        for v in [
            json!({"action": "accept", "content": {"name": "Ada"}}),
            json!({"action": "decline"}),
            json!({"action": "cancel", "content": null, "_meta": {"a": 1}}),
            json!({"action": "accept", "content": {}, "extra": [1, 2]}),
            json!({"action": "Accept"}),
            json!({"action": "accept", "content": "text"}),
            json!({"action": "accept", "content": [1]}),
            json!({"action": "accept", "_meta": 3}),
            json!({"action": 1}),
            json!({"content": {}}),
            json!({}),
        ] {
            let serde = ElicitResult::deserialize(&v).is_ok();
            assert_eq!(elicit_result_shape(v.as_object().unwrap()), serde, "{v}");
            assert_eq!(check_answer("k", "elicitation/create", &v).is_ok(), serde, "{v}");
        }
        // Not an object: serde decides, as before.
        for v in [json!(["accept"]), json!("accept"), json!(null)] {
            assert_eq!(
                check_answer("k", "elicitation/create", &v).is_ok(),
                ElicitResult::deserialize(&v).is_ok(),
                "{v}"
            );
        }
    }

    /// `Binding::read` takes what serde's reading of the whole params takes.
    #[test]
    fn binding_read_is_serdes() {
        let texts = [
            r#"{}"#,
            r#"{"name":"ask","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"_meta":{"a":[1,{"b":"}"}]},"name":"x","arguments":{"k":[1,2,{"z":null}]},"requestState":"hm1.abc","inputResponses":{"elicitation_1":{"action":"accept"}}}"#,
            r#"{"uri":"file:///a","requestState":null,"inputResponses":null}"#,
            r#"{"name":null,"arguments":null}"#,
            r#"{"na\u006de":"escaped","arguments":{}}"#,
            r#"{"name":"one","name":"two"}"#,
            r#"{"name":5}"#,
            r#"{"requestState":7,"other":{"deep":[[[]]]}}"#,
            r#"[1]"#,
            r#" { "name" : "spaced" , "arguments" : { "b" : 2 , "a" : 1 } } "#,
            r#"{"name":"quo\"te","uri":"a\u0041","requestState":"st\u0061te","inputResponses":{}}"#,
            r#"{"uri":["not","a","string"]}"#,
            r#"{"requestState":{"an":"object"},"name":"n"}"#,
        ];
        for text in texts {
            let ours = Binding::read(text);
            let serde: Result<Binding, _> = serde_json::from_str(text);
            match (ours, serde) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.name, b.name, "{text}");
                    assert_eq!(a.uri, b.uri, "{text}");
                    assert_eq!(a.arguments, b.arguments, "{text}");
                    assert_eq!(a.input_responses, b.input_responses, "{text}");
                    assert_eq!(a.request_state, b.request_state, "{text}");
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{text}: ours {:?}, serde {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}
