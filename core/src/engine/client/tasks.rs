//! How a client follows tasks (the tasks extension): a tool call answered with a task is
//! polled (or told of) until it ends, its input requests served through the client's
//! handlers, `tasks/get`/`tasks/cancel` sent for it; [`ClientSession::follow_task`] follows
//! one by id.

use super::*;

impl ClientSession {
    /// A tool call answered with a task: followed from now on (no event until it ends).
    pub(super) fn follow(
        &mut self,
        caller: OutboundId,
        task: &Value,
        deadline: Option<Instant>,
        now: Instant,
    ) -> Vec<Event> {
        let Some(task_id) = task.get("taskId").and_then(Value::as_str) else {
            return vec![Event::Response {
                id: caller,
                result: Err(RpcError::invalid_params("a task result without taskId")),
            }];
        };
        let legacy = !self.role.modern;
        let poll = task.get("pollIntervalMs").and_then(Value::as_u64).unwrap_or(1000).clamp(50, 30_000);
        let poll = Duration::from_millis(poll);
        self.role.followed.insert(
            caller,
            Followed {
                task_id: task_id.to_string(),
                poll,
                next: (!legacy).then_some(now + poll),
                asked: Default::default(),
                deadline,
                result_wire: None,
            },
        );
        if legacy {
            self.task_request(caller, TaskReq::Result, None, now);
        }
        Vec::new()
    }

    /// Sends `tasks/get` for every followed task due at `now`.
    pub(super) fn poll_tasks(&mut self, now: Instant) {
        let late: Vec<OutboundId> =
            self.role.followed.iter().filter(|(_, f)| f.deadline.is_some_and(|d| d <= now)).map(|(c, _)| *c).collect();
        for caller in late {
            self.task_request(caller, TaskReq::Cancel, None, now);
            self.end_followed(caller);
            let e = RpcError::new(codes::REQUEST_TIMEOUT, "tools/call timed out (its task was cancelled)");
            self.peer.events.push_back(Event::Response { id: caller, result: Err(e) });
        }
        let due: Vec<OutboundId> =
            self.role.followed.iter().filter(|(_, f)| f.next.is_some_and(|t| t <= now)).map(|(c, _)| *c).collect();
        for caller in due {
            self.task_request(caller, TaskReq::Get, None, now);
        }
    }

    /// Sends a request about followed task `caller` (`tasks/get`, `tasks/update` with
    /// `responses`, `tasks/cancel`); a request that cannot be sent fails the call.
    pub(super) fn task_request(
        &mut self,
        caller: OutboundId,
        req: TaskReq,
        responses: Option<Map<String, Value>>,
        now: Instant,
    ) {
        let Some(f) = self.role.followed.get_mut(&caller) else { return };
        let method = match req {
            TaskReq::Get => "tasks/get",
            TaskReq::Update => "tasks/update",
            TaskReq::Cancel => "tasks/cancel",
            TaskReq::Result => "tasks/result",
        };
        let mut params = serde_json::json!({ "taskId": f.task_id });
        if let Some(r) = responses {
            params["inputResponses"] = Value::Object(r);
        }
        if req == TaskReq::Get {
            f.next = None;
        }
        let sent = if req == TaskReq::Result {
            let opts = RequestOptions { timeout: Some(TASK_RESULT_WAIT), ..Default::default() };
            let wire = self.peer.send_request(method, Some(params), &opts, now);
            f.result_wire = Some(wire);
            Ok(wire)
        } else {
            self.request(method, Some(params), &RequestOptions::default(), now)
        };
        match sent {
            Ok(wire) => {
                self.role.task_wire.insert(wire, (caller, req));
            }
            Err(e) if req != TaskReq::Cancel => {
                self.end_followed(caller);
                self.peer.events.push_back(Event::Response { id: caller, result: Err(e) });
            }
            Err(_) => {}
        }
    }

    /// Forgets followed task `caller`, cancelling the input requests being served for it.
    pub(super) fn end_followed(&mut self, caller: OutboundId) {
        if let Some(wire) = self.role.followed.remove(&caller).and_then(|f| f.result_wire) {
            // Nobody waits for the task's result any more.
            self.role.task_wire.remove(&wire);
            self.peer.cancel(wire, Some("the caller stopped waiting for the task"));
        }
        let keys: Vec<RequestKey> =
            self.role.task_inputs.iter().filter(|(_, (c, _))| *c == caller).map(|(k, _)| *k).collect();
        for k in keys {
            self.role.task_inputs.remove(&k);
            self.peer.events.push_back(Event::Cancelled { key: k, reason: Some("the task ended".into()) });
        }
    }

