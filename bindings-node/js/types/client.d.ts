// Type definitions for hypermcp: Client, its options, and its transports (stdio, HTTP).
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

/// <reference types="node" />

import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  EmptyResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListSkillsResult,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageParams,
  Meta,
  Progress,
  PromptReference,
  ProtocolVersion,
  ReadDirectoryResult,
  ReadResourceResult,
  RequestId,
  ResourceTemplateReference,
  Root,
  ServerCapabilities,
  SkillEntry,
} from './protocol.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult } from './sampling.js';
import type { AbortError, ConnectionClosed, McpError, SkillVerificationError } from './errors.js'; // for {@link}s
import type { MaybePromise, Server } from './server.js';
import type { EventEmitter } from 'node:events';

// =============================================================================================
// Client
// =============================================================================================

/** What a client's sampling/elicitation handler receives besides the parameters. */
export interface ServerRequestExtra {
  /** Fires when the server cancels its request (or the connection closes). */
  signal: AbortSignal;
  /** The JSON-RPC id of the server's request. */
  requestId: RequestId;
  /** The request's `_meta`. */
  meta?: Meta;
}

/** What a client's `roots` option accepts: URIs, paths (made `file://` URIs), URLs or roots. */
export type RootInput = string | URL | Root;

/** What a `subscriptions/listen` stream carries (2026-07-28). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** URIs whose `notifications/resources/updated` the stream carries. */
  resourceSubscriptions?: string[];
}

/** An open listen stream: `'notification'` (method, params) and `'end'` events, or `for await`. */
export declare class Subscription extends EventEmitter implements AsyncIterable<{ method: string; params: any }> {
  /** Made by `client.listen()`. */
  constructor(client: Client, id: number);
  /** Notifications a stream holds unread (no 'notification' listener) before it is closed (10,000). */
  static backlog: number;
  /** The stream's id: its notifications carry it in `_meta["io.modelcontextprotocol/subscriptionId"]`. */
  readonly id: number;
  /** Whether the stream ended. */
  readonly ended: boolean;
  /** Ends the stream (the server is told). Idempotent. */
  close(): void;
  on(event: 'notification', listener: (method: string, params: any) => void): this;
  on(event: 'end', listener: () => void): this;
  [Symbol.asyncIterator](): AsyncIterator<{ method: string; params: any }>;
}

/** Options of a client (`Client.connect`, `Client.stdio`, `Client.inMemory`). */
/** A request this client is about to send, as an interceptor sees it. */
export interface ClientRequest {
  /** The JSON-RPC method (`tools/call`, ...). */
  readonly method: string;
  /** Its params; change them to change what is sent. */
  params: { [key: string]: unknown } | undefined;
}

/**
 * A request interceptor: `async (request, next) => result`. `next(request)` sends it (through
 * the interceptors after this one) and resolves with the result as the server sent it; return
 * the result to use (changed, or one of your own without calling `next`), or throw.
 */
export type Interceptor = (request: ClientRequest, next: (request: ClientRequest) => Promise<any>) => unknown;

