// Type definitions for hypermcp: sampling (`sampling/createMessage`) and elicitation
// (`elicitation/create`) parameters and results.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

import type { Meta, Role, Tool } from './protocol.js';
import type { SamplingContent } from './content.js';

// =============================================================================================
// Sampling and elicitation
// =============================================================================================

/** A message to or from a model. */
export interface SamplingMessage {
  /** Who says it. */
  role: Role;
  /** What is said: one block or several. */
  content: SamplingContent | SamplingContent[];
  /** Metadata. */
  _meta?: Meta;
}

/** The server's preferences for the model the client picks. */
export interface ModelPreferences {
  /** Model name hints, in order of preference. */
  hints?: { name?: string }[];
  /** 0 to 1. */
  costPriority?: number;
  /** 0 to 1. */
  speedPriority?: number;
  /** 0 to 1. */
  intelligencePriority?: number;
}

/** The parameters of `sampling/createMessage`. */
export interface CreateMessageParams {
  /** The conversation. */
  messages: SamplingMessage[];
  /** The most tokens to sample. */
  maxTokens: number;
  /** A system prompt. */
  systemPrompt?: string;
  /** Context from MCP servers to include (soft-deprecated). */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  /** Sampling temperature. */
  temperature?: number;
  /** Stop sequences. */
  stopSequences?: string[];
  /** Provider-specific metadata. */
  metadata?: object;
  /** Which model the server would like. */
  modelPreferences?: ModelPreferences;
  /** Tools the model may use (2025-11-25). */
  tools?: Tool[];
  /** How the model may use them. */
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  /** Metadata. */
  _meta?: Meta;
}

/** The client's answer to `sampling/createMessage`. */
export interface CreateMessageResult {
  /** Usually `"assistant"`. */
  role: Role;
  /** What the model said. */
  content: SamplingContent | SamplingContent[];
  /** The model that answered. */
  model: string;
  /** Why sampling stopped: `"endTurn"`, `"stopSequence"`, `"maxTokens"`, `"toolUse"` or other. */
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
  /** Metadata. */
  _meta?: Meta;
}

/** A field of an elicitation form (flat: strings, numbers, booleans, enums). */
export type PrimitiveSchemaDefinition =
  | {
      type: 'string';
      title?: string;
      description?: string;
      minLength?: number;
      maxLength?: number;
      format?: 'email' | 'uri' | 'date' | 'date-time';
      default?: string;
      enum?: readonly string[];
      enumNames?: readonly string[];
      oneOf?: readonly { const: string; title: string }[];
    }
  | {
      type: 'number' | 'integer';
      title?: string;
      description?: string;
      minimum?: number;
      maximum?: number;
      default?: number;
    }
  | { type: 'boolean'; title?: string; description?: string; default?: boolean }
  | {
      type: 'array';
      title?: string;
      description?: string;
      minItems?: number;
      maxItems?: number;
      items: { type?: 'string'; enum?: readonly string[]; anyOf?: readonly { const: string; title: string }[] };
      default?: readonly string[];
    };

/** The parameters of a form-mode `elicitation/create`. */
export interface ElicitFormParams {
  /** `"form"` (the default when absent). */
  mode?: 'form';
  /** What to ask the user. */
  message: string;
  /** The form: a flat object schema. */
  requestedSchema: {
    type: 'object';
    properties: { [name: string]: PrimitiveSchemaDefinition };
    required?: string[];
    $schema?: string;
  };
  /** Metadata. */
  _meta?: Meta;
}

/** The parameters of a URL-mode `elicitation/create` (2025-11-25). */
export interface ElicitUrlParams {
  /** Discriminator. */
  mode: 'url';
  /** Why the user should open the URL. */
  message: string;
  /** The URL to open. */
  url: string;
  /** Identifies this elicitation (see `notifications/elicitation/complete`). */
  elicitationId: string;
  /** Metadata. */
  _meta?: Meta;
}

/** The parameters of `elicitation/create`. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** A value the user entered in an elicitation form. */
export type ElicitValue = string | number | boolean | string[];

/**
 * The client's answer to `elicitation/create`: `content` is present when `action` is
 * `"accept"` (form mode). `T` is the type of the form's content.
 */
export interface ElicitResult<T = { [name: string]: ElicitValue }> {
  /** What the user did. */
  action: 'accept' | 'decline' | 'cancel';
  /** What the user entered (accepted form mode only). */
  content?: T;
  /** Metadata. */
  _meta?: Meta;
}
