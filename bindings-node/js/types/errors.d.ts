// Type definitions for hypermcp: error codes, McpError and its subclasses, DefinitionError.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

import type { JsonRpcError } from './protocol.js';

// =============================================================================================
// Errors
// =============================================================================================

/** JSON-RPC: the input is not JSON. */
export declare const PARSE_ERROR: -32700;
/** JSON-RPC: the message is not a valid request. */
export declare const INVALID_REQUEST: -32600;
/** JSON-RPC: unknown method (or a capability the peer lacks). */
export declare const METHOD_NOT_FOUND: -32601;
/** JSON-RPC: bad parameters (unknown tool, arguments that fail the schema...). */
export declare const INVALID_PARAMS: -32602;
/** JSON-RPC: the peer failed internally. */
export declare const INTERNAL_ERROR: -32603;
/** MCP: the resource does not exist. */
export declare const RESOURCE_NOT_FOUND: -32002;
/** MCP (2025-11-25): the request needs the user to complete a URL-mode elicitation first. */
export declare const URL_ELICITATION_REQUIRED: -32042;
/** hypermcp: the request timed out (never sent on the wire). */
export declare const REQUEST_TIMEOUT: -32001;
/** hypermcp: the connection closed before an answer (never sent on the wire). */
export declare const CONNECTION_CLOSED: -32000;
/** hypermcp's code for a request its caller aborted (never sent on the wire): {@link AbortError}. */
export declare const REQUEST_CANCELLED: -32800;
/** MCP (2026-07-28): an HTTP header does not match the body, or a required one is missing. */
export declare const HEADER_MISMATCH: -32020;
/** MCP (2026-07-28): the request needs a client capability it did not declare. */
export declare const MISSING_REQUIRED_CLIENT_CAPABILITY: -32021;
/** MCP (2026-07-28): the server does not speak the requested protocol version. */
export declare const UNSUPPORTED_PROTOCOL_VERSION: -32022;
/** hypermcp: the rate limiting middleware refused the request: {@link RateLimited}. */
export declare const RATE_LIMITED: -32029;
/** hypermcp's code for a request refused for want of an authorization the client could not get
 * (never sent on the wire): {@link Unauthorized}. */
export declare const UNAUTHORIZED: -32011;

/**
 * The stable string codes of hypermcp's errors (`err.code`). Besides these, a few plain
 * errors carry codes too: `ERR_MCP_STATE` (a client used before connecting) and Node's
 * `ERR_INVALID_ARG_VALUE` / `ERR_INVALID_ARG_TYPE` (bad arguments).
 */
export type McpErrorCode =
  | 'ERR_MCP_PARSE'
  | 'ERR_MCP_INVALID_REQUEST'
  | 'ERR_MCP_METHOD_NOT_FOUND'
  | 'ERR_MCP_INVALID_PARAMS'
  | 'ERR_MCP_INTERNAL'
  | 'ERR_MCP_RESOURCE_NOT_FOUND'
  | 'ERR_MCP_URL_ELICITATION_REQUIRED'
  | 'ERR_MCP_TIMEOUT'
  | 'ERR_MCP_CLOSED'
  | 'ERR_MCP_ABORTED'
  | 'ERR_MCP_HEADER_MISMATCH'
  | 'ERR_MCP_MISSING_CAPABILITY'
  | 'ERR_MCP_UNSUPPORTED_VERSION'
  | 'ERR_MCP_UNAUTHORIZED'
  | 'ERR_MCP_DEFINITION'
  | 'ERR_MCP_OPTION'
  | 'ERR_MCP_RPC';

/**
 * A JSON-RPC error. Thrown in a handler, it answers the request with that error (any other
 * throw in a tool handler becomes a result with `isError: true`); a client's calls reject
 * with it (or the subclass for its code) when the peer answers with an error.
 *
 *     throw new McpError(INVALID_PARAMS, "unknown city", { known: ["paris"] });
 */
export declare class McpError extends Error {
  /**
   * @param rpcCode the JSON-RPC error code (e.g. {@link INVALID_PARAMS})
   * @param message what went wrong
   * @param data extra information for the peer (any JSON value)
   */
  constructor(rpcCode: number, message: string, data?: unknown);
  /** The JSON-RPC error code. */
  rpcCode: number;
  /** A stable string naming the kind of error (`ERR_MCP_*`, see {@link McpErrorCode}). */
  code: string;
  /** Extra information from (or for) the peer. */
  data: unknown;
  /** The JSON-RPC error object `{code, message, data?}`. */
  toJSON(): JsonRpcError;
}

/** JSON-RPC -32700: the peer could not parse what it was sent as JSON. */
export declare class ParseError extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_PARSE"`. */
  code: 'ERR_MCP_PARSE';
}

/** JSON-RPC -32600: the request is not valid. */
export declare class InvalidRequest extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_INVALID_REQUEST"`. */
  code: 'ERR_MCP_INVALID_REQUEST';
}

/** JSON-RPC -32601: the method is unknown (or the capability missing). */
export declare class MethodNotFound extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_METHOD_NOT_FOUND"`. */
  code: 'ERR_MCP_METHOD_NOT_FOUND';
}

/** JSON-RPC -32602: bad parameters (unknown tool or prompt, invalid arguments). */
export declare class InvalidParams extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_INVALID_PARAMS"`. */
  code: 'ERR_MCP_INVALID_PARAMS';
}

/** JSON-RPC -32603: an internal error. */
export declare class InternalError extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_INTERNAL"`. */
  code: 'ERR_MCP_INTERNAL';
}