export interface ClientOptions {
  /** This client's name (`clientInfo.name`, default `"hypermcp-client"`). */
  name?: string;
  /** This client's version. */
  version?: string;
  /**
   * `"auto"` (default): probe with `server/discover` and speak 2026-07-28 when the server
   * does, else fall back to the `initialize` handshake; `"modern"`: 2026-07-28 only;
   * `"legacy"`: `initialize` only. Nothing else changes for callers: an `input_required`
   * answer is served by the same onSampling / onElicitation / roots handlers.
   */
  mode?: 'auto' | 'modern' | 'legacy';
  /** The legacy revision `initialize` asks for (default: the newest legacy one). */
  protocolVersion?: ProtocolVersion;
  /** Milliseconds every request may take (default 60000; null or Infinity: no limit). */
  timeout?: number | null;
  /** Answers the server's `sampling/createMessage` (declares the sampling capability). */
  onSampling?: (params: CreateMessageParams, extra: ServerRequestExtra) => MaybePromise<CreateMessageResult>;
  /** Answers the server's `elicitation/create` (declares the elicitation capability). */
  onElicitation?: (params: ElicitParams, extra: ServerRequestExtra) => MaybePromise<ElicitResult>;
  /** Also declare URL-mode elicitation (needs `onElicitation`). */
  elicitationUrl?: boolean;
  /** The roots offered to the server (an array, or a function returning one). */
  roots?: Iterable<RootInput> | (() => MaybePromise<Iterable<RootInput>>);
  /** Receives the server's log messages (`notifications/message`). */
  onLog?: (params: LoggingMessageParams) => unknown;
  /** Receives every other server notification (list changes, resource updates...). */
  onNotification?: (method: string, params: { [key: string]: unknown } | undefined) => unknown;
  /** Receives failures of the callbacks above (default: a process warning). */
  onError?: (error: unknown) => unknown;
  /** Capabilities merged into the declared ones. */
  capabilities?: ClientCapabilities;
  /**
   * Extensions this client supports, `{ 'io.modelcontextprotocol/ui': {...settings} }`,
   * declared in its capabilities (with every request at 2026-07-28, at initialize before).
   */
  extensions?: Record<string, Record<string, unknown>>;
  /**
   * Declares the tasks extension (`io.modelcontextprotocol/tasks`): calls the server runs as
   * tasks are followed to their end (see `callToolTask`).
   */
  tasks?: boolean;
  /** Declares MCP Apps (`io.modelcontextprotocol/ui`, `mimeTypes: ['text/html;profile=mcp-app']`). */
  apps?: boolean;
  /**
   * Brings the client back when its server goes away after the handshake (`true`: the
   * defaults): a stdio server is spawned again, an HTTP client opens a new session. Calls in
   * flight reject with ConnectionClosed; calls made while reconnecting wait (or reject at once
   * with `wait: false`); once the tries are spent the client closes.
   */
  reconnect?: boolean | ReconnectOptions;
  /** Told of each step of the connection: lost, reconnecting, back, given up. */
  onConnection?: (event: ConnectionEvent, info: ConnectionEventInfo) => unknown;
  /** Request interceptors, in order, around every request this client sends (see `addInterceptor`). */
  interceptors?: Interceptor[];
  /**
   * Legacy sessions: milliseconds after an answered `ping` before the next; one unanswered
   * for as long again takes the server for gone (ending the connection, or reconnecting).
   * Default: no pings.
   */
  pingInterval?: number;
}

/** The reconnect policy: exponential backoff with jitter, a cap, a bound on tries. */
export interface ReconnectOptions {
  /** Milliseconds before the first try (default 500); each failed try multiplies it. */
  initialDelay?: number;
  /** Cap on the wait between tries, ms (default 30000). */
  maxDelay?: number;
  /** Growth of the wait per failed try (default 2, at least 1). */
  multiplier?: number;
  /** Share of each wait drawn at random, 0 to 1 (default 0.5). */
  jitter?: number;
  /** Tries before giving up (default 10; 0: never). */
  maxAttempts?: number;
  /** Calls made while reconnecting wait for it within their timeout (default true), or reject at once. */
  wait?: boolean;
}

/** A step of the connection, told to `onConnection`. */
export type ConnectionEvent = 'disconnected' | 'reconnecting' | 'reconnected' | 'failed';

/** What `onConnection` is told with each step. */
export interface ConnectionEventInfo {
  /** Why the server is taken for gone (`disconnected`, `reconnecting`), or why the client gave up (`failed`). */
  reason?: string;
  /** The try (`reconnecting`, `reconnected`). */
  attempt?: number;
  /** Milliseconds before this try (`reconnecting`). */
  delay?: number;
  /** Tries made (`failed`). */
  attempts?: number;
}

/** Options of `Client.stdio(...)`: the client's, plus how to spawn the server. */
export interface StdioClientOptions extends ClientOptions {
  /** Environment variables added to `process.env` for the server. */
  env?: { [name: string]: string | undefined };
  /** The server's working directory. */
  cwd?: string;
  /** Receives each line the server writes to stderr. */
  onStderr?: (line: string) => unknown;
}

/** How `Client.http` / {@link HttpTransport} connect. */
/**
 * OAuth for `Client.http` (every field optional). The flows run in the engine: Protected
 * Resource Metadata and authorization server discovery, registration (pre-registered client,
 * Client ID Metadata Document, or Dynamic Client Registration), the authorization code grant
 * with PKCE (or `client_credentials`), refresh before expiry, step-up on `insufficient_scope`.
 */
