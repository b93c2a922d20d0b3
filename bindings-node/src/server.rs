//! The server side: a shared `Registry` and one `ServerSession` per connection, handles on
//! the engine's catalogue and on a `HostSession` (a byte stream Node owns, or an HTTP
//! session). Events come out and outcomes go back as JSON text.

use crate::bridge::{output, parse, parse_json, poll_events_json, UNIT};
use crate::bridge::{Wake, WakeFn};
use crate::errors::{definition_err, option_err, rpc_err, state_err};
use hypermcp::catalogue::visibility::{Component, Filter, VisibilityChange};
use hypermcp::catalogue::{self, ListKind, RegistryChange};
use hypermcp::engine::{InputAnswer, InputRequired, Outcome, RequestKey, RequestOptions};
use hypermcp::transport::host::{options, HostMiddleware, HostSession, HostTasks};
use hypermcp::{CallToolResult, LoggingLevel, Prompt, ReadResourceResult, Resource, ResourceTemplate, RpcError, Tool};
use napi::bindgen_prelude::Buffer;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

/// The names of lists, as the host spells them.
fn names(lists: Vec<ListKind>) -> Vec<String> {
    lists.into_iter().map(|k| k.name().to_string()).collect()
}

/// The catalogue of one server.
#[napi]
pub struct Registry {
    pub(crate) inner: Arc<catalogue::Registry>,
}

