//! The rounds of a 2026-07-28 request: an `input_required` answer's requests served through
//! the client's handlers (checked against what it declared), the request sent again with
//! the answers, and lists walked again when a change arrives mid-walk.

use super::*;

impl ClientSession {
    /// The server asked for input: each input request goes to the client's handlers as an
    /// invocation; once all are answered the request is sent again.
    pub(super) fn on_input_required(&mut self, mut call: ModernCall, v: &Value, now: Instant) -> Vec<Event> {
        let caller = call.caller;
        call.rounds += 1;
        if call.rounds > self.role.config.max_input_rounds {
            return vec![Event::Response {
                id: caller,
                result: Err(cm::too_many_rounds(&call.method, self.role.config.max_input_rounds)),
            }];
        }
        let parsed: InputRequiredResult = match serde_json::from_value(v.clone()) {
            Ok(p) => p,
            Err(e) => {
                return vec![Event::Response {
                    id: caller,
                    result: Err(RpcError::invalid_params(format!("malformed input_required result: {e}"))),
                }]
            }
        };
        call.state = parsed.request_state;
        call.answers = Map::new();
        let mut events = Vec::new();
        for (key, req) in parsed.input_requests.unwrap_or_default() {
            let method = req.get("method").and_then(Value::as_str).unwrap_or("");
            let raw = req.get("params").cloned().unwrap_or(Value::Object(Map::new()));
            let request = match self.input_request(method, raw) {
                Ok(r) => r,
                Err(e) => {
                    for k in call.awaiting.keys() {
                        self.role.inputs.remove(k);
                    }
                    events.retain(|e| !matches!(e, Event::Invoke(_)));
                    events.push(Event::Response {
                        id: caller,
                        result: Err(RpcError::new(
                            e.code,
                            format!(
                                "{}: the server asked for input this client cannot give: {}",
                                call.method, e.message
                            ),
                        )),
                    });
                    return events;
                }
            };
            let k = self.peer.alloc_key();
            call.awaiting.insert(k, key.clone());
            self.role.inputs.insert(k, caller);
            events.push(input_invocation(k, &key, request));
        }
        if call.awaiting.is_empty() {
            self.retry(call, now);
        } else {
            self.role.waiting.insert(caller, call);
        }
        events
    }

    /// The engine request of one input request, checked against what this client declared.
    pub(super) fn input_request(&self, method: &str, raw: Value) -> Result<Request, RpcError> {
        let caps = &self.role.config.capabilities;
        let parse = |what: &str, e: serde_json::Error| RpcError::invalid_params(format!("{what}: {e}"));
        match method {
            "roots/list" if caps.roots.is_some() => Ok(Request::ListRoots),
            "sampling/createMessage" if caps.sampling.is_some() => {
                serde_json::from_value(raw).map(|p| Request::CreateMessage(Box::new(p))).map_err(|e| parse(method, e))
            }
            "elicitation/create" if caps.elicitation.is_some() => {
                let p: ElicitParams = serde_json::from_value(raw).map_err(|e| parse(method, e))?;
                let ok = if p.is_url() { caps.elicitation_url() } else { caps.elicitation_form() };
                if ok {
                    Ok(Request::Elicit(Box::new(p)))
                } else {
                    Err(RpcError::invalid_params("this client does not support that elicitation mode"))
                }
            }
            "roots/list" | "sampling/createMessage" | "elicitation/create" => {
                Err(RpcError::new(codes::METHOD_NOT_FOUND, format!("{method}: this client has no handler for it")))
            }
            other => Err(RpcError::method_not_found(other)),
        }
    }

    /// Asks for a page of `tools/list` on behalf of `call` (its wire id then stands for it).
    pub(super) fn relist(&mut self, mut call: ModernCall, cursor: Option<String>, now: Instant) -> Vec<Event> {
        let params = cursor.map(|c| serde_json::json!({ "cursor": c }));
        let params = match cm::with_meta(params, &self.role.meta) {
            Ok(p) => p,
            Err(e) => return vec![Event::Response { id: call.caller, result: Err(e) }],
        };
        if let Some(r) = &mut call.relist {
            r.pages += 1;
        }
        let opts = RequestOptions { timeout: call.opts.timeout, ..Default::default() };
        let wire = self.peer.send_request("tools/list", Some(params), &opts, now);
        self.role.calls.insert(wire, call);
        Vec::new()
    }

    /// A page of the tools listed for a refused call: the next page is asked for, or the call
    /// is sent once more (answered with its refusal if the listing failed).
    pub(super) fn on_relist(
        &mut self,
        mut call: ModernCall,
        result: Result<Value, RpcError>,
        now: Instant,
    ) -> Vec<Event> {
        let Some(relist) = call.relist.take() else { return Vec::new() };
        let closed = self.role.state == State::Closed || self.peer.closed;
        let page = match result {
            Ok(v) => v,
            Err(e) if closed => return vec![Event::Response { id: call.caller, result: Err(e) }],
            Err(e) => {
                // The refusal is the answer; what stopped the recovery is said with it.
                let mut refusal = relist.refusal;
                refusal.message = format!(
                    "{} (listing the tools to learn its header parameters failed: {})",
                    refusal.message, e.message
                );
                return vec![Event::Response { id: call.caller, result: Err(refusal) }];
            }
        };
        if closed {
            let e = RpcError::new(codes::CONNECTION_CLOSED, "the session is closed");
            return vec![Event::Response { id: call.caller, result: Err(e) }];
        }
        let next = page.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty());
        if let Some(cursor) = next.filter(|_| relist.pages < cm::RELIST_PAGES) {
            let cursor = cursor.to_string();
            call.relist = Some(relist);
            return self.relist(call, Some(cursor), now);
        }
        call.relisted = true;
        let wire = self.peer.send_request(&call.method, Some(call.params.clone()), &call.opts, now);
        self.role.calls.insert(wire, call);
        Vec::new()
    }

    /// Sends a call again with the answers of its round and the echoed state.
    pub(super) fn retry(&mut self, call: ModernCall, now: Instant) {
        let mut params = call.params.clone();
        if let Value::Object(m) = &mut params {
            if !call.answers.is_empty() {
                m.insert("inputResponses".into(), Value::Object(call.answers.clone()));
            }
            if let Some(s) = &call.state {
                m.insert("requestState".into(), Value::String(s.clone()));
            }
        }
        let wire = self.peer.send_request(&call.method, Some(params), &call.opts, now);
        self.role.calls.insert(wire, ModernCall { answers: Map::new(), awaiting: HashMap::new(), ..call });
    }
}