/** A client registration at an authorization server, as a `TokenStore` keeps it. */
export interface StoredClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  redirect_uri?: string;
}

/** Tokens for one resource from one authorization server, as a `TokenStore` keeps them (secrets). */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** Seconds since the Unix epoch. */
  expires_at?: number;
  scopes: string[];
}

/**
 * Where an OAuth client keeps its registrations (by the authorization server's `issuer`) and
 * tokens (by issuer and `resource`, the MCP server's URI). Methods may return Promises; they
 * are called around authorizations only, never per request. A load resolves to null when
 * there is nothing; a rejection fails the authorization with its message.
 */
export interface TokenStore {
  loadClient(issuer: string): StoredClient | null | undefined | Promise<StoredClient | null | undefined>;
  saveClient(issuer: string, client: StoredClient): void | Promise<void>;
  loadTokens(issuer: string, resource: string): StoredTokens | null | undefined | Promise<StoredTokens | null | undefined>;
  /** `tokens` null: forget them. */
  saveTokens(issuer: string, resource: string, tokens: StoredTokens | null): void | Promise<void>;
}

export interface OAuthOptions {
  /** A pre-registered client id (used first). */
  clientId?: string;
  /** The pre-registered client's secret. */
  clientSecret?: string;
  /** How the pre-registered client authenticates at the token endpoint (default: what the server supports). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  /** The HTTPS URL of this client's Client ID Metadata Document (used as the client id where supported). */
  clientMetadataUrl?: string;
  /** The name Dynamic Client Registration sends. */
  clientName?: string;
  /** Where the authorization server sends the user back (default `http://127.0.0.1:8765/callback`). */
  redirectUri?: string;
  /** `native` or `web` for Dynamic Client Registration (default from the redirect URI). */
  applicationType?: 'native' | 'web';
  /** Scopes always asked for, besides those the server challenges with. */
  scopes?: string | string[];
  /** Ask for a refresh token where the authorization server offers it (default true). */
  offlineAccess?: boolean;
  /**
   * `authorization_code` (a user authorizes; default), `client_credentials` (needs clientId and
   * clientSecret or privateKeyPem), `jwt_bearer` (workload identity federation: `assertion` or
   * `assertionFile`) or `enterprise_managed` (the user's `idToken` is exchanged at
   * `idpTokenEndpoint` for an ID-JAG the authorization server takes).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'enterprise_managed';
  /** A PEM private key (PKCS#8): authenticate at the token endpoint with `private_key_jwt`. */
  privateKeyPem?: string;
  /** The JWS algorithm of `privateKeyPem` (default `ES256`). */
  signingAlgorithm?: string;
  /** The JWT-bearer grant's assertion (a workload identity token). */
  assertion?: string;
  /** A file holding the assertion, read at each token request. */
  assertionFile?: string;
  /** Enterprise-managed authorization: the user's ID token from the identity provider. */
  idToken?: string;
  /** Enterprise-managed authorization: the identity provider's token endpoint. */
  idpTokenEndpoint?: string;
  /** Enterprise-managed authorization: this client's id at the identity provider. */
  idpClientId?: string;
  /** Enterprise-managed authorization: this client's secret at the identity provider. */
  idpClientSecret?: string;
  /** Bind tokens to a DPoP key where the authorization server supports it (default true). */
  dpop?: boolean;
  /**
   * `browser` (open the system browser, receive the redirect on the loopback redirectUri; the
   * URL is printed too) or `headless` (follow the server's redirects without a browser, for
   * authorization servers that approve without user interaction).
   */
  authorize?: 'browser' | 'headless';
  /**
   * The app's own way to send the user to authorize: called with the authorization URL and the
   * redirect URI, resolves to the URL the authorization server redirected to (with `code`,
   * `state` and `iss`). Overrides `authorize`; a rejection fails the authorization with its message.
   */
  onAuthorize?: (url: string, redirectUri: string) => string | Promise<string>;
  /**
   * A JSON file keeping registrations and tokens across runs (mode 0600), or the app's own
   * `TokenStore` (a keychain, a database); default: memory.
   */
  tokenStore?: string | TokenStore;
  /** Authorizations one request may trigger (default 3). */
  maxAuthorizations?: number;
}

