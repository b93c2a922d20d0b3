// Type definitions for hypermcp: the `ctx` every handler receives (Context).
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

/// <reference types="node" />

import type {
  ClientCapabilities,
  Implementation,
  JsonSchemaObject,
  LoggingLevel,
  Meta,
  ProgressToken,
  ProtocolVersion,
  RequestId,
  Root,
} from './protocol.js';
import type { CreateMessageParams, CreateMessageResult, ElicitResult, SamplingMessage } from './sampling.js';
import type { InferArgs, ObjectSchema } from './schema.js';
import type { Server } from './server.js';

// =============================================================================================
// Context
// =============================================================================================

/** Options of a request a handler sends to the client. */
export interface ContextRequestOptions {
  /** Milliseconds to wait for the answer (default: the server's `requestTimeout`). */
  timeout?: number;
  /** Aborts the request (default: the handler's own `ctx.signal`). */
  signal?: AbortSignal;
  /**
   * The key of this input in a 2026-07-28 `inputRequests` map (default: the method's short
   * name and a call counter, `elicitation_1`: stable while the handler asks in the same order).
   */
  key?: string;
}

/**
 * What a 2026-07-28 request declares about itself (`ctx` reads it; null in a legacy session).
 * Over HTTP, requests whose `_meta` read the same share one, frozen (read-only).
 */
export interface RequestContext {
  /** The revision it speaks. */
  protocolVersion: ProtocolVersion;
  /** The client's capabilities for this request. */
  clientCapabilities: ClientCapabilities;
  /** The client's name and version, when it said. */
  clientInfo?: Implementation | null;
  /** The lowest log level it wants; absent: no log messages. */
  logLevel?: LoggingLevel | null;
  /** Its answers to input requests so far. */
  inputResponses?: Record<string, unknown> | null;
  /** The handler's own state from the previous round. */
  requestState?: string | null;
  /** Rounds before this attempt. */
  round: number;
}

/** Who a request's verified access token speaks for (`ctx.auth`). */
export interface AuthInfo {
  /** The subject (`sub`): the user, or the client acting on its own behalf. */
  subject: string | null;
  /** The client the token was issued to (`client_id`, else `azp`). */
  clientId: string | null;
  /** The scopes granted. */
  scopes: string[];
  /** When the token expires (seconds since the Unix epoch), if it says. */
  expiresAt: number | null;
  /** Every claim of the token (or of the introspection answer). */
  claims: Record<string, unknown>;
}

/** The HTTP request a call came in, as the engine hands it over (internal). */
export interface Origin {
  headers: Array<[string, string]>;
  sessionId?: string | null;
  auth?: { subject?: string | null; client_id?: string | null; scopes?: string[]; expires_at?: number | null; claims?: Record<string, unknown> } | null;
}

/**
 * Throw (or return) in a tool, prompt or resource handler to end a 2026-07-28 call with your
 * own `input_required` result (the low-level form of multi round-trip requests): `requests`
 * by key, and `state` that comes back sealed as `ctx.requestState` on the retry.
 */
export declare class InputRequired extends Error {
  constructor(requests?: Record<string, { method: string; params?: object }>, state?: string);
  /** The input requests, by key. */
  requests: Record<string, { method: string; params?: object }>;
  /** State of the handler's own. */
  state: string | undefined;
}

/** What `ctx.sample()` accepts as messages: a string, or strings and messages. */
export type SampleInput = string | ReadonlyArray<string | SamplingMessage>;

/**
 * The `ctx` every handler receives as its last argument: progress, logging, elicitation,
 * sampling, roots, the request's identity and `ctx.signal`. `L` is the type of the server's
 * lifespan context (`ctx.server.lifespanContext`).
 *
 * Both eras, one handler: `elicit`, `sample` and `listRoots` work for every client. With a
 * 2026-07-28 client the call ends with `input_required`, the client answers and retries, and
 * the handler runs again from the start (the awaited call then resolves with the answer):
 * code before such an await runs once per round, so put side effects after the inputs.
 */
/**
 * The W3C trace context of a request (`ctx.traceContext`), as the engine read it from
 * `_meta`: an invalid `traceparent` is no trace context; an invalid `tracestate` is left
 * out; baggage entries that do not parse are skipped.
 */
export declare class TraceContext {
  private constructor();
  /** The `traceparent` to send on, at version 00. */
  readonly traceparent: string;
  /** The trace's id: 32 lower-case hex digits. */
  readonly traceId: string;
  /** The caller's span id: 16 hex digits. */
  readonly parentId: string;
  /** The trace flags (bit 0: sampled). */
  readonly flags: number;
  /** Whether the caller records this trace. */
  readonly sampled: boolean;
  /** The vendors' `tracestate`, or null. */
  readonly tracestate: string | null;
  /** The decoded W3C baggage entries. */
  readonly baggage: Record<string, string>;
  /** The raw `baggage` value, or null. */
  readonly baggageHeader: string | null;
  /** The `_meta` keys that carry it on (`traceparent`, and `tracestate` / `baggage` when there are). */
  toMeta(): Record<string, string>;
}

