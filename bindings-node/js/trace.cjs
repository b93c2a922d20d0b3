'use strict';
// W3C trace context and OpenTelemetry spans.
//
// A handler reads the caller's trace as `ctx.traceContext` (parsed by the engine). While it
// runs, the trace is current (AsyncLocalStorage): a request this process's clients send
// meanwhile carries it on in `_meta`. When the app uses OpenTelemetry (`@opentelemetry/api`
// with a registered provider; never a dependency of hypermcp), each request a server serves
// gets a SERVER span whose parent is the caller's span from `_meta`, and each request a
// client sends a CLIENT span injected into `_meta` with the app's propagators, named and
// attributed as the OpenTelemetry conventions for MCP say.

const { AsyncLocalStorage } = require('node:async_hooks');
const native = require('./native.cjs');
const { McpError, RequestTimeout } = require('./errors.cjs');
const { InputRequired, readOrigin } = require('./context.cjs');

/** The `_meta` keys of a trace. */
const KEYS = ['traceparent', 'tracestate', 'baggage'];
/** The global @opentelemetry/api 1.x registers a provider, propagator or context manager under. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
/** @type {Record<string, string>} what each kind of call event is on the wire */
const METHODS = { tool: 'tools/call', resource: 'resources/read', prompt: 'prompts/get', complete: 'completion/complete' };

/** @type {AsyncLocalStorage<Record<string, string>>} the trace of the request being served */
const current = new AsyncLocalStorage();

/** @type {any} @opentelemetry/api once found; null when it cannot be loaded */
let api;

/**
 * @opentelemetry/api, when the app registered something with it (else null: nothing is
 * loaded, and nothing would be recorded anyway).
 * @returns {any}
 */
function otel() {
  if (api !== undefined) return api;
  if (/** @type {any} */ (globalThis)[OTEL_GLOBAL] === undefined) return null;
  try {
    api = require('@opentelemetry/api');
  } catch {
    api = null;
  }
  return api;
}

/** The trace context a request came with (`ctx.traceContext`). */
class TraceContext {
  /** @param {any} parsed the engine's reading */
  constructor(parsed) {
    /** @type {string} the `traceparent` to send on, at version 00 */
    this.traceparent = parsed.traceparent;
    /** @type {string} 32 hex digits */
    this.traceId = parsed.traceId;
    /** @type {string} the caller's span, 16 hex digits */
    this.parentId = parsed.parentId;
    /** @type {number} */
    this.flags = parsed.flags;
    /** @type {boolean} */
    this.sampled = parsed.sampled;
    /** @type {string | null} */
    this.tracestate = parsed.tracestate;
    /** @type {Record<string, string>} the decoded W3C baggage entries */
    this.baggage = parsed.baggageItems;
    /** @type {string | null} the raw `baggage` value */
    this.baggageHeader = parsed.baggage;
  }

  /**
   * The `_meta` keys that carry it on.
   * @returns {Record<string, string>}
   */
  toMeta() {
    /** @type {Record<string, string>} */
    const meta = { traceparent: this.traceparent };
    if (this.tracestate != null) meta.tracestate = this.tracestate;
    if (this.baggageHeader != null) meta.baggage = this.baggageHeader;
    return meta;
  }
}

/**
 * The trace context of a request's `_meta` (null without a valid `traceparent`).
 * @param {any} meta
 * @returns {TraceContext | null}
 */
function parse(meta) {
  if (meta == null || typeof meta.traceparent !== 'string') return null;
  const text = (/** @type {unknown} */ v) => (typeof v === 'string' ? v : null);
  const json = native.traceContext(meta.traceparent, text(meta.tracestate), text(meta.baggage));
  return json == null ? null : new TraceContext(JSON.parse(json));
}

/**
 * The span name and attributes the OpenTelemetry conventions for MCP give a request.
 * @param {string} method
 * @param {unknown} name
 * @param {unknown} uri
 * @returns {[string, Record<string, string>]}
 */
function describe(method, name, uri) {
  /** @type {Record<string, string>} */
  const attrs = { 'mcp.method.name': method };
  let spanName = method;
  if (method === 'tools/call' && typeof name === 'string' && name) {
    attrs['gen_ai.tool.name'] = name;
    attrs['gen_ai.operation.name'] = 'execute_tool';
    spanName = `${method} ${name}`;
  } else if (method === 'prompts/get' && typeof name === 'string' && name) {
    attrs['gen_ai.prompt.name'] = name;
    spanName = `${method} ${name}`;
  }
  if (typeof uri === 'string' && uri) attrs['mcp.resource.uri'] = uri;
  return [spanName, attrs];
}

/**
 * `error.type` of a failed request: the JSON-RPC code, `tool_error` for a tool that failed,
 * `timeout`, `cancelled`, or the error's name.
 * @param {unknown} err
 * @param {boolean} tool
 */
function errorType(err, tool) {
  if (err instanceof RequestTimeout) return 'timeout';
  if (err instanceof McpError) return String(err.rpcCode);
  if (err instanceof Error && err.name === 'AbortError') return 'cancelled';
  return tool ? 'tool_error' : err instanceof Error ? err.name : typeof err;
}

/**
 * Ends a span: with the error when there is one.
 * @param {any} span
 * @param {unknown} err
 * @param {boolean} tool
 */
