// @ts-check
'use strict';
// The error classes of hypermcp. Every error the package throws has a stable string `code`
// (ERR_MCP_*); protocol errors also carry the JSON-RPC `rpcCode` and `data`.
//
// Throwing an McpError in a handler answers the request with that JSON-RPC error; any other
// throw (or rejection) in a tool handler becomes a result with `isError: true`.

/** @typedef {import('./types/protocol').JsonRpcError} JsonRpcError */
/** @typedef {typeof import('./types/errors')} Declared the declared error classes */

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;
const URL_ELICITATION_REQUIRED = -32042;
/** hypermcp's code for a request that timed out (never sent on the wire). */
const REQUEST_TIMEOUT = -32001;
/** hypermcp's code for a connection that closed before an answer (never sent on the wire). */
const CONNECTION_CLOSED = -32000;
/** hypermcp's code for a request its caller aborted (never sent on the wire). */
const REQUEST_CANCELLED = -32800;
/** 2026-07-28: an HTTP header does not match the body (or a required one is missing). */
const HEADER_MISMATCH = -32020;
/** 2026-07-28: the request needs a client capability it did not declare. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** 2026-07-28: the server does not speak the requested protocol version. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** hypermcp: the rate limiting middleware refused the request (`data.retryAfterMs`). */
const RATE_LIMITED = -32029;
/** hypermcp's code for a request the server refused for want of authorization that the client
 * could not get (OAuth failed, or no `auth` option); never sent on the wire. */
const UNAUTHORIZED = -32011;

const NAMES = new Map([
  [PARSE_ERROR, 'ERR_MCP_PARSE'],
  [INVALID_REQUEST, 'ERR_MCP_INVALID_REQUEST'],
  [METHOD_NOT_FOUND, 'ERR_MCP_METHOD_NOT_FOUND'],
  [INVALID_PARAMS, 'ERR_MCP_INVALID_PARAMS'],
  [INTERNAL_ERROR, 'ERR_MCP_INTERNAL'],
  [RESOURCE_NOT_FOUND, 'ERR_MCP_RESOURCE_NOT_FOUND'],
  [URL_ELICITATION_REQUIRED, 'ERR_MCP_URL_ELICITATION_REQUIRED'],
  [REQUEST_TIMEOUT, 'ERR_MCP_TIMEOUT'],
  [CONNECTION_CLOSED, 'ERR_MCP_CLOSED'],
  [REQUEST_CANCELLED, 'ERR_MCP_ABORTED'],
  [HEADER_MISMATCH, 'ERR_MCP_HEADER_MISMATCH'],
  [MISSING_REQUIRED_CLIENT_CAPABILITY, 'ERR_MCP_MISSING_CAPABILITY'],
  [UNSUPPORTED_PROTOCOL_VERSION, 'ERR_MCP_UNSUPPORTED_VERSION'],
  [RATE_LIMITED, 'ERR_MCP_RATE_LIMITED'],
  [UNAUTHORIZED, 'ERR_MCP_UNAUTHORIZED'],
]);

/** A JSON-RPC error: `rpcCode` (number), `message`, `data`; `code` is the stable string. */
class McpError extends Error {
  /**
   * @param {number} rpcCode the JSON-RPC error code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(rpcCode, message, data) {
    super(message);
    this.name = new.target.name;
    /** The JSON-RPC error code. */
    this.rpcCode = rpcCode;
    /** A stable string naming the kind of error. */
    this.code = NAMES.get(rpcCode) ?? 'ERR_MCP_RPC';
    /** Extra information from the peer. */
    this.data = data;
  }

  /** The JSON-RPC error object. */
  toJSON() {
    /** @type {JsonRpcError} */
    const out = { code: this.rpcCode, message: this.message };
    if (this.data !== undefined) out.data = this.data;
    return out;
  }
}

/**
 * The McpError subclass for one JSON-RPC code.
 * @param {string} name
 * @param {number} rpcCode
 */
