// Type definitions for hypermcp: Server, its options and HTTP serving, and the handler and
// configuration types of tools, resources, prompts and completions.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

/// <reference types="node" />

import type {
  Annotations,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Icon,
  JsonValue,
  Meta,
  PromptArgument,
  ReadResourceResult,
  Role,
  ToolAnnotations,
} from './protocol.js';
import type { ContentBlock } from './content.js';
import type { InferArgs, InferShape, ObjectSchema, Simplify, ZodRawShape } from './schema.js';
import type { DefinitionError } from './errors.js'; // for a {@link}
import type { Context } from './context.js';

// =============================================================================================
// Server
// =============================================================================================

/** What a lifespan function returns: a context for handlers and a cleanup. */
export interface LifespanResult<L> {
  /** Shared state, available as `server.lifespanContext` (and `ctx.server.lifespanContext`). */
  context?: L;
  /** Called once serving ends (after the last connection closes). */
  close?: () => unknown;
}

/** Options of `new Server(...)`. */
export interface ServerOptions<L = unknown> {
  /** The server's name (`serverInfo.name`). */
  name: string;
  /** Its version (default `"0.1.0"`). */
  version?: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its home page. */
  websiteUrl?: string;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** How to use it, sent to the client in the `initialize` answer. */
  instructions?: string;
  /** Entries per page of the `tools/list`, `resources/list`... answers. */
  pageSize?: number;
  /** Milliseconds the server waits for answers to its own requests (default 60000). */
  requestTimeout?: number;
  /** The largest message accepted, in bytes. */
  maxMessageSize?: number;
  /**
   * Caching hints of 2026-07-28 results (`ttlMs`, `cacheScope`): a default and per list or
   * resource reads. Default: stale at once, private.
   */
  cache?: CachePolicy;
  /**
   * Base64 keys of 32 bytes that seal `requestState` (2026-07-28 multi round-trip requests):
   * the first seals, all open, so keys rotate and replicas share them. Default:
   * `HYPERMCP_REQUEST_STATE_KEYS`, else a random key per process.
   */
  requestStateKeys?: string[];
  /** Milliseconds a sealed `requestState` stays valid (default 600000). */
  requestStateTtl?: number;
  /** The audience `requestState` is bound to (default: the server's name). */
  requestStateAudience?: string;
  /** Most `subscriptions/listen` streams open at once (2026-07-28; default 1000). */
  maxListeners?: number;
  /**
   * The server's name and version in each 2026-07-28 result's `_meta`
   * (`io.modelcontextprotocol/serverInfo`; default true).
   */
  identifyInResults?: boolean;
  /**
   * Extensions the server supports, `{ 'com.example/widgets': {...settings} }` (`{}` for
   * none), declared in `capabilities.extensions` of `server/discover` and `initialize`. Every
   * extension is off until named here; handlers see the client's with `ctx.clientExtension(id)`.
   */
  extensions?: Record<string, Record<string, unknown>>;
  /**
   * Runs tool calls as tasks (`io.modelcontextprotocol/tasks`, 2026-07-28; and the
   * experimental tasks of 2025-11-25 sessions, served by the same handlers): `true`, or how
   * tasks are kept (see `server.enableTasks`). Tools opt in with `{ task: ... }`.
   */
  tasks?: boolean | TaskOptions;
  /** Middleware, in the order it runs (as `server.use` adds it). */
  middleware?: (Middleware<L> | BuiltinMiddleware)[];
  /**
   * Hide what unexpected handler errors say (FastMCP's `mask_error_details`): the client
   * reads `Error calling tool "name"` (and the like for resources, prompts, methods), the
   * error and its stack go to the log (`[hypermcp::errors]`, see `setLogger`). A `ToolError`
   * or `McpError` passes unchanged. Default false.
   */
  maskErrorDetails?: boolean;
  /**
   * Runs before serving starts; its `context` is shared by every handler
   * (`ctx.server.lifespanContext`), its `close` runs when serving ends.
   */
  lifespan?: (server: Server) => LifespanResult<L> | void | PromiseLike<LifespanResult<L> | void>;
}

/** Caching hints of one kind of 2026-07-28 result. */
export interface CacheHints {
  /** Milliseconds the client may consider the result fresh (0: stale at once). */
  ttlMs: number;
  /** Who may cache it: `"public"` (anyone) or `"private"` (the same authorization context). */
  cacheScope?: 'public' | 'private';
}

/** Caching hints of a server's 2026-07-28 results: a default, and per kind. */
export interface CachePolicy {
  /** Every cacheable result without a more specific entry. */
  default?: CacheHints;
  /** `server/discover`. */
  discover?: CacheHints;
  /** `tools/list`. */
  tools?: CacheHints;
  /** `prompts/list`. */
  prompts?: CacheHints;
  /** `resources/list`. */
  resources?: CacheHints;
  /** `resources/templates/list`. */
  resourceTemplates?: CacheHints;
  /** `resources/read` (a handler may return its own `ttlMs` / `cacheScope`). */
  resourceReads?: CacheHints;
}

