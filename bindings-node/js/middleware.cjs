// @ts-check
'use strict';
// MCP middleware: links around every request that reaches a handler, FastMCP's way
// (`server.use({ onCallTool: async (context, next) => ... })`). For each request the links
// run in the order they were added; each runs its onMessage, then its onRequest, then the
// method's own hook (onCallTool, onReadResource, onGetPrompt, onComplete, onCustomMethod for
// the methods of the server's own), and the last
// `next` calls the handler. A notification the client sends passes onMessage and
// onNotification (`context.type === 'notification'`), then the server's handlers of it. A hook returns what the handler would (the tool's return value,
// the resource's, the prompt's, the completion's); it may change the arguments in
// `context.message` before it calls `next` (the name or URI stays what the client asked), return something of its own without calling it, change the result, or throw.
// A hook a link does not define costs nothing; a server without middleware calls its handlers
// directly. All the links run together in JS: a call crosses from the engine once.

/** The key of the chain's entry for the methods of the server's own. */
const CUSTOM = '*';
/** The key of the chain's entry for notifications. */
const NOTIFICATION = '!';

/** The hook of each method. */
const HOOKS = /** @type {const} */ ({
  'tools/call': 'onCallTool',
  'resources/read': 'onReadResource',
  'prompts/get': 'onGetPrompt',
  'completion/complete': 'onComplete',
  'tools/list': 'onListTools',
  'resources/list': 'onListResources',
  'resources/templates/list': 'onListResourceTemplates',
  'prompts/list': 'onListPrompts',
  // The methods of the server's own (`server.method`), whichever.
  [CUSTOM]: 'onCustomMethod',
});

/** The method of each list, by the engine's name of it. */
const LIST_METHODS = /** @type {const} */ ({
  tools: 'tools/list',
  resources: 'resources/list',
  resource_templates: 'resources/templates/list',
  prompts: 'prompts/list',
});

/** The names of every hook, for checking what a link offers. */
const HOOK_NAMES = ['onMessage', 'onRequest', ...Object.values(HOOKS), 'onNotification'];

/**
 * @typedef {import('./types/server').Middleware} Middleware
 * @typedef {(context: MiddlewareContext, next: (context: MiddlewareContext) => unknown) => unknown} Hook
 */

/** What a link sees of a request (FastMCP's MiddlewareContext). */
class MiddlewareContext {
  /**
   * @param {string} method the JSON-RPC method
   * @param {any} message the request's params: `{name, arguments}` for tools/call...
   * @param {import('./context.cjs').Context | null} ctx the handler's context (none for a notification)
   * @param {(context: MiddlewareContext) => unknown} call the handler, at the end of the chain
   * @param {'request' | 'notification'} [type]
   */
  constructor(method, message, ctx, call, type = 'request') {
    /** The JSON-RPC method (`tools/call`, ...). */
    this.method = method;
    /** The request's params; a link may change their arguments before it calls `next`. */
    this.message = message;
    /** The handler's context: session, client, era, auth, headers, progress, elicitation
     * (`null` for a notification). */
    this.ctx = /** @type {import('./context.cjs').Context} */ (ctx);
    /** Who sent it. */
    this.source = 'client';
    /** `request`, or `notification`. */
    this.type = type;
    /** When it reached the server (ms since the epoch). */
    this.timestamp = Date.now();
    this._call = call;
  }

  /** The round of a 2026-07-28 multi round-trip call (0 on the first; legacy: 0). */
  get round() {
    return this.ctx._round();
  }

  /**
   * A value for the handler (`ctx.getState(key)`) and later links, this request only.
   * @param {string} key
   * @param {unknown} value
   */
  setState(key, value) {
    this.ctx.setState(key, value);
  }

  /**
   * A value set with setState for this request.
   * @param {string} key
   * @returns {unknown}
   */
  getState(key) {
    return this.ctx.getState(key);
  }
}

/** The hooks a server's middleware defines, per method, composed once: an entry called with
 * a context runs the hooks in order, then the context's handler. */
class Chain {
  /** @param {Middleware[]} links */
  constructor(links) {
    /** @type {Map<string, (context: MiddlewareContext) => unknown>} */
    this.byMethod = new Map();
    for (const [method, own] of Object.entries(HOOKS)) {
      /** @type {Hook[]} */
      const hooks = [];
      for (const link of links) {
        for (const name of ['onMessage', 'onRequest', own]) {
          const hook = /** @type {any} */ (link)[name];
          if (typeof hook === 'function') hooks.push(hook.bind(link));
        }
      }
      if (!hooks.length) continue;
      /** @type {(context: MiddlewareContext) => unknown} */
      let entry = (c) => c._call(c);
      for (const hook of hooks.reverse()) {
        const rest = entry;
        entry = (c) => hook(c, rest);
      }
      this.byMethod.set(method, entry);
    }
    // A notification passes onMessage and onNotification, then the server's handlers.
    /** @type {Hook[]} */
    const notified = [];
    for (const link of links) {
      for (const name of ['onMessage', 'onNotification']) {
        const hook = /** @type {any} */ (link)[name];
        if (typeof hook === 'function') notified.push(hook.bind(link));
      }
    }
    if (notified.length) {
      /** @type {(context: MiddlewareContext) => unknown} */
      let entry = (c) => c._call(c);
      for (const hook of notified.reverse()) {
        const rest = entry;
        entry = (c) => hook(c, rest);
      }
      this.byMethod.set(NOTIFICATION, entry);
    }
  }