    /// The answer to one of this client's requests about a followed task.
    pub(super) fn on_task_answer(
        &mut self,
        caller: OutboundId,
        req: TaskReq,
        result: Result<Value, RpcError>,
        now: Instant,
    ) -> Vec<Event> {
        if !self.role.followed.contains_key(&caller) {
            return Vec::new();
        }
        if req == TaskReq::Result {
            // The task's end, as its call would have answered (the related-task _meta kept).
            if let Some(f) = self.role.followed.get_mut(&caller) {
                f.result_wire = None;
            }
            self.end_followed(caller);
            return vec![Event::Response { id: caller, result }];
        }
        let task = match (req, result) {
            (TaskReq::Cancel, _) | (TaskReq::Update, Ok(_)) | (TaskReq::Result, _) => return Vec::new(),
            (_, Err(e)) => {
                self.end_followed(caller);
                return vec![Event::Response { id: caller, result: Err(e) }];
            }
            (TaskReq::Get, Ok(v)) => v,
        };
        if let (Some(f), Some(ms)) =
            (self.role.followed.get_mut(&caller), task.get("pollIntervalMs").and_then(Value::as_u64))
        {
            f.poll = Duration::from_millis(ms.clamp(50, 30_000));
        }
        let status = task.get("status").and_then(Value::as_str).unwrap_or_default();
        let end = |this: &mut Self, result: Result<Value, RpcError>| {
            this.end_followed(caller);
            vec![Event::Response { id: caller, result }]
        };
        match status {
            "completed" => {
                let mut r = task.get("result").cloned().unwrap_or_else(|| Value::Object(Map::new()));
                cm::strip_plumbing(&mut r);
                return end(self, Ok(r));
            }
            "failed" => {
                let e = task.get("error").cloned().and_then(|e| serde_json::from_value::<RpcError>(e).ok());
                return end(self, Err(e.unwrap_or_else(|| RpcError::internal("the task failed"))));
            }
            "cancelled" => {
                return end(self, Err(RpcError::new(codes::REQUEST_CANCELLED, "the task was cancelled")));
            }
            _ => {}
        }
        let mut events = Vec::new();
        if status == "input_required" {
            let requests = task.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
            for (key, req) in requests {
                if self.role.followed.get(&caller).is_some_and(|f| f.asked.contains(&key)) {
                    continue;
                }
                let method = req.get("method").and_then(Value::as_str).unwrap_or("").to_string();
                let raw = req.get("params").cloned().unwrap_or(Value::Object(Map::new()));
                match self.input_request(&method, raw) {
                    Ok(request) => {
                        if let Some(f) = self.role.followed.get_mut(&caller) {
                            f.asked.insert(key.clone());
                        }
                        let k = self.peer.alloc_key();
                        self.role.task_inputs.insert(k, (caller, key.clone()));
                        events.push(input_invocation(k, &key, request));
                    }
                    Err(e) => {
                        // This client cannot give the input: the task is abandoned (with the
                        // inputs of this poll, never handed out).
                        events.retain(|e| !matches!(e, Event::Invoke(_)));
                        self.task_request(caller, TaskReq::Cancel, None, now);
                        events.extend(end(
                            self,
                            Err(RpcError::new(
                                e.code,
                                format!("tools/call: the task asked for input this client cannot give: {}", e.message),
                            )),
                        ));
                        return events;
                    }
                }
            }
        }
        if let Some(f) = self.role.followed.get_mut(&caller) {
            f.next = Some(now + f.poll);
        }
        events
    }

    /// Whether the server runs tool calls as 2025-11-25 tasks (`capabilities.tasks`).
    pub(super) fn legacy_tasks_served(&self) -> bool {
        self.peer.version.is_some_and(|v| v.supports(crate::protocol::Feature::LegacyTasks))
            && self.role.server.as_ref().is_some_and(|s| {
                s.capabilities.tasks.as_ref().and_then(|t| t.pointer("/requests/tools/call")).is_some()
            })
    }

    /// Learns from a `tools/list` page which tools run as tasks.
    pub(super) fn learn_tool_tasks(&mut self, page: &Value) {
        for tool in page.get("tools").and_then(Value::as_array).into_iter().flatten() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
                Some("required") => self.role.tool_tasks.insert(name.to_string(), true),
                Some("optional") => self.role.tool_tasks.insert(name.to_string(), false),
                _ => self.role.tool_tasks.remove(name),
            };
        }
    }

    /// Follows task `task_id` (tasks extension) to its end, as a tool call answered with a
    /// task is followed (see [`RequestOptions::follow_task`]): its result (or error) arrives as
    /// the [`Event::Response`] of the returned id; its input requests go to this client's
    /// handlers; [`ClientSession::cancel_request`] of the id cancels the task. For a task
    /// started with a raw request, or by an earlier client (a host that restarted). `timeout`
    /// bounds the wait (the task is cancelled then).
    pub fn follow_task(
        &mut self,
        task_id: &str,
        timeout: Option<Duration>,
        now: Instant,
    ) -> Result<OutboundId, RpcError> {
        match self.role.state {
            State::Operating => {}
            State::Closed => return Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed")),
            _ => return Err(RpcError::invalid_request("cannot follow a task before the session is open")),
        }
        if !self.role.modern && !self.legacy_tasks_served() {
            return Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                "the server runs no tasks (at 2025-11-25, it declares capabilities.tasks)",
            ));
        }
        let id = self.peer.alloc_out_id();
        self.role.followed.insert(
            id,
            Followed {
                task_id: task_id.to_string(),
                poll: Duration::from_secs(1),
                next: self.role.modern.then_some(now),
                asked: Default::default(),
                deadline: timeout.map(|t| now + t),
                result_wire: None,
            },
        );
        if !self.role.modern {
            self.task_request(id, TaskReq::Result, None, now);
        }
        Ok(id)
    }
}