/** Options of `server.run()` serving stdio (the default). */
export interface StdioRunOptions {
  /** The transport: `"stdio"` (the default). */
  transport?: 'stdio';
  /** Input stream (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream;
  /** Output stream (default `process.stdout`). */
  stdout?: NodeJS.WritableStream;
  /** Milliseconds to let in-flight calls answer once the input ends (default 10000). */
  graceMs?: number;
}

/**
 * Options of the HTTP transports (`server.run({transport: "http"})`, `server.startHttp()`,
 * `server.httpHandler()`). Durations are in milliseconds. Any other name is a TypeError.
 */
export interface HttpOptions {
  /** The Streamable HTTP endpoint (default `"/mcp"`). */
  path?: string;
  /** No sessions: every POST stands alone; GET and DELETE answer 405 (default false). */
  stateless?: boolean;
  /** Answer every request with one JSON body, never an SSE stream (default false). */
  jsonResponse?: boolean;
  /**
   * Accepted `Host` values (`name` matches any port, `name:port` one port); empty: any host.
   * Default: localhost, 127.0.0.1 and [::1] (DNS-rebinding protection); emptied when bound to
   * a non-loopback address and left at the default.
   */
  allowedHosts?: string[];
  /**
   * Accepted `Origin` values (`scheme://host` matches any port); requests without `Origin`
   * are always accepted. Empty: same-origin only. Default: the localhost origins.
   */
  allowedOrigins?: string[];
  /** Largest accepted request body in bytes (413 above; default 4 MiB). */
  maxBody?: number;
  /** A session idle this long is closed (default 600000: 10 minutes). */
  sessionIdleTimeout?: number;
  /** Most sessions at once; one more evicts the longest-idle one (default 10000). */
  maxSessions?: number;
  /** SSE keep-alive comment period (default 15000); `0` or `false`: never. */
  keepAlive?: number | false;
  /** The reconnect delay sent to SSE clients (default 1000). */
  retry?: number;
  /** A call still running after this long gets an SSE stream rather than JSON (default 100). */
  jsonWait?: number;
  /** Also serve the legacy HTTP+SSE transport (2024-11-05) (default true). */
  legacySse?: boolean;
  /** The legacy SSE endpoint (default `"/sse"`). */
  ssePath?: string;
  /** The legacy message endpoint (default `"/messages"`). */
  messagesPath?: string;
  /**
   * Bytes a `subscriptions/listen` stream (2026-07-28) may have waiting for a client that does
   * not read; past it the subscription is dropped (default 262144: 256 KiB).
   */
  listenerBuffer?: number;
  /**
   * Bytes any other SSE stream may have waiting for a client that does not read (default
   * 8388608: 8 MiB). Past it a resumable stream drops its connection (the client resumes with
   * `Last-Event-ID`, nothing lost), a legacy SSE stream ends with its session, and a legacy
   * POST arriving while its stream holds more than half of it gets 429.
   */
  streamBuffer?: number;
  /**
   * A request body not in full this long after its headers gets 408 and its connection is
   * closed (default 30000); `false`: never. Where the engine listens (`run`, `startHttp`).
   */
  bodyReadTimeout?: number | false;
  /** A connection that sends no complete request head this long is closed (default 30000). */
  headerReadTimeout?: number | false;
  /**
   * Most connections served at once; more wait in the listen queue (default 10000; `0`: no
   * cap). Where the engine listens (`run`, `startHttp`).
   */
  maxConnections?: number;
  /**
   * Most sessions one client address may hold (default 1000; `0`: no quota): at it, its own
   * longest-idle session makes room (429 when all are busy). At `maxSessions` the address
   * holding the most sessions gives one up first. Loopback addresses have no quota.
   */
  maxSessionsPerClient?: number;
  /**
   * A header naming the client's address, set by a trusted reverse proxy (`"x-forwarded-for"`:
   * its last address, or `"x-real-ip"`): what the session quota counts by. Default: the
   * connection's peer address.
   */
  clientAddressHeader?: string;
  /**
   * Serve the engine's counters (`metrics()`) as Prometheus text at this path (`'/metrics'`),
   * to GET, before any authorization: expose it only where that is fine. Default: none.
   */
  metricsPath?: string;
  /**
   * Serve HTTPS: a PEM file of the certificate chain (with `tlsKey`). Only where the engine
   * listens (`run`, `startHttp`); a mounted `httpHandler()` is served by your own server.
   */
  tlsCert?: string;
  /** The PEM file of the certificate's private key (PKCS#8, PKCS#1 or SEC1). */
  tlsKey?: string;
  /**
   * CORS for browser clients (default false): preflight `OPTIONS` answered, and
   * `Access-Control-Allow-Origin` (an origin `allowedOrigins` admits, or same-origin) plus
   * `Access-Control-Expose-Headers` (`Mcp-Session-Id`, `Mcp-Protocol-Version`,
   * `WWW-Authenticate`, `DPoP-Nonce`) on the answers.
   */
  cors?: boolean;
  /**
   * Require an OAuth access token (the server as an OAuth 2.1 resource server): the Protected
   * Resource Metadata is served at its well-known URLs, a request without a valid token gets
   * 401 with `WWW-Authenticate: Bearer resource_metadata=...`, one without `requiredScopes` 403.
   */
  auth?: ResourceServerOptions;
  /**
   * Share sessions, SSE events, tasks and catalogue changes with the other replicas of this
   * server through a store: `"redis://host:6379/0"`. Any replica then serves any request of
   * a session (behind a load balancer without sticky sessions). Default: the `HYPERMCP_STORE`
   * environment variable, if set; else sessions live in this process. A store that cannot be
   * reached fails `startHttp()` / `run()` with a message naming it.
   */
  store?: string;
}