#[napi]
impl Registry {
    /// An empty registry.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Registry { inner: Arc::new(catalogue::Registry::new()) }
    }

    /// A resource changed: every HTTP session serving this registry, whichever `HttpServer`
    /// holds it, tells its client if it subscribed. (Sessions JS drives over a byte stream
    /// are told through their own `resourceUpdated`.)
    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.inner.notify_resource_updated(&uri);
    }

    /// Adds or replaces a tool (JSON of the MCP `Tool` shape).
    #[napi]
    pub fn add_tool(&self, env: Env, definition: String) -> napi::Result<()> {
        let t: Tool = parse(&definition, "tool definition")?;
        self.inner.add_tool(t).map_err(|e| definition_err(&env, e))
    }

    /// Removes a tool.
    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.inner.remove_tool(&name)
    }

    /// How tool `name` runs as a task: "optional", "required", "manual", or null (never).
    #[napi]
    pub fn set_task_mode(&self, name: String, mode: Option<String>) -> napi::Result<()> {
        let mode = match mode {
            None => None,
            Some(m) => Some(serde_json::from_value::<catalogue::TaskMode>(Value::from(m.as_str())).map_err(|_| {
                napi::Error::new(
                    napi::Status::InvalidArg,
                    format!("task mode must be \"optional\", \"required\" or \"manual\", not {m:?}"),
                )
            })?),
        };
        self.inner.set_task_mode(&name, mode);
        Ok(())
    }

    /// The scopes a token needs for a `kind` ('tool', 'resource', 'prompt') of entry `key`.
    #[napi]
    pub fn set_required_scopes(&self, kind: String, key: String, scopes: Vec<String>) -> napi::Result<()> {
        let target = hypermcp::catalogue::ScopeTarget::new(&kind, key).map_err(napi::Error::from_reason)?;
        self.inner.set_required_scopes(target, scopes);
        Ok(())
    }

    /// Sets the tags of a `kind` ('tool', 'resource', 'template', 'prompt') of component
    /// `key`; returns the lists whose visible entries changed.
    #[napi]
    pub fn set_tags(&self, kind: String, key: String, tags: Vec<String>) -> napi::Result<Vec<String>> {
        let kind: Component = kind.parse().map_err(napi::Error::from_reason)?;
        Ok(names(self.inner.set_tags(kind, &key, tags)))
    }

    /// Enables (for every caller) what `filter` (JSON: {names, tags, components, match_all})
    /// matches; `only`: the allow-list form. Returns the lists that changed.
    #[napi]
    pub fn enable(&self, env: Env, filter: String, only: bool) -> napi::Result<Vec<String>> {
        let filter: Filter = parse_filter(&env, &filter)?;
        self.inner.enable(filter, only).map(names).map_err(|e| definition_err(&env, e))
    }

    /// Disables (for every caller) what `filter` matches; returns the lists that changed.
    #[napi]
    pub fn disable(&self, env: Env, filter: String) -> napi::Result<Vec<String>> {
        let filter: Filter = parse_filter(&env, &filter)?;
        self.inner.disable(filter).map(names).map_err(|e| definition_err(&env, e))
    }

    /// Drops the server's visibility rules; returns the lists that changed.
    #[napi]
    pub fn reset_visibility(&self) -> Vec<String> {
        names(self.inner.reset_visibility())
    }

    /// Adds or replaces a resource.
    #[napi]
    pub fn add_resource(&self, env: Env, definition: String) -> napi::Result<()> {
        let r: Resource = parse(&definition, "resource definition")?;
        self.inner.add_resource(r).map_err(|e| definition_err(&env, e))
    }

    /// Removes a resource.
    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.inner.remove_resource(&uri)
    }

    /// Adds or replaces a resource template.
    #[napi]
    pub fn add_template(&self, env: Env, definition: String) -> napi::Result<()> {
        let t: ResourceTemplate = parse(&definition, "resource template definition")?;
        self.inner.add_template(t).map_err(|e| definition_err(&env, e))
    }

    /// Removes a resource template.
    #[napi]
    pub fn remove_template(&self, uri_template: String) -> bool {
        self.inner.remove_template(&uri_template)
    }

    /// Adds or replaces a prompt.
    #[napi]
    pub fn add_prompt(&self, env: Env, definition: String) -> napi::Result<()> {
        let p: Prompt = parse(&definition, "prompt definition")?;
        self.inner.add_prompt(p).map_err(|e| definition_err(&env, e))
    }

    /// Removes a prompt.
    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.inner.remove_prompt(&name)
    }

    /// Serves a request method of the server's own (its params checked against `schema`,
    /// JSON text, when given); throws a DefinitionError for a name the spec owns.
    #[napi]
    pub fn add_method(&self, env: Env, method: String, schema: Option<String>) -> napi::Result<()> {
        let schema = schema.map(|s| parse::<Value>(&s, "params schema")).transpose()?;
        self.inner.add_method(&method, schema).map_err(|e| definition_err(&env, e))
    }

    /// Stops serving a method of the server's own.
    #[napi]
    pub fn remove_method(&self, method: String) -> bool {
        self.inner.remove_method(&method)
    }

    /// Hands the lists named ('tools', 'resources', 'resource_templates', 'prompts') to the
    /// middleware (the others are served from cached pages).
    #[napi]
    pub fn set_list_hooks(&self, lists: Vec<String>) -> napi::Result<()> {
        let kinds = lists.iter().map(|l| l.parse::<ListKind>()).collect::<Result<Vec<_>, _>>();
        self.inner.set_list_hooks(&kinds.map_err(napi::Error::from_reason)?);
        Ok(())
    }

    /// Entries per list page.
    #[napi]
    pub fn set_page_size(&self, n: u32) {
        self.inner.set_page_size(n as usize);
    }

    /// Serves the skills of directory `path` (each directory under it holding a `SKILL.md`),
    /// replacing those served; returns the URIs of the files that changed. Throws a
    /// `DefinitionError` naming the file and the rule broken.
    #[napi]
    pub fn set_skills_dir(&self, env: Env, path: String) -> napi::Result<Vec<String>> {
        let catalog = hypermcp::transport::skills_dir::read_skills_dir(&path).map_err(|e| definition_err(&env, e))?;
        Ok(self.inner.set_skills(Some(catalog)))
    }

    /// Serves skills made in code: `paths[i]` (relative to the skills root) holds
    /// `contents[i]`; returns the URIs of the files that changed.
    #[napi]
    pub fn set_skill_files(&self, env: Env, paths: Vec<String>, contents: Vec<Buffer>) -> napi::Result<Vec<String>> {
        if paths.len() != contents.len() {
            return Err(definition_err(&env, "setSkillFiles: as many contents as paths"));
        }
        let files = paths.into_iter().zip(contents.into_iter().map(|b| b.to_vec()));
        let catalog = catalogue::skills::SkillCatalog::from_files(files).map_err(|e| definition_err(&env, e))?;
        Ok(self.inner.set_skills(Some(catalog)))
    }

    /// Serves an app's view (MCP Apps): `meta` is the JSON of its `_meta.ui` (`csp`,
    /// `permissions`, `domain`, `prefersBorder`). Throws a `DefinitionError` for a URI that is
    /// not `ui://` or declarations that are not origins.
    #[napi]
    pub fn add_app(
        &self,
        env: Env,
        uri: String,
        html: String,
        meta: Option<String>,
        name: Option<String>,
        description: Option<String>,
    ) -> napi::Result<()> {
        let meta: hypermcp::UiResourceMeta = match meta {
            Some(m) => parse(&m, "app meta")?,
            None => Default::default(),
        };
        self.inner.add_app(&uri, html, meta, name, description).map_err(|e| definition_err(&env, e))
    }

    /// Stops serving skills; returns the URIs of the files no longer served.
    #[napi]
    pub fn clear_skills(&self) -> Vec<String> {
        self.inner.set_skills(None)
    }
}

