// @ts-check
'use strict';
// The `ctx` a handler receives as its last argument: progress, logging, elicitation,
// sampling, roots, the request's identity and `ctx.signal` (an AbortSignal that fires when
// the client cancels the request).
//
// Both eras, one handler: `ctx.elicit`, `ctx.sample` and `ctx.listRoots` work for every
// client. A legacy client gets a real request while the handler waits. A 2026-07-28 client
// has no channel back while a call runs: the call ends with an `input_required` result, the
// client answers and retries, and the handler runs again FROM THE START, the awaited call
// then resolving with the answer. Code before such an await runs once per round: put side
// effects after the inputs they need.

/**
 * @typedef {import('./connection.cjs').ServerConnection} ServerConnection
 * @typedef {import('./types/context').ContextRequestOptions} ContextRequestOptions
 * @typedef {import('./types/protocol').LoggingLevel} LoggingLevel
 * @typedef {import('./types/protocol').Meta} Meta
 */

const { types } = require('node:util');
const { MissingRequiredClientCapability } = require('./errors.cjs');
const native = require('./native.cjs');

/**
 * An HTTP request's origin from the native value an HTTP server's event hands over
 * (`HttpServer.takeOrigins`); an origin already read is returned as it is.
 * @param {unknown} o
 * @returns {import('./types/context').Origin | null}
 */
function readOrigin(o) {
  if (o !== null && o !== undefined && types.isExternal(o)) return JSON.parse(native.originJson(/** @type {any} */ (o)));
  return /** @type {import('./types/context').Origin | null} */ (o ?? null);
}

/** @type {readonly string[]} */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Throw (or return) in a tool, prompt or resource handler to end a 2026-07-28 call with your
 * own `input_required` result: the low-level form of multi round-trip requests. `requests`
 * maps keys of your choosing to `{method, params}` (`elicitation/create`,
 * `sampling/createMessage` or `roots/list`); `state` is yours and comes back on the retry
 * as `ctx.requestState` (sealed by hypermcp: the client can neither read nor change it),
 * with the answers in `ctx.inputResponses`. Most handlers never need it: `await
 * ctx.elicit(...)` does this for them, in both eras.
 */
class InputRequired extends Error {
  /**
   * @param {Record<string, {method: string, params?: object}>} [requests]
   * @param {string} [state]
   */
  constructor(requests = {}, state) {
    super('input required');
    this.name = 'InputRequired';
    /** The input requests, by key. */
    this.requests = requests;
    /** @type {string | undefined} State of the handler's own, for the retry. */
    this.state = state;
  }
}

class Context {
  /**
   * @param {ServerConnection} conn
   * @param {number} key the native session's key of the request
   * @param {import('./types/protocol').RequestId} requestId
   * @param {import('./types/protocol').ProgressToken | null} progressToken
   * @param {Meta | null} meta
   * @param {import('./types/context').RequestContext | null} [request] a 2026-07-28 request's own context
   * @param {import('./types/context').Origin | object | null} [origin] the HTTP request it came
   *   in: itself, or the native value holding it (an HTTP server's calls; see `readOrigin`)
   */
  constructor(conn, key, requestId, progressToken, meta, request = null, origin = null) {
    this._conn = conn;
    this._key = key;
    this._request = request;
    this._origin = origin;
    /** @type {Headers | null} */
    this._headers = null;
    /** @type {AbortController | null} */
    this._controller = null;
    this._cancelled = false;
    /** The JSON-RPC id of the request. */
    this.requestId = requestId;
    /** The progress token the client asked progress under, or null. */
    this.progressToken = progressToken;
    /** The request's `_meta`, or null. */
    this.meta = meta;
    /** @type {string | null} The id of the task this call runs as (tasks extension), or null. */
    this.taskId = null;
    /** @type {import('./trace.cjs').ServerScope | null} the call's trace (see trace.cjs) */
    this._scope = null;
    /** @type {Map<string, unknown> | null} what middleware set for this request */
    this._state = null;
  }

