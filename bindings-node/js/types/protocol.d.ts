// Type definitions for hypermcp: JSON and protocol basics (ids, capabilities, implementation
// info, annotations), then the protocol's tools, resources, prompts, completion, roots,
// logging, progress and list results.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

import type { ContentBlock, ResourceContents } from './content.js';
import type { PROTOCOL_VERSIONS } from '../index.js'; // for a {@link}

// =============================================================================================
// JSON and protocol basics
// =============================================================================================

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A protocol revision, e.g. `"2025-11-25"` (see {@link PROTOCOL_VERSIONS}). */
export type ProtocolVersion = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | (string & {});

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** The token a requester attaches to ask for progress notifications. */
export type ProgressToken = string | number;

/** `_meta`: free-form metadata attached to most protocol objects. */
export type Meta = { [key: string]: unknown };

/** Who a message or an annotation is for. */
export type Role = 'user' | 'assistant';

/** Log severity, from least to most severe (RFC 5424). */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** A JSON-RPC error object. */
export interface JsonRpcError {
  /** The JSON-RPC error code. */
  code: number;
  /** A short description. */
  message: string;
  /** Extra information. */
  data?: unknown;
}

/** An icon a client may show for a server, tool, resource or prompt. */
export interface Icon {
  /** An http(s) URL or a `data:` URI. */
  src: string;
  /** MIME type override, e.g. `"image/png"`. */
  mimeType?: string;
  /** Sizes as `"48x48"`, or `"any"` for scalable formats. */
  sizes?: string[];
  /** The theme the icon is designed for. */
  theme?: 'light' | 'dark';
}

/** The name and version of an MCP client or server (`clientInfo` / `serverInfo`). */
export interface Implementation {
  /** Programmatic name. */
  name: string;
  /** Version string. */
  version: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its home page. */
  websiteUrl?: string;
  /** Icons for user interfaces. */
  icons?: Icon[];
}

/** What a client declares it supports. */
export interface ClientCapabilities {
  /** Non-standard capabilities. */
  experimental?: { [name: string]: object };
  /** The client can list its roots. */
  roots?: {
    /** It sends `notifications/roots/list_changed`. */
    listChanged?: boolean;
  };
  /** The client can sample its model (`sampling/createMessage`). */
  sampling?: {
    /** It honours `includeContext`. */
    context?: object;
    /** It supports tool use in sampling. */
    tools?: object;
  };
  /** The client can ask its user (`elicitation/create`). */
  elicitation?: {
    /** Form mode. */
    form?: object;
    /** URL mode (2025-11-25). */
    url?: object;
  };
  /** Task-augmented requests (2025-11-25). */
  tasks?: object;
  /** Extensions, by identifier, each with its settings (2026-07-28; `{}`: none). */
  extensions?: { [id: string]: Record<string, unknown> };
  /** Any other capability. */
  [key: string]: unknown;
}

/** What a server declares it supports. */
export interface ServerCapabilities {
  /** Non-standard capabilities. */
  experimental?: { [name: string]: object };
  /** It sends log messages. */
  logging?: object;
  /** It answers `completion/complete`. */
  completions?: object;
  /** It offers prompts. */
  prompts?: {
    /** It sends `notifications/prompts/list_changed`. */
    listChanged?: boolean;
  };
  /** It offers resources. */
  resources?: {
    /** It supports `resources/subscribe`. */
    subscribe?: boolean;
    /** It sends `notifications/resources/list_changed`. */
    listChanged?: boolean;
  };
  /** It offers tools. */
  tools?: {
    /** It sends `notifications/tools/list_changed`. */
    listChanged?: boolean;
  };
  /** Task-augmented requests (2025-11-25). */
  tasks?: object;
  /** Extensions, by identifier, each with its settings (2026-07-28; `{}`: none). */
  extensions?: { [id: string]: Record<string, unknown> };
  /** Any other capability. */
  [key: string]: unknown;
}