export interface HttpTransportOptions {
  /** Headers sent with every request, e.g. `{ Authorization: "Bearer ..." }`. */
  headers?: { [name: string]: string };
  /**
   * `"auto"` (default): Streamable HTTP, falling back to the legacy HTTP+SSE transport when
   * the server refuses the `initialize` POST with 400, 404 or 405; `"http"`: Streamable HTTP
   * only; `"sse"`: the URL is a legacy SSE endpoint.
   */
  transport?: "auto" | "http" | "sse";
  /** Milliseconds to establish a connection (default 10,000). */
  connectTimeout?: number;
  /**
   * A PEM file of CA certificates trusted for `https://` URLs besides the system's store (which
   * honours `SSL_CERT_FILE` and `SSL_CERT_DIR`). Host names are always verified.
   */
  caFile?: string;
  /**
   * OAuth 2.1: how the client authorizes when the server answers 401 (or 403 with
   * `insufficient_scope`). A request that cannot be authorized rejects with `Unauthorized`.
   */
  auth?: OAuthOptions;
  /**
   * Open the standalone GET stream for server messages unrelated to any call (default true).
   */
  openGetStream?: boolean;
  /**
   * With `transport: "auto"`: fall back to the legacy HTTP+SSE transport when the server
   * refuses the `initialize` POST with 400, 404 or 405 (default true).
   */
  legacyFallback?: boolean;
  /** Largest accepted message (a JSON body or an SSE event), in bytes (default 16 MiB). */
  maxMessage?: number;
}

/** Options of `Client.http(...)`: the client's, plus how to connect. */
export interface HttpClientOptions extends ClientOptions, HttpTransportOptions {}

/** Options of one request. */
export interface RequestOptions {
  /** Milliseconds to wait (default: the client's `timeout`; null or Infinity: no limit). */
  timeout?: number | null;
  /** Aborts the request (it rejects with {@link AbortError} and the server is told). */
  signal?: AbortSignal;
  /** Receives progress notifications (a progress token is sent). */
  onProgress?: (progress: Progress) => unknown;
  /** Restart the timeout at each progress notification. */
  resetTimeoutOnProgress?: boolean;
  /**
   * A `tools/call` the server answers with a task (tasks extension) is followed to its end and
   * resolves with the task's result (`callTool` does this; a raw `request` gets the task).
   */
  followTask?: boolean;
}

/** Options of `client.callTool(...)`. */
export interface CallToolOptions extends RequestOptions {
  /** `_meta` sent with the call. */
  meta?: Meta;
}

/** Parameters of a list call (`tools/list`...): without `cursor`, every page is fetched and merged. */
export interface ListParams {
  /** Fetch only this page. */
  cursor?: string;
  /** Any other parameter. */
  [key: string]: unknown;
}

/**
 * A connection to a server, for `Client.connect(transport)`. `start` opens it and from then on
 * delivers the server's bytes with `client._feed(buf)` and its end with `client._eof()`.
 */
export interface ClientTransport {
  /** Opens the connection. */
  start(client: Client): unknown;
  /** Sends bytes (complete newline-terminated messages) to the server. */
  write(data: Buffer): void;
  /** Ends the connection; may return a promise resolved once closed. */
  close(): unknown;
  /** Why the server's side ended (quoted in ConnectionClosed errors). */
  failureDetail?(): string;
  /** The tail of the server's stderr. */
  readonly stderr?: string;
  /** `network.transport` of the OpenTelemetry conventions for MCP (`pipe`, `tcp`), if any. */
  readonly networkTransport?: string | null;
}

/**
 * An MCP client.
 *
 *     const client = await Client.stdio("node", ["server.mjs"], { onSampling });
 *     const { tools } = await client.listTools();
 *     const result = await client.callTool("forecast", { city: "paris" });
 *     await client.close();
 */
