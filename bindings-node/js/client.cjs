'use strict';
// The MCP client: Promise-native, Node's event loop owns the I/O (no threads).
//
//   const client = await Client.stdio('node', ['server.js']);
//   const { tools } = await client.listTools();
//   const result = await client.callTool('echo', { text: 'hi' });
//   await client.close();                 // or: await using client = await Client.stdio(...)
//
// A Client drives a native sans-IO `ClientSession`: bytes read from the connection are fed to
// it, the events it reports are dispatched (answers settle the promises callers await, server
// requests run the handlers) and what it queues is written back. One unref'd timer armed at
// the session's next deadline expires timed-out requests. Requests issued in the same tick go
// out in one write.
//
// Transports
// ----------
// The client talks to the server through a transport, a small interface any connection
// implements (`StdioTransport`, a subprocess, is below; `MemoryTransport` in memory.cjs connects
// to a `Server` object in the same process):
//
//   const transport = {
//     // Opens the connection (may return a Promise). From then on, deliver every chunk of
//     // bytes received from the server with `client._feed(buf)` (a Buffer, Uint8Array or
//     // string of newline-delimited JSON-RPC, any chunking), and call `client._eof()` once
//     // when the server's side ends. Both are ignored once the client is closed.
//     start(client) {},
//     // Sends bytes to the server (one or more complete, newline-terminated messages).
//     // Must not block; may buffer. Ignore calls once closed.
//     write(buf) {},
//     // Stops sending (EOF to the server) and shuts the connection down; may return a Promise
//     // resolved once fully closed. Called once.
//     close() {},
//     // Optional: why the server's side ended (appended to ConnectionClosed messages).
//     failureDetail() { return ''; },
//     // Optional: the tail of what the server wrote to stderr (`client.serverStderr`).
//     stderr: '',
//   };
//   const client = await Client.connect(transport, options);
//
// `client._feed` may be called from inside `write` (a synchronous in-memory peer answering at
// once): the client notices and handles the new input after the current batch.
// `Client.connect(server)` with a hypermcp `Server` is `Client.inMemory(server)`.

const path = require('node:path');
const { pathToFileURL } = require('node:url');
const nativeModule = require('./native.cjs');
const {
  METHOD_NOT_FOUND,
  INTERNAL_ERROR,
  CONNECTION_CLOSED,
  McpError,
  MethodNotFound,
  InternalError,
  ConnectionClosed,
  AbortError,
  errorFromObject,
} = require('./errors.cjs');
const E = require('./events.cjs');

const STDERR_KEEP = 64 * 1024;
const STDERR_IN_MESSAGE = 2000;
const NO_LIMIT_MS = 1e12; // "no timeout" for one call (the session's default applies when undefined)
const MAX_TIMER_MS = 2 ** 31 - 1;
const GROUP = process.platform !== 'win32';
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** A completion reference to a prompt (for `client.complete`). */
function promptRef(name) {
  return { type: 'ref/prompt', name };
}

/** A completion reference to a resource template (for `client.complete`). */
function resourceRef(uri) {
  return { type: 'ref/resource', uri };
}

function argError(message) {
  const err = new TypeError(message);
  err.code = 'ERR_INVALID_ARG_VALUE';
  return err;
}

/** A timeout option (ms) for the native side: undefined = default, null/Infinity = none. */
function timeoutMs(ms, what) {
  if (ms === undefined) return undefined;
  if (ms === null || ms === Infinity) return NO_LIMIT_MS;
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
    throw argError(`${what} must be a number of milliseconds >= 0, null or Infinity (got ${String(ms)})`);
  }
  return Math.min(ms, NO_LIMIT_MS);
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function reasonText(reason) {
  if (reason === undefined || reason === null) return 'cancelled by the client';
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message || reason.name;
  return String(reason);
}

function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof AbortError) return reason;
  const text = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new AbortError(`the request was aborted${text}`, reason);
}