/** Hints for clients about how to use or show a piece of content. */
export interface Annotations {
  /** Who it is for. */
  audience?: Role[];
  /** How important it is, 0 (optional) to 1 (required). */
  priority?: number;
  /** ISO 8601 time of the last change. */
  lastModified?: string;
}

// =============================================================================================
// Tools, resources, prompts, completion
// =============================================================================================

/** A JSON Schema (any draft-2020-12 schema; hypermcp validates tool arguments against it). */
export interface JsonSchema {
  /** The JSON type(s). */
  type?: string | readonly string[];
  /** Object properties (schemas). */
  properties?: { readonly [name: string]: object | boolean };
  /** Required properties. */
  required?: readonly string[];
  /** What it is (shown to models). */
  description?: string;
  /** Any other keyword. */
  [keyword: string]: unknown;
}

/** A JSON Schema describing an object: what tool input and output schemas must be. */
export interface JsonSchemaObject extends JsonSchema {
  /** Always `"object"` (checked when the tool is registered). */
  type: string;
}

/** Hints about a tool's behaviour (never trust them from an untrusted server). */
export interface ToolAnnotations {
  /** Human-readable name. */
  title?: string;
  /** It does not modify its environment (default false). */
  readOnlyHint?: boolean;
  /** It may destroy things (default true; meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments does nothing more (default false). */
  idempotentHint?: boolean;
  /** It talks to the outside world (default true). */
  openWorldHint?: boolean;
}

/** A tool as listed by `tools/list`. */
export interface Tool {
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it does (shown to models). */
  description?: string;
  /** The JSON Schema of its arguments. */
  inputSchema: JsonSchemaObject;
  /** The JSON Schema of its `structuredContent`. */
  outputSchema?: JsonSchemaObject;
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
  /** Execution properties (2025-11-25). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** Metadata. */
  _meta?: Meta;
}

/**
 * The result of a tool call. `S` is the type of `structuredContent` (when the tool declares
 * an `outputSchema`).
 */
export interface CallToolResult<S = { [key: string]: unknown }> {
  /** Unstructured content. */
  content: ContentBlock[];
  /** Structured content (2025-06-18), matching the tool's `outputSchema`. */
  structuredContent?: S;
  /** Whether the tool failed (the content says why). */
  isError?: boolean;
  /** Metadata. */
  _meta?: Meta;
}

/** A resource as listed by `resources/list`. */
export interface Resource {
  /** Its URI. */
  uri: string;
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type. */
  mimeType?: string;
  /** Size in bytes, if known. */
  size?: number;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** Metadata. */
  _meta?: Meta;
}

/** A resource template (RFC 6570 URI template) as listed by `resources/templates/list`. */
export interface ResourceTemplate {
  /** The URI template, e.g. `"weather://{city}/now"`. */
  uriTemplate: string;
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** The MIME type of the resources it names. */
  mimeType?: string;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** Metadata. */
  _meta?: Meta;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  /** The contents (usually one item). */
  contents: ResourceContents[];
  /** Metadata. */
  _meta?: Meta;
}

/** An argument of a prompt. */
export interface PromptArgument {
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Whether it must be given. */
  required?: boolean;
}

/** A prompt as listed by `prompts/list`. */
export interface Prompt {
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** Its arguments. */
  arguments?: PromptArgument[];
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** Metadata. */
  _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who says it. */
  role: Role;
  /** What is said. */
  content: ContentBlock;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  /** What the prompt is for. */
  description?: string;
  /** The messages. */
  messages: PromptMessage[];
  /** Metadata. */
  _meta?: Meta;
}

/** A reference to a prompt, for completion. */
export interface PromptReference {
  /** Discriminator. */
  type: 'ref/prompt';
  /** The prompt's name. */
  name: string;
  /** Human-readable name. */
  title?: string;
}

/** A reference to a resource template, for completion. */
export interface ResourceTemplateReference {
  /** Discriminator. */
  type: 'ref/resource';
  /** The URI template. */
  uri: string;
}