/** The server as an OAuth 2.1 resource server (`auth` in the HTTP options). */
export interface ResourceServerOptions {
  /** This server's canonical URI (what clients ask tokens for; the audience tokens must name). */
  resource: string;
  /** The authorization servers (issuers) whose tokens are accepted. */
  authorizationServers: string[];
  /** The scopes published in the metadata. */
  scopesSupported?: string[];
  /** Scopes every request needs. */
  requiredScopes?: string[];
  /**
   * Leave the entries whose own scopes a token lacks out of its lists, and answer a call by
   * name as "not found" (instead of 403 `insufficient_scope`). Default false.
   */
  hideUnauthorized?: boolean;
  /** Verify tokens as JWTs against this JWKS (cached; fetched again for an unknown `kid`). */
  jwksUri?: string;
  /** The `iss` a JWT must carry (default: the first authorization server). */
  issuer?: string;
  /** The `aud` a token must name (default: `resource`). */
  audience?: string;
  /** Verify tokens by RFC 7662 introspection at this endpoint instead (with the two options below). */
  introspectionEndpoint?: string;
  introspectionClientId?: string;
  introspectionClientSecret?: string;
  /** PEM CA certificates trusted for the JWKS and introspection endpoints. */
  caFile?: string;
  /** Milliseconds between JWKS fetches for tokens signed by an unknown key (default 30000): how soon a key rotation is picked up. */
  jwksRefetchInterval?: number;
  /**
   * Milliseconds a verified token is remembered (by its hash; never past its `exp`), so a
   * client's requests cost one verification per token (default 300000; 0: verify every request).
   */
  tokenCacheTtl?: number;
  /**
   * Verify tokens yourself instead: resolve to the token's claims (`sub`, `client_id`,
   * `scope`, `exp`, ... : they become `ctx.auth`) to accept it; null, false, a throw or a
   * rejection refuses it (401 `invalid_token`; the error's message is its description).
   */
  verify?: (token: string) => Record<string, unknown> | null | false | Promise<Record<string, unknown> | null | false>;
}

/** Where `server.startHttp()` and `server.run({transport: "http"})` listen. */
export interface ListenOptions extends HttpOptions {
  /** The address to bind (default `"127.0.0.1"`; `"0.0.0.0"` or `"::"` for every interface). */
  host?: string;
  /** The port (default 8000; `0` picks a free one). */
  port?: number;
}

/**
 * Options of `server.run()` serving HTTP until SIGINT or SIGTERM: Streamable HTTP at `path`
 * and the legacy HTTP+SSE transport at `ssePath`; `"sse"` is the same server, announced by
 * its legacy SSE URL.
 */
export interface HttpRunOptions extends ListenOptions {
  /** The transport. */
  transport: 'http' | 'sse';
}

/** Options of `server.run()`: stdio (the default), or HTTP. */
export type RunOptions = StdioRunOptions | HttpRunOptions;

