// @ts-check
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
// This file holds the public API: `Client` (construction, the lifecycle, the request methods,
// the session's state) and `promptRef` / `resourceRef`. The session driver is `Client`'s base
// class, `ClientDriver` in client-driver.cjs.
//
// Transports
// ----------
// The client talks to the server through a transport, a small interface any connection
// implements (`StdioTransport`, a subprocess, is in stdio-client.cjs and `HttpTransport` in
// http-client.cjs, each beside its server twin; `MemoryTransport` in memory.cjs connects to a
// `Server` object in the same process):
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

const nativeModule = require('./native.cjs');
const { InternalError, SkillVerificationError } = require('./errors.cjs');
const { ClientDriver, argError, timeoutMs } = require('./client-driver.cjs');
const { StdioTransport } = require('./stdio-client.cjs');
const { HttpTransport } = require('./http-client.cjs');

/**
 * @typedef {import('./types/client').ClientOptions} ClientOptions
 * @typedef {import('./types/client').ClientTransport} ClientTransport
 * @typedef {import('./types/client').RequestOptions} RequestOptions
 * @typedef {import('./types/client').ListParams} ListParams
 * @typedef {import('./types/protocol').EmptyResult} EmptyResult
 * @typedef {import('./types/protocol').PromptReference} PromptReference
 * @typedef {import('./types/protocol').ResourceTemplateReference} ResourceTemplateReference
 * @typedef {import('./types/client').StdioClientOptions} StdioClientOptions
 * @typedef {import('./server.cjs').Server<any>} Server
 */

/**
 * A completion reference to a prompt (for `client.complete`).
 * @template {string} N
 * @param {N} name
 * @returns {PromptReference & {name: N}}
 */
function promptRef(name) {
  return { type: 'ref/prompt', name };
}

/**
 * A completion reference to a resource template (for `client.complete`).
 * @template {string} U
 * @param {U} uri
 * @returns {ResourceTemplateReference & {uri: U}}
 */
function resourceRef(uri) {
  return { type: 'ref/resource', uri };
}

