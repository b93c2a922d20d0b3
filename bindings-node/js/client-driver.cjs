// @ts-check
'use strict';
// The session driver of `Client`, its base class (`Client` in client.cjs adds the public API:
// construction, the lifecycle, the request methods and the session's state). It drives a
// native sans-IO `ClientSession`: bytes read from the transport are fed to it, the events it
// reports are dispatched (answers settle the promises callers await, server requests run the
// handlers) and what it queues is written back. One timer armed at the session's next
// deadline expires timed-out requests and polls followed tasks; it holds Node only while
// answers are awaited. Requests issued in the same tick go out in one write.

/**
 * @typedef {{ method: string, params: any }} ClientRequest a request as an interceptor sees it
 * @typedef {(request: ClientRequest, next: (request: ClientRequest) => Promise<any>) => unknown} Interceptor
 */

const path = require('node:path');
const { pathToFileURL } = require('node:url');
const {
  INTERNAL_ERROR,
  CONNECTION_CLOSED,
  McpError,
  MethodNotFound,
  InternalError,
  ConnectionClosed,
  RequestTimeout,
  AbortError,
  errorFromObject,
} = require('./errors.cjs');
const E = require('./events.cjs');
const nativeModule = require('./native.cjs');
const trace = require('./trace.cjs');

/**
 * @typedef {import('./types/client').ClientOptions} ClientOptions
 * @typedef {import('./types/client').ClientTransport} ClientTransport
 * @typedef {import('./types/client').RequestOptions} RequestOptions
 * @typedef {import('./types/protocol').Progress} Progress
 * @typedef {import('./types/protocol').Root} Root
 * @typedef {import('./events.cjs').NativeEvent} NativeEvent
 * @typedef {{resolve: (result: any) => void, reject: (err: unknown) => void,
 *   onProgress: ((progress: Progress) => unknown) | null, cleanup: (() => void) | null}} Pending
 *   a request awaiting its answer
 * @typedef {{serverInfo?: import('./types/protocol').Implementation,
 *   capabilities?: import('./types/protocol').ServerCapabilities, instructions?: string}} InitializeResult
 *   the server's `initialize` result (the fields read of it)
 */

const NO_LIMIT_MS = 1e12; // "no timeout" for one call (the session's default applies when undefined)
const MAX_TIMER_MS = 2 ** 31 - 1;
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** @param {string} message */
function argError(message) {
  /** @type {TypeError & {code?: string}} */
  const err = new TypeError(message);
  err.code = 'ERR_INVALID_ARG_VALUE';
  return err;
}

/**
 * A timeout option (ms) for the native side: undefined = default, null/Infinity = none.
 * @param {unknown} ms
 * @param {string} what the option, for the error
 * @returns {number | undefined}
 */
function timeoutMs(ms, what) {
  if (ms === undefined) return undefined;
  if (ms === null || ms === Infinity) return NO_LIMIT_MS;
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
    throw argError(`${what} must be a number of milliseconds >= 0, null or Infinity (got ${String(ms)})`);
  }
  return Math.min(ms, NO_LIMIT_MS);
}

/**
 * @param {unknown} v
 * @returns {v is {[key: string]: any}}
 */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** @param {unknown} reason */
function reasonText(reason) {
  if (reason === undefined || reason === null) return 'cancelled by the client';
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message || reason.name;
  return String(reason);
}

/** @param {AbortSignal} signal */
function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof AbortError) return reason;
  const text = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
  return new AbortError(`the request was aborted${text}`, reason);
}

/**
 * @param {unknown} item
 * @returns {Root}
 */
function toRoot(item) {
  if (typeof item === 'string') {
    if (SCHEME.test(item)) return { uri: item };
    const abs = path.resolve(item);
    return { uri: pathToFileURL(abs).href, name: path.basename(abs) || abs };
  }
  if (item instanceof URL) return { uri: item.href };
  if (isObject(item) && typeof item.uri === 'string') return /** @type {Root} */ ({ ...item });
  throw new TypeError(`a root is a URI string, a path, a URL or {uri, name?}, not ${JSON.stringify(item)}`);
}