/** A running HTTP server (from `server.startHttp()`). `await using` stops it. */
export interface HttpServer {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`. */
  readonly url: string;
  /**
   * The legacy HTTP+SSE endpoint, e.g. `http://127.0.0.1:8000/sse`; null when the legacy
   * transport is not served (`legacySse: false`, or `stateless: true`).
   */
  readonly sseUrl: string | null;
  /** The address it listens on. */
  readonly host: string;
  /** The port it listens on. */
  readonly port: number;
  /** The Streamable HTTP endpoint's path. */
  readonly path: string;
  /** Open sessions. */
  readonly sessionCount: number;
  /**
   * Stops accepting, lets calls in progress finish (10 s at most), closes every session and
   * ends the server's lifespan. Idempotent.
   */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A request handler serving a server inside an existing HTTP app (from
 * `server.httpHandler()`):
 *
 *     http.createServer(handler).listen(8000);
 *     app.all("/mcp", handler);                          // Express (a body parser may run first)
 *     fastify.all("/mcp", (req, reply) => { reply.hijack(); req.raw.body = req.body; handler(req.raw, reply.raw); });
 *
 * Requests for paths the engine does not serve go to `next` when given (Express), else get
 * a 404. SSE answers stream with `res.write`; a response closed early stops its stream.
 */
export interface HttpHandler {
  (
    req: import('node:http').IncomingMessage,
    res: import('node:http').ServerResponse,
    next?: (err?: unknown) => void,
  ): void;
  /** Open sessions. */
  readonly sessionCount: number;
  /** Closes every session and ends the server's lifespan (which starts with the first request). */
  close(): Promise<void>;
}

/** A value or a promise of it. */
export type MaybePromise<T> = T | PromiseLike<T>;

/**
 * What a tool handler may return: a string (text), a content block or an array of strings and
 * blocks, a full {@link CallToolResult}, or, when the tool has an `outputSchema`, the
 * structured object `Out` (sent as `structuredContent` plus its JSON as text). Without an
 * output schema any other value is sent as its JSON text.
 */
export type ToolResult<Out = unknown> =
  | Out
  | string
  | ContentBlock
  | ReadonlyArray<string | ContentBlock>
  | CallToolResult<Out extends object ? Out : { [key: string]: unknown }>
  | null
  | undefined
  | void;

/** A tool handler: `(args, ctx) => result`, sync or async. */
export type ToolHandler<Args, Out = unknown, L = unknown> = (args: Args, ctx: Context<L>) => MaybePromise<ToolResult<Out>>;

/** The configuration of a tool (`server.tool(name, config, handler)`). */
export interface ToolConfig<In extends ObjectSchema | undefined = ObjectSchema | undefined, Out extends ObjectSchema | undefined = ObjectSchema | undefined> {
  /** What it does (shown to models). */
  description?: string;
  /** Human-readable name. */
  title?: string;
  /** Its arguments: JSON Schema, a zod object or a zod raw shape (default: no arguments). */
  inputSchema?: In;
  /** Its structured result: JSON Schema, a zod object or a zod raw shape. */
  outputSchema?: Out;
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /**
   * Scopes an access token needs to use it, besides the HTTP `auth` option's `requiredScopes`
   * (403 `insufficient_scope` naming them otherwise; clients step up).
   */
  scopes?: string | readonly string[];
  /**
   * Names the visibility rules select by (`server.enable`, `server.disable`,
   * `ctx.enableComponents`); clients do not see them.
   */
  tags?: Iterable<string>;
  /**
   * The view of an MCP App showing its results (`ui://...`, served with `server.app`), or
   * `{resourceUri, visibility: ['app']}` (a tool only the view calls).
   */
  ui?: string | { resourceUri: string; visibility?: readonly ('model' | 'app')[] };
  /**
   * Runs calls as tasks (2026-07-28, `io.modelcontextprotocol/tasks`) when the client
   * declared the extension, or (at 2025-11-25) sent `params.task`: `true` (or 'optional'), 'required' (other calls are refused), or
   * 'manual' (the handler decides with `await ctx.startTask()`). The call is answered with the
   * task at once and the handler goes on, outliving the request.
   */
  task?: boolean | 'optional' | 'required' | 'manual';
  /** Metadata. */
  _meta?: Meta;
}

/** How a server keeps tasks (durations in milliseconds). */
export interface TaskOptions {
  /** How long a task is kept after it is created (default 1 hour). */
  ttl?: number;
  /** How often clients should poll (default 1 s). */
  pollInterval?: number;
  /** Most tasks kept at once (default 10,000). */
  maxTasks?: number;
  /** How long a cancelled handler may run on before its result is ignored (default 10 s). */
  cancelGrace?: number;
}

/** The origins an MCP App needs (each list adds to the restrictive default CSP). */
export interface AppCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** An MCP App's view (`server.app(uri, config)`). */
export interface AppConfig {
  /** The HTML document. */
  html: string;
  /** The origins it needs (none: no network, the hosts' restrictive default). */
  csp?: AppCsp;
  /** Browser features it asks for. */
  permissions?: readonly ('camera' | 'microphone' | 'geolocation' | 'clipboardWrite')[] | { [feature: string]: object };
  /** A dedicated origin (host-specific format). */
  domain?: string;
  /** Whether the host should draw a border and background. */
  prefersBorder?: boolean;
  /** The resource's name (default: from the URI). */
  name?: string;
  /** The resource's description. */
  description?: string;
}

/** The structured output type of a tool's `outputSchema` (`unknown` when it has none). */
export type InferOutput<O> = [O] extends [undefined] ? unknown : InferArgs<O>;

/** The variable names of an RFC 6570 URI template, e.g. `"city"` for `weather://{city}/now`. */
export type UriTemplateVariables<U extends string> = U extends `${string}{${infer Expr}}${infer Rest}`
  ? ExprVariables<Expr> | UriTemplateVariables<Rest>
  : never;

type ExprVariables<E extends string> = E extends `${'?' | '&' | '/' | '.' | ';' | '#'}${infer Vars}`
  ? { name: VarNames<Vars>; optional: true }
  : { name: VarNames<E>; optional: false };

type VarNames<V extends string> = V extends `${infer A},${infer B}` ? VarName<A> | VarNames<B> : VarName<V>;

type VarName<V extends string> = V extends `${'+' | '#' | '.' | '/' | ';'}${infer N}` ? StripModifier<N> : StripModifier<V>;

type StripModifier<N extends string> = N extends `${infer A}*` ? A : N extends `${infer A}:${string}` ? A : N;

/**
 * The variables a resource handler receives for a URI (template): `{city: string}` for
 * `weather://{city}/now`. Variables of simple (`{x}`) and reserved (`{+x}`) expressions are
 * strings; those of the other operators (`{?q}`, `{&q}`, `{/p}`, `{.e}`, `{;m}`, `{#f}`) may be
 * absent. Exploded and list values arrive joined by `,`.
 */
export type ResourceVariables<U extends string> = string extends U
  ? { [name: string]: string }
  : [UriTemplateVariables<U>] extends [never]
    ? { [name: string]: never }
    : Simplify<
        { [V in UriTemplateVariables<U> as V extends { optional: false } ? V['name'] : never]: string } & {
          [V in UriTemplateVariables<U> as V extends { optional: true } ? V['name'] : never]?: string;
        }
      >;

/** What a resource handler may return: text, bytes (a blob), a JSON-able value, or a full result. */
export type ResourceResult = string | Uint8Array | ReadResourceResult | JsonValue | object;

/** A resource handler: `(url, variables, ctx) => contents`, sync or async. */
export type ResourceHandler<Vars = { [name: string]: string }, L = unknown> = (
  url: URL,
  variables: Vars,
  ctx: Context<L>,
) => MaybePromise<ResourceResult>;

/** The configuration of a resource or resource template. */
export interface ResourceConfig {
  /** Its name (default: the URI). */
  name?: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type (default by result: text/plain, application/octet-stream, application/json). */
  mimeType?: string;
  /** Size in bytes (static resources only). */
  size?: number;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /**
   * Scopes an access token needs to use it, besides the HTTP `auth` option's `requiredScopes`
   * (403 `insufficient_scope` naming them otherwise; clients step up).
   */
  scopes?: string | readonly string[];
  /**
   * Names the visibility rules select by (`server.enable`, `server.disable`,
   * `ctx.enableComponents`); clients do not see them.
   */
  tags?: Iterable<string>;
  /** Metadata. */
  _meta?: Meta;
}

/** A prompt message as a handler may return it: `content` may be a plain string. */
export interface PromptMessageInput {
  /** Who says it. */
  role: Role;
  /** What is said. */
  content: string | ContentBlock;
}

/**
 * What a prompt handler may return: a string (one user message), a content block, a message
 * `{role, content}`, an array of those, or a full {@link GetPromptResult}.
 */
export type PromptResult =
  | string
  | ContentBlock
  | PromptMessageInput
  | ReadonlyArray<string | ContentBlock | PromptMessageInput>
  | GetPromptResult;

/** A prompt handler: `(args, ctx) => messages`, sync or async. */
export type PromptHandler<Args = { [name: string]: string | undefined }, L = unknown> = (
  args: Args,
  ctx: Context<L>,
) => MaybePromise<PromptResult>;

/** The configuration of a prompt. */
export interface PromptConfig<
  A extends readonly PromptArgument[] | undefined = readonly PromptArgument[] | undefined,
  S extends ZodRawShape | undefined = ZodRawShape | undefined,
> {
  /** Human-readable name. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** Its arguments, listed (values arrive as strings). */
  arguments?: A;
  /**
   * Its arguments as a zod raw shape of string schemas (instead of `arguments`): the
   * arguments are validated and parsed by it before the handler runs.
   */
  argsSchema?: S;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /**
   * Scopes an access token needs to use it, besides the HTTP `auth` option's `requiredScopes`
   * (403 `insufficient_scope` naming them otherwise; clients step up).
   */
  scopes?: string | readonly string[];
  /**
   * Names the visibility rules select by (`server.enable`, `server.disable`,
   * `ctx.enableComponents`); clients do not see them.
   */
  tags?: Iterable<string>;
  /** Metadata. */
  _meta?: Meta;
}

/** The argument object of a prompt declared with `arguments: [...]`. */
export type PromptArgs<A> = A extends readonly PromptArgument[]
  ? Simplify<
      { [E in A[number] as E extends { readonly required: true } ? E['name'] : never]: string } & {
        [E in A[number] as E extends { readonly required: true } ? never : E['name']]?: string;
      }
    >
  : { [name: string]: string | undefined };

/** What a completion handler may return: the values (at most 100 are sent) or a full result. */
export type CompletionResult = ReadonlyArray<string | number> | CompleteResult | null | undefined;

/**
 * A completion handler: `(value, contextArguments, params, ctx) => suggestions`, where `value`
 * is what the user typed so far and `contextArguments` the arguments already resolved.
 */
export type CompletionHandler<L = unknown> = (
  value: string,
  contextArguments: { [name: string]: string },
  params: CompleteParams,
  ctx: Context<L>,
) => MaybePromise<CompletionResult>;

/** Which completion requests a completion handler answers (all, when a field is absent). */
export interface CompletionFilter {
  /** Only for this prompt. */
  prompt?: string;
  /** Only for this resource template. */
  resource?: string;
  /** Only for this argument. */
  argument?: string;
}

/**
 * An MCP server: register tools, resources, prompts and completions, then
 * `await server.run()`. `L` is the type of the lifespan context.
 *
 *     const server = new Server({ name: "weather", version: "1.0.0" });
 *     server.tool("echo", "Echo text back", { text: z.string() }, ({ text }) => text);
 *     await server.run();
 */
/** What a middleware link sees of a request (FastMCP's MiddlewareContext). */
export interface MiddlewareContext<M = any, L = unknown> {
  /** The JSON-RPC method (`tools/call`, `resources/read`, `prompts/get`, `completion/complete`). */
  readonly method: string;
  /**
   * The request's params: `{ name, arguments }` (tools/call, prompts/get), `{ uri }`
   * (resources/read), `{ params }` (completion/complete). A link may change the arguments
   * (and a completion's params) before it calls `next`; the name or URI stays what the client
   * asked (the handler that runs is that one's).
   */
  message: M;
  /**
   * The handler's context: session, client, era, auth, headers, progress, elicitation
   * (`null` for a notification: see `type`).
   */
  readonly ctx: Context<L>;
  /** Who sent it: `client`. */
  readonly source: 'client';
  /** `request`, or `notification` (in `onMessage` and `onNotification`). */
  readonly type: 'request' | 'notification';
  /** When it reached the server (ms since the epoch). */
  readonly timestamp: number;
  /** The round of a 2026-07-28 multi round-trip call (0 on the first; legacy: 0). */
  readonly round: number;
  /** A value for the handler (`ctx.getState(key)`) and later links, this request only. */
  setState(key: string, value: unknown): void;
  /** A value set with setState for this request. */
  getState(key: string): unknown;
}

/** A middleware hook: returns what the handler would (a value or a Promise of one). */
export type MiddlewareHook<M = any, L = unknown> = (
  context: MiddlewareContext<M, L>,
  next: (context: MiddlewareContext<M, L>) => unknown,
) => unknown;

/**
 * A link of a server's middleware chain (`server.use(link)`): the hooks it defines run, in
 * order, `onMessage`, `onRequest`, then the method's own; a hook it does not define costs
 * nothing.
 */
export interface Middleware<L = unknown> {
  /** Every message (outermost): each request, and each notification that reaches the server's code. */
  onMessage?: MiddlewareHook<any, L>;
  /** Every request (inside onMessage). */
  onRequest?: MiddlewareHook<any, L>;
  /** `tools/call`: `context.message` is `{ name, arguments }`. */
  onCallTool?: MiddlewareHook<{ name: string; arguments: { [key: string]: unknown } }, L>;
  /** `resources/read`: `context.message` is `{ uri }`. */
  onReadResource?: MiddlewareHook<{ uri: string }, L>;
  /** `prompts/get`: `context.message` is `{ name, arguments }`. */
  onGetPrompt?: MiddlewareHook<{ name: string; arguments: { [key: string]: string | undefined } }, L>;
  /** `completion/complete`: `context.message` is `{ params }`. */
  onComplete?: MiddlewareHook<{ params: { [key: string]: unknown } }, L>;
  /** `tools/list`: `next` returns the tools; return the array to send (the engine pages it). */
  onListTools?: MiddlewareHook<{ list: 'tools' }, L>;
  /** `resources/list`: as `onListTools`, with the resources. */
  onListResources?: MiddlewareHook<{ list: 'resources' }, L>;
  /** `resources/templates/list`: as `onListTools`, with the templates. */
  onListResourceTemplates?: MiddlewareHook<{ list: 'resource_templates' }, L>;
  /** `prompts/list`: as `onListTools`, with the prompts. */
  onListPrompts?: MiddlewareHook<{ list: 'prompts' }, L>;
  /**
   * A request method of the server's own (`server.method`), whichever: `context.method`
   * names it, `context.message` is `{ params }`.
   */
  onCustomMethod?: MiddlewareHook<{ params: { [key: string]: unknown } }, L>;
  /**
   * A notification the client sent that reaches the server's code (inside onMessage): those
   * of its own (`server.onNotification`), `notifications/roots/list_changed` and any other the
   * engine does not act on itself (`initialized`, `cancelled` and `progress` are the engine's).
   * `context.message` is `{ params }`; `next` runs the server's handlers (a hook that does not
   * call it drops the notification); what it returns is ignored.
   */
  onNotification?: MiddlewareHook<{ params: { [key: string]: unknown } }, L>;
}

/**
 * A middleware the engine runs (`RateLimitingMiddleware`, `TimingMiddleware`,
 * `LoggingMiddleware`): no call passes through JavaScript. Added with `server.use`; they run
 * around the JavaScript middleware, first, in the order they were added.
 */
export declare class BuiltinMiddleware {
  /** @param kind the engine's name of it (`rate_limiting`, `timing`, `logging`) @param options its options */
  constructor(kind: string, options: { [key: string]: unknown });
  /** The engine's name of it. */
  _kind: string;
  /** Its options, as the engine takes them. */
  _options: { [key: string]: unknown };
}

/** The options of `RateLimitingMiddleware`. */
export interface RateLimitingOptions {
  /** Requests a client makes a second on average (default 10). */
  maxRequestsPerSecond?: number;
  /** Requests a client may make at once (default: twice the rate). */
  burstCapacity?: number;
  /** One bucket for all clients together. */
  globalLimit?: boolean;
  /** Tools with a bucket of their own, per client, on top of the client's. */
  tools?: { [tool: string]: { maxRequestsPerSecond: number; burstCapacity?: number } };
  /** Where buckets are kept: `'memory'` (default) or a `redis://` URL shared by replicas. */
  store?: string;
}

/**
 * A token bucket per client (its token's subject, else its legacy session, else its
 * address). A refused request gets a `RateLimited` error (-32029), `retryAfter` in seconds.
 */
export declare class RateLimitingMiddleware extends BuiltinMiddleware {
  constructor(options?: RateLimitingOptions);
}

/** The options of `ResponseCachingMiddleware`. */
export interface ResponseCachingOptions {
  /** How long an answer is kept, in milliseconds (default 60,000). */
  ttl?: number;
  /** Only these tools' results. */
  tools?: string[];
  /** Never these tools' results. */
  excludedTools?: string[];
  /** Whether resource contents are kept too (default true). */
  resources?: boolean;
  /** Entries kept at most (default 10,000). */
  maxEntries?: number;
  /**
   * `'redis://host:6379/0'`: the answers kept in Redis, shared by every replica (one
   * replica's change forgets for all; give each server a database of its own). Default:
   * this process.
   */
  store?: string;
}

/**
 * Keeps successful tool results and resource contents for `ttl` ms, per caller (its token's
 * subject); forgotten when the tool list changes or the resource is updated; in this process
 * or, with `store`, in Redis for every replica.
 */
export declare class ResponseCachingMiddleware extends BuiltinMiddleware {
  constructor(options?: ResponseCachingOptions);
}

/** Duration histograms per method and per tool, in `metricsText()` and on `metricsPath`. */
export declare class TimingMiddleware extends BuiltinMiddleware {
  constructor();
}

/** The options of `LoggingMiddleware`. */
export interface LoggingOptions {
  /** The level of the lines (default `'info'`). */
  level?: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Adds each request's arguments to its line. */
  includePayloads?: boolean;
  /** Where payloads are cut, in bytes (default 1000). */
  maxPayloadLength?: number;
  /** Only these methods (`'tools/call'`, ...). */
  methods?: string[];
  /** Where lines go when `setLogger` was not called (default `console`). */
  logger?: { error?: Function; warn?: Function; info?: Function; debug?: Function };
}

/** One line a request, `[hypermcp::requests] request method="tools/call" name="echo" outcome="ok" ...`. */
export declare class LoggingMiddleware extends BuiltinMiddleware {
  constructor(options?: LoggingOptions);
}

/** The handler of a request method of the server's own: its params in, its result out. */
export type MethodHandler<L = unknown> = (
  params: { [key: string]: unknown },
  ctx: Context<L>,
) => MaybePromise<{ [key: string]: unknown } | void>;

/** A kind of component, as visibility rules name it. */
export type ComponentKind = 'tool' | 'resource' | 'template' | 'prompt';

/**
 * What a visibility rule applies to: the components that meet every criterion given
 * (`names` and `tags` narrow each other; one of the tags is enough), or every one
 * (`matchAll`, given alone). At least one criterion.
 */
export interface VisibilityFilter {
  /** Names of tools and prompts, URIs of resources, URI templates of templates. */
  names?: Iterable<string>;
  /** Tags, any of which matches. */
  tags?: Iterable<string>;
  /** The kinds of component. */
  components?: Iterable<ComponentKind>;
  /** Every component. */
  matchAll?: boolean;
}

export declare class Server<L = unknown> {
  /** @param options name, version, instructions, lifespan... */
  constructor(options: ServerOptions<L>);
  /**
   * Adds a middleware at the end of the chain: it runs inside the ones added before, around
   * every tool call, resource read, prompt and completion, on every transport and in both
   * eras. Connections already open see it.
   */
  use(middleware: Middleware<L> | BuiltinMiddleware): this;
  /** The middleware, in the order it runs (a copy). */
  readonly middleware: Middleware<L>[];
  /** The server's name. */
  readonly name: string;
  /** Its version. */
  readonly version: string;
  /** Its instructions. */
  readonly instructions: string | undefined;
  /** The lifespan's `context` while the server runs (undefined otherwise). */
  readonly lifespanContext: L | undefined;

