// @ts-check
'use strict';
// One server connection driven by Node's event loop: bytes in, native session, handlers,
// bytes out. Every transport uses it; no threads, no hop per call. Synchronous handlers
// answer in the same pass; all answers ready at once go out in one write. Over HTTP the
// native session is one of the engine's HTTP sessions: its events arrive in batches through
// `dispatch` (see http.cjs), and it has no bytes for Node to write (the engine writes to
// its HTTP streams).

const { Context, InputRequired } = require('./context.cjs');
const { McpError, ConnectionClosed, ToolError, errorFromObject } = require('./errors.cjs');
const { isContent } = require('./content.cjs');
const E = require('./events.cjs');
const trace = require('./trace.cjs');

/** @type {typeof import('./middleware.cjs') | null} */
let middlewareModule = null;
/** The middleware module, loaded when a server first runs a call through middleware. */
const mw = () => (middlewareModule ??= require('./middleware.cjs'));

/**
 * @typedef {import('./server.cjs').Server<any>} Server
 * @typedef {import('./server.cjs').ToolEntry} ToolEntry
 * @typedef {import('./events.cjs').NativeEvent} NativeEvent
 * @typedef {import('./types/content').ContentBlock} ContentBlock
 * @typedef {{resolve: (value: any) => void, reject: (err: unknown) => void}} Waiter
 */

class ServerConnection {
  /**
   * @param {Server} server the Server whose handlers run
   * @param {import('../native/index.js').ServerSession} session the native ServerSession
   * @param {((data: Buffer) => void) | null} write where the session's output bytes go; null
   *   when the engine writes and times the session itself (HTTP, the task session): no
   *   output to take and no timer to arm, so flushing costs no native call
   */
  constructor(server, session, write) {
    this.server = server;
    this.session = session;
    this._write = write;
    /** @type {Map<number, Context>} */
    this._running = new Map(); // key -> Context
    /** @type {Map<number, Waiter>} */
    this._waiters = new Map(); // outbound id -> {resolve, reject}
    /** @type {NodeJS.Timeout | null} */
    this._timer = null;
    /** @type {import('./types/protocol').Implementation | null | undefined} */
    this._clientInfo = undefined;
    /** @type {import('./types/protocol').ClientCapabilities | undefined} */
    this._clientCaps = undefined;
    this.closed = false;
    /** @type {Set<number>} 2026-07-28 calls whose round ends once what is ready has run */
    this._rounds = new Set();
    /** @type {(() => void) | null} */
    this._idle = null;
    this._flushQueued = false;
    /** Whether the session has a waker (a server that runs tasks): see overStream. */
    this._late = false;
  }

  /**
   * A connection whose bytes this loop carries (stdio, in memory): the server tells it of
   * its registry changes (the engine tells HTTP sessions itself).
   * @param {Server} server
   * @param {(data: Buffer) => void} write
   */
  static overStream(server, write) {
    const session = new server._native.ServerSession(server._nativeConfig(), server._registry);
    if (server._taskRuntime) {
      server._taskConnection();
      session.setTasks(server._taskRuntime);
    }
    if (server._builtins) session.setMiddleware(server._builtins);
    const conn = new ServerConnection(server, session, write);
    // What the task runtime answers late (tasks/result) or tells (task status), and calls
    // that limits kept in Redis admit on the engine's thread.
    if (server._taskRuntime || server._builtins) conn._late = session.setWaker(() => { if (!conn.closed) conn.pump(); });
    server._connections.add(conn);
    return conn;
  }

  /** @param {Buffer} buf */
  feed(buf) {
    this.session.feed(buf);
    this.pump();
  }

  pump() {
    for (;;) {
      const text = this.session.pollEvents();
      if (!text) break;
      this._handle(JSON.parse(text));
    }
    this.flush();
    if (this._late) this.session.holdWhileWaiting();
  }

  /**
   * Handles events delivered from elsewhere (HTTP), then flushes.
   * @param {NativeEvent[]} events
   */
  dispatch(events) {
    this._handle(events);
    this.flush();
  }

  /** @param {NativeEvent[]} events */
  _handle(events) {
    for (const ev of events) {
      switch (ev[E.KIND]) {
        case 'tool': this._tool(ev); break;
        case 'response': this._response(ev); break;
        case 'cancelled': this._cancel(ev[E.CANCELLED_KEY], ev[E.CANCELLED_REASON]); break;
        case 'resource': case 'prompt': case 'complete': this._other(ev); break;
        case 'notification': this.server._onNotification(ev[E.NOTIFICATION_METHOD], ev[E.NOTIFICATION_PARAMS]); break;
        case 'method': this._method(ev); break;
        case 'list': this._list(ev); break;
        default: break;
      }
    }
  }

