// Type definitions for hypermcp: content blocks (text, image, audio, embedded resources,
// resource links, sampling tool use and results) and the helpers that build them.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

import type { Annotations, Icon, Meta } from './protocol.js';

// =============================================================================================
// Content
// =============================================================================================

/** Text content. */
export interface TextContent {
  /** Discriminator. */
  type: 'text';
  /** The text. */
  text: string;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Metadata. */
  _meta?: Meta;
}

/** An image, base64-encoded. */
export interface ImageContent {
  /** Discriminator. */
  type: 'image';
  /** Base64 of the image bytes. */
  data: string;
  /** e.g. `"image/png"`. */
  mimeType: string;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Metadata. */
  _meta?: Meta;
}

/** Audio, base64-encoded. */
export interface AudioContent {
  /** Discriminator. */
  type: 'audio';
  /** Base64 of the audio bytes. */
  data: string;
  /** e.g. `"audio/wav"`. */
  mimeType: string;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Metadata. */
  _meta?: Meta;
}

/** The contents of a text resource. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** Its MIME type. */
  mimeType?: string;
  /** The text. */
  text: string;
  /** Metadata. */
  _meta?: Meta;
}

/** The contents of a binary resource. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** Its MIME type. */
  mimeType?: string;
  /** Base64 of the bytes. */
  blob: string;
  /** Metadata. */
  _meta?: Meta;
}

/** The contents of a resource: text or blob. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource embedded in a tool result or a prompt message. */
export interface EmbeddedResource {
  /** Discriminator. */
  type: 'resource';
  /** The contents. */
  resource: ResourceContents;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Metadata. */
  _meta?: Meta;
}

/** A link to a resource the client can read (2025-06-18; older clients get it as text). */
export interface ResourceLink {
  /** Discriminator. */
  type: 'resource_link';
  /** The resource's URI. */
  uri: string;
  /** Its name. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type. */
  mimeType?: string;
  /** Size in bytes. */
  size?: number;
  /** Hints for the client. */
  annotations?: Annotations;
  /** Icons for user interfaces. */
  icons?: Icon[];
  /** Metadata. */
  _meta?: Meta;
}

/** Any block of content in a tool result or a prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A model's request to use a tool, in sampling (2025-11-25). */
export interface ToolUseContent {
  /** Discriminator. */
  type: 'tool_use';
  /** Its id, matched by the tool result. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments. */
  input: { [key: string]: unknown };
  /** Metadata. */
  _meta?: Meta;
}

/** The result of a tool use, in sampling (2025-11-25). */
export interface ToolResultContent {
  /** Discriminator. */
  type: 'tool_result';
  /** The id of the tool use it answers. */
  toolUseId: string;
  /** The unstructured result. */
  content: ContentBlock[];
  /** The structured result. */
  structuredContent?: { [key: string]: unknown };
  /** Whether the tool failed. */
  isError?: boolean;
  /** Metadata. */
  _meta?: Meta;
}

/** Content of a sampling message. */
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

// =============================================================================================
// Content helpers
// =============================================================================================

/** Extra fields for a content block. */
export interface ContentExtra {
  /** Hints for the client. */
  annotations?: Annotations;
  /** Metadata. */
  _meta?: Meta;
}

/** A text block: `text("hello")`. */
export declare function text(value: unknown, extra?: ContentExtra): TextContent;

/** An image block from bytes (or a base64 string); `mimeType` defaults to `"image/png"`. */
export declare function image(data: Uint8Array | string, mimeType?: string, extra?: ContentExtra): ImageContent;

/** An audio block from bytes (or a base64 string); `mimeType` defaults to `"audio/wav"`. */
export declare function audio(data: Uint8Array | string, mimeType?: string, extra?: ContentExtra): AudioContent;

/**
 * A resource embedded in a result: give exactly one of `text` or `blob` (bytes or base64).
 * Throws a TypeError otherwise.
 */
export declare function embeddedResource(
  resource:
    | { uri: string; text: string; blob?: undefined; mimeType?: string }
    | { uri: string; blob: Uint8Array | string; text?: undefined; mimeType?: string },
  extra?: ContentExtra,
): EmbeddedResource;

/** A link to a resource (`name` defaults to the URI). */
export declare function resourceLink(resource: Omit<ResourceLink, 'type' | 'name'> & { name?: string }): ResourceLink;

/** Whether a value is a content block (`text`, `image`, `audio`, `resource`, `resource_link`). */
export declare function isContent(value: unknown): value is ContentBlock;