  /**
   * Registers (or replaces) a tool. `config.inputSchema` is JSON Schema, a zod object or a
   * zod raw shape; the handler's `args` are typed from it, and validated before it runs.
   * Clients are told the tool list changed. Throws {@link DefinitionError} for a bad definition.
   */
  tool<const In extends ObjectSchema | undefined = undefined, const Out extends ObjectSchema | undefined = undefined>(
    name: string,
    config: ToolConfig<In, Out>,
    handler: ToolHandler<InferArgs<In>, InferOutput<Out>, L>,
  ): this;
  /** Registers a tool: the short form `tool(name, description, schema, handler)`. */
  tool<const In extends ObjectSchema>(name: string, description: string, inputSchema: In, handler: ToolHandler<InferArgs<In>, unknown, L>): this;
  /** Registers a tool without arguments and with a description. */
  tool(name: string, description: string, handler: ToolHandler<{ [key: string]: unknown }, unknown, L>): this;
  /** Registers a tool without arguments. */
  tool(name: string, handler: ToolHandler<{ [key: string]: unknown }, unknown, L>): this;
  /** Removes a tool; returns whether it existed (and tells clients the list changed). */
  removeTool(name: string): boolean;

  /**
   * Registers a resource (a URI) or a resource template (a URI with `{variables}`, RFC 6570).
   * The handler gets `(url, variables, ctx)` and returns a string (text), bytes (blob), a
   * JSON-able value (JSON text) or `{contents: [...]}`.
   */
  resource<const U extends string>(uri: U, config: ResourceConfig, handler: ResourceHandler<ResourceVariables<U>, L>): this;
  /** Registers a resource or template with no configuration. */
  resource<const U extends string>(uri: U, handler: ResourceHandler<ResourceVariables<U>, L>): this;
  /** Removes a resource or template; returns whether it existed. */
  removeResource(uri: string): boolean;
  /** Tells subscribed clients that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void;

  /**
   * Shows every client the components that match; later rules override earlier ones where
   * they overlap. `only: true` is the allow-list form: nothing else is visible (earlier
   * enables are dropped). Clients whose lists changed get `list_changed`.
   */
  enable(filter: VisibilityFilter & { only?: boolean }): this;
  /**
   * Hides from every client the components that match: left out of the lists and, called
   * by name, "not found", exactly as if they did not exist.
   */
  disable(filter: VisibilityFilter): this;
  /** Drops the rules of `enable` and `disable`: every component visible again. */
  resetVisibility(): this;