  flush() {
    if (this._write === null) return;
    const out = this.session.takeOutput();
    if (out !== null) this._write(out);
    this._armTimer();
  }

  /** @returns {import('./types/protocol').Implementation | null} */
  clientInfo() {
    if (this._clientInfo === undefined) {
      const t = this.session.clientInfo;
      this._clientInfo = t ? JSON.parse(t) : null;
    }
    return /** @type {import('./types/protocol').Implementation | null} (read above) */ (this._clientInfo);
  }

  /** @returns {import('./types/protocol').ClientCapabilities} */
  clientCapabilities() {
    if (this._clientCaps === undefined) this._clientCaps = JSON.parse(this.session.clientCapabilities);
    return /** @type {import('./types/protocol').ClientCapabilities} (read above) */ (this._clientCaps);
  }

  // ---- handlers ------------------------------------------------------------------------------

  /** @param {NativeEvent} ev */
  _context(ev) {
    const ctx = new Context(this, ev[E.KEY], ev[E.ID], ev[E.TOKEN], ev[E.META], ev[E.CONTEXT], ev[E.ORIGIN]);
    if (ev[E.KIND] === 'tool' && ev[E.TOOL_TASK] != null) ctx.taskId = ev[E.TOOL_TASK];
    // A trace from the caller, or OpenTelemetry in the app: the handler runs under it.
    if (typeof ev[E.META]?.traceparent === 'string' || trace.otel() !== null) ctx._scope = new trace.ServerScope(ev, E, this.session);
    return ctx;
  }

  /** @param {NativeEvent} ev */
  _tool(ev) {
    const key = ev[E.KEY];
    const name = ev[E.TOOL_NAME];
    const tool = this.server._tools.get(name);
    if (!tool) {
      this.session.completeMissing(key, 'tool', name);
      return;
    }
    let args = ev[E.TOOL_ARGUMENTS];
    if (tool.parse) {
      let r;
      try {
        r = tool.parse(args);
      } catch (err) {
        // A throwing refine/transform is user code failing, as a throwing handler is.
        this._toolError(key, err, name);
        return;
      }
      if (!r.ok) {
        // The engine answers as the revision wants invalid arguments answered.
        this.session.completeInvalidArguments(key, r.errors ?? [r.message]);
        return;
      }
      args = r.value;
    }
    const ctx = this._context(ev);
    const chained = this.server._chain?.hooks('tools/call');
    const call = chained
      ? () => chained(new (mw().MiddlewareContext)('tools/call', { name, arguments: args }, ctx, (c) => tool.handler(c.message.arguments, ctx)))
      : () => tool.handler(args, ctx);
    // A handler may become a task's (ctx.startTask()): it then answers on the task connection.
    this._run(
      ctx,
      call,
      (result) => ctx._conn._toolResult(ctx._key, tool, result),
      (err) => ctx._conn._toolError(ctx._key, err, name),
    );
  }

  /**
   * Runs a handler; its call is known by `ctx` (whose connection and key change when the
   * handler becomes a task's).
   * @param {Context} ctx
   * @param {() => unknown} call runs the handler
   * @param {(result: unknown) => void} ok answers with its result
   * @param {(err: unknown) => void} fail answers with its failure
   */
  _run(ctx, call, ok, fail) {
    const scope = ctx._scope;
    let result;
    try {
      result = scope === null ? call() : scope.run(call);
    } catch (err) {
      scope?.finish(err);
      fail(err);
      return;
    }
    if (result !== null && typeof result === 'object' && typeof (/** @type {{then?: unknown}} */ (result).then) === 'function') {
      // (On the task connection when the handler became a task's before its first await.)
      ctx._conn._running.set(ctx._key, ctx);
      /** @type {PromiseLike<unknown>} */ (result).then(
        (value) => {
          scope?.finish(null, value);
          ctx._conn._settled(ctx._key, ctx, () => ok(value));
        },
        (err) => {
          scope?.finish(err);
          ctx._conn._settled(ctx._key, ctx, () => fail(err));
        },
      );
    } else {
      scope?.finish(null, result);
      ok(result);
    }
  }