export declare class Context<L = unknown> {
  /** Contexts are made by the server for each request. */
  private constructor();
  /** The JSON-RPC id of the request. */
  readonly requestId: RequestId;
  /** The progress token the client asked progress under, or null. */
  readonly progressToken: ProgressToken | null;
  /** The request's `_meta`, or null. */
  readonly meta: Meta | null;
  /**
   * Keeps `value` under `key` for the rest of this request (middleware hands the handler
   * values this way: `context.setState` in a hook, `ctx.getState` here).
   */
  setState(key: string, value: unknown): void;
  /** A value set with setState for this request, or undefined. */
  getState(key: string): unknown;
  /**
   * The W3C trace context the caller sent in `_meta` (`traceparent`, `tracestate`,
   * `baggage`), or null when it sent no valid one. While this handler runs, the requests
   * your clients send carry it on (or, when the app uses OpenTelemetry, this request's span).
   */
  readonly traceContext: TraceContext | null;
  /** An AbortSignal that fires when the client cancels this request (or the connection ends). */
  readonly signal: AbortSignal;
  /** Whether the client cancelled this request, or its task (`tasks/cancel`). */
  readonly cancelled: boolean;
  /** The id of the task this call runs as (tasks extension), or null. */
  readonly taskId: string | null;
  /**
   * Turns this call into a task (a tool registered with `task: 'manual'`): the client is
   * answered with the task at once and this handler goes on as the task's (its result, its
   * progress as the status message, its input requests answered with `tasks/update`).
   * Resolves false when the call cannot become a task (its client did not declare the
   * extension, or the tool is not in manual mode).
   */
  startTask(): Promise<boolean>;
  /** The client's `{name, version, ...}` (null before the handshake). Read-only at 2026-07-28 over HTTP. */
  readonly clientInfo: Implementation | null;
  /** The capabilities the client declared. Read-only at 2026-07-28 over HTTP. */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * The settings of extension `id` when the client declared it (with this request at
   * 2026-07-28, at initialize before), else null.
   */
  clientExtension(id: string): Record<string, unknown> | null;
  /**
   * The client's settings of extension `id`; throws MissingRequiredClientCapability (-32021,
   * naming it in `data.requiredCapabilities.extensions`) when the client did not declare it.
   */
  requireExtension(id: string): Record<string, unknown>;
  /** The protocol revision this request speaks. */
  readonly protocolVersion: ProtocolVersion | null;
  /** The client's answers to input requests so far (2026-07-28; null otherwise). */
  readonly inputResponses: Record<string, unknown> | null;
  /** The state the handler threw InputRequired with in the previous round (2026-07-28). */
  readonly requestState: string | null;
  /**
   * The HTTP headers of the request (a fetch `Headers`; empty over stdio). A verified token's
   * `Authorization` and `DPoP` headers are left out: see `auth`.
   */
  readonly headers: Headers;
  /** The `Mcp-Session-Id` of a legacy HTTP session (null over stdio, stateless, 2026-07-28). */
  readonly sessionId: string | null;
  /** Who the request's access token speaks for, when the HTTP server verifies tokens (null otherwise). */
  readonly auth: AuthInfo | null;
  /** The Server serving this request. */
  readonly server: Server<L>;

  /**
   * Reports progress (`notifications/progress`); values must increase. Resolves false when
   * the client asked for no progress.
   */
  reportProgress(progress: number, total?: number, message?: string): Promise<boolean>;
  /**
   * Over HTTP, closes the SSE connection this call answers on after a `retry` hint; the
   * client reconnects with `Last-Event-ID` and gets the rest (SSE polling, 2025-11-25).
   * Returns false where there is no such stream (stdio, in-memory, JSON replies).
   */
  closeSseStream(): boolean;
  /** Sends a log message (`notifications/message`), filtered by the client's level. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Logs at level `debug`. */
  debug(data: unknown, logger?: string): Promise<void>;
  /** Logs at level `info`. */
  info(data: unknown, logger?: string): Promise<void>;
  /** Logs at level `warning`. */
  warning(data: unknown, logger?: string): Promise<void>;
  /** Logs at level `error`. */
  error(data: unknown, logger?: string): Promise<void>;

  /**
   * Asks the user to fill a form (`elicitation/create`, form mode). `requestedSchema` is a flat
   * JSON Schema object, a zod object or a zod raw shape; `content` is typed from it.
   * Rejects with MethodNotFound when the client cannot elicit.
   */
  elicit<const S extends ObjectSchema = JsonSchemaObject>(
    message: string,
    requestedSchema?: S,
    options?: ContextRequestOptions,
  ): Promise<ElicitResult<InferArgs<S>>>;
  /** Asks the user to open a URL (URL-mode elicitation, 2025-11-25). */
  elicitUrl(message: string, url: string | URL, elicitationId?: string, options?: ContextRequestOptions): Promise<ElicitResult>;
  /** Tells the client a URL-mode elicitation finished (`notifications/elicitation/complete`). */
  elicitationComplete(elicitationId: string): void;
  /**
   * Shows this caller, and no one else, the components that match, over the server's rules
   * (the legacy session; at 2026-07-28 over stdio the connection; over HTTP without a
   * session the subject of the request's access token; a request without any of these is
   * refused). The caller is told of each list it now sees differently.
   */
  enableComponents(filter: import('./server').VisibilityFilter): Promise<void>;
  /** Hides from this caller the components that match (see `enableComponents`). */
  disableComponents(filter: import('./server').VisibilityFilter): Promise<void>;
  /** Drops this caller's own rules: it sees what the server's rules show. */
  resetVisibility(): Promise<void>;
  /**
   * Asks the client's model for a message (`sampling/createMessage`). Strings become user
   * messages; other parameters (`maxTokens`, default 1024, `systemPrompt`, `temperature`,
   * `tools`...) go in `params`.
   */
  sample(
    messages: SampleInput,
    params?: Partial<Omit<CreateMessageParams, 'messages'>>,
    options?: ContextRequestOptions,
  ): Promise<CreateMessageResult>;
  /** The client's roots (`roots/list`). */
  listRoots(options?: ContextRequestOptions): Promise<Root[]>;
  /** Pings the client. */
  ping(options?: ContextRequestOptions): Promise<void>;
  /** Sends any request to the client on behalf of this one; resolves with its result. */
  request<T = unknown>(method: string, params?: object, options?: ContextRequestOptions): Promise<T>;
}