  /**
   * Keeps `value` under `key` for the rest of this request (middleware hands the handler
   * values this way: `context.setState` in a hook, `ctx.getState` here).
   * @param {string} key
   * @param {unknown} value
   */
  setState(key, value) {
    (this._state ??= new Map()).set(key, value);
  }

  /**
   * A value set with setState for this request, or undefined.
   * @param {string} key
   * @returns {unknown}
   */
  getState(key) {
    return this._state?.get(key);
  }

  /** The round of a 2026-07-28 multi round-trip call (0 on the first, and in legacy). */
  _round() {
    return this._request?.round ?? 0;
  }

  /**
   * The W3C trace context the caller sent in `_meta` (`traceparent`, `tracestate`,
   * `baggage`): `traceId`, `parentId`, `sampled`, `baggage` (an object)..., or null when it
   * sent no valid one. While this handler runs, the requests your clients send carry it on
   * (or, with OpenTelemetry, this request's span).
   * @returns {import('./trace.cjs').TraceContext | null}
   */
  get traceContext() {
    return require('./trace.cjs').parse(this.meta);
  }

  /** An AbortSignal that fires when the client cancels this request. */
  get signal() {
    if (this._controller === null) {
      this._controller = new AbortController();
      if (this._cancelled) this._controller.abort(new Error('the client cancelled the request'));
    }
    return this._controller.signal;
  }

  /** @param {string | null} [reason] */
  _cancel(reason) {
    this._cancelled = true;
    if (this._controller) this._controller.abort(new Error(reason || 'the client cancelled the request'));
  }

  /** Whether the client cancelled this request, or its task (`tasks/cancel`). */
  get cancelled() {
    return this._cancelled;
  }

  /**
   * Turns this call into a task (a tool registered with `task: 'manual'`): the client is
   * answered with the task at once, and this handler goes on, its return value becoming the
   * task's result, its progress the task's status message and its `elicit` / `sample` /
   * `listRoots` the task's input requests (answered with `tasks/update`). Ask for what you
   * need to decide first: input asked before a task exists goes through ordinary multi
   * round-trip requests. Resolves false (the call goes on as an ordinary one) when the call
   * cannot become a task: its client did not declare the tasks extension, or the tool is not
   * in manual mode; true when it already is one.
   * @returns {Promise<boolean>}
   */
  async startTask() {
    if (this.taskId !== null) return true;
    return this._conn.startTask(this);
  }

  /** The client's `{name, version, ...}` (sent with each request at 2026-07-28). */
  get clientInfo() {
    if (this._request) return this._request.clientInfo ?? null;
    return this._conn.clientInfo();
  }

  /** The capabilities the client declared (for this request, at 2026-07-28). */
  get clientCapabilities() {
    if (this._request) return this._request.clientCapabilities;
    return this._conn.clientCapabilities();
  }

  /**
   * The settings of extension `id` when the client declared it (with this request at
   * 2026-07-28, at initialize before), else null. A request that cannot be served without it
   * throws `new McpError(-32021, ..., { requiredCapabilities: { extensions: { [id]: {} } } })`.
   * @param {string} id
   * @returns {Record<string, unknown> | null}
   */
  clientExtension(id) {
    const ext = /** @type {Record<string, Record<string, unknown>> | undefined} */ (this.clientCapabilities?.extensions);
    return ext?.[id] ?? null;
  }

  /**
   * The client's settings of extension `id`; throws MissingRequiredClientCapability (-32021,
   * naming it in `data.requiredCapabilities.extensions`) when the client did not declare it.
   * @param {string} id
   * @returns {Record<string, unknown>}
   */
  requireExtension(id) {
    const settings = this.clientExtension(id);
    if (settings === null) {
      throw new MissingRequiredClientCapability(`Missing required client capability: extension ${id}`, { requiredCapabilities: { extensions: { [id]: {} } } });
    }
    return settings;
  }

  /** The protocol revision this request speaks. */
  get protocolVersion() {
    if (this._request) return this._request.protocolVersion;
    return /** @type {import('./types/protocol').ProtocolVersion | null} */ (this._conn.session.protocolVersion);
  }

