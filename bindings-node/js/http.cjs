// @ts-check
'use strict';
// Serving a Server over HTTP (Streamable HTTP, and the legacy HTTP+SSE transport beside it).
//
// The engine's HTTP service runs on one native I/O thread (sessions, SSE streams, resumption,
// limits, DNS-rebinding checks). Calls reach this loop in batches: the I/O thread queues them
// and, only when its queue was empty, calls one thread-safe function; `_wake` then takes
// everything queued as one JSON text. An HTTP session gets a ServerConnection (whose native
// ServerSession completes straight into the engine, so handlers run exactly as over stdio) with
// its first call; an idle session costs the loop nothing.
//
//   await server.run({ transport: 'http', port: 8000 });            // until SIGINT/SIGTERM
//   const http = await server.startHttp({ port: 0 });               // in the background
//
// Inside an existing app, `server.httpHandler()` is a `(req, res, next?)` handler:
//
//   http.createServer(handler).listen(8000);                         // /mcp, /sse, /messages; 404 elsewhere
//   app.all('/mcp', handler);                                        // Express (after express.json() too)
//   app.use(handler);                                                // Express: also legacy SSE; next() elsewhere
//   fastify.all('/mcp', (req, reply) => {                            // Fastify parses JSON bodies into
//     reply.hijack();                                                // req.body before the route runs:
//     req.raw.body = req.body;                                       // hand it over with the raw request
//     handler(req.raw, reply.raw);
//   });

const { ServerConnection } = require('./connection.cjs');
const native = require('./native.cjs');
const E = require('./events.cjs');

/**
 * `value` and everything in it, frozen.
 * @template T
 * @param {T} value
 * @returns {T}
 */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * @typedef {import('./server.cjs').Server<any>} Server
 * @typedef {import('./types/server').HttpOptions} HttpOptions
 * @typedef {import('./events.cjs').NativeEvent} NativeEvent
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {import('node:http').IncomingMessage & {body?: unknown, originalUrl?: string, _body?: boolean}} Request
 *   a request, with what a body parser (`body`, `_body`) or Express (`originalUrl`) left on it
 * @typedef {{res: ServerResponse, sse: boolean, body: string | undefined, done: boolean}} ResponseState
 */

/**
 * Checks HTTP options: the engine parses them (an OptionError, a TypeError, names the first
 * it cannot take); undefined and null values mean the default.
 * @template {object} T
 * @param {T} options
 */
function httpOptions(options) {
  native.HttpServer.checkOptions(nativeOptions(options).json);
  return options;
}

/**
 * The options as the engine takes them (JSON), and the app's own token verifier if `auth`
 * has one (`auth.verify`: the engine is told only that there is one).
 * @param {any} options
 * @returns {{json: string, verify: ((token: string) => unknown) | null}}
 */
function nativeOptions(options) {
  const auth = options?.auth;
  if (auth && typeof auth === 'object' && auth.verify !== undefined && auth.verify !== null) {
    if (typeof auth.verify !== 'function') throw new TypeError(`HTTP option auth.verify: expected a function, got ${typeof auth.verify}`);
    return { json: JSON.stringify({ ...options, auth: { ...auth, verify: true } }), verify: auth.verify };
  }
  return { json: JSON.stringify(options), verify: null };
}

/**
 * Reports a failure inside the wake-up callback without losing the rest of the batch.
 * @param {unknown} err
 */
function report(err) {
  process.emitWarning(`hypermcp: HTTP dispatch failed: ${err instanceof Error ? err.stack || err.message : String(err)}`);
}