  /**
   * Serves skills (`io.modelcontextprotocol/skills`): every directory under `source` holding
   * a SKILL.md, or `{files: {path: contents}}` made in code, as `skill://` resources with
   * `skills/list`, `skills/get` and `resources/directory/read` answered by the engine. Throws
   * a DefinitionError naming a skill that breaks a rule. Calling it again replaces them.
   */
  skills(source: string | URL | { files: { [path: string]: string | Uint8Array } }): this;
  /**
   * Runs tool calls as tasks (`io.modelcontextprotocol/tasks`): declares the extension and
   * keeps tasks as `options` say. `new Server({ tasks: true })` and the first `{ task }` tool
   * do the same. Call it before serving.
   */
  enableTasks(options?: TaskOptions): this;
  /** Serves the view of an MCP App at `uri` (`ui://...`). */
  app(uri: string, config: AppConfig): this;
  /** Reads the directory given to `skills()` again. */
  reloadSkills(): void;
  /** Stops serving skills. */
  clearSkills(): void;

  /**
   * Registers a prompt. `config.arguments` lists `{name, description, required}`, or
   * `config.argsSchema` is a zod raw shape; the handler's `args` are typed from either.
   */
  prompt<const A extends readonly PromptArgument[] | undefined = undefined, const S extends ZodRawShape | undefined = undefined>(
    name: string,
    config: PromptConfig<A, S>,
    handler: PromptHandler<[S] extends [ZodRawShape] ? InferShape<S> : PromptArgs<A>, L>,
  ): this;
  /** Registers a prompt without arguments. */
  prompt(name: string, handler: PromptHandler<{ [name: string]: string | undefined }, L>): this;
  /** Removes a prompt; returns whether it existed. */
  removePrompt(name: string): boolean;