/** The parameters of `completion/complete`. */
export interface CompleteParams {
  /** What is being completed. */
  ref: PromptReference | ResourceTemplateReference;
  /** The argument and what the user typed so far. */
  argument: { name: string; value: string };
  /** Arguments already resolved. */
  context?: { arguments?: { [name: string]: string } };
  /** Metadata. */
  _meta?: Meta;
}

/** The result of `completion/complete`. */
export interface CompleteResult {
  /** The suggestions. */
  completion: {
    /** At most 100 values. */
    values: string[];
    /** How many there are in all. */
    total?: number;
    /** Whether there are more than `values`. */
    hasMore?: boolean;
  };
  /** Metadata. */
  _meta?: Meta;
}

/** A root the client exposes (a directory or another URI the server may work in). */
export interface Root {
  /** Its URI (`file://` for directories). */
  uri: string;
  /** Its name. */
  name?: string;
  /** Metadata. */
  _meta?: Meta;
}

/** The result of `roots/list`. */
export interface ListRootsResult {
  /** The roots. */
  roots: Root[];
  /** Metadata. */
  _meta?: Meta;
}

/** An empty result (`ping`, `resources/subscribe`, `logging/setLevel`...). */
export interface EmptyResult {
  /** Metadata. */
  _meta?: Meta;
}

/** The parameters of `notifications/message` (a log message from the server). */
export interface LoggingMessageParams {
  /** Its severity. */
  level: LoggingLevel;
  /** The logger's name. */
  logger?: string;
  /** The message: any JSON value. */
  data: unknown;
  /** Metadata. */
  _meta?: Meta;
}

/** One progress notification. */
export interface Progress {
  /** How far along (increases with each notification). */
  progress: number;
  /** The total, if known. */
  total?: number;
  /** What is happening. */
  message?: string;
}

/** One page of `tools/list` (or every page when listed without a cursor). */
export interface ListToolsResult {
  /** The tools. */
  tools: Tool[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** Metadata. */
  _meta?: Meta;
}

/** One page of `resources/list` (or every page). */
export interface ListResourcesResult {
  /** The resources. */
  resources: Resource[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** Metadata. */
  _meta?: Meta;
}

/** A file of a skill, with the digest and size of its content (skills extension). */
export interface SkillResource {
  /** Its resource URI. */
  uri: string;
  /** `sha256:<64 lowercase hex>` of its raw bytes. */
  digest: string;
  /** Its length in bytes. */
  size: number;
}

/** One skill as `skills/list` and `skills/get` describe it (skills extension). */
export interface SkillEntry {
  /** The URI of its SKILL.md. */
  uri: string;
  /** Its SKILL.md frontmatter as JSON. */
  frontmatter: { name: string; description: string; [key: string]: unknown };
  /** Every file (SKILL.md included), or 'dynamic' (generated content, no digests). */
  resources: SkillResource[] | 'dynamic';
}

/** One page of `skills/list` (or every page). */
export interface ListSkillsResult {
  /** The skills. */
  skills: SkillEntry[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** How long the listing is fresh, in ms. */
  ttlMs?: number;
  /** Who may cache it. */
  cacheScope?: 'public' | 'private';
  /** Metadata. */
  _meta?: Meta;
}

/** One page of `resources/directory/read` (or every page): the directory's children. */
export interface ReadDirectoryResult {
  /** Files, and subdirectories (`mimeType` 'inode/directory'). */
  resources: Resource[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** Metadata. */
  _meta?: Meta;
}

/** One page of `resources/templates/list` (or every page). */
export interface ListResourceTemplatesResult {
  /** The templates. */
  resourceTemplates: ResourceTemplate[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** Metadata. */
  _meta?: Meta;
}

/** One page of `prompts/list` (or every page). */
export interface ListPromptsResult {
  /** The prompts. */
  prompts: Prompt[];
  /** The next page's cursor (only when a cursor was given). */
  nextCursor?: string;
  /** Metadata. */
  _meta?: Meta;
}