function coded(name, rpcCode) {
  const cls = class extends McpError {
    /** @param {string} message @param {unknown} [data] */
    constructor(message, data) {
      super(rpcCode, message, data);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

// Typed as declared: each one's `code` literal is its code's entry in NAMES (set at run time).
const ParseError = /** @type {Declared['ParseError']} */ (coded('ParseError', PARSE_ERROR));
const InvalidRequest = /** @type {Declared['InvalidRequest']} */ (coded('InvalidRequest', INVALID_REQUEST));
const MethodNotFound = /** @type {Declared['MethodNotFound']} */ (coded('MethodNotFound', METHOD_NOT_FOUND));
const InvalidParams = /** @type {Declared['InvalidParams']} */ (coded('InvalidParams', INVALID_PARAMS));
const InternalError = /** @type {Declared['InternalError']} */ (coded('InternalError', INTERNAL_ERROR));
const ResourceNotFound = /** @type {Declared['ResourceNotFound']} */ (coded('ResourceNotFound', RESOURCE_NOT_FOUND));
const UrlElicitationRequired = /** @type {Declared['UrlElicitationRequired']} */ (coded('UrlElicitationRequired', URL_ELICITATION_REQUIRED));
const RequestTimeout = /** @type {Declared['RequestTimeout']} */ (coded('RequestTimeout', REQUEST_TIMEOUT));
const ConnectionClosed = /** @type {Declared['ConnectionClosed']} */ (coded('ConnectionClosed', CONNECTION_CLOSED));
const HeaderMismatch = /** @type {Declared['HeaderMismatch']} */ (coded('HeaderMismatch', HEADER_MISMATCH));
const MissingRequiredClientCapability = /** @type {Declared['MissingRequiredClientCapability']} */ (
  coded('MissingRequiredClientCapability', MISSING_REQUIRED_CLIENT_CAPABILITY)
);
const UnsupportedProtocolVersion = /** @type {Declared['UnsupportedProtocolVersion']} */ (
  coded('UnsupportedProtocolVersion', UNSUPPORTED_PROTOCOL_VERSION)
);
const Unauthorized = /** @type {Declared['Unauthorized']} */ (coded('Unauthorized', UNAUTHORIZED));
/** The server's rate limit refused the request: `retryAfter` is in seconds (`data.retryAfterMs`). */
class RateLimited extends McpError {
  /** @param {string} message @param {unknown} [data] */
  constructor(message, data) {
    super(RATE_LIMITED, message, data);
    // Set by McpError (from NAMES); declared here with its narrower type.
    /** @type {'ERR_MCP_RATE_LIMITED'} */
    this.code;
    this.name = 'RateLimited';
  }

  /** @returns {number | undefined} */
  get retryAfter() {
    const d = /** @type {{ retryAfterMs?: unknown } | undefined} */ (this.data);
    return typeof d?.retryAfterMs === 'number' ? d.retryAfterMs / 1000 : undefined;
  }
}

/**
 * Throw in a tool to fail it with `isError: true` and exactly this message, whatever
 * `maskErrorDetails` says (any other error fails it too, its message masked when the server
 * masks error details).
 */
class ToolError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'ToolError';
  }
}

/** A call aborted through its AbortSignal. */
class AbortError extends McpError {
  /** @param {string} [message] @param {unknown} [reason] */
  constructor(message = 'the operation was aborted', reason) {
    super(REQUEST_CANCELLED, message, undefined);
    // Set by McpError (from NAMES); declared here with their narrower types.
    /** @type {'ERR_MCP_ABORTED'} */
    this.code;
    /** @type {typeof REQUEST_CANCELLED} */
    this.rpcCode;
    this.name = 'AbortError';
    /** @type {unknown} The AbortSignal's reason (always set: not optional, as Error's is). */
    this.cause;
    this.cause = reason;
  }
}

/** A definition (tool, resource, prompt, schema) that cannot be registered. */
class DefinitionError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'DefinitionError';
    /** @type {'ERR_MCP_DEFINITION'} */
    this.code = 'ERR_MCP_DEFINITION';
  }
}

/** An option hypermcp does not know, or a value it cannot take (the message names it). */
class OptionError extends TypeError {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'OptionError';
    /** @type {'ERR_MCP_OPTION'} */
    this.code = 'ERR_MCP_OPTION';
  }
}