/// Checks a `resources/read` result (JSON) of `uri`, a file of the skill `entry` (JSON of a
/// `skills/list` entry), and returns the file's bytes; throws a `SkillVerificationError`
/// (`reason`: unlisted, size, digest, frontmatter or invalid) when the content must not be used.
#[napi]
pub fn verify_skill_read(env: Env, entry: String, uri: String, result: String) -> napi::Result<Buffer> {
    let entry: Value = parse_json(&env, &entry, "skill entry")?;
    let result: Value = parse_json(&env, &result, "resources/read result")?;
    catalogue::skills::verify_read(&entry, &uri, &result)
        .map(Buffer::from)
        .map_err(|e| crate::errors::skill_err(&env, &e))
}

/// An app's view out of a `resources/read` result (JSON) of `uri` (MCP Apps): JSON of
/// `{uri, mimeType, html, meta, cspHeader, allow}`; throws for a URI that is not `ui://` or
/// contents that are not `text/html;profile=mcp-app`.
#[napi]
pub fn read_app(uri: String, result: String, listed: Option<String>) -> napi::Result<String> {
    let result: Value = parse(&result, "resources/read result")?;
    let listed: Option<Value> = listed.map(|l| parse(&l, "listed _meta.ui")).transpose()?;
    let app = hypermcp::read_app(&uri, &result, listed.as_ref()).map_err(napi::Error::from_reason)?;
    let v = serde_json::json!({"uri": app.uri, "mimeType": hypermcp::APP_MIME, "html": app.html,
        "meta": app.meta, "cspHeader": app.csp, "allow": app.allow});
    Ok(v.to_string())
}

/// Checks a skill entry (JSON) before anything of it is read.
#[napi]
pub fn check_skill_entry(env: Env, entry: String) -> napi::Result<()> {
    let entry: Value = parse_json(&env, &entry, "skill entry")?;
    catalogue::skills::check_entry(&entry).map_err(|e| crate::errors::skill_err(&env, &e))
}

/// The server end of one connection, wherever its bytes go.
#[napi]
pub struct ServerSession {
    inner: HostSession,
    wake: Option<Wake>,
}

impl ServerSession {
    pub(crate) fn wrap(inner: HostSession) -> Self {
        ServerSession { inner, wake: None }
    }
}

#[napi]
impl ServerSession {
    /// A session over a byte stream Node owns. `config` is JSON: `{name, version, title?,
    /// description?, websiteUrl?, icons?, instructions?, tools?, resources?, prompts?,
    /// completions?, maxMessageSize?, requestTimeout? (ms)}`.
    #[napi(constructor)]
    pub fn new(env: Env, config: String, registry: &Registry) -> napi::Result<Self> {
        let config = parse_json(&env, &config, "server config")?;
        let cfg = options::server_config(config, UNIT).map_err(|e| option_err(&env, e))?;
        Ok(Self::wrap(HostSession::new(Arc::new(cfg), registry.inner.clone())))
    }

    /// Lets the server's task runtime take what is its own in this session (calls that run
    /// as tasks, `tasks/*` requests); null: they are answered -32601.
    #[napi]
    pub fn set_tasks(&mut self, tasks: Option<&TaskRuntime>) {
        self.inner.set_tasks(tasks.map(|t| t.inner.clone()));
    }