function end(span, err, tool) {
  if (err !== undefined && err !== null) {
    const kind = errorType(err, tool);
    span.setAttribute('error.type', kind);
    if (err instanceof McpError) span.setAttribute('rpc.response.status_code', String(err.rpcCode));
    if (err instanceof Error) span.recordException(err);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

/**
 * One request being served: its trace current while the handler runs, its span when the
 * app uses OpenTelemetry, ended when the handler settles.
 */
class ServerScope {
  /**
   * @param {any} ev the call event
   * @param {any} E the event layout
   * @param {{protocolVersion: string | null}} session its session (read only for a span)
   */
  constructor(ev, E, session) {
    const kind = ev[E.KIND];
    const meta = ev[E.META];
    this.tool = kind === 'tool';
    /** @type {Record<string, string> | null} */
    this.carried = null;
    if (meta != null && typeof meta.traceparent === 'string') {
      /** @type {Record<string, string>} */
      const carried = {};
      for (const k of KEYS) if (typeof meta[k] === 'string') carried[k] = meta[k];
      this.carried = carried;
    }
    /** @type {any} */
    this.span = null;
    /** @type {any} */
    this.context = null;
    const otelApi = otel();
    if (otelApi !== null) {
      const name = kind === 'tool' ? ev[E.TOOL_NAME] : kind === 'prompt' ? ev[E.PROMPT_NAME] : null;
      const [spanName, attributes] = describe(METHODS[kind], name, kind === 'resource' ? ev[E.RESOURCE_URI] : null);
      // Read (and kept read for the handler's ctx) only when spans are made.
      const origin = (ev[E.ORIGIN] = readOrigin(ev[E.ORIGIN]));
      attributes['jsonrpc.request.id'] = String(ev[E.ID]);
      attributes['network.transport'] = origin == null ? 'pipe' : 'tcp';
      const protocolVersion = ev[E.CONTEXT]?.protocolVersion ?? session.protocolVersion;
      if (protocolVersion) attributes['mcp.protocol.version'] = protocolVersion;
      if (origin?.sessionId) attributes['mcp.session.id'] = origin.sessionId;
      const parent = otelApi.propagation.extract(otelApi.context.active(), meta ?? {});
      this.span = otelApi.trace.getTracer('hypermcp').startSpan(spanName, { kind: otelApi.SpanKind.SERVER, attributes }, parent);
      this.context = otelApi.trace.setSpan(parent, this.span);
    }
  }

  /**
   * Runs `fn` (the handler) under the trace.
   * @template T
   * @param {() => T} fn
   * @returns {T}
   */
  run(fn) {
    const inner = this.context === null ? fn : () => api.context.with(this.context, fn);
    return this.carried === null ? inner() : current.run(this.carried, inner);
  }

  /**
   * Ends the span (once): `err` when the handler failed, `value` its result, `round` when a
   * 2026-07-28 round ended it (input_required: not a failure).
   * @param {unknown} err
   * @param {unknown} [value]
   * @param {boolean} [round]
   */
  finish(err, value, round = false) {
    const span = this.span;
    if (span === null) return;
    this.span = null;
    if (err instanceof InputRequired) round = true; // the low-level form
    if (round) {
      span.setAttribute('mcp.result.type', 'input_required');
      span.end();
    } else if (err == null && this.tool && /** @type {any} */ (value)?.isError === true) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the tool reported an error' });
      span.end();
    } else {
      end(span, err, this.tool);
    }
  }
}

/**
 * Whether a request sent now has a trace to carry (OpenTelemetry in use, or a handler's
 * trace current).
 */
function active() {
  return /** @type {any} */ (globalThis)[OTEL_GLOBAL] !== undefined || current.getStore() !== undefined;
}

/**
 * Adds the current trace to `params._meta` (keys already there are kept) and, when the app
 * uses OpenTelemetry, starts the request's CLIENT span.
 * @param {string} method
 * @param {any} params
 * @param {string | null} transport
 * @param {string | null} protocolVersion
 * @returns {[any, any]} the params to send and the span (or null)
 */
function clientBegin(method, params, transport, protocolVersion) {
  /** @type {Record<string, string>} */
  const carrier = {};
  let span = null;
  const otelApi = otel();
  if (otelApi !== null) {
    const isObject = params !== null && typeof params === 'object';
    const [spanName, attributes] = describe(method, isObject ? params.name : null, isObject ? params.uri : null);
    if (transport) attributes['network.transport'] = transport;
    if (protocolVersion) attributes['mcp.protocol.version'] = protocolVersion;
    span = otelApi.trace.getTracer('hypermcp').startSpan(spanName, { kind: otelApi.SpanKind.CLIENT, attributes });
    otelApi.propagation.inject(otelApi.trace.setSpan(otelApi.context.active(), span), carrier);
  }
  if (!carrier.traceparent) Object.assign(carrier, current.getStore() ?? {});
  if (Object.keys(carrier).length === 0 || Array.isArray(params)) return [params, span];
  const out = params !== null && typeof params === 'object' ? { ...params } : {};
  const meta = out._meta !== null && typeof out._meta === 'object' ? { ...out._meta } : {};
  for (const [k, v] of Object.entries(carrier)) if (!(k in meta)) meta[k] = v;
  out._meta = meta;
  return [out, span];
}

/**
 * Ends a CLIENT span.
 * @param {any} span
 * @param {number | null} requestId
 * @param {unknown} err
 * @param {boolean} toolFailed a tool result that says it failed (`isError`)
 */
function clientEnd(span, requestId, err, toolFailed) {
  if (requestId != null) span.setAttribute('jsonrpc.request.id', String(requestId));
  if (err == null && toolFailed) {
    span.setAttribute('error.type', 'tool_error');
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the tool reported an error' });
  }
  end(span, err, false);
}

module.exports = { TraceContext, ServerScope, parse, active, clientBegin, clientEnd, otel };