/**
 * A skill file whose content is not what the skill's entry describes, so it must not be used:
 * `reason` is 'unlisted' (not one of the skill's files), 'size', 'digest', 'frontmatter' (the
 * SKILL.md frontmatter differs from the entry's) or 'invalid' (a malformed entry or read);
 * `uri` names the file. Refresh the entry with `client.getSkill(uri)` and load it again.
 */
class SkillVerificationError extends Error {
  /**
   * @param {string} message
   * @param {'unlisted' | 'size' | 'digest' | 'frontmatter' | 'invalid'} [reason]
   * @param {string} [uri]
   */
  constructor(message, reason = 'invalid', uri = '') {
    super(message);
    this.name = 'SkillVerificationError';
    /** @type {'ERR_MCP_SKILL_VERIFICATION'} */
    this.code = 'ERR_MCP_SKILL_VERIFICATION';
    this.reason = reason;
    this.uri = uri;
  }
}

/** @typedef {new (message: string, data?: unknown) => McpError} CodedError */
const BY_CODE = new Map(/** @type {[number, CodedError][]} */ ([
  [PARSE_ERROR, ParseError],
  [INVALID_REQUEST, InvalidRequest],
  [METHOD_NOT_FOUND, MethodNotFound],
  [INVALID_PARAMS, InvalidParams],
  [INTERNAL_ERROR, InternalError],
  [RESOURCE_NOT_FOUND, ResourceNotFound],
  [URL_ELICITATION_REQUIRED, UrlElicitationRequired],
  [REQUEST_TIMEOUT, RequestTimeout],
  [CONNECTION_CLOSED, ConnectionClosed],
  [HEADER_MISMATCH, HeaderMismatch],
  [MISSING_REQUIRED_CLIENT_CAPABILITY, MissingRequiredClientCapability],
  [UNSUPPORTED_PROTOCOL_VERSION, UnsupportedProtocolVersion],
  [RATE_LIMITED, RateLimited],
  [UNAUTHORIZED, Unauthorized],
]));

/**
 * The most specific error for a JSON-RPC error object.
 * @param {JsonRpcError} obj
 * @returns {McpError}
 */
function errorFromObject(obj) {
  if (obj.code === REQUEST_CANCELLED) return new AbortError(obj.message);
  const cls = BY_CODE.get(obj.code);
  return cls ? new cls(obj.message, obj.data) : new McpError(obj.code, obj.message, obj.data);
}

/**
 * Builds the errors the native module throws (it calls this; see bindings-node/src/errors.rs).
 * @param {string} kind 'rpc', 'definition', 'option' or 'skill'
 * @param {string} message
 * @param {number | null} [rpcCode]
 * @param {string | null} [data] JSON text
 * @returns {Error}
 */
function nativeError(kind, message, rpcCode, data) {
  if (kind === 'definition') return new DefinitionError(message);
  if (kind === 'option') return new OptionError(message);
  if (kind === 'skill') {
    const d = data == null ? {} : JSON.parse(data);
    return new SkillVerificationError(message, d.reason, d.uri);
  }
  return errorFromObject({ code: rpcCode ?? INTERNAL_ERROR, message, data: data == null ? undefined : JSON.parse(data) });
}

module.exports = {
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  RESOURCE_NOT_FOUND,
  URL_ELICITATION_REQUIRED,
  REQUEST_TIMEOUT,
  CONNECTION_CLOSED,
  REQUEST_CANCELLED,
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
  RATE_LIMITED,
  UNAUTHORIZED,
  ToolError,
  McpError,
  ParseError,
  InvalidRequest,
  MethodNotFound,
  InvalidParams,
  InternalError,
  ResourceNotFound,
  UrlElicitationRequired,
  RequestTimeout,
  ConnectionClosed,
  HeaderMismatch,
  MissingRequiredClientCapability,
  UnsupportedProtocolVersion,
  RateLimited,
  Unauthorized,
  AbortError,
  DefinitionError,
  OptionError,
  SkillVerificationError,
  errorFromObject,
  nativeError,
};