  /**
   * The client's answers to input requests so far (2026-07-28; null in a legacy session or
   * before any). The low-level form: `ctx.elicit` reads them for you.
   */
  get inputResponses() {
    return this._request?.inputResponses ?? null;
  }

  /** The `state` your handler threw InputRequired with in the previous round (2026-07-28). */
  get requestState() {
    return this._request?.requestState ?? null;
  }

  /**
   * The HTTP headers of the request, as a fetch `Headers` (names in any case; empty over
   * stdio). A verified token's `Authorization` and `DPoP` headers are left out (see `auth`).
   */
  get headers() {
    if (this._headers === null) this._headers = new Headers(this._originRead()?.headers ?? []);
    return this._headers;
  }

  /** The `Mcp-Session-Id` of a legacy HTTP session (null over stdio, stateless, 2026-07-28). */
  get sessionId() {
    return this._originRead()?.sessionId ?? null;
  }

  /**
   * Who the request's access token speaks for, when the HTTP server verifies tokens (its
   * `auth` option): `{ subject, clientId, scopes, expiresAt, claims }`; else null. The token
   * itself is not kept.
   * @returns {import('./types/context').AuthInfo | null}
   */
  get auth() {
    const a = this._originRead()?.auth;
    if (!a) return null;
    return { subject: a.subject ?? null, clientId: a.client_id ?? null, scopes: a.scopes ?? [], expiresAt: a.expires_at ?? null, claims: a.claims ?? {} };
  }

  /**
   * The HTTP request's origin, read from the native value on first use (most handlers never
   * look at the headers: they are not made JS objects for them).
   * @returns {import('./types/context').Origin | null}
   */
  _originRead() {
    return (this._origin = readOrigin(this._origin));
  }

  /** The Server serving this request. */
  get server() {
    return this._conn.server;
  }

  /**
   * Reports progress (values must increase). Resolves false when the client asked for none.
   * @param {number} progress @param {number} [total] @param {string} [message]
   */
  async reportProgress(progress, total, message) {
    return this._conn.progress(this._key, progress, total, message);
  }

  /**
   * Over HTTP, closes the SSE connection this call answers on after a `retry` hint; the
   * client reconnects with `Last-Event-ID` and gets the rest (SSE polling, 2025-11-25).
   * Returns false where there is no such stream (stdio, in-memory, JSON replies).
   */
  closeSseStream() {
    return this._conn.closeStream(this._key);
  }

  /**
   * Sends a log message (`notifications/message`), filtered by the client's level.
   * @param {LoggingLevel} level @param {unknown} data @param {string} [logger]
   */
  async log(level, data, logger) {
    if (!LEVELS.includes(level)) throw new TypeError(`unknown logging level ${JSON.stringify(level)} (one of ${LEVELS.join(', ')})`);
    this._conn.log(level, data, logger, this._key);
  }

  /** @param {unknown} data @param {string} [logger] */
  async debug(data, logger) { return this.log('debug', data, logger); }
  /** @param {unknown} data @param {string} [logger] */
  async info(data, logger) { return this.log('info', data, logger); }
  /** @param {unknown} data @param {string} [logger] */
  async warning(data, logger) { return this.log('warning', data, logger); }
  /** @param {unknown} data @param {string} [logger] */
  async error(data, logger) { return this.log('error', data, logger); }

  /**
   * Sends any request to the client on behalf of this one; resolves with its result.
   * @template [T=unknown] the result's type (not checked: the result is as on the wire)
   * @param {string} method
   * @param {object} [params]
   * @param {ContextRequestOptions} [options]
   * @returns {Promise<T>}
   */
  async request(method, params, options = {}) {
    return this._conn.requestInput(this._key, options.key ?? null, method, params, options.timeout, options.signal ?? this.signal);
  }