/** Drives one client session over one transport (the base of `Client`). */
class ClientDriver {
  /**
   * @param {ClientTransport} transport the connection to the server (see the top of client.cjs)
   * @param {import('../native/index.js').ClientSession} session the native ClientSession
   * @param {ClientOptions} options the Client's options (the handlers and callbacks are taken from them)
   * @param {(() => import('../native/index.js').ClientSession) | null} [newSession] a fresh session, for reconnecting
   * @param {import('../native/index.js').ReconnectPolicy | null} [reconnect] the reconnect policy
   */
  constructor(transport, session, options, newSession = null, reconnect = null) {
    this._session = session;
    /** @type {(() => import('../native/index.js').ClientSession) | null} a fresh session (reconnecting) */
    this._newSession = newSession;
    /** @type {import('../native/index.js').ReconnectPolicy | null} */
    this._reconnect = reconnect;
    this._onConnection = options.onConnection ?? null;
    /** @type {Interceptor[]} request interceptors, in order */
    this._interceptors = [];
    for (const f of options.interceptors ?? []) this.addInterceptor(f);
    /** @type {number | null} the client's default timeout (ms; null: none) */
    this._timeoutMs = options.timeout === undefined ? 60_000 : options.timeout === Infinity ? null : options.timeout;
    /**
     * While reconnecting: settles once a new session is ready (rejects when the tries are
     * spent); requests made meanwhile wait on it, under the policy.
     * @type {{promise: Promise<void>, resolve: () => void, reject: (err: unknown) => void} | null}
     */
    this._reconnecting = null;
    this._attempt = 0;
    this._ready = false; // the handshake completed (once at least)
    this._closing = false; // close({grace}) waits for the calls in flight
    this._transport = transport;
    this._onSampling = options.onSampling ?? null;
    this._onElicitation = options.onElicitation ?? null;
    this._roots = options.roots ?? null;
    this._onLog = options.onLog ?? null;
    this._onNotification = options.onNotification ?? null;
    this._onError = options.onError ?? null;
    /** @type {Map<number, Pending>} */
    this._pending = new Map(); // outbound id -> {resolve, reject, onProgress, cleanup}
    /** @type {Map<number, import('./client.cjs').Subscription>} open listen streams by id */
    this._listeners = new Map();
    /** @type {Map<number, AbortController>} */
    this._serving = new Map(); // server request key -> AbortController
    /** @type {NodeJS.Timeout | null} */
    this._timer = null;
    this._timerAt = 0;
    /** @type {number | null} */
    this._initId = null;
    /** @type {InitializeResult | null} */
    this._server = null;
    this._pumping = false;
    this._repump = false;
    this._flushQueued = false;
    this._started = false;
    this._closed = false;
    /** @type {string | null} */
    this._closeMessage = null;
    /** @type {Promise<void> | null} */
    this._shutdown = null;
    this._onTimer = this._onTimer.bind(this);
    this._flush = this._flush.bind(this);
  }

  // ---- closing --------------------------------------------------------------------------

  /** @param {string} message */
  _end(message) {
    if (this._closed) return;
    this._closed = true;
    this._shutdown = this._drop(message);
    this._settleReconnecting(new ConnectionClosed(message));
  }

  /**
   * Ends the current session and connection: its calls fail with `message`, the server's
   * requests are aborted; resolves once the transport is shut down.
   * @param {string} message
   * @returns {Promise<void>}
   */
  _drop(message) {
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
    return Promise.resolve()
      .then(() => transport.close())
      .then(
        () => undefined,
        (err) => this._report(err),
      );
  }

  _closedError() {
    return new ConnectionClosed(this._closeMessage ?? 'the connection is closed');
  }

  /** @param {unknown} error null when reconnected, else why the client gave up */
  _settleReconnecting(error) {
    const waiter = this._reconnecting;
    this._reconnecting = null;
    if (waiter === null) return;
    if (error === null) waiter.resolve();
    else waiter.reject(error);
  }

  /**
   * @param {string} event
   * @param {{[key: string]: unknown}} info
   */
  _connectionEvent(event, info) {
    // Counted and said in the engine's log (setLogger, HYPERMCP_LOG).
    nativeModule.clientEvent(event, String(info.reason ?? ''));
    if (this._onConnection) this._callback(this._onConnection, event, info);
  }

  // ---- losing the server, and reconnecting ------------------------------------------------

