// @ts-check
'use strict';
// Content helpers: what a tool, resource or prompt can return besides a string. They build
// the plain wire objects, so anything shaped like MCP content works as well.

/**
 * @typedef {import('./types/content').ContentBlock} ContentBlock
 * @typedef {import('./types/content').ContentExtra} ContentExtra
 * @typedef {import('./types/content').ResourceContents} ResourceContents
 * @typedef {import('./types/content').ResourceLink} ResourceLink
 */

/** @param {Buffer|Uint8Array|string} data */
function b64(data) {
  if (typeof data === 'string') return data;
  return Buffer.from(data.buffer ? data : data).toString('base64');
}

/**
 * A text block.
 * @param {unknown} value
 * @param {ContentExtra} [extra]
 * @returns {import('./types/content').TextContent}
 */
function text(value, extra = {}) {
  return { type: 'text', text: String(value), ...extra };
}

/**
 * An image from bytes (or a base64 string).
 * @param {Uint8Array | string} data
 * @param {string} [mimeType]
 * @param {ContentExtra} [extra]
 * @returns {import('./types/content').ImageContent}
 */
function image(data, mimeType = 'image/png', extra = {}) {
  return { type: 'image', data: b64(data), mimeType, ...extra };
}

/**
 * Audio from bytes (or a base64 string).
 * @param {Uint8Array | string} data
 * @param {string} [mimeType]
 * @param {ContentExtra} [extra]
 * @returns {import('./types/content').AudioContent}
 */
function audio(data, mimeType = 'audio/wav', extra = {}) {
  return { type: 'audio', data: b64(data), mimeType, ...extra };
}

/**
 * A resource embedded in a result: give `text` or `blob` (bytes or base64).
 * @param {{uri: string, text?: string, blob?: Buffer|Uint8Array|string, mimeType?: string}} r
 * @param {ContentExtra} [extra]
 * @returns {import('./types/content').EmbeddedResource}
 */
function embeddedResource(r, extra = {}) {
  if ((r.text === undefined) === (r.blob === undefined)) {
    throw new TypeError('embeddedResource needs exactly one of text or blob');
  }
  /** @type {{uri: string, mimeType?: string, text?: string, blob?: string}} */
  const resource = { uri: r.uri };
  if (r.mimeType) resource.mimeType = r.mimeType;
  if (r.text !== undefined) resource.text = r.text;
  else resource.blob = b64(/** @type {Buffer|Uint8Array|string} (checked above) */ (r.blob));
  // Exactly one of text and blob (checked above): ResourceContents.
  return { type: 'resource', resource: /** @type {ResourceContents} */ (resource), ...extra };
}

/**
 * A link to a resource (2025-06-18; older clients get it as text).
 * @param {Omit<ResourceLink, 'type' | 'name'> & {name?: string}} r
 * @returns {ResourceLink}
 */
function resourceLink(r) {
  return { type: 'resource_link', name: r.name ?? r.uri, ...r };
}

/** @type {Set<unknown>} */
const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/**
 * Whether a value is a content block.
 * @param {unknown} value
 * @returns {value is ContentBlock}
 */
function isContent(value) {
  return value !== null && typeof value === 'object' && CONTENT_TYPES.has(/** @type {{type?: unknown}} */ (value).type);
}

module.exports = { text, image, audio, embeddedResource, resourceLink, isContent };