  /**
   * Asks the user to fill a form (`requestedSchema`: a flat JSON Schema object, or a zod
   * object/shape). Resolves `{action: "accept"|"decline"|"cancel", content?}`.
   * @param {string} message
   * @param {import('./types/schema').ObjectSchema} [requestedSchema]
   * @param {ContextRequestOptions} [options]
   * @returns {Promise<import('./types/sampling').ElicitResult<any>>}
   */
  async elicit(message, requestedSchema = { type: 'object', properties: {} }, options = {}) {
    const { compile } = require('./schema.cjs');
    const schema = compile(requestedSchema, 'requestedSchema').json;
    return this.request('elicitation/create', { message, requestedSchema: schema }, options);
  }

  /**
   * Asks the user to open a URL (URL-mode elicitation, 2025-11-25).
   * @param {string} message
   * @param {string | URL} url
   * @param {string} [elicitationId]
   * @param {ContextRequestOptions} [options]
   * @returns {Promise<import('./types/sampling').ElicitResult>}
   */
  async elicitUrl(message, url, elicitationId = require('node:crypto').randomUUID(), options = {}) {
    return this.request('elicitation/create', { mode: 'url', message, url, elicitationId }, options);
  }

  /**
   * Tells the client a URL-mode elicitation finished.
   * @param {string} elicitationId
   */
  elicitationComplete(elicitationId) {
    this._conn.elicitationComplete(elicitationId);
  }

  /**
   * Shows this caller, and no one else, the components that match (the criteria of
   * `server.enable`), over the server's rules. The caller is the session (its rules kept
   * in the session record, so every replica applies them), at 2026-07-28 over stdio the
   * connection, and over HTTP without a session the subject of the request's access token
   * (its rules kept for its next requests, by every replica with a store); a request
   * without any of these is refused. The caller is told of each list it now sees
   * differently (`list_changed`).
   * @param {import('./types/server').VisibilityFilter} filter
   * @returns {Promise<void>}
   */
  async enableComponents(filter) {
    this._changeVisibility('enable', filter);
  }

  /**
   * Hides from this caller the components that match (see `enableComponents`).
   * @param {import('./types/server').VisibilityFilter} filter
   * @returns {Promise<void>}
   */
  async disableComponents(filter) {
    this._changeVisibility('disable', filter);
  }

  /**
   * Drops this caller's own rules: it sees what the server's rules show.
   * @returns {Promise<void>}
   */
  async resetVisibility() {
    this._conn.changeVisibility(JSON.stringify({ op: 'reset' }));
  }

  /**
   * @param {'enable' | 'disable'} op
   * @param {import('./types/server').VisibilityFilter} filter
   */
  _changeVisibility(op, filter) {
    const rule = JSON.parse(require('./server.cjs').visibilityFilter(filter, `ctx.${op}Components`));
    this._conn.changeVisibility(JSON.stringify({ op, ...rule }));
  }

  /**
   * Asks the client's model for a message. `messages` may be a string; other fields of
   * `sampling/createMessage` (systemPrompt, temperature, tools...) go in `params`.
   * @param {import('./types/context').SampleInput} messages
   * @param {Partial<Omit<import('./types/sampling').CreateMessageParams, 'messages'>>} [params]
   * @param {ContextRequestOptions} [options]
   * @returns {Promise<import('./types/sampling').CreateMessageResult>}
   */
  async sample(messages, params = {}, options = {}) {
    const list = (typeof messages === 'string' ? [messages] : messages).map((m) =>
      typeof m === 'string' ? { role: 'user', content: { type: 'text', text: m } } : m,
    );
    return this.request('sampling/createMessage', { maxTokens: 1024, ...params, messages: list }, options);
  }

  /**
   * The client's roots.
   * @param {ContextRequestOptions} [options]
   */
  async listRoots(options = {}) {
    /** @type {import('./types/protocol').ListRootsResult} */
    const r = await this.request('roots/list', undefined, options);
    return r.roots || [];
  }

  /**
   * Pings the client.
   * @param {ContextRequestOptions} [options]
   */
  async ping(options = {}) {
    await this.request('ping', undefined, options);
  }
}

module.exports = { Context, InputRequired, LEVELS, readOrigin };