export declare class Client {
  /** A client over `transport`, not yet connected (prefer {@link Client.connect}). */
  constructor(transport: ClientTransport | Server<any>, options?: ClientOptions);
  /**
   * Spawns `command args` and connects over its stdin/stdout. Its stderr is captured
   * (`client.serverStderr`); `close()` ends its stdin, then SIGTERM, then SIGKILL.
   */
  static stdio(command: string, args?: readonly string[], options?: StdioClientOptions): Promise<Client>;
  /** Spawns `command` without arguments. */
  static stdio(command: string, options?: StdioClientOptions): Promise<Client>;
  /**
   * Connects to a server over HTTP at `url` (`http://host:port/mcp`): Streamable HTTP with
   * the legacy HTTP+SSE fallback, broken SSE streams resumed with `Last-Event-ID`, `close()`
   * ending the session with DELETE.
   */
  static http(url: string, options?: HttpClientOptions): Promise<Client>;
  /** Connects over a transport, or to a hypermcp `Server` in memory, and does the handshake. */
  static connect(transport: ClientTransport | Server<any>, options?: ClientOptions): Promise<Client>;
  /** A client of a hypermcp `Server` in the same process. */
  static inMemory(server: Server<any>, options?: ClientOptions): Promise<Client>;

  /** The server's `serverInfo`; undefined before the handshake. */
  readonly serverInfo: Implementation | undefined;
  /** The capabilities the server declared; undefined before the handshake. */
  readonly serverCapabilities: ServerCapabilities | undefined;
  /** The server's instructions, if any. */
  readonly instructions: string | undefined;
  /** The negotiated protocol revision; undefined before the handshake. */
  readonly protocolVersion: ProtocolVersion | undefined;
  /** Whether the session speaks 2026-07-28 (stateless, per-request metadata). */
  readonly modern: boolean;
  /** Whether the client is reconnecting to a server that went away (`reconnect`). */
  readonly reconnecting: boolean;
  /**
   * Whether the server declared `feature`: a capability (`'tools'`, `'logging'`), one of its
   * flags by a dotted path (`'resources.subscribe'`, `'tools.listChanged'`), or an extension
   * id (`'io.modelcontextprotocol/ui'`). False before the handshake.
   */
  supports(feature: string): boolean;
  /** `"uninitialized"`, `"initializing"`, `"operating"` or `"closed"`. */
  readonly state: 'uninitialized' | 'initializing' | 'operating' | 'closed';
  /** Whether the session ended. */
  readonly closed: boolean;
  /** Requests awaiting answers. */
  readonly pendingRequests: number;
  /** The last 64 KiB the server wrote to stderr (stdio only). */
  readonly serverStderr: string;
  /** The transport (for stdio, `transport.pid` is the server's process id). */
  readonly transport: ClientTransport;