/** MCP -32002: the resource does not exist. */
export declare class ResourceNotFound extends McpError {
  /** @param message what went wrong @param data extra information (e.g. `{uri}`) */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_RESOURCE_NOT_FOUND"`. */
  code: 'ERR_MCP_RESOURCE_NOT_FOUND';
}

/** MCP -32042: the user must first complete the URL-mode elicitations in `data.elicitations`. */
export declare class UrlElicitationRequired extends McpError {
  /** @param message what went wrong @param data `{elicitations: ElicitUrlParams[]}` */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_URL_ELICITATION_REQUIRED"`. */
  code: 'ERR_MCP_URL_ELICITATION_REQUIRED';
}

/** The request timed out (hypermcp's -32001, never sent on the wire). */
export declare class RequestTimeout extends McpError {
  /** @param message what went wrong @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_TIMEOUT"`. */
  code: 'ERR_MCP_TIMEOUT';
}

/** The connection closed before an answer (hypermcp's -32000, never sent on the wire). */
export declare class ConnectionClosed extends McpError {
  /** @param message what went wrong (with the server's exit status and stderr, for stdio) */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_CLOSED"`. */
  code: 'ERR_MCP_CLOSED';
}

/**
 * MCP -32020 (2026-07-28): an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*`) does not match the request body, or a required one is missing.
 */
export declare class HeaderMismatch extends McpError {
  /** @param message which header @param data extra information */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_HEADER_MISMATCH"`. */
  code: 'ERR_MCP_HEADER_MISMATCH';
}

/**
 * MCP -32021 (2026-07-28): the request needs a capability the client did not declare;
 * `data.requiredCapabilities` names it (`{ sampling: {} }`). `ctx.sample` / `ctx.elicit` /
 * `ctx.listRoots` throw it when the client cannot answer; uncaught, it is the call's error.
 */
export declare class MissingRequiredClientCapability extends McpError {
  /** @param message what is missing @param data `{ requiredCapabilities }` */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_MISSING_CAPABILITY"`. */
  code: 'ERR_MCP_MISSING_CAPABILITY';
}

/** MCP -32022 (2026-07-28): the server does not speak that revision; `data.supported` lists those it does. */
export declare class UnsupportedProtocolVersion extends McpError {
  /** @param message the version asked for @param data `{ supported, requested }` */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_UNSUPPORTED_VERSION"`. */
  code: 'ERR_MCP_UNSUPPORTED_VERSION';
}

/** hypermcp's -32029: the server's rate limit refused the request (`data.retryAfterMs`). */
export declare class RateLimited extends McpError {
  /** @param message which limit @param data `{ retryAfterMs, limit }` */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_RATE_LIMITED"`. */
  code: 'ERR_MCP_RATE_LIMITED';
  /** Seconds until the request may be made again, when the server said. */
  readonly retryAfter: number | undefined;
}

/**
 * The server refused the request for want of authorization (HTTP 401, or 403 with
 * `insufficient_scope`) and the client could not get it: OAuth failed (the message says why),
 * or no `auth` option was given.
 */
export declare class Unauthorized extends McpError {
  /** @param message why */
  constructor(message: string, data?: unknown);
  /** `"ERR_MCP_UNAUTHORIZED"`. */
  code: 'ERR_MCP_UNAUTHORIZED';
}

/** A call aborted through its AbortSignal (or a server request the peer cancelled). */
export declare class AbortError extends McpError {
  /** @param message what happened @param reason the signal's reason (becomes `cause`) */
  constructor(message?: string, reason?: unknown);
  /** `"ERR_MCP_ABORTED"`. */
  code: 'ERR_MCP_ABORTED';
  /** {@link REQUEST_CANCELLED}. */
  rpcCode: -32800;
  /** The AbortSignal's reason. */
  cause: unknown;
}

/**
 * Throw in a tool to fail it with `isError: true` and exactly this message, whatever
 * `maskErrorDetails` says.
 */
export declare class ToolError extends Error {
  /** @param message what the client reads */
  constructor(message: string);
}

/** A tool, resource, prompt or schema that cannot be registered (thrown by `server.tool()`...). */
export declare class DefinitionError extends Error {
  /** @param message what is wrong with the definition */
  constructor(message: string);
  /** `"ERR_MCP_DEFINITION"`. */
  code: 'ERR_MCP_DEFINITION';
}

/**
 * An option hypermcp does not know, or a value it cannot take (the message names it): from
 * `startHttp`, `httpHandler`, `Client.http` and the other calls that take options.
 */
export declare class OptionError extends TypeError {
  /** @param message which option, and what it takes */
  constructor(message: string);
  /** `"ERR_MCP_OPTION"`. */
  code: 'ERR_MCP_OPTION';
}

/**
 * A skill file whose content is not what the skill's entry describes, so it must not be used
 * (thrown by `client.loadSkill`, `client.readSkillFile` and `LoadedSkill.read`). Refresh the
 * entry with `client.getSkill(uri)` and load the skill again.
 */
export declare class SkillVerificationError extends Error {
  constructor(message: string, reason?: SkillVerificationReason, uri?: string);
  /** `"ERR_MCP_SKILL_VERIFICATION"`. */
  code: 'ERR_MCP_SKILL_VERIFICATION';
  /** What failed: a file the entry does not list, its size, its digest, the SKILL.md frontmatter, or a malformed entry or read. */
  reason: SkillVerificationReason;
  /** The file concerned. */
  uri: string;
}

/** Why a skill file was refused. */
export type SkillVerificationReason = 'unlisted' | 'size' | 'digest' | 'frontmatter' | 'invalid';

/** The most specific {@link McpError} subclass for a JSON-RPC error object. */
export declare function errorFromObject(error: JsonRpcError): McpError;