  /**
   * @param {number} key
   * @param {Context} ctx
   * @param {() => void} finish
   */
  _settled(key, ctx, finish) {
    this._running.delete(key);
    if (this._running.size === 0 && this._idle) {
      this._idle();
      this._idle = null;
    }
    if (ctx.cancelled || this.closed) return;
    finish();
    this._flushSoon();
  }

  /**
   * Flushes once the handlers settled in this turn have all answered: with many calls in
   * flight, their answers leave in one native take and one write instead of one each.
   */
  _flushSoon() {
    if (this._flushQueued || this._write === null) return;
    this._flushQueued = true;
    queueMicrotask(() => {
      this._flushQueued = false;
      if (!this.closed) this.flush();
    });
  }

  /**
   * A tool's failure: an `McpError` is a JSON-RPC error, a `ToolError` a failed result with
   * its message, anything else what the engine says (masked under `maskErrorDetails`).
   * @param {number} key
   * @param {unknown} err
   * @param {string} name the tool's
   */
  _toolError(key, err, name) {
    if (err instanceof InputRequired) {
      this._inputRequired(key, err);
    } else if (err instanceof McpError) {
      this.session.completeError(key, err.rpcCode, err.message, err.data === undefined ? null : JSON.stringify(err.data));
    } else if (err instanceof ToolError) {
      this.session.completeToolText(key, err.message || err.name, true);
    } else {
      this._failed(key, 'tool', name, err);
    }
  }

  /**
   * Completes a call whose handler threw unexpectedly: the engine says what the client reads
   * (the message, or a generic one under `maskErrorDetails`, the error and its stack then
   * logged).
   * @param {number} key
   * @param {string} kind tool, resource, prompt, completion, method or list
   * @param {string} name what it names
   * @param {unknown} err
   */
  _failed(key, kind, name, err) {
    const message = err instanceof Error ? err.message || err.name : String(err);
    const detail = this.server._maskErrorDetails && err instanceof Error && err.stack ? err.stack : null;
    this.session.completeFailure(key, kind, name, message, detail);
  }