  /**
   * The server went away (its connection ended, or it stopped answering pings).
   * @param {string} message
   */
  _lost(message) {
    if (this._closed) return;
    if (this._reconnecting !== null) {
      // A try's connection ended during its handshake: that try fails.
      this._session.close();
      this._pump();
      return;
    }
    if (this._reconnect === null || this._newSession === null || !this._ready || this._closing) {
      if (this._ready && !this._closing) nativeModule.clientEvent('disconnected', message);
      this._end(message);
      return;
    }
    // Calls in flight fail, saying why; new ones wait for the new session (or fail fast).
    const closed = this._drop(`${message}; reconnecting`);
    this._closeMessage = null;
    /** @type {any} */
    let settle = null;
    const promise = new Promise((resolve, reject) => (settle = { resolve, reject }));
    promise.catch(() => {}); // nobody may be waiting
    this._reconnecting = { promise, resolve: settle.resolve, reject: settle.reject };
    this._attempt = 0;
    this._connectionEvent('disconnected', { reason: message });
    void this._reconnectLoop(message, closed);
  }

  /**
   * @param {string} reason
   * @param {Promise<void>} closed the old connection's shutdown
   */
  async _reconnectLoop(reason, closed) {
    const policy = /** @type {import('../native/index.js').ReconnectPolicy} */ (this._reconnect);
    const make = /** @type {() => import('../native/index.js').ClientSession} */ (this._newSession);
    let last = reason;
    await closed;
    while (!this._closed) {
      this._attempt += 1;
      const delayMs = policy.delay(this._attempt);
      if (delayMs === null || delayMs === undefined) {
        const tries = this._attempt - 1;
        const message = `the server went away and ${tries} tries to reconnect failed; the last: ${last}`;
        this._connectionEvent('failed', { reason: message, attempts: tries });
        this._end(message);
        return;
      }
      this._connectionEvent('reconnecting', { attempt: this._attempt, delay: delayMs, reason: last });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (this._closed) return;
      this._session = make();
      this._server = null;
      try {
        await this._transport.start(/** @type {any} */ (this));
        await this._handshake();
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
        this._session.close();
        this._pump();
        try {
          await this._transport.close();
        } catch (e) {
          this._report(e);
        }
        continue;
      }
      this._connectionEvent('reconnected', { attempt: this._attempt });
      this._settleReconnecting(null);
      return;
    }
  }

  /** Opens the session on the transport just started; resolves once the server is known. */
  async _handshake() {
    if (this._closed) throw this._closedError();
    const id = this._session.initialize();
    this._initId = id;
    const done = new Promise((resolve, reject) => this._pending.set(id, { resolve, reject, onProgress: null, cleanup: null }));
    this._pump();
    await done;
    this._ready = true;
  }