/** The native HTTP service of a server, bound to this thread's event loop. */
class HttpHost {
  /**
   * @param {Server} server
   * @param {HttpOptions} options
   */
  constructor(server, options) {
    this.server = server;
    /** @type {Map<number, ServerConnection>} session key -> connection */
    this._conns = new Map();
    /** @type {Map<number, ResponseState>} request id -> response state (handler mode) */
    this._responses = new Map();
    /** @type {Promise<void>} */
    this._stopped = new Promise((resolve) => {
      this._onStopped = resolve;
    });
    const { json, verify } = nativeOptions(options);
    /** The app's own token verifier (`auth.verify`), or null. */
    this._verify = verify;
    this.native = new server._native.HttpServer(server._nativeConfig(), server._registry, json, () => this._wake());
    if (server._taskRuntime) {
      server._taskConnection();
      this.native.setTasks(server._taskRuntime);
    }
    if (server._builtins) this.native.setMiddleware(server._builtins);
    server._httpHosts.add(new WeakRef(this));
    this.path = this.native.path;
    /**
     * The 2026-07-28 request contexts held for the native side, by slot: `poll`'s events name
     * one by its slot, or give it with its slot to keep (`[slot, context]`); a retry's context,
     * which holds the client's answers, comes inline and is not kept. Requests whose `_meta`
     * read the same share one, so it is parsed once; frozen, a handler cannot change another
     * client's.
     * @type {object[]}
     */
    this._contexts = [];
    /** @type {object[] | null} the origins of the poll being handled (`takeOrigins`) */
    this._origins = null;
  }

  /** Everything the I/O thread queued: one JSON text, one pass. */
  _wake() {
    let items;
    try {
      const text = this.native.poll();
      if (!text) return;
      items = JSON.parse(text);
    } catch (err) {
      report(err);
      return;
    }
    // The origins this poll's calls name by index, taken at the first that does.
    this._origins = null;
    for (const item of items) {
      try {
        switch (item[0]) {
          case 'e': this._events(item[1], item[2]); break;
          case 'c': {
            const conn = this._conns.get(item[1]);
            if (conn !== undefined) {
              this._conns.delete(item[1]);
              conn.close();
            }
            break;
          }
          case 'h': this._head(item[1], item[2], item[3]); break;
          case 'd': this._chunk(item[1], item[2]); break;
          case 'x': this._end(item[1]); break;
          case 's': this._onStopped(); break;
          case 'v': this._verifyToken(item[1], item[2]); break;
          default: break;
        }
      } catch (err) {
        report(err);
      }
    }
  }

  /**
   * The app's `auth.verify(token)`: the token's claims (an object) admit the request; null,
   * false, a throw or a rejection (its message goes to the client) refuses it.
   * @param {number} id
   * @param {string} token
   */
  async _verifyToken(id, token) {
    let claims;
    try {
      claims = await /** @type {(token: string) => unknown} */ (this._verify)(token);
    } catch (err) {
      this.native.answerVerify(id, null, (err instanceof Error ? err.message : String(err)) || 'the token was refused');
      return;
    }
    if (claims === null || claims === undefined || claims === false) this.native.answerVerify(id, null, 'the token was refused');
    else if (typeof claims !== 'object' || Array.isArray(claims)) this.native.answerVerify(id, null, `the server's verifier returned ${typeof claims}, not the token's claims (an object)`);
    else this.native.answerVerify(id, JSON.stringify(claims), null);
  }

  /**
   * @param {number} key
   * @param {NativeEvent[]} events
   */
  _events(key, events) {
    for (const ev of events) {
      if (!E.CALLS.has(ev[E.KIND])) continue;
      const c = ev[E.CONTEXT];
      if (typeof c === 'number') ev[E.CONTEXT] = this._contexts[c];
      else if (Array.isArray(c)) ev[E.CONTEXT] = this._contexts[c[0]] = deepFreeze(c[1]);
      // The HTTP request's origin, held natively: ctx reads it only if the handler asks.
      const o = ev[E.ORIGIN];
      if (typeof o === 'number') ev[E.ORIGIN] = (this._origins ??= this.native.takeOrigins())[o] ?? null;
    }
    let conn = this._conns.get(key);
    // A connection is made for the first call: most sessions only initialize, and a
    // connection per session would cost more than the engine's whole session.
    if (conn === undefined && events.some((ev) => E.CALLS.has(ev[E.KIND]))) {
      const session = this.native.session(key); // null once the session closed
      if (session) {
        // No bytes for Node to write: the engine writes to the session's HTTP streams.
        conn = new ServerConnection(this.server, session, null);
        this._conns.set(key, conn);
      }
    }
    if (conn !== undefined) conn.dispatch(events);
    else this._withoutConnection(events);
  }