  /**
   * Registers a completion handler for the arguments matching `filter`
   * (`{prompt, argument}` or `{resource, argument}`); the first match answers.
   */
  completion(filter: CompletionFilter, handler: CompletionHandler<L>): this;
  /** Registers a completion handler for every completion request. */
  completion(handler: CompletionHandler<L>): this;

  /**
   * Registers a callback for a client notification, the spec's
   * (`"notifications/roots/list_changed"`) or one of the server's own.
   */
  onNotification(method: string, handler: (params: { [key: string]: unknown } | undefined) => unknown): this;
  /**
   * Serves a request method the spec does not define (`'acme/search'`), in both eras: the
   * handler gets its params (without `_meta`: `ctx.meta`) and returns the result. Clients
   * call it with `client.request(method, params)`. Throws {@link DefinitionError} for a
   * name the spec or an extension owns.
   */
  method(method: string, handler: MethodHandler<L>): this;
  /** A method whose params the engine checks against `paramsSchema` (JSON Schema or zod). */
  method(method: string, config: { paramsSchema?: ObjectSchema }, handler: MethodHandler<L>): this;
  /** Stops serving a method of the server's own; returns whether it was served. */
  removeMethod(method: string): boolean;

  /**
   * Serves. `await server.run()` serves stdio; the promise resolves once stdin closes and
   * in-flight calls have answered. `await server.run({ transport: "http", port: 8000 })`
   * serves Streamable HTTP (and legacy SSE) until SIGINT or SIGTERM, printing
   * `hypermcp: <name> serving on <url>` to stderr, then stops gracefully and resolves.
   * Without a `transport`, the environment chooses (what `hypermcp run` sets):
   * `HYPERMCP_TRANSPORT` (`stdio`, `http`), with `HYPERMCP_HOST` and `HYPERMCP_PORT` for
   * what the options leave out.
   */
  run(options?: RunOptions): Promise<void>;
  /**
   * Starts serving HTTP in the background; resolves once listening. `port: 0` picks a free
   * port (default 8000).
   */
  startHttp(options?: ListenOptions): Promise<HttpServer>;
  /** A request handler for `http.createServer`, Express or Fastify (see {@link HttpHandler}). */
  httpHandler(options?: HttpOptions): HttpHandler;
}