  /**
   * While reconnecting: waits for the new session (within `timeout`, else the client's) when
   * the policy says so; otherwise _checkOpen fails at once.
   * @param {number | undefined} timeout ms
   */
  async _untilConnected(timeout) {
    const waiter = this._reconnecting;
    if (waiter === null || this._reconnect === null || !this._reconnect.wait || this._closing) return;
    const limit = timeout === undefined ? this._timeoutMs : timeout >= 1e12 ? null : timeout;
    if (limit === null) {
      await waiter.promise;
      return;
    }
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new RequestTimeout(`still reconnecting to the server after ${limit} ms`)), limit);
    });
    try {
      await Promise.race([waiter.promise, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  // ---- input from the transport -----------------------------------------------------------

  /**
   * Bytes from the server (called by the transport).
   * @param {Buffer | Uint8Array | string} data
   */
  _feed(data) {
    if (this._closed) return;
    if (!Buffer.isBuffer(data)) {
      data = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    }
    this._session.feed(/** @type {Buffer} (by now) */ (data));
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
    this._lost('the server closed the connection' + (detail ? ` (${detail})` : ''));
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
        if (out !== null) {
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
    // The timer holds Node only while an answer is awaited: a task the session follows
    // (polled, or waited for with tasks/result) has nothing else holding Node when the
    // server is in this process; an idle session never holds it.
    const hold = this._pending.size > 0;
    // No deadline: an armed timer is left to fire (it finds nothing to do), so a call that
    // ends does not cost a clearTimeout + setTimeout pair.
    if (wait === null || wait === undefined) {
      if (this._timer !== null && !hold) this._timer.unref();
      return;
    }
    const at = performance.now() + wait;
    if (this._timer !== null) {
      if (this._timerAt <= at) {
        // It fires first, and re-arms for the rest.
        if (hold) this._timer.ref();
        else this._timer.unref();
        return;
      }
      clearTimeout(this._timer);
    }
    this._timerAt = at;
    this._timer = setTimeout(this._onTimer, Math.min(Math.ceil(wait) + 1, MAX_TIMER_MS));
    if (!hold) this._timer.unref();
  }

  _onTimer() {
    this._timer = null;
    if (this._closed) return;
    this._session.handleTimeout();
    this._pump();
  }

  /** @param {NativeEvent} ev */
  _dispatch(ev) {
    switch (ev[E.KIND]) {
      case 'response': {
        const id = ev[E.RESPONSE_ID];
        const entry = this._pending.get(id);
        if (entry === undefined) {
          // A listen stream's answer: the server ended it.
          this._listeners.get(id)?._end();
          return;
        }
        this._pending.delete(id);
        entry.cleanup?.();
        if (ev[E.RESPONSE_OK]) entry.resolve(ev[E.RESPONSE_RESULT]);
        else entry.reject(this._rpcError(ev[E.RESPONSE_RESULT]));
        return;
      }
      case 'progress': {
        const entry = this._pending.get(ev[E.PROGRESS_ID]);
        if (entry?.onProgress) {
          /** @type {Progress} */
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
        const tag = ev[E.NOTIFICATION_SUBSCRIPTION];
        if (tag !== null && tag !== undefined) {
          const listener = this._listeners.get(tag);
          if (listener !== undefined) {
            listener._push(method, params);
            return;
          }
        }
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
          this._pending.delete(/** @type {number} */ (id));
          entry.resolve(undefined);
        }
        return;
      }
      case 'lost': {
        // The server stopped answering pings (the session closed itself): handled once this
        // pass is over, like the end of the connection.
        const reason = String(ev[E.LOST_REASON]);
        queueMicrotask(() => this._lost(reason));
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

  /** @param {any} obj the error object, as received */
  _rpcError(obj) {
    if (obj && obj.code === CONNECTION_CLOSED && this._closeMessage !== null) {
      return new ConnectionClosed(this._closeMessage, obj.data);
    }
    if (!isObject(obj) || typeof obj.code !== 'number') return new InternalError(`bad error from the server: ${JSON.stringify(obj)}`);
    return errorFromObject({ code: obj.code, message: String(obj.message ?? ''), data: obj.data });
  }

  /**
   * @param {(...args: any[]) => any} fn a callback of the options (a promise it returns is waited for)
   * @param {...unknown} args
   */
  _callback(fn, ...args) {
    try {
      const out = fn(...args);
      if (out && typeof out.then === 'function') out.then(undefined, (/** @type {unknown} */ err) => this._report(err));
    } catch (err) {
      this._report(err);
    }
  }

  /** @param {unknown} err */
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

  /**
   * @param {string} kind "sampling", "elicitation" or "roots"
   * @param {number} key
   * @param {import('./types/protocol').RequestId} requestId
   * @param {import('./types/protocol').Meta | null} meta
   * @param {any} params the request's params, as received
   */
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
        error = new InternalError(`the ${kind} handler returned a value that is not JSON: ${/** @type {Error} */ (err).message}`);
      }
    }
    if (error === null) {
      this._session.respond(key, /** @type {string} (no error) */ (text));
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
    if (this._closing) throw new ConnectionClosed('the client is closing');
    if (this._reconnecting !== null) {
      throw new ConnectionClosed(`the connection to the server was lost; reconnecting (try ${this._attempt})`);
    }
  }

  /**
   * Adds a request interceptor, `async (request, next) => result`, inside the ones added
   * before: every request this client sends (its calls, reads, lists, `request`) passes it.
   * `request` is `{ method, params }` (change `params` to change what is sent); `next(request)`
   * sends it and resolves with the result as the server sent it; the interceptor returns the
   * result to use (changed, or its own without sending) or throws (the server's errors arrive
   * as `McpError`).
   * @param {Interceptor} interceptor
   */
  addInterceptor(interceptor) {
    if (typeof interceptor !== 'function') {
      throw argError(`an interceptor is a function (request, next), not ${interceptor === null ? 'null' : typeof interceptor}`);
    }
    this._interceptors.push(interceptor);
  }

  /**
   * Sends a request through the interceptors; resolves with its result. Without
   * interceptors it throws synchronously only for bad arguments (with them, they reject).
   * @param {string} method
   * @param {unknown} params
   * @param {RequestOptions} [options]
   * @returns {Promise<any>} the result, as on the wire
   */
  _request(method, params, options = {}) {
    if (this._interceptors.length === 0) return this._send(method, params, options);
    const chain = this._interceptors;
    /** @type {(at: number) => (request: ClientRequest) => Promise<any>} */
    const step = (at) => (request) =>
      at === chain.length
        ? this._send(request.method, request.params, options)
        : Promise.resolve().then(() => chain[at](request, step(at + 1)));
    return step(0)({ method, params: params == null ? params : { .../** @type {object} */ (params) } });
  }

  /**
   * Sends a request (after the interceptors); resolves with its result. Throws synchronously
   * only for bad arguments.
   * @param {string} method
   * @param {unknown} params
   * @param {RequestOptions} [options]
   * @returns {Promise<any>} the result, as on the wire
   */
  _send(method, params, options = {}) {
    options = options ?? {};
    const { signal, onProgress, resetTimeoutOnProgress } = options;
    const timeout = timeoutMs(options.timeout, 'timeout');
    if (onProgress != null && typeof onProgress !== 'function') throw argError('onProgress must be a function');
    if (this._reconnecting !== null && this._reconnect?.wait && !this._closing) {
      return this._untilConnected(timeout).then(() => this._send(method, params, options));
    }
    this._checkOpen();
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const progress = typeof onProgress === 'function' || !!resetTimeoutOnProgress;
    // A trace to carry on in _meta (the handler's being served, or OpenTelemetry's).
    /** @type {any} */
    let span = null;
    if (trace.active()) {
      [params, span] = trace.clientBegin(method, params, this._transport.networkTransport ?? null, this._session.protocolVersion ?? null);
    }
    let id;
    try {
      id = this._session.request(
        method,
        params == null ? undefined : JSON.stringify(params),
        timeout,
        progress,
        !!resetTimeoutOnProgress,
        !!options.followTask,
      );
    } catch (err) {
      if (span !== null) trace.clientEnd(span, null, err, false);
      return Promise.reject(err);
    }
    if (span === null) return this._answer(id, signal, onProgress);
    return this._answer(id, signal, onProgress).then(
      (result) => {
        trace.clientEnd(span, id, null, method === 'tools/call' && result?.isError === true);
        return result;
      },
      (err) => {
        trace.clientEnd(span, id, err, false);
        throw err;
      },
    );
  }

  /**
   * Waits for task `taskId` (tasks extension) to end: its result, as the engine follows it
   * (its input requests through this client's handlers).
   * @param {string} taskId
   * @param {RequestOptions} [options] `timeout` (the task is cancelled when it passes), `signal`
   * @returns {Promise<any>}
   */
  _followTask(taskId, options = {}) {
    options = options ?? {};
    const timeout = timeoutMs(options.timeout, 'timeout');
    if (this._reconnecting !== null && this._reconnect?.wait && !this._closing) {
      return this._untilConnected(timeout).then(() => this._followTask(taskId, options));
    }
    this._checkOpen();
    if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
    let id;
    try {
      id = this._session.followTask(taskId, timeout);
    } catch (err) {
      return Promise.reject(err);
    }
    return this._answer(id, options.signal, undefined);
  }

  /**
   * The answer to our request `id` (the server is told when `signal` aborts).
   * @param {number} id
   * @param {AbortSignal | undefined} signal
   * @param {RequestOptions['onProgress']} onProgress
   * @returns {Promise<any>}
   */
  _answer(id, signal, onProgress) {
    return new Promise((resolve, reject) => {
      /** @type {Pending} */
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
}

module.exports = { ClientDriver, argError, timeoutMs };