  /** Checks the server answers. */
  ping(options?: RequestOptions): Promise<EmptyResult>;
  /**
   * Adds a request interceptor inside the ones added before: every request this client sends
   * (its calls, reads, lists, `request`) passes it.
   */
  addInterceptor(interceptor: Interceptor): void;
  /** The server's tools: every page, or with `{cursor}` that page. */
  listTools(params?: ListParams, options?: RequestOptions): Promise<ListToolsResult>;
  /**
   * Calls a tool; resolves with its result (a tool that failed resolves with
   * `isError: true`; protocol errors reject with {@link McpError}). `S` types
   * `structuredContent`.
   */
  callTool<S = { [key: string]: unknown }>(name: string, args?: object, options?: CallToolOptions): Promise<CallToolResult<S>>;
  /** The server's resources: every page, or with `{cursor}` that page. */
  listResources(params?: ListParams, options?: RequestOptions): Promise<ListResourcesResult>;
  /** The server's resource templates: every page, or with `{cursor}` that page. */
  listResourceTemplates(params?: ListParams, options?: RequestOptions): Promise<ListResourceTemplatesResult>;
  /** Reads a resource. */
  readResource(uri: string | URL, options?: RequestOptions): Promise<ReadResourceResult>;
  /**
   * Calls a tool and resolves at once with what the server answered: its result, or (when this
   * client declares `io.modelcontextprotocol/tasks`) the task running it.
   */
  callToolTask(name: string, args?: object, options?: RequestOptions): Promise<CallToolResult | TaskHandle>;
  /** The task `taskId`: one this client started, or another did. */
  task(taskId: string): TaskHandle;
  /** Reads the view of an MCP App (`ui://...`) and what to render it with. */
  readApp(uri: string, options?: RequestOptions): Promise<AppView>;
  /**
   * The server's skills (`io.modelcontextprotocol/skills`): every page, or with `{cursor}`
   * that page. Nothing is fetched: {@link Client.loadSkill} reads a skill when needed.
   */
  listSkills(params?: ListParams, options?: RequestOptions): Promise<ListSkillsResult>;
  /** The entry of the skill whose SKILL.md is `uri` (listed or not). */
  getSkill(uri: string, options?: RequestOptions): Promise<SkillEntry>;
  /** The children of a directory resource (when the server declares `directoryRead`). */
  readDirectory(uri: string, params?: ListParams, options?: RequestOptions): Promise<ReadDirectoryResult>;
  /**
   * One file of a skill (by URI or path relative to the skill's directory), verified
   * against the entry; throws {@link SkillVerificationError} for an unlisted file (before
   * reading it) or a size, digest or frontmatter mismatch.
   */
  readSkillFile(skill: SkillEntry, path: string, options?: RequestOptions): Promise<Buffer>;
  /** Loads a skill: its SKILL.md read and verified; other files on demand. */
  loadSkill(skill: SkillEntry, options?: RequestOptions): Promise<LoadedSkill>;
  /** Asks for `notifications/resources/updated` about `uri` (delivered to `onNotification`). */
  /**
   * Opens a `subscriptions/listen` stream (2026-07-28); the first notification is
   * `notifications/subscriptions/acknowledged`. Throws MethodNotFound on a legacy session.
   */
  listen(filter: ListenFilter): Subscription;
  subscribeResource(uri: string | URL, options?: RequestOptions): Promise<EmptyResult>;
  /** Stops the updates about `uri`. */
  unsubscribeResource(uri: string | URL, options?: RequestOptions): Promise<EmptyResult>;
  /** The server's prompts: every page, or with `{cursor}` that page. */
  listPrompts(params?: ListParams, options?: RequestOptions): Promise<ListPromptsResult>;
  /** Gets a prompt; non-string argument values are sent as JSON text. */
  getPrompt(name: string, args?: { [name: string]: unknown }, options?: RequestOptions): Promise<GetPromptResult>;
  /**
   * Completion suggestions for an argument of a prompt (`{type: "ref/prompt", name}`) or a
   * resource template (`{type: "ref/resource", uri}`); read `result.completion.values`.
   */
  complete(
    ref: PromptReference | ResourceTemplateReference,
    argumentName: string,
    value: string,
    contextArguments?: { [name: string]: string },
    options?: RequestOptions,
  ): Promise<CompleteResult>;
  /** Sets the least severe level of the log messages the server sends. */
  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<EmptyResult>;
  /** Tells the server the roots changed (it will ask for them again). */
  sendRootsListChanged(): Promise<void>;
  /** Replaces the roots and tells the server; the client must have been created with `roots`. */
  setRoots(roots: Iterable<RootInput> | (() => MaybePromise<Iterable<RootInput>>)): Promise<void>;
  /** Sends any request; resolves with its result as on the wire. */
  request<T = unknown>(method: string, params?: object, options?: RequestOptions): Promise<T>;
  /** Sends any notification. */
  notify(method: string, params?: object): Promise<void>;
  /**
   * Closes the session (pending calls reject with {@link ConnectionClosed}) and the transport;
   * resolves once shut down. Idempotent. `grace` (ms): the calls in flight get up to that long
   * to be answered first (new calls are refused meanwhile).
   */
  close(options?: { grace?: number }): Promise<void>;
  /** `await using client = await Client.stdio(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;

  /** For transports: bytes received from the server. */
  _feed(data: Buffer | Uint8Array | string): void;
  /** For transports: the server's side ended. */
  _eof(): void;
}

/** Options of a {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** Environment variables added to `process.env` for the server. */
  env?: { [name: string]: string | undefined };
  /** The server's working directory. */
  cwd?: string;
  /** Receives each line the server writes to stderr. */
  onStderr?: (line: string) => unknown;
  /** Receives failures of `onStderr` (default: a process warning). */
  onError?: (error: unknown) => unknown;
}

/**
 * An MCP server over HTTP (what `Client.http` uses): `Client.connect(new HttpTransport(url))`.
 * The engine's HTTP client runs on its I/O thread; the stream keeps Node alive until it ends.
 */
/** A task (tasks extension), by id ({@link Client.callToolTask}, {@link Client.task}). */
export declare class TaskHandle {
  constructor(client: Client, id: string);
  /** Its id (all another client needs to follow it). */
  readonly id: string;
  /** The task as it is now (`tasks/get`). */
  status(options?: RequestOptions): Promise<{ taskId: string; status: string; [key: string]: unknown }>;
  /** Waits for its end: its result (its input requests through the client's handlers); `timeout` cancels it. */
  result(options?: RequestOptions): Promise<CallToolResult>;
  /** Asks the server to cancel it. */
  cancel(options?: RequestOptions): Promise<void>;
}

