'use strict';
// Content helpers: what a tool, resource or prompt can return besides a string. They build
// the plain wire objects, so anything shaped like MCP content works as well.

/** @param {Buffer|Uint8Array|string} data */
function b64(data) {
  if (typeof data === 'string') return data;
  return Buffer.from(data.buffer ? data : data).toString('base64');
}

/** A text block. */
function text(value, extra = {}) {
  return { type: 'text', text: String(value), ...extra };
}

/** An image from bytes (or a base64 string). */
function image(data, mimeType = 'image/png', extra = {}) {
  return { type: 'image', data: b64(data), mimeType, ...extra };
}

/** Audio from bytes (or a base64 string). */
function audio(data, mimeType = 'audio/wav', extra = {}) {
  return { type: 'audio', data: b64(data), mimeType, ...extra };
}

/**
 * A resource embedded in a result: give `text` or `blob` (bytes or base64).
 * @param {{uri: string, text?: string, blob?: Buffer|Uint8Array|string, mimeType?: string}} r
 */
function embeddedResource(r, extra = {}) {
  if ((r.text === undefined) === (r.blob === undefined)) {
    throw new TypeError('embeddedResource needs exactly one of text or blob');
  }
  const resource = { uri: r.uri };
  if (r.mimeType) resource.mimeType = r.mimeType;
  if (r.text !== undefined) resource.text = r.text;
  else resource.blob = b64(r.blob);
  return { type: 'resource', resource, ...extra };
}

/**
 * A link to a resource (2025-06-18; older clients get it as text).
 * @param {{uri: string, name?: string, title?: string, description?: string, mimeType?: string, size?: number}} r
 */
function resourceLink(r) {
  return { type: 'resource_link', name: r.name ?? r.uri, ...r };
}

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** Whether a value is a content block. */
function isContent(value) {
  return value !== null && typeof value === 'object' && CONTENT_TYPES.has(value.type);
}

module.exports = { text, image, audio, embeddedResource, resourceLink, isContent };