    /// Runs the server's built-in middleware around this session's calls.
    #[napi]
    pub fn set_middleware(&mut self, middleware: Option<&BuiltinMiddleware>) {
        self.inner.set_middleware(middleware.map(|m| m.inner.clone()));
    }

    /// Gives this stream session the function that wakes JS (called with no arguments) when
    /// something reached it from elsewhere: a `tasks/result` answered when its task ends, the
    /// changes of the tasks it created. JS then polls the session and writes what it queued.
    /// False (nothing to do) for an HTTP session or the task session.
    #[napi]
    pub fn set_waker(
        &mut self,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: napi::threadsafe_function::ThreadsafeFunction<
            (),
            napi::bindgen_prelude::Unknown<'static>,
            (),
            napi::Status,
            false,
            true,
        >,
    ) -> bool {
        let (wake, signal) = Wake::new(wake as WakeFn);
        let set = self.inner.set_waker(signal);
        if set {
            self.wake = Some(wake);
        }
        set
    }

    /// Keeps Node alive while this session waits for an answer the task runtime gives later
    /// (a `tasks/result` waiting for its task), and lets it exit otherwise: called after each
    /// pump of a session given a waker.
    #[napi]
    pub fn hold_while_waiting(&self, env: Env) -> napi::Result<()> {
        match &self.wake {
            Some(w) => w.hold(&env, self.inner.awaits_late()),
            None => Ok(()),
        }
    }

    /// Turns call `key` into a task (`ctx.startTask()`): the call is answered with the task;
    /// returns `[taskId, key]`, the handler's key on the task session from now on, or null
    /// when the call cannot become a task.
    #[napi(ts_return_type = "[string, number] | null")]
    pub fn start_task(&mut self, env: Env, key: i64) -> napi::Result<Option<(String, i64)>> {
        match self.inner.start_task(RequestKey(key as u64)) {
            Ok(r) => Ok(r.map(|(id, k)| (id, k.0 as i64))),
            Err(e) => Err(rpc_err(&env, &e)),
        }
    }

    /// Feeds bytes read from the stream.
    #[napi]
    pub fn feed(&mut self, data: Buffer) -> napi::Result<()> {
        self.inner.feed(&data).map_err(state_err)
    }

    /// Handles one complete message.
    #[napi]
    pub fn handle_message(&mut self, data: Buffer) -> napi::Result<()> {
        self.inner.handle_message(&data).map_err(state_err)
    }

    /// Pending events as JSON text of an array (empty string when there are none); their
    /// layout: `events.cjs`.
    #[napi]
    pub fn poll_events(&mut self) -> String {
        poll_events_json(|| self.inner.poll_event())
    }

    /// Everything queued for the peer (newline-delimited), or null (always over HTTP, where
    /// the engine writes to the session's streams).
    #[napi]
    pub fn take_output(&mut self) -> Option<Buffer> {
        output(|out| self.inner.take_output(out))
    }

    /// Whether output is waiting.
    #[napi]
    pub fn has_output(&self) -> bool {
        self.inner.has_output()
    }

    /// Answers a tool call with a `CallToolResult` (JSON text).
    #[napi]
    pub fn complete_tool(&mut self, key: i64, result: String) -> napi::Result<()> {
        let r: CallToolResult = parse(&result, "tool result")?;
        self.inner.complete(RequestKey(key as u64), Outcome::Tool(r));
        Ok(())
    }

    /// Answers a call whose handler threw unexpectedly (`kind`: tool, resource, prompt,
    /// completion, method, list; `name` what it names; `error` the message; `detail` the
    /// stack): the engine says what the client reads (masked under `maskErrorDetails`).
    #[napi]
    pub fn complete_failure(
        &mut self,
        env: Env,
        key: i64,
        kind: String,
        name: String,
        error: String,
        detail: Option<String>,
    ) -> napi::Result<()> {
        self.inner
            .complete_failure(RequestKey(key as u64), &kind, &name, &error, detail.as_deref())
            .map_err(|e| option_err(&env, e))
    }

    /// Answers a tool call with one text block.
    #[napi]
    pub fn complete_tool_text(&mut self, key: i64, text: String, is_error: bool) {
        let mut r = CallToolResult::text(text);
        if is_error {
            r.is_error = Some(true);
        }
        self.inner.complete(RequestKey(key as u64), Outcome::Tool(r));
    }