function toRoot(item) {
  if (typeof item === 'string') {
    if (SCHEME.test(item)) return { uri: item };
    const abs = path.resolve(item);
    return { uri: pathToFileURL(abs).href, name: path.basename(abs) || abs };
  }
  if (item instanceof URL) return { uri: item.href };
  if (isObject(item) && typeof item.uri === 'string') return { ...item };
  throw new TypeError(`a root is a URI string, a path, a URL or {uri, name?}, not ${JSON.stringify(item)}`);
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** An MCP client session over one connection (see the top of this file). */
class Client {
  /**
   * A client over `transport`, not yet connected: prefer `Client.connect` / `Client.stdio`.
   * Options: `name`, `version` of this client; `protocolVersion` to ask for; `timeout` (ms) for
   * every request (default 60000; null or Infinity: none); `onSampling(params, {signal})`,
   * `onElicitation(params, {signal})` (form mode; `elicitationUrl: true` also declares URL
   * mode), `roots` (an array, or a function returning one) answer the server's requests;
   * `onLog(params)` receives log messages, `onNotification(method, params)` every other server
   * notification; `onError(err)` failures of these callbacks; `capabilities` are merged into
   * the declared ones.
   */
  constructor(transport, options = {}) {
    if (transport && typeof transport.start !== 'function' && typeof transport._enter === 'function') {
      const { MemoryTransport } = require('./memory.cjs');
      transport = new MemoryTransport(transport);
    }
    if (!transport || ['start', 'write', 'close'].some((m) => typeof transport[m] !== 'function')) {
      const err = new TypeError('a transport has start(client), write(buf) and close() (or pass a Server)');
      err.code = 'ERR_INVALID_ARG_TYPE';
      throw err;
    }
    options = options ?? {};
    for (const name of ['onSampling', 'onElicitation', 'onLog', 'onNotification', 'onError']) {
      if (options[name] != null && typeof options[name] !== 'function') {
        throw argError(`options.${name} must be a function`);
      }
    }
    if (options.elicitationUrl && !options.onElicitation) {
      throw argError('elicitationUrl: true needs an onElicitation handler');
    }
    const caps = {};
    if (options.onSampling) caps.sampling = { tools: {} };
    if (options.onElicitation) caps.elicitation = options.elicitationUrl ? { form: {}, url: {} } : { form: {} };
    if (options.roots != null) caps.roots = { listChanged: true };
    if (options.capabilities != null) Object.assign(caps, options.capabilities);
    const timeout = options.timeout === undefined ? 60_000 : options.timeout;
    const sessionTimeout = timeout === null || timeout === Infinity ? undefined : timeoutMs(timeout, 'options.timeout');
    this._session = new nativeModule.ClientSession(
      String(options.name ?? 'hypermcp-client'),
      String(options.version ?? nativeModule.version()),
      Object.keys(caps).length ? JSON.stringify(caps) : undefined,
      options.protocolVersion ?? undefined,
      sessionTimeout,
    );
    this._transport = transport;
    this._onSampling = options.onSampling ?? null;
    this._onElicitation = options.onElicitation ?? null;
    this._roots = options.roots ?? null;
    this._onLog = options.onLog ?? null;
    this._onNotification = options.onNotification ?? null;
    this._onError = options.onError ?? null;
    this._pending = new Map(); // outbound id -> {resolve, reject, onProgress, cleanup}
    this._serving = new Map(); // server request key -> AbortController
    this._timer = null;
    this._timerAt = 0;
    this._initId = null;
    this._server = null;
    this._pumping = false;
    this._repump = false;
    this._flushQueued = false;
    this._started = false;
    this._closed = false;
    this._closeMessage = null;
    this._shutdown = null;
    this._onTimer = this._onTimer.bind(this);
    this._flush = this._flush.bind(this);
  }

  /**
   * Spawns `command args` and connects to it over its stdin/stdout. Extra options: `env`
   * (added to process.env), `cwd`, `onStderr(line)`. The server's stderr is captured (the last
   * 64 KiB in `client.serverStderr`, quoted in ConnectionClosed errors when it dies). `close()`
   * ends its stdin, waits 2 s, sends SIGTERM, waits 2 s, sends SIGKILL; it is always reaped.
   */
  static async stdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) {
      options = args ?? {};
      args = [];
    }
    options = options ?? {};
    const transport = new StdioTransport(command, args, options);
    return Client.connect(transport, options);
  }

  /**
   * Connects to a server over HTTP at `url` (`http://host:port/mcp`). Extra options:
   * `headers` (sent with every request, e.g. `{ Authorization: 'Bearer ...' }`), `transport`
   * (`'auto'`: Streamable HTTP, falling back to the legacy HTTP+SSE transport when the server
   * refuses the `initialize` POST with 400, 404 or 405; `'http'`: Streamable HTTP only;
   * `'sse'`: `url` is a legacy SSE endpoint), `connectTimeout` (ms, 10 s), `openGetStream`
   * (default true). Broken SSE streams resume with `Last-Event-ID` after the server's `retry`;
   * `close()` ends the session with DELETE. A server that cannot be reached rejects with
   * ConnectionClosed naming the URL; once nothing listens at its address any more, pending and
   * later calls reject with ConnectionClosed too. While the session is open it keeps Node alive.
   */
  static async http(url, options = {}) {
    options = options ?? {};
    return Client.connect(new HttpTransport(url, options), options);
  }

  /** Connects over `transport` (or to a hypermcp `Server` in memory) and performs the handshake. */
  static async connect(transport, options = {}) {
    const client = new Client(transport, options);
    await client._connect();
    return client;
  }

  /** A client of `server` (a hypermcp `Server`) in the same process. */
  static async inMemory(server, options = {}) {
    const { MemoryTransport } = require('./memory.cjs');
    return Client.connect(new MemoryTransport(server), options);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  async _connect() {
    if (this._started) throw Object.assign(new Error('this client is already connected'), { code: 'ERR_MCP_STATE' });
    this._started = true;
    try {
      await this._transport.start(this);
      if (this._closed) throw this._closedError();
      const id = this._session.initialize();
      this._initId = id;
      const done = new Promise((resolve, reject) => this._pending.set(id, { resolve, reject, onProgress: null, cleanup: null }));
      this._pump();
      await done;
    } catch (err) {
      await this.close();
      throw err;
    }
    return this;
  }

  /**
   * Closes the session (pending calls reject with ConnectionClosed, handlers of server requests
   * are aborted) and the transport; resolves once it is shut down. Idempotent.
   */
  async close() {
    this._end('the client closed the connection');
    await this._shutdown;
  }

  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    await this.close();
  }

  _end(message) {
    if (this._closed) return;
    this._closed = true;
    this._closeMessage = message;
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    this._session.close(); // pending requests fail, the server's requests are cancelled
    this._pump();
    for (const [id, entry] of this._pending) {
      this._pending.delete(id);
      entry.cleanup?.();
      entry.reject(new ConnectionClosed(message));
    }
    for (const [key, ac] of this._serving) {
      this._serving.delete(key);
      ac.abort(new AbortError(`the request was aborted: ${message}`));
    }
    const transport = this._transport;
    this._shutdown = Promise.resolve()
      .then(() => transport.close())
      .then(
        () => undefined,
        (err) => this._report(err),
      );
  }

  _closedError() {
    return new ConnectionClosed(this._closeMessage ?? 'the connection is closed');
  }

  // ---- input from the transport -----------------------------------------------------------

  /** Bytes from the server (called by the transport). */
  _feed(data) {
    if (this._closed) return;
    if (!Buffer.isBuffer(data)) {
      data = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    }
    this._session.feed(data);
    this._pump();
  }

  /** The server's side ended (called by the transport). */
  _eof() {
    if (this._closed) return;
    let detail = '';
    try {
      detail = this._transport.failureDetail?.() ?? '';
    } catch {
      detail = '';
    }
    this._end('the server closed the connection' + (detail ? ` (${detail})` : ''));
  }

  _kick() {
    if (this._flushQueued) return;
    this._flushQueued = true;
    queueMicrotask(this._flush);
  }

  _flush() {
    this._flushQueued = false;
    if (!this._closed) this._pump();
  }

  /** Dispatches every pending event, writes what is queued, re-arms the timer. */
  _pump() {
    if (this._pumping) {
      this._repump = true; // re-entered (from write() or a callback): the outer pass loops again
      return;
    }
    const session = this._session;
    this._pumping = true;
    try {
      do {
        this._repump = false;
        for (;;) {
          const text = session.pollEvents();
          if (!text) break;
          for (const ev of JSON.parse(text)) this._dispatch(ev);
        }
        const out = session.takeOutput();
        if (out.length) {
          try {
            this._transport.write(out);
          } catch (err) {
            this._report(err);
          }
        }
      } while (this._repump);
    } finally {
      this._pumping = false;
    }
    if (!this._closed) this._armTimer();
  }

  _armTimer() {
    const wait = this._session.nextTimeout();
    // No deadline: an armed timer is left to fire (it is unref'd and finds nothing to do), so
    // a call that ends does not cost a clearTimeout + setTimeout pair.
    if (wait === null || wait === undefined) return;
    const at = performance.now() + wait;
    if (this._timer !== null) {
      if (this._timerAt <= at) return; // fires first; it re-arms for the rest
      clearTimeout(this._timer);
    }
    this._timerAt = at;
    this._timer = setTimeout(this._onTimer, Math.min(Math.ceil(wait) + 1, MAX_TIMER_MS));
    this._timer.unref();
  }

  _onTimer() {
    this._timer = null;
    if (this._closed) return;
    this._session.handleTimeout();
    this._pump();
  }

  _dispatch(ev) {
    switch (ev[E.KIND]) {
      case 'response': {
        const id = ev[E.RESPONSE_ID];
        const entry = this._pending.get(id);
        if (entry === undefined) return;
        this._pending.delete(id);
        entry.cleanup?.();
        if (ev[E.RESPONSE_OK]) entry.resolve(ev[E.RESPONSE_RESULT]);
        else entry.reject(this._rpcError(ev[E.RESPONSE_RESULT]));
        return;
      }
      case 'progress': {
        const entry = this._pending.get(ev[E.PROGRESS_ID]);
        if (entry?.onProgress) {
          const p = { progress: ev[E.PROGRESS_VALUE] };
          const total = ev[E.PROGRESS_TOTAL];
          const message = ev[E.PROGRESS_MESSAGE];
          if (total !== null && total !== undefined) p.total = total;
          if (message !== null && message !== undefined) p.message = message;
          this._callback(entry.onProgress, p);
        }
        return;
      }
      case 'notification': {
        const method = ev[E.NOTIFICATION_METHOD];
        const params = ev[E.NOTIFICATION_PARAMS] ?? undefined;
        if (method === 'notifications/message' && this._onLog) this._callback(this._onLog, params ?? {});
        else if (this._onNotification) this._callback(this._onNotification, method, params);
        return;
      }
      case 'initialized': {
        const text = this._session.server;
        this._server = text ? JSON.parse(text) : {};
        const id = this._initId;
        this._initId = null;
        const entry = id === null ? undefined : this._pending.get(id);
        if (entry !== undefined) {
          this._pending.delete(id);
          entry.resolve(undefined);
        }
        return;
      }
      case 'cancelled': {
        const key = ev[E.CANCELLED_KEY];
        const reason = ev[E.CANCELLED_REASON];
        const ac = this._serving.get(key);
        if (ac !== undefined) {
          this._serving.delete(key);
          ac.abort(new AbortError(`the server cancelled the request${reason ? `: ${reason}` : ''}`, reason ?? undefined));
        }
        return;
      }
      case 'sampling':
      case 'elicitation':
      case 'roots':
        this._serve(ev[E.KIND], ev[E.KEY], ev[E.ID], ev[E.META], ev[E.KIND] === 'elicitation' ? ev[E.ELICITATION_PARAMS] : ev[E.SAMPLING_PARAMS]);
        return;
      default:
        return;
    }
  }

  _rpcError(obj) {
    if (obj && obj.code === CONNECTION_CLOSED && this._closeMessage !== null) {
      return new ConnectionClosed(this._closeMessage, obj.data);
    }
    if (!isObject(obj) || typeof obj.code !== 'number') return new InternalError(`bad error from the server: ${JSON.stringify(obj)}`);
    return errorFromObject({ code: obj.code, message: String(obj.message ?? ''), data: obj.data });
  }

  _callback(fn, ...args) {
    try {
      const out = fn(...args);
      if (out && typeof out.then === 'function') out.then(undefined, (err) => this._report(err));
    } catch (err) {
      this._report(err);
    }
  }

  _report(err) {
    if (this._onError) {
      try {
        this._onError(err);
        return;
      } catch {
        // fall through to the warning
      }
    }
    process.emitWarning(err instanceof Error ? err : new Error(String(err)), { code: 'HYPERMCP_CLIENT_CALLBACK' });
  }

  // ---- the server's requests --------------------------------------------------------------

  async _serve(kind, key, requestId, meta, params) {
    const ac = new AbortController();
    this._serving.set(key, ac);
    let result;
    let error = null;
    try {
      if (kind === 'roots') {
        result = { roots: await this._listRoots() };
      } else {
        const handler = kind === 'sampling' ? this._onSampling : this._onElicitation;
        if (!handler) throw new MethodNotFound(`this client does not handle ${kind}`);
        result = await handler(params ?? {}, { signal: ac.signal, requestId, meta: meta ?? undefined });
        if (!isObject(result)) {
          throw new TypeError(`the ${kind} handler returned ${result === null ? 'null' : typeof result}, expected an object`);
        }
      }
    } catch (err) {
      error = err ?? new Error('the handler failed');
    }
    if (this._serving.get(key) !== ac) return; // cancelled by the server or closed: no answer
    this._serving.delete(key);
    if (this._closed) return;
    let text = null;
    if (error === null) {
      try {
        text = JSON.stringify(result);
      } catch (err) {
        error = new InternalError(`the ${kind} handler returned a value that is not JSON: ${err.message}`);
      }
    }
    if (error === null) {
      this._session.respond(key, text);
    } else if (error instanceof McpError) {
      let data;
      try {
        data = error.data === undefined ? undefined : JSON.stringify(error.data);
      } catch {
        data = undefined;
      }
      this._session.respondError(key, error.rpcCode, error.message, data);
    } else {
      const message = error instanceof Error ? error.message || error.name : String(error);
      this._session.respondError(key, INTERNAL_ERROR, message);
    }
    this._pump();
  }

  async _listRoots() {
    let roots = this._roots;
    if (roots === null) return [];
    if (typeof roots === 'function') roots = await roots();
    if (!roots || typeof roots[Symbol.iterator] !== 'function') throw new TypeError('roots must be an array');
    return Array.from(roots, toRoot);
  }

  // ---- requests ---------------------------------------------------------------------------

  _checkOpen() {
    if (!this._started) {
      throw Object.assign(new Error('the client is not connected: use Client.connect() or Client.stdio()'), {
        code: 'ERR_MCP_STATE',
      });
    }
    if (this._closed) throw this._closedError();
  }

  /** Sends a request; resolves with its result. Throws synchronously only for bad arguments. */
  _request(method, params, options = {}) {
    options = options ?? {};
    const { signal, onProgress, resetTimeoutOnProgress } = options;
    const timeout = timeoutMs(options.timeout, 'timeout');
    if (onProgress != null && typeof onProgress !== 'function') throw argError('onProgress must be a function');
    this._checkOpen();
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const progress = typeof onProgress === 'function' || !!resetTimeoutOnProgress;
    let id;
    try {
      id = this._session.request(method, params == null ? undefined : JSON.stringify(params), timeout, progress, !!resetTimeoutOnProgress);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, onProgress: typeof onProgress === 'function' ? onProgress : null, cleanup: null };
      if (signal) {
        const onAbort = () => {
          if (this._pending.get(id) !== entry) return;
          this._pending.delete(id);
          entry.cleanup?.();
          if (!this._closed) {
            this._session.cancelRequest(id, reasonText(signal.reason));
            this._kick();
          }
          reject(abortError(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this._pending.set(id, entry);
      this._kick();
    });
  }

  /**
   * Sends any request; resolves with its result as on the wire. Options: `timeout` (ms),
   * `signal` (AbortSignal), `onProgress({progress, total, message})`, `resetTimeoutOnProgress`.
   */
  async request(method, params, options) {
    return this._request(method, params, options);
  }

  /** Sends any notification. */
  async notify(method, params) {
    this._checkOpen();
    this._session.notify(method, params == null ? undefined : JSON.stringify(params));
    this._kick();
  }

  /** Checks the server answers. */
  async ping(options) {
    return this._request('ping', undefined, options);
  }

  async _list(method, key, params, options) {
    params = params ?? {};
    if (params.cursor != null) return this._request(method, params, options);
    const items = [];
    const seen = new Set();
    let request = Object.keys(params).length ? { ...params } : undefined;
    for (;;) {
      const result = (await this._request(method, request, options)) ?? {};
      const got = result[key];
      if (Array.isArray(got)) for (const item of got) items.push(item);
      const next = result.nextCursor;
      if (next === undefined || next === null || next === '') {
        const out = { ...result, [key]: items };
        delete out.nextCursor;
        return out;
      }
      if (seen.has(next)) throw new InternalError(`the server repeated the cursor ${JSON.stringify(next)} of ${method}`);
      seen.add(next);
      request = { ...request, cursor: next };
    }
  }

  /** `{tools}`: every page, or with `{cursor}` that page (`{tools, nextCursor}`). */
  async listTools(params, options) {
    return this._list('tools/list', 'tools', params, options);
  }

  /**
   * Calls a tool; resolves with the result as on the wire (`content`, `structuredContent`,
   * `isError`). A tool that failed resolves with `isError: true`. Options: `timeout` (ms),
   * `signal`, `onProgress({progress, total, message})`, `resetTimeoutOnProgress`, `meta`.
   */
  async callTool(name, args = {}, options = {}) {
    options = options ?? {};
    const params = { name, arguments: args ?? {} };
    if (options.meta != null) params._meta = options.meta;
    return this._request('tools/call', params, options);
  }

  /** `{resources}`: every page, or with `{cursor}` that page. */
  async listResources(params, options) {
    return this._list('resources/list', 'resources', params, options);
  }

  /** `{resourceTemplates}`: every page, or with `{cursor}` that page. */
  async listResourceTemplates(params, options) {
    return this._list('resources/templates/list', 'resourceTemplates', params, options);
  }

  /** Reads a resource: `{contents}`. */
  async readResource(uri, options) {
    return this._request('resources/read', { uri: String(uri) }, options);
  }

  /** Asks for `notifications/resources/updated` about `uri` (to `onNotification`). */
  async subscribeResource(uri, options) {
    return this._request('resources/subscribe', { uri: String(uri) }, options);
  }

  /** Stops the updates about `uri`. */
  async unsubscribeResource(uri, options) {
    return this._request('resources/unsubscribe', { uri: String(uri) }, options);
  }

  /** `{prompts}`: every page, or with `{cursor}` that page. */
  async listPrompts(params, options) {
    return this._list('prompts/list', 'prompts', params, options);
  }

  /**
   * Gets a prompt: `{description, messages}`. Argument values that are not strings are sent as
   * JSON text (prompt arguments are strings on the wire).
   */
  async getPrompt(name, args, options) {
    const params = { name };
    if (args != null) {
      params.arguments = {};
      for (const [k, v] of Object.entries(args)) params.arguments[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    return this._request('prompts/get', params, options);
  }

  /**
   * Completion suggestions for an argument of a prompt or resource template (`ref`:
   * `promptRef(name)` / `resourceRef(uri)`); read `result.completion.values`.
   */
  async complete(ref, argumentName, value, contextArguments, options) {
    const params = { ref, argument: { name: argumentName, value: String(value ?? '') } };
    if (contextArguments != null && Object.keys(contextArguments).length) params.context = { arguments: contextArguments };
    return this._request('completion/complete', params, options);
  }

  /** Sets the least severe level of the log messages the server sends. */
  async setLoggingLevel(level, options) {
    return this._request('logging/setLevel', { level }, options);
  }

  /** Tells the server the roots changed (it will ask for them again). */
  async sendRootsListChanged() {
    return this.notify('notifications/roots/list_changed');
  }

  /** Replaces the roots (array or function) and tells the server; needs the `roots` option. */
  async setRoots(roots) {
    if (this._roots === null) throw argError('this client did not declare roots: pass the roots option when creating it');
    if (roots == null) throw argError('roots must be an array or a function');
    this._roots = roots;
    await this.sendRootsListChanged();
  }

  // ---- state ------------------------------------------------------------------------------

  /** The server's `serverInfo` (`name`, `version`, ...); undefined before the handshake. */
  get serverInfo() {
    return this._server?.serverInfo;
  }

  /** The capabilities the server declared; undefined before the handshake. */
  get serverCapabilities() {
    return this._server?.capabilities;
  }

  /** The server's instructions, if it gave any. */
  get instructions() {
    return this._server?.instructions;
  }

  /** The negotiated protocol revision; undefined before the handshake. */
  get protocolVersion() {
    return this._session.protocolVersion ?? undefined;
  }

  /** `uninitialized`, `initializing`, `operating` or `closed`. */
  get state() {
    return this._session.state;
  }

  /** Whether the session ended (closed by either side). */
  get closed() {
    return this._closed;
  }

  /** Requests awaiting answers. */
  get pendingRequests() {
    return this._session.pendingRequests;
  }

  /** The last 64 KiB the server process wrote to stderr (stdio only). */
  get serverStderr() {
    return this._transport.stderr ?? '';
  }

  /** The transport (for a stdio client, `transport.pid` is the server process id). */
  get transport() {
    return this._transport;
  }
}

/** A server subprocess: JSON-RPC over its stdin/stdout, stderr captured. */
class StdioTransport {
  /** Options: `env` (added to process.env), `cwd`, `onStderr(line)`. */
  constructor(command, args = [], options = {}) {
    this.command = String(command);
    this.args = Array.from(args, String);
    this._env = options.env == null ? undefined : { ...process.env, ...options.env };
    this._cwd = options.cwd;
    this._onStderr = typeof options.onStderr === 'function' ? options.onStderr : null;
    this._onError = typeof options.onError === 'function' ? options.onError : null;
    /** The ChildProcess (null before start). */
    this.process = null;
    this._tail = Buffer.alloc(0);
    this._partial = Buffer.alloc(0);
    this._exited = false;
    this._exit = null;
    this._stderrDone = null;
    this._closing = null;
  }

  /** The server's process id (undefined before start). */
  get pid() {
    return this.process?.pid;
  }

  /** Its exit code once it exited (null otherwise). */
  get exitCode() {
    return this.process?.exitCode ?? null;
  }

  /** The signal that ended it, once it exited (null otherwise). */
  get signalCode() {
    return this.process?.signalCode ?? null;
  }

  /** The last 64 KiB the server wrote to stderr. */
  get stderr() {
    return this._tail.toString('utf8');
  }

  start(client) {
    return new Promise((resolve, reject) => {
      let child;
      try {
        // Loaded here, not at import: node:child_process costs every process ~2 MB of RSS,
        // servers included, and only a stdio client spawns.
        child = require('node:child_process').spawn(this.command, this.args, {
          stdio: ['pipe', 'pipe', 'pipe'],
          env: this._env,
          cwd: this._cwd,
          // Its own process group, so closing also stops what it spawned (npx -> node).
          detached: GROUP,
          windowsHide: true,
        });
      } catch (err) {
        reject(this._spawnError(err));
        return;
      }
      this.process = child;
      let started = false;
      this._exit = new Promise((done) => {
        child.once('exit', () => {
          this._exited = true;
          done();
        });
        child.once('error', (err) => {
          if (!started) {
            this._exited = true; // never ran
            done();
            reject(this._spawnError(err));
          }
        });
      });
      child.on('error', () => {}); // later errors (a failed kill) are not fatal
      child.stdin.on('error', () => {}); // EPIPE when it died: reported through stdout's end
      this._stderrDone = new Promise((done) => {
        child.stderr.on('data', (chunk) => this._stderrChunk(chunk));
        child.stderr.once('end', done);
        child.stderr.once('close', done);
        child.stderr.once('error', done);
      }).then(() => this._stderrEnd());
      child.once('spawn', () => {
        started = true;
        let ended = false;
        const onEnd = async () => {
          if (ended) return;
          ended = true;
          // Give its stderr and exit status a moment to arrive so errors can name them.
          await Promise.race([this._stderrDone, delay(500)]);
          await Promise.race([this._exit, delay(500)]);
          client._eof();
        };
        child.stdout.on('data', (chunk) => client._feed(chunk));
        child.stdout.once('end', onEnd);
        child.stdout.once('close', onEnd);
        child.stdout.once('error', onEnd);
        resolve();
      });
    });
  }

  _spawnError(err) {
    const out = new ConnectionClosed(`cannot start the server ${JSON.stringify(this.command)}: ${err.message}`);
    out.cause = err;
    return out;
  }

  _stderrChunk(chunk) {
    this._tail = this._tail.length ? Buffer.concat([this._tail, chunk]) : chunk;
    if (this._tail.length > STDERR_KEEP) this._tail = this._tail.subarray(this._tail.length - STDERR_KEEP);
    if (!this._onStderr) return;
    let buf = this._partial.length ? Buffer.concat([this._partial, chunk]) : chunk;
    let nl;
    while ((nl = buf.indexOf(10)) >= 0) {
      this._emitLine(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > STDERR_KEEP) {
      this._emitLine(buf);
      buf = Buffer.alloc(0);
    }
    this._partial = Buffer.from(buf);
  }

  _stderrEnd() {
    if (this._onStderr && this._partial.length) this._emitLine(this._partial);
    this._partial = Buffer.alloc(0);
  }

  _emitLine(bytes) {
    let line = bytes.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    try {
      const out = this._onStderr(line);
      if (out && typeof out.then === 'function') out.then(undefined, (err) => this._report(err));
    } catch (err) {
      this._report(err);
    }
  }

  _report(err) {
    if (this._onError) {
      try {
        this._onError(err);
        return;
      } catch {
        // fall through
      }
    }
    process.emitWarning(err instanceof Error ? err : new Error(String(err)), { code: 'HYPERMCP_CLIENT_CALLBACK' });
  }

  write(buf) {
    const stdin = this.process?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(buf);
  }

  _signal(sig) {
    const child = this.process;
    // Reaped: the pid (and group id) may belong to someone else now.
    if (!child || this._exited || child.exitCode !== null || child.signalCode !== null) return;
    try {
      if (GROUP) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    }
  }

  async _exitedWithin(ms) {
    if (this._exited) return true;
    await Promise.race([this._exit, delay(ms)]);
    return this._exited;
  }

  /** Ends its stdin, waits up to 2 s, SIGTERM, 2 s more, SIGKILL; resolves once it is reaped. */
  close() {
    if (this._closing === null) this._closing = this._close();
    return this._closing;
  }

  async _close() {
    const child = this.process;
    if (!child) return;
    try {
      child.stdin.end();
    } catch {
      // already closed
    }
    if (!(await this._exitedWithin(2000))) {
      this._signal('SIGTERM');
      if (!(await this._exitedWithin(2000))) {
        this._signal('SIGKILL');
        await this._exit;
      }
    }
    // Read what is left of its stderr, then let go of the pipes (a grandchild may hold them).
    await Promise.race([this._stderrDone, delay(200)]);
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
  }

  /** Why the server's side ended: its exit status and the end of its stderr. */
  failureDetail() {
    const parts = [];
    const child = this.process;
    if (child && child.signalCode) parts.push(`the server process was killed by ${child.signalCode}`);
    else if (child && child.exitCode !== null) parts.push(`the server process exited with code ${child.exitCode}`);
    let tail = this.stderr.trim();
    if (tail) {
      if (tail.length > STDERR_IN_MESSAGE) tail = '...' + tail.slice(-STDERR_IN_MESSAGE);
      parts.push(`its stderr ended with:\n${tail}`);
    }
    return parts.join('; ');
  }
}


/**
 * An MCP server over HTTP: the engine's Streamable HTTP (or HTTP+SSE) client runs on its I/O
 * thread as a byte stream; arriving bytes wake the loop once per batch.
 */
class HttpTransport {
  /**
   * Options: `headers`, `transport` ('auto' | 'http' | 'sse'), `connectTimeout` (ms),
   * `openGetStream` (default true: the standalone GET stream for messages unrelated to a call).
   */
  constructor(url, options = {}) {
    this.url = String(url);
    // The transport's options (the rest are the client's, when Client.http passes them all);
    // the engine checks them now (an OptionError, a TypeError) and connects on start().
    const { headers, transport, connectTimeout, openGetStream, legacyFallback, maxMessage } = options ?? {};
    const wire = { transport, connectTimeout, openGetStream, legacyFallback, maxMessage };
    if (isObject(headers)) wire.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
    else if (headers != null) wire.headers = headers;
    this._native = new nativeModule.HttpClientStream(this.url, JSON.stringify(wire), () => this._wake());
    this._client = null;
    this._opened = null;
    this._error = null;
    this._ended = false;
    this._done = null;
    this._endedPromise = new Promise((resolve) => (this._done = resolve));
  }

  /**
   * Connects (the TCP connection, and with `transport: 'sse'` the event stream and its
   * `endpoint` event); rejects with ConnectionClosed naming the URL and the cause on failure.
   */
  start(client) {
    this._client = client;
    return new Promise((resolve, reject) => {
      this._opened = { resolve, reject };
      this._native.start();
    });
  }

  /** What the I/O thread received since the last wake-up. */
  _wake() {
    const { connected, data, ended, error } = this._native.take();
    const opening = this._opened;
    if (opening !== null) {
      if (connected) {
        this._opened = null;
        opening.resolve();
      } else if (ended) {
        // Never connected: start() rejects; the client is not told of an end.
        this._opened = null;
        this._ended = true;
        this._error = error ?? null;
        this._done();
        opening.reject(new ConnectionClosed(error ?? `cannot connect to ${this.url}`));
        return;
      }
    }
    if (data.length) this._client._feed(data);
    if (ended && !this._ended) {
      this._ended = true;
      this._error = error ?? null;
      this._done();
      this._client._eof();
    }
  }

  write(buf) {
    if (!this._ended) this._native.write(Buffer.isBuffer(buf) ? buf : Buffer.from(buf));
  }

  /** Ends the session (DELETE) and waits (5 s at most) for the transport to finish. */
  close() {
    if (this._client === null) return undefined;
    this._native.close();
    return Promise.race([this._endedPromise, delay(5000)]);
  }

  failureDetail() {
    return this._error ?? '';
  }
}

module.exports = { Client, StdioTransport, HttpTransport, promptRef, resourceRef };