  /**
   * The events of a session without a connection, as its connection would handle them:
   * client notifications reach the server's callbacks; "response", "cancelled" and
   * "progress" concern calls or requests of a connection, and there are none ("initialized"
   * never comes: the engine leaves it out).
   * @param {NativeEvent[]} events
   */
  _withoutConnection(events) {
    // Each callback runs on a microtask of its own (a failure is a warning): one failing
    // does not lose the others.
    for (const ev of events) {
      if (ev[E.KIND] === 'notification') this.server._onNotification(ev[E.NOTIFICATION_METHOD], ev[E.NOTIFICATION_PARAMS]);
    }
  }

  /** Stops listening; calls in progress finish (10 s at most); sessions close. */
  async stop() {
    if (this.native.stop()) await this._stopped;
    this.close();
  }

  /** Closes every connection and session. */
  close() {
    this.native.closeAll();
    for (const conn of this._conns.values()) conn.close();
    this._conns.clear();
    for (const [rid, r] of this._responses) {
      this._responses.delete(rid);
      this.native.cancel(rid);
      if (!r.res.writableEnded) r.res.end();
    }
  }

  // ---- requests served for node:http, Express, Fastify ---------------------------------------

  /**
   * Serves one request: `next` (Express) gets requests for paths the engine does not serve.
   * @param {import('node:http').IncomingMessage & {body?: unknown, originalUrl?: string, _body?: boolean}} req
   * @param {import('node:http').ServerResponse} res
   * @param {((err?: unknown) => void) | undefined} next
   * @param {Promise<void>} ready
   */
  serve(req, res, next, ready) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    // Mounted at the endpoint itself (`app.use('/mcp', handler)`): Express strips the prefix.
    if ((path === '/' || path === '') && typeof req.originalUrl === 'string' && req.originalUrl !== req.url) path = this.path;
    if (typeof next === 'function' && !this.native.serves(path)) {
      next();
      return;
    }
    const target = q < 0 ? path : path + url.slice(q);
    /** @type {string[]} */
    const headers = [];
    const raw = req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (raw[i].charCodeAt(0) !== 58 /* ':' (HTTP/2 pseudo-headers) */) headers.push(raw[i], raw[i + 1]);
    }
    const max = this.native.maxBody;
    Promise.all([ready, readBody(req, max)]).then(
      ([, body]) => this._start(req.method ?? 'GET', target, headers, body, res),
      (err) => {
        if (!res.headersSent && !res.destroyed) {
          res.statusCode = 500;
          res.setHeader('content-type', 'text/plain; charset=utf-8');
          res.end('Internal Server Error');
        }
        report(err);
      },
    );
  }

  /**
   * @param {string} method
   * @param {string} target
   * @param {string[]} headers
   * @param {Buffer} body
   * @param {ServerResponse} res
   */
  _start(method, target, headers, body, res) {
    if (res.destroyed) return;
    let rid;
    try {
      rid = this.native.handle(method, target, headers, body);
    } catch (err) {
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`Bad Request: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    /** @type {ResponseState} */
    const r = { res, sse: false, body: undefined, done: false };
    this._responses.set(rid, r);
    res.once('close', () => {
      // The client went away before the answer ended: stop serving it.
      if (!r.done) {
        r.done = true;
        this._responses.delete(rid);
        this.native.cancel(rid);
      }
    });
  }

  /**
   * @param {number} rid
   * @param {number} status
   * @param {string[]} flat `[name, value, ...]`
   */
  _head(rid, status, flat) {
    const r = this._responses.get(rid);
    if (r === undefined || r.res.headersSent) return;
    const { res } = r;
    res.statusCode = status;
    /** @type {Map<string, string | string[]>} */
    const grouped = new Map();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const prev = grouped.get(flat[i]);
      grouped.set(flat[i], prev === undefined ? flat[i + 1] : /** @type {string[]} */ ([]).concat(prev, flat[i + 1]));
    }
    for (const [k, v] of grouped) res.setHeader(k, v);
    const type = grouped.get('content-type');
    if (typeof type === 'string' && type.startsWith('text/event-stream')) {
      r.sse = true;
      res.flushHeaders();
    }
  }

  /**
   * @param {number} rid
   * @param {string} text
   */
  _chunk(rid, text) {
    const r = this._responses.get(rid);
    if (r === undefined) return;
    if (r.sse) r.res.write(text);
    else r.body = r.body === undefined ? text : r.body + text; // one body: sent with a Content-Length
  }

  /** @param {number} rid */
  _end(rid) {
    const r = this._responses.get(rid);
    if (r === undefined) return;
    this._responses.delete(rid);
    r.done = true;
    if (!r.res.writableEnded) r.res.end(r.body);
  }
}

/**
 * A request's body: what a body parser left in `req.body` (an object, a string or a
 * Buffer) once it consumed the stream, else the stream itself (at most `max` + 1 bytes: the
 * engine answers 413 above `max`).
 * @param {Request} req
 * @param {number} max
 * @returns {Promise<Buffer>}
 */
function readBody(req, max) {
  if (req.readableEnded || req._body === true) {
    const b = req.body;
    if (Buffer.isBuffer(b)) return Promise.resolve(b);
    if (b instanceof Uint8Array) return Promise.resolve(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    if (typeof b === 'string') return Promise.resolve(Buffer.from(b, 'utf8'));
    if (b !== undefined && b !== null && typeof b === 'object') return Promise.resolve(Buffer.from(JSON.stringify(b), 'utf8'));
    return Promise.resolve(Buffer.alloc(0));
  }
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    let settled = false;
    const onData = (/** @type {Buffer | string} */ chunk) => {
      const c = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      chunks.push(c);
      size += c.length;
      if (size > max) {
        // Enough to be refused: stop keeping the rest.
        settled = true;
        req.removeListener('data', onData);
        req.resume();
        resolve(Buffer.concat(chunks, size).subarray(0, max + 1));
      }
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!settled) {
        settled = true;
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
      }
    });
    req.once('error', (err) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
  });
}

/** A running HTTP server (from `server.startHttp()`). */
class HttpServer {
  /**
   * @param {HttpHost} host
   * @param {string} address
   * @param {number} port
   * @param {string} path
   * @param {boolean} [tls] served over HTTPS
   */
  constructor(host, address, port, path, tls = false) {
    this._host = host;
    this._scheme = tls ? 'https' : 'http';
    /** @type {Promise<void> | null} */
    this._stopping = null;
    /** The address it listens on. */
    this.host = address;
    /** The port it listens on. */
    this.port = port;
    /** The Streamable HTTP endpoint's path. */
    this.path = path;
  }

  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp` (`https://` with TLS). */
  get url() {
    return `${base(this.host, this.port, this._scheme)}${this.path}`;
  }

  /** The legacy HTTP+SSE endpoint, e.g. `http://127.0.0.1:8000/sse`. */
  get sseUrl() {
    const sse = this._host.native.ssePath;
    return sse == null ? null : `${base(this.host, this.port, this._scheme)}${sse}`;
  }

  /** Open sessions. */
  get sessionCount() {
    return this._host.native.sessionCount;
  }

  /** Stops listening and lets calls in progress finish (10 s at most); idempotent. */
  stop() {
    if (this._stopping === null) {
      this._stopping = (async () => {
        try {
          await this._host.stop();
        } finally {
          await this._host.server._exit();
        }
      })();
    }
    return this._stopping;
  }

  [Symbol.asyncDispose]() {
    return this.stop();
  }
}

/**
 * @param {string} host
 * @param {number} port
 * @param {string} [scheme]
 */
function base(host, port, scheme = 'http') {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * @param {unknown} err
 * @param {string} host
 * @param {number} port
 */
function listenError(err, host, port) {
  const message = err instanceof Error ? err.message : String(err);
  /** @type {Error & {code?: string, address?: string, port?: number}} */
  const e = new Error(message);
  e.code = /address already in use/i.test(message) ? 'EADDRINUSE' : /permission denied/i.test(message) ? 'EACCES' : 'ERR_MCP_LISTEN';
  e.address = host;
  e.port = port;
  return e;
}

/**
 * Splits `{host, port, ...httpOptions}`; checks them all.
 * @param {import('./types/server').ListenOptions} options
 * @param {number} defaultPort
 */
function serveOptions(options, defaultPort) {
  if (options === null || typeof options !== 'object') throw new TypeError('HTTP options must be an object');
  const { host = '127.0.0.1', port = defaultPort, ...rest } = options;
  if (typeof host !== 'string' || host === '') throw new TypeError(`host: expected a host name or address, got ${JSON.stringify(host)}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`port: expected an integer 0-65535, got ${JSON.stringify(port)}`);
  return { host, port, options: httpOptions(rest) };
}

/**
 * Starts serving HTTP in the background: `{url, host, port, path, sessionCount, stop()}`.
 * `port: 0` picks a free port.
 * @param {Server} server
 * @param {import('./types/server').ListenOptions} [options]
 */
async function startHttp(server, options = {}) {
  const { host, port, options: opts } = serveOptions(options, 8000);
  await server._enter();
  let h;
  let bound;
  try {
    h = new HttpHost(server, opts);
    try {
      bound = h.native.listen(host, port);
    } catch (err) {
      throw listenError(err, host, port);
    }
  } catch (err) {
    await server._exit();
    throw err;
  }
  return new HttpServer(h, bound[0], bound[1], h.path, opts?.tlsCert != null);
}

/**
 * Serves until SIGINT or SIGTERM, then stops gracefully. `transport`: "http" or "sse".
 * @param {Server} server
 * @param {'http' | 'sse'} transport
 * @param {import('./types/server').ListenOptions & {transport?: string}} [options]
 */
async function runHttp(server, transport, options = {}) {
  const { transport: _t, ...rest } = options;
  const http = await startHttp(server, rest);
  const url = transport === 'sse' ? http.sseUrl : http.url;
  if (url === null) {
    await http.stop();
    throw new TypeError('transport "sse" needs the legacy SSE endpoint (legacySse: true, stateless: false)');
  }
  process.stderr.write(`hypermcp: ${server.name} serving on ${url}\n`);
  try {
    await /** @type {Promise<void>} */ (new Promise((resolve) => {
      const onSignal = () => {
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
        resolve();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    }));
  } finally {
    await http.stop();
  }
}

/**
 * A request handler `(req, res, next?) => void` serving the server inside node:http,
 * Express or Fastify. The lifespan starts with the first request; `handler.close()` closes
 * every session and ends it.
 * @param {Server} server
 * @param {HttpOptions} [options]
 */
function httpHandler(server, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('HTTP options must be an object');
  const opts = httpOptions(options);
  /** @type {HttpHost | null} */
  let host = null;
  /** @type {Promise<void> | null} */
  let ready = null;
  let closed = false;
  /**
   * @param {Request} req
   * @param {ServerResponse} res
   * @param {(err?: unknown) => void} [next]
   */
  const handler = (req, res, next) => {
    if (closed) {
      res.statusCode = 503;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('Service Unavailable');
      return;
    }
    if (host === null) {
      host = new HttpHost(server, opts);
      ready = server._enter();
    }
    host.serve(req, res, next, /** @type {Promise<void>} (set with host) */ (ready));
  };
  Object.defineProperty(handler, 'sessionCount', { get: () => (host === null ? 0 : host.native.sessionCount), enumerable: true });
  handler.close = async () => {
    if (closed) return;
    closed = true;
    if (host !== null) {
      host.close();
      try {
        await ready;
      } finally {
        await server._exit();
      }
    }
  };
  return handler;
}

module.exports = { startHttp, runHttp, httpHandler, httpOptions, HttpServer };