    /// Answers a tool call whose arguments failed JS's own checks (a zod schema), each error
    /// naming where: as the negotiated revision wants invalid arguments answered.
    #[napi]
    pub fn complete_invalid_arguments(&mut self, key: i64, errors: Vec<String>) {
        self.inner.complete(RequestKey(key as u64), Outcome::InvalidArguments(errors));
    }

    /// Answers a resource read with one text content (no JSON text of the result built).
    #[napi]
    pub fn complete_resource_text(&mut self, key: i64, uri: String, mime_type: String, text: String) {
        let r = ReadResourceResult::text(uri, text, Some(&mime_type));
        self.inner.complete(RequestKey(key as u64), Outcome::Resource(r));
    }

    /// Answers a resource read, prompt or completion (`kind`: "resource", "prompt",
    /// "complete") with JSON text of the result.
    #[napi]
    pub fn complete_result(&mut self, key: i64, kind: String, result: String) -> napi::Result<()> {
        let outcome = match kind.as_str() {
            "resource" => Outcome::Resource(parse(&result, "resource result")?),
            "prompt" => Outcome::Prompt(parse(&result, "prompt result")?),
            "complete" => Outcome::Completion(parse(&result, "completion result")?),
            "method" => Outcome::Json(parse(&result, "method result")?),
            other => return Err(napi::Error::from_reason(format!("unknown result kind {other:?}"))),
        };
        self.inner.complete(RequestKey(key as u64), outcome);
        Ok(())
    }

    /// Answers with a JSON-RPC error (`data` as JSON text, or null).
    #[napi]
    pub fn complete_error(&mut self, key: i64, code: i32, message: String, data: Option<String>) -> napi::Result<()> {
        let data = data.map(|d| parse::<Value>(&d, "error data")).transpose()?;
        self.inner.complete(RequestKey(key as u64), Outcome::Error(RpcError { code, message, data }));
        Ok(())
    }

    /// Answers a call whose handler is gone (`kind`: tool, resource or prompt) with the
    /// engine's error for an unknown name.
    #[napi]
    pub fn complete_missing(&mut self, key: i64, kind: String, name: String) -> napi::Result<()> {
        self.inner.complete_missing(RequestKey(key as u64), &kind, &name).map_err(napi::Error::from_reason)
    }

    /// Sends progress; false when the client asked for none. Throws on a non-increasing value.
    #[napi]
    pub fn progress(
        &mut self,
        env: Env,
        key: i64,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> napi::Result<bool> {
        let sent = self.inner.progress(RequestKey(key as u64), progress, total, message.as_deref());
        sent.map_err(|e| rpc_err(&env, &e))
    }

    /// Sends a log message (`data` as JSON text) if the client's level lets it through.
    #[napi]
    pub fn log(
        &mut self,
        level: String,
        data: String,
        logger: Option<String>,
        related: Option<i64>,
    ) -> napi::Result<bool> {
        let lvl: LoggingLevel = level.parse().map_err(napi::Error::from_reason)?;
        let data: Value = parse(&data, "log data")?;
        Ok(self.inner.log(lvl, logger.as_deref(), data, related.map(|k| RequestKey(k as u64))))
    }

    /// Sends a request to the client (params as JSON text, `timeout` in ms); returns its id
    /// (the answer comes as a "response" event). Throws when the client lacks the capability.
    #[napi]
    pub fn request(
        &mut self,
        env: Env,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
        related: Option<i64>,
    ) -> napi::Result<i64> {
        let params = params.map(|p| parse::<Value>(&p, "request params")).transpose()?;
        let opts = RequestOptions {
            timeout: timeout.and_then(|t| UNIT.duration(t)),
            related: related.map(|k| RequestKey(k as u64)),
            ..Default::default()
        };
        self.inner.request(&method, params, &opts).map_err(|e| rpc_err(&env, &e))
    }

    /// Asks the client for input for the call `key` (params as JSON text, `timeout` in ms),
    /// in either era. Returns JSON text: `["sent", id]` (legacy: the answer comes as a
    /// "response" event), `["answered", result]` (2026-07-28: the client already answered)
    /// or `["required"]` (2026-07-28: stop the handler, then `completeInputRequired`).
    /// Throws an McpError (-32021 when the client lacks the capability).
    #[napi]
    pub fn request_input(
        &mut self,
        env: Env,
        key: i64,
        input_key: Option<String>,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
    ) -> napi::Result<String> {
        let params = params.map(|p| parse::<Value>(&p, "request params")).transpose()?;
        let opts = RequestOptions { timeout: timeout.and_then(|t| UNIT.duration(t)), ..Default::default() };
        let answer = self.inner.request_input(RequestKey(key as u64), input_key.as_deref(), &method, params, &opts);
        Ok(match answer.map_err(|e| rpc_err(&env, &e))? {
            InputAnswer::Sent(id) => format!("[\"sent\",{}]", id.0),
            InputAnswer::Answered(v) => serde_json::json!(["answered", v]).to_string(),
            InputAnswer::Required => "[\"required\"]".to_string(),
        })
    }

    /// Ends a 2026-07-28 call with `input_required`: what its handler asked and was not
    /// given, plus `requests` (JSON text of `{key: {method, params}}`, or null) and `state`
    /// of its own (the low-level form; it comes back sealed on the retry).
    #[napi]
    pub fn complete_input_required(
        &mut self,
        key: i64,
        requests: Option<String>,
        state: Option<String>,
    ) -> napi::Result<()> {
        let requests = match requests.map(|r| parse::<Value>(&r, "input requests")).transpose()? {
            None | Some(Value::Null) => serde_json::Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(napi::Error::from_reason("input requests must be an object of {key: {method, params}}"))
            }
        };
        self.inner.complete(RequestKey(key as u64), Outcome::InputRequired(InputRequired { requests, state }));
        Ok(())
    }