// The method `await using` calls (Symbol.for('Symbol.asyncDispose') where Node has no
// Symbol.asyncDispose), typed as Symbol.asyncDispose (the type a class member's name takes).
/** @type {typeof Symbol.asyncDispose} */
const asyncDispose = /** @type {any} */ (Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose'));
const { EventEmitter } = require('node:events');


/**
 * An open `subscriptions/listen` stream (`client.listen()`): an EventEmitter
 * (`'notification'` with `(method, params)`, `'end'` once) and an async iterator of
 * `{ method, params }`. `close()` ends it (the server is told).
 */
class Subscription extends EventEmitter {
  /**
   * @param {Client} client
   * @param {number} id
   */
  constructor(client, id) {
    super();
    this._client = client;
    /** The stream's id: its notifications carry it in `_meta`. */
    this.id = id;
    /** @type {{ method: string, params: any }[]} */
    this._queue = [];
    /** @type {((v: IteratorResult<{ method: string, params: any }>) => void)[]} */
    this._waiting = [];
    this.ended = false;
  }

  /** @param {string} method @param {any} params */
  _push(method, params) {
    const item = { method, params };
    const next = this._waiting.shift();
    if (next) next({ value: item, done: false });
    else if (this.listenerCount('notification') === 0) {
      if (this._queue.length >= Subscription.backlog) {
        // Never buffered without limit: a stream nobody reads is closed.
        process.emitWarning(`listen stream ${this.id}: ${Subscription.backlog} notifications unread; closing it`);
        this.close();
        return;
      }
      this._queue.push(item);
    }
    this.emit('notification', method, params);
  }

  _end() {
    if (this.ended) return;
    this.ended = true;
    this._client._listeners.delete(this.id);
    for (const w of this._waiting.splice(0)) w({ value: undefined, done: /** @type {const} */ (true) });
    this.emit('end');
  }

  /** Closes the stream (the server is told); iteration ends. Idempotent. */
  close() {
    if (this.ended) return;
    const client = this._client;
    if (!client._closed) {
      client._session.cancelRequest(this.id, 'the subscription was closed');
      client._pump();
    }
    this._end();
  }

  /** @returns {AsyncIterator<{ method: string, params: any }>} */
  /** Notifications a stream holds unread (no 'notification' listener) before it is closed. */
  static backlog = 10_000;

  [Symbol.asyncIterator]() {
    /** @type {IteratorReturnResult<any>} */
    const done = { value: undefined, done: true };
    return {
      next: () => {
        const item = this._queue.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.ended) return Promise.resolve(done);
        return new Promise((resolve) => this._waiting.push(resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve(done);
      },
    };
  }
}

/** An MCP client session over one connection (see the top of this file). */
class Client extends ClientDriver {
  /**
   * A client over `transport`, not yet connected: prefer `Client.connect` / `Client.stdio`.
   * Options: `name`, `version` of this client; `mode` (`"auto"`, the default: 2026-07-28 when
   * the server speaks it, else `initialize`; `"modern"`; `"legacy"`); `protocolVersion`, the
   * legacy revision `initialize` asks for; `timeout` (ms) for
   * every request (default 60000; null or Infinity: none); `onSampling(params, {signal})`,
   * `onElicitation(params, {signal})` (form mode; `elicitationUrl: true` also declares URL
   * mode), `roots` (an array, or a function returning one) answer the server's requests;
   * `onLog(params)` receives log messages, `onNotification(method, params)` every other server
   * notification; `onError(err)` failures of these callbacks; `capabilities` are merged into
   * the declared ones.
   *
   * Surviving the server: `reconnect: true` (or `{initialDelay: 500, maxDelay: 30000 (ms),
   * multiplier: 2, jitter: 0.5, maxAttempts: 10 (0: forever), wait: true}`) brings the client
   * back when its server goes away after the handshake: a stdio server is spawned again, an
   * HTTP client opens a new session (after a restart, or a 404 for an expired session). Calls
   * in flight reject with ConnectionClosed saying the server went away; calls made while
   * reconnecting wait for the new session within their timeout (`wait: false`: they reject at
   * once); once the tries are spent the client closes. Listen streams end: re-open them on
   * `reconnected`. `onConnection(event, info)` is told of each step: `disconnected`
   * ({reason}), `reconnecting` ({attempt, delay, reason}), `reconnected` ({attempt}), `failed`
   * ({reason, attempts}). `pingInterval` (ms; legacy sessions) sends a `ping` that long after
   * the last was answered: one unanswered for as long again takes the server for gone (a
   * frozen process, a silently dead network path), ending the connection or reconnecting.
   * @param {any} transport a ClientTransport, or a hypermcp Server (checked below)
   * @param {ClientOptions} [options]
   */
  constructor(transport, options = {}) {
    if (transport && typeof transport.start !== 'function' && typeof transport._enter === 'function') {
      const { MemoryTransport } = require('./memory.cjs');
      transport = new MemoryTransport(transport);
    }
    if (!transport || ['start', 'write', 'close'].some((m) => typeof transport[m] !== 'function')) {
      /** @type {TypeError & {code?: string}} */
      const err = new TypeError('a transport has start(client), write(buf) and close() (or pass a Server)');
      err.code = 'ERR_INVALID_ARG_TYPE';
      throw err;
    }
    options = options ?? {};
    for (const name of /** @type {const} */ (['onSampling', 'onElicitation', 'onLog', 'onNotification', 'onError'])) {
      if (options[name] != null && typeof options[name] !== 'function') {
        throw argError(`options.${name} must be a function`);
      }
    }
    if (options.elicitationUrl && !options.onElicitation) {
      throw argError('elicitationUrl: true needs an onElicitation handler');
    }
    // What this client answers and names; the engine makes its capabilities of them.
    const features = {
      sampling: options.onSampling != null,
      elicitation: options.onElicitation != null,
      elicitationUrl: Boolean(options.elicitationUrl),
      roots: options.roots != null,
      tasks: Boolean(options.tasks),
      apps: Boolean(options.apps),
      extensions: options.extensions ?? {},
      capabilities: options.capabilities ?? {},
    };
    const timeout = options.timeout === undefined ? 60_000 : options.timeout;
    const sessionTimeout = timeout === null || timeout === Infinity ? undefined : timeoutMs(timeout, 'options.timeout');
    if (options.onConnection != null && typeof options.onConnection !== 'function') {
      throw argError('options.onConnection must be a function');
    }
    const pingInterval = options.pingInterval == null ? undefined : options.pingInterval;
    if (pingInterval !== undefined && (typeof pingInterval !== 'number' || !(pingInterval > 0))) {
      throw argError(`options.pingInterval must be a positive number of milliseconds (got ${String(pingInterval)})`);
    }
    const newSession = () =>
      new nativeModule.ClientSession(
        String(options.name ?? 'hypermcp-client'),
        String(options.version ?? nativeModule.version()),
        JSON.stringify(features),
        options.protocolVersion ?? undefined,
        sessionTimeout,
        options.mode ?? undefined,
        // A 2026-07-28 server logs only for requests naming a level; a legacy one logs unasked:
        // a client with an onLog handler asks for every level.
        options.onLog ? 'debug' : undefined,
        pingInterval,
        // Over HTTP the server/discover probe waits as long as any request (an HTTP server
        // answers it at once, legacy or not; behind OAuth it holds the authorization, a
        // user's login included), not the 10 s that tell a silent stdio server is legacy.
        transport instanceof HttpTransport,
      );
    const reconnect =
      options.reconnect == null || options.reconnect === false
        ? null
        : new nativeModule.ReconnectPolicy(JSON.stringify(options.reconnect));
    super(transport, newSession(), options, newSession, reconnect);
  }

  /**
   * Spawns `command args` and connects to it over its stdin/stdout. Extra options: `env`
   * (added to process.env), `cwd`, `onStderr(line)`. The server's stderr is captured (the last
   * 64 KiB in `client.serverStderr`, quoted in ConnectionClosed errors when it dies). `close()`
   * ends its stdin, waits 2 s, sends SIGTERM, waits 2 s, sends SIGKILL; it is always reaped.
   * @param {string} command
   * @param {readonly string[] | StdioClientOptions} [args] (or the options)
   * @param {StdioClientOptions} [options]
   */
  static async stdio(command, args = [], options = {}) {
    if (!Array.isArray(args)) {
      options = /** @type {StdioClientOptions} not an array */ (args ?? {});
      args = [];
    }
    options = options ?? {};
    const transport = new StdioTransport(command, args, options);
    return Client.connect(transport, options);
  }

  /**
   * Connects to a server over HTTP at `url` (`http://host:port/mcp` or `https://...`). Extra options:
   * `headers` (sent with every request, e.g. `{ Authorization: 'Bearer ...' }`), `transport`
   * (`'auto'`: Streamable HTTP, falling back to the legacy HTTP+SSE transport when the server
   * refuses the `initialize` POST with 400, 404 or 405; `'http'`: Streamable HTTP only;
   * `'sse'`: `url` is a legacy SSE endpoint), `connectTimeout` (ms, 10 s), `openGetStream`
   * (default true), `caFile` (PEM CA certificates trusted for `https://` URLs besides the
   * system's store, which honours `SSL_CERT_FILE`), `auth` (OAuth 2.1: on 401, or 403 with
   * `insufficient_scope`, the engine discovers the authorization server, registers, has the
   * user authorize, gets a token and sends the request again; a request that cannot be
   * authorized rejects with Unauthorized). Broken SSE streams resume with `Last-Event-ID` after the server's `retry`;
   * `close()` ends the session with DELETE. A server that cannot be reached rejects with
   * ConnectionClosed naming the URL; once nothing listens at its address any more, pending and
   * later calls reject with ConnectionClosed too. While the session is open it keeps Node alive.
   * @param {string} url
   * @param {import('./types/client').HttpClientOptions} [options]
   */
  static async http(url, options = {}) {
    options = options ?? {};
    return Client.connect(new HttpTransport(url, options), options);
  }

  /**
   * Connects over `transport` (or to a hypermcp `Server` in memory) and performs the handshake.
   * @param {ClientTransport | Server} transport
   * @param {ClientOptions} [options]
   */
  static async connect(transport, options = {}) {
    const client = new Client(transport, options);
    await client._connect();
    return client;
  }

  /**
   * A client of `server` (a hypermcp `Server`) in the same process.
   * @param {Server} server
   * @param {ClientOptions} [options]
   */
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
      await this._handshake();
    } catch (err) {
      await this.close();
      throw err;
    }
    return this;
  }

  /**
   * Closes the session (pending calls reject with ConnectionClosed, handlers of server requests
   * are aborted) and the transport; resolves once it is shut down. Idempotent. With `grace`
   * (ms), the calls in flight get up to that long to be answered first (new calls are refused
   * meanwhile). A reconnection under way stops.
   * @param {{grace?: number}} [options]
   */
  async close(options = {}) {
    const grace = options?.grace ?? 0;
    if (typeof grace !== 'number' || Number.isNaN(grace) || grace < 0) {
      throw argError(`grace must be a number of milliseconds >= 0 (got ${String(grace)})`);
    }
    if (grace > 0 && !this._closed && this._started && this._pending.size > 0) {
      this._closing = true;
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const settled = new Promise((resolve) => {
        const check = () => {
          if (this._pending.size === 0 || this._closed) resolve(undefined);
          else setTimeout(check, 10).unref();
        };
        check();
      });
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, grace)))]);
      clearTimeout(timer);
    }
    this._end('the client closed the connection');
    await this._shutdown;
  }

  /**
   * Whether the server declared `feature`: a capability (`'tools'`, `'logging'`,
   * `'completions'`), one of its flags by a dotted path (`'resources.subscribe'`,
   * `'tools.listChanged'`), or an extension by its id (`'io.modelcontextprotocol/ui'`;
   * `'io.modelcontextprotocol/tasks'` also for a 2025-11-25 server declaring `tasks`). False
   * before the handshake.
   * @param {string} feature
   */
  supports(feature) {
    return this._session.supports(String(feature));
  }

  /** Whether the client is reconnecting to a server that went away (`reconnect`). */
  get reconnecting() {
    return this._reconnecting !== null;
  }

  async [asyncDispose]() {
    await this.close();
  }

  // ---- requests ---------------------------------------------------------------------------

  /**
   * Sends any request; resolves with its result as on the wire. Options: `timeout` (ms),
   * `signal` (AbortSignal), `onProgress({progress, total, message})`, `resetTimeoutOnProgress`.
   * @template [T=unknown] the result's type (not checked: the result is as on the wire)
   * @param {string} method
   * @param {object} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<T>}
   */
  async request(method, params, options) {
    return this._request(method, params, options);
  }

  /**
   * Sends any notification.
   * @param {string} method
   * @param {object} [params]
   */
  async notify(method, params) {
    this._checkOpen();
    this._session.notify(method, params == null ? undefined : JSON.stringify(params));
    this._kick();
  }

  /**
   * Checks the server answers.
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyResult>}
   */
  async ping(options) {
    return this._request('ping', undefined, options);
  }

  /**
   * @param {string} method
   * @param {string} key the field of the result listing the items
   * @param {ListParams | undefined} params
   * @param {RequestOptions | undefined} options
   * @returns {Promise<any>} the result (every page's items merged when `params` has no cursor)
   */
  async _list(method, key, params, options) {
    params = params ?? {};
    if (params.cursor != null) return this._request(method, params, options);
    /** @type {unknown[]} */
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

  /**
   * `{tools}`: every page, or with `{cursor}` that page (`{tools, nextCursor}`).
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ListToolsResult>}
   */
  async listTools(params, options) {
    return this._list('tools/list', 'tools', params, options);
  }

  /**
   * Calls a tool; resolves with the result as on the wire (`content`, `structuredContent`,
   * `isError`). A tool that failed resolves with `isError: true`. Options: `timeout` (ms),
   * `signal`, `onProgress({progress, total, message})`, `resetTimeoutOnProgress`, `meta`.
   * @template [S={[key: string]: unknown}] the type of `structuredContent` (not checked)
   * @param {string} name
   * @param {object} [args]
   * @param {import('./types/client').CallToolOptions} [options]
   * @returns {Promise<import('./types/protocol').CallToolResult<S>>}
   */
  async callTool(name, args = {}, options = {}) {
    options = options ?? {};
    /** @type {{name: string, arguments: object, _meta?: import('./types/protocol').Meta}} */
    const params = { name, arguments: args ?? {} };
    if (options.meta != null) params._meta = options.meta;
    // A server running the call as a task (tasks extension): its result, when it ends.
    return this._request('tools/call', params, { ...options, followTask: true });
  }

  /**
   * `{resources}`: every page, or with `{cursor}` that page.
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ListResourcesResult>}
   */
  async listResources(params, options) {
    return this._list('resources/list', 'resources', params, options);
  }

  /**
   * `{resourceTemplates}`: every page, or with `{cursor}` that page.
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ListResourceTemplatesResult>}
   */
  async listResourceTemplates(params, options) {
    return this._list('resources/templates/list', 'resourceTemplates', params, options);
  }

  /**
   * Reads a resource: `{contents}`.
   * @param {string | URL} uri
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ReadResourceResult>}
   */
  async readResource(uri, options) {
    return this._request('resources/read', { uri: String(uri) }, options);
  }

  /**
   * Calls a tool and resolves at once with what the server answered: its result, or (when
   * this client declares `io.modelcontextprotocol/tasks`) a TaskHandle of the task running
   * it, to wait for, poll or cancel later, from this client or another.
   * @param {string} name
   * @param {object} [args]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').CallToolResult | TaskHandle>}
   */
  async callToolTask(name, args = {}, options = {}) {
    const result = await this._request('tools/call', { name, arguments: args ?? {} }, options);
    // The task: 2026-07-28 answers it in place, 2025-11-25 as `{task}`.
    if (result?.resultType === 'task') return this.task(result.taskId);
    if (typeof result?.task?.taskId === 'string') return this.task(result.task.taskId);
    return result;
  }

  /**
   * The task `taskId` (tasks extension): one this client started, or another did.
   * @param {string} taskId
   * @returns {TaskHandle}
   */
  task(taskId) {
    return new TaskHandle(this, String(taskId));
  }

  /**
   * Reads the view of an MCP App (`ui://...`): `{uri, mimeType, html, meta, cspHeader, allow}`:
   * its HTML, its `_meta.ui` (`csp`, `permissions`, `domain`, `prefersBorder`), the
   * Content-Security-Policy to render it with and the iframe `allow` list. Throws for a URI
   * that is not `ui://` or contents that are not `text/html;profile=mcp-app`. (Declare
   * `apps: true` so servers know you render apps.)
   * @param {string} uri
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/client').AppView>}
   */
  async readApp(uri, options) {
    if (!String(uri).startsWith('ui://')) throw new TypeError(`${uri} is not an app: app resources are ui:// URIs`);
    const result = await this._request('resources/read', { uri: String(uri) }, options);
    return JSON.parse(nativeModule.readApp(String(uri), JSON.stringify(result)));
  }

  /**
   * The server's skills (`io.modelcontextprotocol/skills`): `{skills}` (every page, or with
   * `{cursor}` that page), each entry `{uri, frontmatter, resources}` naming every file with
   * its digest and size. Nothing is fetched: `loadSkill()` reads a skill when it is needed.
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ListSkillsResult>}
   */
  async listSkills(params, options) {
    return this._list('skills/list', 'skills', params, options);
  }

  /**
   * The entry of the skill whose SKILL.md is `uri` (listed or not).
   * @param {string} uri
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').SkillEntry>}
   */
  async getSkill(uri, options) {
    const result = await this._request('skills/get', { uri: String(uri) }, options);
    return result.skill;
  }

  /**
   * The children of a directory resource (`resources/directory/read`, when the server
   * declares `directoryRead`): `{resources}`, files and subdirectories (`mimeType`
   * 'inode/directory'); every page, or with `{cursor}` that page.
   * @param {string} uri
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ReadDirectoryResult>}
   */
  async readDirectory(uri, params, options) {
    return this._list('resources/directory/read', 'resources', { ...(params ?? {}), uri: String(uri) }, options);
  }

  /**
   * Reads one file of a skill (by URI, or by path relative to the skill's directory) and
   * verifies it against the entry: throws a SkillVerificationError for a file the entry does
   * not list (before reading it), or whose size, digest or (SKILL.md) frontmatter differ.
   * @param {import('./types/protocol').SkillEntry} skill
   * @param {string} path
   * @param {RequestOptions} [options]
   * @returns {Promise<Buffer>}
   */
  async readSkillFile(skill, path, options) {
    const entry = JSON.stringify(skill);
    nativeModule.checkSkillEntry(entry);
    const uri = path.includes('://') ? path : `${skill.uri.replace(/\/SKILL\.md$/, '')}/${path}`;
    if (Array.isArray(skill.resources) && !skill.resources.some((f) => f.uri === uri)) {
      throw new SkillVerificationError(`${uri} is not one of the files of ${skill.uri}`, 'unlisted', uri);
    }
    const result = await this._request('resources/read', { uri }, options);
    return nativeModule.verifySkillRead(entry, uri, JSON.stringify(result));
  }

  /**
   * Loads a skill: reads its SKILL.md and verifies it against the entry (size, digest,
   * frontmatter). Its other files are read when needed, through `loaded.read(path)`, each
   * verified too.
   * @param {import('./types/protocol').SkillEntry} skill
   * @param {RequestOptions} [options]
   * @returns {Promise<LoadedSkill>}
   */
  async loadSkill(skill, options) {
    const data = await this.readSkillFile(skill, skill.uri, options);
    return new LoadedSkill(this, skill, data.toString('utf8'));
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) of the changes asked for:
   * `{ toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions: [uri] }`.
   * The first notification is `notifications/subscriptions/acknowledged` (`params.notifications`:
   * what the server agreed to). On a legacy session it throws MethodNotFound: change
   * notifications reach `onNotification` there (`subscribeResource` for resource updates).
   * @param {import('./types/client').ListenFilter} filter
   * @returns {Subscription}
   */
  listen(filter) {
    if (filter == null || typeof filter !== 'object') throw argError('listen(filter): filter must be an object');
    this._checkOpen();
    const id = this._session.listen(JSON.stringify(filter));
    const sub = new Subscription(this, id);
    this._listeners.set(id, sub);
    this._pump();
    return sub;
  }

  /**
   * Asks for `notifications/resources/updated` about `uri` (to `onNotification`).
   * @param {string | URL} uri
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyResult>}
   */
  async subscribeResource(uri, options) {
    return this._request('resources/subscribe', { uri: String(uri) }, options);
  }

  /**
   * Stops the updates about `uri`.
   * @param {string | URL} uri
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyResult>}
   */
  async unsubscribeResource(uri, options) {
    return this._request('resources/unsubscribe', { uri: String(uri) }, options);
  }

  /**
   * `{prompts}`: every page, or with `{cursor}` that page.
   * @param {ListParams} [params]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').ListPromptsResult>}
   */
  async listPrompts(params, options) {
    return this._list('prompts/list', 'prompts', params, options);
  }

  /**
   * Gets a prompt: `{description, messages}`. Argument values that are not strings are sent as
   * JSON text (prompt arguments are strings on the wire).
   * @param {string} name
   * @param {{[name: string]: unknown}} [args]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').GetPromptResult>}
   */
  async getPrompt(name, args, options) {
    /** @type {{name: string, arguments?: {[name: string]: string}}} */
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
   * @param {PromptReference | ResourceTemplateReference} ref
   * @param {string} argumentName
   * @param {string} value
   * @param {{[name: string]: string}} [contextArguments]
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').CompleteResult>}
   */
  async complete(ref, argumentName, value, contextArguments, options) {
    /** @type {import('./types/protocol').CompleteParams} */
    const params = { ref, argument: { name: argumentName, value: String(value ?? '') } };
    if (contextArguments != null && Object.keys(contextArguments).length) params.context = { arguments: contextArguments };
    return this._request('completion/complete', params, options);
  }

  /**
   * Sets the least severe level of the log messages the server sends.
   * @param {import('./types/protocol').LoggingLevel} level
   * @param {RequestOptions} [options]
   * @returns {Promise<EmptyResult>}
   */
  async setLoggingLevel(level, options) {
    return this._request('logging/setLevel', { level }, options);
  }

  /** Tells the server the roots changed (it will ask for them again). */
  async sendRootsListChanged() {
    return this.notify('notifications/roots/list_changed');
  }

  /**
   * Replaces the roots (array or function) and tells the server; needs the `roots` option.
   * @param {NonNullable<ClientOptions['roots']>} roots
   */
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

  /** Whether the session speaks 2026-07-28 (stateless, per-request metadata). */
  get modern() {
    return this._session.modern;
  }

  /** The negotiated protocol revision; undefined before the handshake. */
  get protocolVersion() {
    return this._session.protocolVersion ?? undefined;
  }

  /**
   * `uninitialized`, `initializing`, `operating` or `closed`.
   * @returns {'uninitialized' | 'initializing' | 'operating' | 'closed'}
   */
  get state() {
    return /** @type {'uninitialized' | 'initializing' | 'operating' | 'closed'} the engine's */ (this._session.state);
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

/**
 * A task (tasks extension), by `id`: `status()` (tasks/get), `result()` (waits for its end,
 * serving its input requests through the client's handlers), `cancel()`.
 */
class TaskHandle {
  /**
   * @param {Client} client
   * @param {string} id
   */
  constructor(client, id) {
    this._client = client;
    this.id = id;
  }

  /**
   * The task as it is now: `status`, `statusMessage`, `inputRequests`, `result` or `error`...
   * @param {RequestOptions} [options]
   */
  async status(options) {
    return this._client._request('tasks/get', { taskId: this.id }, options);
  }

  /**
   * Waits for the task's end: its result. A failed task rejects with its error, a cancelled
   * one with an AbortError; `timeout` (ms) cancels the task when it passes.
   * @param {RequestOptions} [options]
   * @returns {Promise<import('./types/protocol').CallToolResult>}
   */
  async result(options) {
    return this._client._followTask(this.id, options);
  }

  /**
   * Asks the server to cancel the task (cooperatively: its handler is told).
   * @param {RequestOptions} [options]
   */
  async cancel(options) {
    await this._client._request('tasks/cancel', { taskId: this.id }, options);
  }
}

/**
 * A skill whose SKILL.md was read and verified (`client.loadSkill()`): `entry`, `uri`,
 * `name`, `description`, `text` (the SKILL.md), `files`; `read(path)` fetches and verifies
 * its other files.
 */
class LoadedSkill {
  /**
   * @param {Client} client
   * @param {import('./types/protocol').SkillEntry} entry
   * @param {string} text
   */
  constructor(client, entry, text) {
    this._client = client;
    this.entry = entry;
    this.text = text;
  }

  get uri() {
    return this.entry.uri;
  }

  get name() {
    return this.entry.frontmatter.name;
  }

  get description() {
    return this.entry.frontmatter.description;
  }

  /** The URIs of the skill's files (empty for a 'dynamic' skill). */
  get files() {
    return Array.isArray(this.entry.resources) ? this.entry.resources.map((f) => f.uri) : [];
  }

  /**
   * One of the skill's files, by URI or relative path, verified.
   * @param {string} path
   * @param {RequestOptions} [options]
   */
  async read(path, options) {
    return this._client.readSkillFile(this.entry, path, options);
  }

  /**
   * `read()` as UTF-8 text.
   * @param {string} path
   * @param {RequestOptions} [options]
   */
  async readText(path, options) {
    return (await this.read(path, options)).toString('utf8');
  }
}

module.exports = { Client, Subscription, StdioTransport, HttpTransport, LoadedSkill, TaskHandle, promptRef, resourceRef };