  /**
   * The entry of the hooks `method` passes (a value, or a Promise of one when a hook or the
   * handler awaits), or undefined when it passes none.
   * @param {string} method
   */
  hooks(method) {
    return this.byMethod.get(method);
  }

  /** The lists (engine names) some hook sees: the engine hands those to the chain. */
  lists() {
    return Object.entries(LIST_METHODS)
      .filter(([, method]) => this.byMethod.has(method))
      .map(([name]) => name);
  }
}

/**
 * Checks what `server.use` was given.
 * @param {unknown} link
 * @returns {Middleware}
 */
function checkLink(link) {
  if (link === null || typeof link !== 'object') {
    throw new TypeError(`server.use takes a middleware object (with ${HOOK_NAMES.join(', ')}), not ${link === null ? 'null' : typeof link}`);
  }
  const named = HOOK_NAMES.filter((n) => n in link);
  for (const n of named) {
    if (typeof (/** @type {any} */ (link)[n]) !== 'function') throw new TypeError(`middleware.${n} must be a function`);
  }
  return /** @type {Middleware} */ (link);
}

/**
 * A middleware the engine runs (the built-ins below): it passes no call through JavaScript,
 * so it costs a few atomics a call. Added with `server.use` like any other; they run around
 * the JavaScript middleware (first, in the order they were added), on every transport and in
 * both eras. Options are checked when it is made (an `OptionError` names the wrong one).
 */
class BuiltinMiddleware {
  /** @param {string} kind @param {Record<string, unknown>} options */
  constructor(kind, options) {
    /** @type {string} the engine's name of it */
    this._kind = kind;
    /** @type {Record<string, unknown>} */
    this._options = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined && v !== null));
    new (require('./native.cjs').BuiltinMiddleware)().add(kind, JSON.stringify(this._options));
  }
}

/**
 * A token bucket per client (FastMCP's `RateLimitingMiddleware`): `burstCapacity` calls at
 * once (twice `maxRequestsPerSecond` by default), refilled at `maxRequestsPerSecond`. The
 * client is its token's subject, else its legacy session, else its address; `globalLimit`
 * shares one bucket among all. `tools` gives tools a bucket of their own on top; `store:
 * 'redis://host:6379/0'` keeps buckets in Redis, shared by every replica. A refused request
 * gets a `RateLimited` error (-32029) with `data.retryAfterMs`.
 */
class RateLimitingMiddleware extends BuiltinMiddleware {
  /** @param {import('./types/server').RateLimitingOptions} [options] */
  constructor(options = {}) {
    super('rate_limiting', { maxRequestsPerSecond: 10, ...options });
  }
}

/**
 * Keeps successful tool results and resource contents for `ttl` ms (FastMCP's
 * `ResponseCachingMiddleware`), keyed by the tool's name and arguments (or the URI) and the
 * caller's token subject: a call met again within `ttl` is answered from the cache and
 * never reaches JavaScript. `tools` / `excludedTools` choose the tools, `resources: false`
 * keeps no resource contents. A tool's results are forgotten when the tool list changes, a
 * resource's when it is updated or the resource list changes. `store: 'redis://…'` keeps
 * the answers in Redis, shared by every replica.
 */
class ResponseCachingMiddleware extends BuiltinMiddleware {
  /** @param {import('./types/server').ResponseCachingOptions} [options] */
  constructor(options = {}) {
    super('response_caching', { ttl: 60_000, ...options });
  }
}

/** Duration histograms per method and per tool (`hypermcp_request_duration_seconds`,
 * `hypermcp_tool_duration_seconds`) in `metricsText()` and on `metricsPath`. */
class TimingMiddleware extends BuiltinMiddleware {
  constructor() {
    super('timing', {});
  }
}

/**
 * One line a request (FastMCP's `LoggingMiddleware`), `[hypermcp::requests] request
 * method="tools/call" name="echo" outcome="ok" duration_ms=0.21 ...`, formatted by the engine
 * and handed over in batches. Sent to the logger of `setLogger` (its level lowered to `level`
 * if need be), or to `logger` (default `console`) when none was set.
 */
class LoggingMiddleware extends BuiltinMiddleware {
  /** @param {import('./types/server').LoggingOptions} [options] */
  constructor(options = {}) {
    const { logger, ...rest } = options;
    super('logging', rest);
    /** @type {object} */
    this._logger = logger ?? console;
    /** @type {string} */
    this._level = String(rest.level ?? 'info').toLowerCase();
  }
}

module.exports = {
  Chain,
  MiddlewareContext,
  checkLink,
  HOOKS,
  CUSTOM,
  NOTIFICATION,
  LIST_METHODS,
  BuiltinMiddleware,
  RateLimitingMiddleware,
  ResponseCachingMiddleware,
  TimingMiddleware,
  LoggingMiddleware,
};