    /// Stops waiting for a request and tells the client.
    #[napi]
    pub fn cancel_request(&mut self, id: i64, reason: Option<String>) -> bool {
        self.inner.cancel_request(id, reason.as_deref())
    }

    /// Tells the client a URL-mode elicitation finished.
    #[napi]
    pub fn elicitation_complete(&mut self, env: Env, elicitation_id: String) -> napi::Result<()> {
        self.inner.elicitation_complete(&elicitation_id).map_err(|e| rpc_err(&env, &e))
    }

    /// Answers a list that passed middleware with the entries to send (a JSON array; the
    /// engine pages them).
    #[napi]
    pub fn complete_list(&mut self, key: i64, items: String) -> napi::Result<()> {
        let items: Vec<Value> = parse(&items, "list entries")?;
        self.inner.complete_list(RequestKey(key as u64), items);
        Ok(())
    }

    /// Changes what this session's caller sees (JSON: {op: 'enable' | 'disable' | 'reset',
    /// names?, tags?, components?, match_all?}).
    #[napi]
    pub fn change_visibility(&mut self, env: Env, change: String) -> napi::Result<()> {
        let change: VisibilityChange =
            serde_json::from_str(&change).map_err(|e| definition_err(&env, format!("visibility: {e}")))?;
        self.inner.change_visibility(&change).map_err(|e| rpc_err(&env, &e))
    }

    /// Closes the HTTP SSE connection a call answers on, with a `retry` hint; the client
    /// resumes it with `Last-Event-ID`. False where there is none (stdio, JSON replies).
    #[napi]
    pub fn close_stream(&mut self, key: i64) -> bool {
        self.inner.close_stream(RequestKey(key as u64))
    }

    /// A list changed ("tools", "resources", "resource_templates", "prompts").
    #[napi]
    pub fn list_changed(&mut self, kind: String) -> napi::Result<()> {
        let kind: ListKind = kind.parse().map_err(napi::Error::from_reason)?;
        self.inner.registry_changed(&RegistryChange::ListChanged(kind));
        Ok(())
    }

    /// A resource's contents changed.
    #[napi]
    pub fn resource_updated(&mut self, uri: String) {
        self.inner.registry_changed(&RegistryChange::ResourceUpdated(uri));
    }

    /// Milliseconds until `handleTimeout` is due, or null.
    #[napi]
    pub fn next_timeout(&self) -> Option<f64> {
        self.inner.next_timeout().map(|d| UNIT.amount(d))
    }

    /// Expires timed-out requests.
    #[napi]
    pub fn handle_timeout(&mut self) {
        self.inner.handle_timeout();
    }