  /**
   * @param {number} key
   * @param {ToolEntry} tool
   * @param {any} result what the handler returned (any value: what it is is found out below)
   */
  _toolResult(key, tool, result) {
    if (typeof result === 'string') {
      this.session.completeToolText(key, result, false);
      return;
    }
    if (result instanceof InputRequired) {
      this._inputRequired(key, result);
      return;
    }
    /** @type {import('./types/protocol').CallToolResult<unknown>} */
    let wire;
    if (result === undefined || result === null) wire = { content: [] };
    else if (typeof result === 'object' && Array.isArray(result.content)) wire = result;
    else if (isContent(result)) wire = { content: [result] };
    else if (Array.isArray(result) && result.length && result.every((c) => typeof c === 'string' || isContent(c))) {
      wire = { content: result.map((/** @type {string | ContentBlock} */ c) => (typeof c === 'string' ? { type: 'text', text: c } : c)) };
    } else if (tool.outputSchema && typeof result === 'object' && !Array.isArray(result)) {
      wire = { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } else {
      wire = { content: [{ type: 'text', text: typeof result === 'object' ? JSON.stringify(result) : String(result) }] };
    }
    try {
      this.session.completeTool(key, JSON.stringify(wire));
    } catch (err) {
      this.session.completeToolText(key, `tool ${tool.name} returned an invalid result: ${/** @type {Error} */ (err).message}`, true);
    }
  }

  /** @param {NativeEvent} ev a "list" event: a list some middleware hook sees */
  _list(ev) {
    const key = ev[E.KEY];
    const items = ev[E.LIST_ITEMS];
    const method = mw().LIST_METHODS[/** @type {keyof typeof import('./middleware.cjs').LIST_METHODS} */ (ev[E.LIST_NAME])];
    const chained = this.server._chain?.hooks(method);
    if (!chained) {
      this.session.completeList(key, JSON.stringify(items));
      return;
    }
    const ctx = this._context(ev);
    const context = new (mw().MiddlewareContext)(method, { list: ev[E.LIST_NAME] }, ctx, () => items);
    this._run(
      ctx,
      () => chained(context),
      (result) => {
        if (!Array.isArray(result)) {
          this.session.completeError(key, -32603, `a list hook returned ${typeof result}: return the array of entries`, null);
          return;
        }
        try {
          this.session.completeList(key, JSON.stringify(result));
        } catch (err) {
          this.session.completeError(key, -32603, `a list hook returned invalid entries: ${/** @type {Error} */ (err).message}`, null);
        }
      },
      (err) => {
        if (err instanceof McpError) {
          this.session.completeError(key, err.rpcCode, err.message, err.data === undefined ? null : JSON.stringify(err.data));
        } else {
          this._failed(key, 'list', '', err);
        }
      },
    );
  }

  /** @param {NativeEvent} ev a "method" event: a request method of the server's own */
  _method(ev) {
    const key = ev[E.KEY];
    const method = ev[E.METHOD_NAME];
    const handler = this.server._methods.get(method);
    if (!handler) {
      this.session.completeError(key, -32601, `Method not found: ${method}`, null);
      return;
    }
    const ctx = this._context(ev);
    /** @type {() => unknown} */
    let call = () => handler(ev[E.METHOD_PARAMS], ctx);
    const chained = this.server._chain?.hooks(mw().CUSTOM);
    if (chained) {
      const context = new (mw().MiddlewareContext)(method, { params: { ...ev[E.METHOD_PARAMS] } }, ctx, (c) => handler(c.message.params, ctx));
      call = () => chained(context);
    }
    this._run(
      ctx,
      call,
      (result) => {
        const value = result === undefined || result === null ? {} : result;
        if (typeof value !== 'object' || Array.isArray(value)) {
          this.session.completeError(key, -32603, `${method} returned ${Array.isArray(value) ? 'an array' : typeof value}: a method's result is an object`, null);
          return;
        }
        try {
          this.session.completeResult(key, 'method', JSON.stringify(value));
        } catch (err) {
          this.session.completeError(key, -32603, `${method} returned an invalid result: ${/** @type {Error} */ (err).message}`, null);
        }
      },
      (err) => {
        if (err instanceof McpError) {
          this.session.completeError(key, err.rpcCode, err.message, err.data === undefined ? null : JSON.stringify(err.data));
        } else {
          this._failed(key, 'method', method, err);
        }
      },
    );
  }

  /** @param {NativeEvent} ev a "resource", "prompt" or "complete" event */
  _other(ev) {
    const kind = ev[E.KIND];
    const key = ev[E.KEY];
    const uri = ev[E.RESOURCE_URI];
    /** @type {any} the kind's entry: a ResourceEntry, PromptEntry or CompletionEntry (server.cjs) */
    let entry;
    /** @type {() => unknown} */
    let call;
    const ctx = this._context(ev);
    if (kind === 'resource') {
      entry = this.server._resources.get(ev[E.RESOURCE_TEMPLATE] ?? uri);
      if (!entry) {
        this.session.completeMissing(key, 'resource', uri);
        return;
      }
      call = () => entry.handler(new URL(uri), ev[E.RESOURCE_VARIABLES], ctx);
    } else if (kind === 'prompt') {
      const name = ev[E.PROMPT_NAME];
      entry = this.server._prompts.get(name);
      if (!entry) {
        this.session.completeMissing(key, 'prompt', name);
        return;
      }
      call = () => entry.handler(ev[E.PROMPT_ARGUMENTS], ctx);
    } else {
      const params = ev[E.COMPLETE_PARAMS];
      entry = this.server._completionFor(params);
      if (!entry) {
        this.session.completeResult(key, 'complete', '{"completion":{"values":[]}}');
        return;
      }
      call = () => entry.handler(params.argument?.value ?? '', params.context?.arguments ?? {}, params, ctx);
    }
    const method = kind === 'resource' ? 'resources/read' : kind === 'prompt' ? 'prompts/get' : 'completion/complete';
    const chained = this.server._chain?.hooks(method);
    if (chained) {
      const message =
        kind === 'resource' ? { uri } : kind === 'prompt' ? { name: ev[E.PROMPT_NAME], arguments: { ...ev[E.PROMPT_ARGUMENTS] } } : { params: ev[E.COMPLETE_PARAMS] };
      const direct = call;
      /** @param {import('./middleware.cjs').MiddlewareContext} c the context as the links left it */
      const handler = (c) => {
        if (kind === 'prompt') return entry.handler(c.message.arguments, ctx);
        if (kind === 'complete') {
          const p = c.message.params;
          return entry.handler(p.argument?.value ?? '', p.context?.arguments ?? {}, p, ctx);
        }
        return direct();
      };
      call = () => chained(new (mw().MiddlewareContext)(method, message, ctx, handler));
    }
    this._run(
      ctx,
      call,
      (result) => {
        if (result instanceof InputRequired) {
          this._inputRequired(key, result);
          return;
        }
        try {
          if (kind === 'resource' && typeof result === 'string') {
            // The common case, straight to the engine: no JSON text of the whole result.
            this.session.completeResourceText(key, uri, entry.mimeType ?? 'text/plain', result);
            return;
          }
          const wire = kind === 'resource' ? entry.toResult(uri, result) : kind === 'prompt' ? entry.toResult(result) : completionResult(result);
          this.session.completeResult(key, kind, JSON.stringify(wire));
        } catch (err) {
          this.session.completeError(key, -32603, `${kind} handler returned an invalid result: ${/** @type {Error} */ (err).message}`, null);
        }
      },
      (err) => {
        if (err instanceof InputRequired) {
          this._inputRequired(key, err);
        } else if (err instanceof McpError) {
          this.session.completeError(key, err.rpcCode, err.message, err.data === undefined ? null : JSON.stringify(err.data));
        } else {
          this._failed(key, kind, kind === 'resource' ? uri : kind === 'prompt' ? ev[E.PROMPT_NAME] : '', err);
        }
      },
    );
  }

  /**
   * @param {number} key
   * @param {string | null} reason
   */
  _cancel(key, reason) {
    const ctx = this._running.get(key);
    if (!ctx) return;
    ctx._cancel(reason);
    // A cancelled request gets no answer: draining has nothing to wait for from it.
    this._running.delete(key);
    if (this._running.size === 0 && this._idle) {
      this._idle();
      this._idle = null;
    }
  }

  // ---- what ctx does -------------------------------------------------------------------------

  /**
   * Turns the call of `ctx` into a task (`ctx.startTask()`): the client is answered with the
   * task, and the handler goes on as the task's, on the server's task connection.
   * @param {Context} ctx
   * @returns {boolean}
   */
  startTask(ctx) {
    const key = ctx._key;
    const started = this.session.startTask(key);
    if (started === null) return false;
    const [taskId, taskKey] = started;
    const conn = /** @type {ServerConnection} (the server runs tasks: it started one) */ (this.server._taskConnection());
    if (this._running.get(key) === ctx) {
      this._running.delete(key);
      conn._running.set(taskKey, ctx);
      if (this._running.size === 0 && this._idle) {
        this._idle();
        this._idle = null;
      }
    }
    ctx._conn = conn;
    ctx._key = taskKey;
    ctx.taskId = taskId;
    this.flush();
    return true;
  }

  /**
   * @param {number} key
   * @param {number} progress
   * @param {number} [total]
   * @param {string} [message]
   */
  progress(key, progress, total, message) {
    const sent = this.session.progress(key, progress, total ?? null, message ?? null);
    this.flush();
    return sent;
  }

  /**
   * @param {string} level
   * @param {unknown} data
   * @param {string} [logger]
   * @param {number} [related] the key of the request it is about
   */
  log(level, data, logger, related) {
    if (this.session.log(level, JSON.stringify(data ?? null), logger ?? null, related ?? null)) this.flush();
  }

  /**
   * Closes the HTTP SSE connection a call answers on (false on other transports).
   * @param {number} key
   */
  closeStream(key) {
    return this.session.closeStream(key);
  }

  /** @param {string} id */
  elicitationComplete(id) {
    this.session.elicitationComplete(id);
    this.flush();
  }

  /** @param {string} change the change as JSON */
  changeVisibility(change) {
    this.session.changeVisibility(change);
    this.flush();
  }

  /**
   * A handler's own input_required result (the low-level form).
   * @param {number} key
   * @param {InputRequired} ir
   */
  _inputRequired(key, ir) {
    this.session.completeInputRequired(key, JSON.stringify(ir.requests ?? {}), ir.state ?? null);
  }

  /**
   * Asks the client for input for the call `key`, in either era (see context.cjs):
   * resolves with the client's result. At 2026-07-28, input not answered yet ends the call
   * with input_required (once what is ready has run, so inputs asked together go out
   * together) and the promise never settles: the handler runs again on the retry.
   * @param {number} key
   * @param {string | null} inputKey
   * @param {string} method
   * @param {unknown} params
   * @param {number | undefined} timeoutMs
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>}
   */
  requestInput(key, inputKey, method, params, timeoutMs, signal) {
    /** @type {[string, any?]} */
    let answer;
    try {
      const text = this.session.requestInput(key, inputKey, method, params === undefined ? null : JSON.stringify(params), timeoutMs ?? null);
      answer = JSON.parse(text);
    } catch (err) {
      return Promise.reject(err);
    }
    if (answer[0] === 'answered') return Promise.resolve(answer[1]);
    if (answer[0] === 'sent') return this._awaitResponse(answer[1], signal);
    if (!this._rounds.has(key)) {
      this._rounds.add(key);
      setImmediate(() => this._endRound(key));
    }
    return new Promise(() => {});
  }

  /** @param {number} key */
  _endRound(key) {
    this._rounds.delete(key);
    if (this.closed) return;
    const ctx = this._running.get(key);
    if (ctx) {
      ctx._scope?.finish(null, undefined, true);
      // Its handler stops here (it never resumes); its outcome is the input_required result.
      ctx._cancel('input required: the client answers and retries');
      this._running.delete(key);
      if (this._running.size === 0 && this._idle) {
        this._idle();
        this._idle = null;
      }
    }
    this.session.completeInputRequired(key, null, null);
    this.flush();
  }

  /**
   * Waits for the answer to a request sent to the client.
   * @param {number} id
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>}
   */
  _awaitResponse(id, signal) {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (this._waiters.delete(id)) {
          this.session.cancelRequest(id, 'cancelled');
          this.flush();
          reject(/** @type {AbortSignal} (onAbort listens to it) */ (signal).reason ?? new Error('aborted'));
        }
      };
      this._waiters.set(id, {
        resolve: (v) => { signal?.removeEventListener('abort', onAbort); resolve(v); },
        reject: (e) => { signal?.removeEventListener('abort', onAbort); reject(e); },
      });
      if (signal) {
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      this.flush();
    });
  }

  /** @param {NativeEvent} ev */
  _response(ev) {
    const id = ev[E.RESPONSE_ID];
    const w = this._waiters.get(id);
    if (!w) return;
    this._waiters.delete(id);
    if (ev[E.RESPONSE_OK]) w.resolve(ev[E.RESPONSE_RESULT]);
    else w.reject(errorFromObject(ev[E.RESPONSE_RESULT]));
  }

  /** @param {string} kind */
  notifyListChanged(kind) {
    this.session.listChanged(kind);
    this.flush();
  }

  /** @param {string} uri */
  notifyResourceUpdated(uri) {
    this.session.resourceUpdated(uri);
    this.flush();
  }

  // ---- time and shutdown -----------------------------------------------------------------------

  _armTimer() {
    const ms = this.session.nextTimeout();
    if (ms == null) return;
    if (this._timer) clearTimeout(this._timer);
    this._timer = setTimeout(() => {
      this._timer = null;
      this.session.handleTimeout();
      this.pump();
    }, Math.ceil(ms));
    this._timer.unref?.();
  }

  inputClosed() {
    this.session.inputClosed();
    this.pump();
  }

  /**
   * Resolves when no handler is running, or after `graceMs`.
   * @param {number} graceMs
   * @returns {Promise<void>}
   */
  drain(graceMs) {
    if (this._running.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        process.removeListener('beforeExit', done);
        this._idle = null;
        resolve();
      };
      const t = setTimeout(done, graceMs);
      t.unref?.();
      // The event loop emptied: no running handler can settle any more, so stop waiting
      // (otherwise `await server.run()` would be left unsettled and the process exit with 13).
      process.once('beforeExit', done);
      this._idle = done;
    });
  }

  close() {
    if (this.closed) return;
    // Answers completed but not yet written (see _flushSoon) go out before the session closes.
    if (this._flushQueued) this.flush();
    this.closed = true;
    for (const ctx of this._running.values()) ctx._cancel('connection closed');
    this._running.clear();
    for (const w of this._waiters.values()) w.reject(new ConnectionClosed('connection closed'));
    this._waiters.clear();
    if (this._timer) clearTimeout(this._timer);
    this.session.close();
    if (this._late) this.session.holdWhileWaiting();
    this.server._connections.delete(this);
  }
}

/**
 * @param {any} result what the handler returned (values, a full result, or nothing)
 * @returns {import('./types/protocol').CompleteResult}
 */
function completionResult(result) {
  if (result && typeof result === 'object' && !Array.isArray(result) && result.completion) return result;
  const values = (result || []).map(String);
  return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
}

module.exports = { ServerConnection };