/** An MCP App's view as `client.readApp` reads it. */
export interface AppView {
  uri: string;
  /** `text/html;profile=mcp-app`. */
  mimeType: string;
  /** The HTML document. */
  html: string;
  /** Its `_meta.ui` (contents over listing). */
  meta: { csp?: { [list: string]: string[] }; permissions?: { [feature: string]: object }; domain?: string; prefersBorder?: boolean };
  /** The Content-Security-Policy to enforce (the restrictive default when it declares no origins). */
  cspHeader: string;
  /** The iframe `allow` attribute for its permissions. */
  allow: string;
}

/** A skill whose SKILL.md was read and verified ({@link Client.loadSkill}). */
export declare class LoadedSkill {
  /** Made by {@link Client.loadSkill} (after verifying `text` against `entry`). */
  constructor(client: Client, entry: SkillEntry, text: string);
  /** The skill's entry. */
  readonly entry: SkillEntry;
  /** Its SKILL.md. */
  readonly text: string;
  /** The URI of its SKILL.md. */
  get uri(): string;
  /** `frontmatter.name`. */
  get name(): string;
  /** `frontmatter.description`. */
  get description(): string;
  /** The URIs of its files (empty for a 'dynamic' skill). */
  get files(): string[];
  /** One of its files, by URI or relative path, verified. */
  read(path: string, options?: RequestOptions): Promise<Buffer>;
  /** {@link LoadedSkill.read} as UTF-8 text. */
  readText(path: string, options?: RequestOptions): Promise<string>;
}

export declare class HttpTransport implements ClientTransport {
  /** Describes the connection; nothing is sent until the client starts the transport. */
  constructor(url: string, options?: HttpTransportOptions);
  /** The server's URL. */
  readonly url: string;
  /**
   * Connects, then feeds what arrives to `client`; rejects with `ConnectionClosed` (naming the
   * URL and the cause) when the server cannot be reached.
   */
  start(client: Client): Promise<void>;
  /** Sends messages (each becomes a POST). */
  write(data: Buffer): void;
  /** Ends the session (DELETE); resolves once the transport finished (5 s at most). */
  close(): Promise<void> | undefined;
  /** Why the connection ended, when it failed. */
  failureDetail(): string;
}

/**
 * A server subprocess speaking JSON-RPC over its stdin/stdout (what `Client.stdio` uses):
 * `Client.connect(new StdioTransport("node", ["server.mjs"]))`. It runs in its own process
 * group; its stderr is captured.
 */
export declare class StdioTransport implements ClientTransport {
  /** Describes the subprocess; nothing runs until the client starts the transport. */
  constructor(command: string, args?: Iterable<string>, options?: StdioTransportOptions);
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: string[];
  /** The ChildProcess (null before start). */
  readonly process: import('node:child_process').ChildProcessWithoutNullStreams | null;
  /** The server's process id (undefined before start). */
  readonly pid: number | undefined;
  /** Its exit code once it exited (null otherwise). */
  readonly exitCode: number | null;
  /** The signal that ended it, once it exited (null otherwise). */
  readonly signalCode: NodeJS.Signals | null;
  /** The last 64 KiB it wrote to stderr. */
  readonly stderr: string;
  /** Spawns the process and feeds its stdout to `client`. */
  start(client: Client): Promise<void>;
  /** Writes to its stdin. */
  write(data: Buffer): void;
  /** Ends its stdin, waits up to 2 s, SIGTERM, 2 s more, SIGKILL; resolves once it is reaped. */
  close(): Promise<void>;
  /** Why its side ended: its exit status and the end of its stderr. */
  failureDetail(): string;
}

/** A completion reference to a prompt, for `client.complete(promptRef("review"), ...)`. */
export declare function promptRef<N extends string>(name: N): PromptReference & { name: N };

/** A completion reference to a resource template, for `client.complete(resourceRef("a://{x}"), ...)`. */
export declare function resourceRef<U extends string>(uri: U): ResourceTemplateReference & { uri: U };