    /// The client's input ended: requests to it fail; in-flight calls may still answer.
    #[napi]
    pub fn input_closed(&mut self) {
        self.inner.input_closed();
    }

    /// The connection is gone: its calls are cancelled.
    #[napi]
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// The `Mcp-Session-Id` of an HTTP session (null otherwise).
    #[napi(getter)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.session_id()
    }

    /// "uninitialized", "initializing", "operating" or "closed".
    #[napi(getter)]
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The negotiated revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(|v| v.as_str().to_string())
    }

    /// JSON text of the client's `{name, version, ...}` (or null).
    #[napi(getter)]
    pub fn client_info(&self) -> Option<String> {
        self.inner.client_info().map(|i| serde_json::to_string(&i).unwrap_or_default())
    }

    /// JSON text of the client's capabilities.
    #[napi(getter)]
    pub fn client_capabilities(&self) -> String {
        serde_json::to_string(&self.inner.client_capabilities()).unwrap_or_default()
    }

    /// The level the client asked logs to be filtered at.
    #[napi(getter)]
    pub fn log_level(&self) -> Option<String> {
        self.inner.log_level().map(|l| l.as_str().to_string())
    }

    /// Calls in progress.
    #[napi(getter)]
    pub fn in_flight(&self) -> u32 {
        self.inner.in_flight() as u32
    }
}

/// The task runtime of one `Server` (`io.modelcontextprotocol/tasks`): the tasks' states (in
/// memory), and the session their handlers run on (`session()`), whose events JS takes when
/// `wake` is called.
#[napi]
pub struct TaskRuntime {
    pub(crate) inner: Arc<HostTasks>,
    _wake: Wake,
}

#[napi]
impl TaskRuntime {
    /// `options`: JSON text `{ttl?, pollInterval?, maxTasks?, cancelGrace?}` (milliseconds);
    /// `wake`: called with no arguments when the task session has events.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        options: String,
        registry: &Registry,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: napi::threadsafe_function::ThreadsafeFunction<
            (),
            napi::bindgen_prelude::Unknown<'static>,
            (),
            napi::Status,
            false,
            true,
        >,
    ) -> napi::Result<Self> {
        let options = parse_json(&env, &options, "task options")?;
        let opts = options::task_options(options, UNIT).map_err(|e| option_err(&env, e))?;
        let (wake, signal) = Wake::new(wake as WakeFn);
        Ok(TaskRuntime { inner: HostTasks::new(opts, registry.inner.clone(), signal), _wake: wake })
    }

    /// The session the tasks' handlers run on.
    #[napi]
    pub fn session(&self) -> ServerSession {
        ServerSession::wrap(self.inner.session())
    }

    /// Handlers running as tasks.
    #[napi(getter)]
    pub fn running(&self) -> u32 {
        self.inner.running() as u32
    }
}

/// A visibility filter from JSON; what is wrong with it is a `DefinitionError`.
fn parse_filter(env: &Env, text: &str) -> napi::Result<Filter> {
    serde_json::from_str(text).map_err(|e| definition_err(env, format!("visibility filter: {e}")))
}

/// The built-in middleware of one `Server` (rate limiting, timing, logging): the engine runs it
/// around the calls of every session it is set on; JavaScript never sees a call pass it.
#[napi]
pub struct BuiltinMiddleware {
    pub(crate) inner: Arc<HostMiddleware>,
}

#[napi]
impl BuiltinMiddleware {
    /// The built-ins of the server of `registry` (none: only to check options).
    #[napi(constructor)]
    pub fn new(registry: Option<&Registry>) -> Self {
        BuiltinMiddleware { inner: HostMiddleware::new(registry.map(|r| r.inner.clone())) }
    }

    /// Adds built-in `kind` (`rate_limiting`, `timing`, `logging`) with its options (JSON
    /// text, camelCase keys); throws an `OptionError` naming the option that is wrong.
    #[napi]
    pub fn add(&self, env: Env, kind: String, options: String) -> napi::Result<()> {
        let options = parse_json(&env, &options, "middleware options")?;
        self.inner.add(&kind, &options).map_err(|e| option_err(&env, e))
    }

    /// Calls being timed or logged now.
    #[napi(getter)]
    pub fn running(&self) -> u32 {
        self.inner.running() as u32
    }
}
