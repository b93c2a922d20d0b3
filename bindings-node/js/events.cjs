// @ts-check
'use strict';
// The fields of the event arrays the native sessions hand out, by name.
//
// An event is `[kind, field, ...]`: arrays are the cheapest thing to build natively and to
// read here. Their layout is the engine's (`eventLayouts()`, checked against
// tests/fixtures/events.json by every suite); this module gives each field its index once,
// so that code reads `ev[TOOL_NAME]` rather than `ev[5]`.

const native = require('./native.cjs');

/**
 * @typedef {any[]} NativeEvent `[kind, field, ...]`: JSON from the engine, each field's type
 *   depending on the kind (their positions are only known at run time, from `eventLayouts()`)
 */

/** @type {Map<string, string[]>} kind -> field names, in order */
const LAYOUTS = new Map(native.eventLayouts());

/**
 * @param {string} kind
 * @param {string} field
 */
function at(kind, field) {
  const i = (LAYOUTS.get(kind) ?? []).indexOf(field);
  if (i < 0) throw new Error(`hypermcp: the native module has no event field ${kind}.${field}`);
  return i + 1;
}

module.exports = {
  LAYOUTS,
  KIND: 0,
  /**
   * The kinds that run a handler; each starts with key, id, progress token, `_meta` and the
   * 2026-07-28 request context (null in a legacy session) and the HTTP request's origin
   * (headers, session id, auth; null over stdio).
   */
  CALLS: new Set([...LAYOUTS].filter(([, fields]) => fields[0] === 'key' && fields[1] === 'id').map(([kind]) => kind)),
  KEY: at('tool', 'key'),
  ID: at('tool', 'id'),
  TOKEN: at('tool', 'progress_token'),
  META: at('tool', 'meta'),
  CONTEXT: at('tool', 'context'),
  ORIGIN: at('tool', 'origin'),
  TOOL_NAME: at('tool', 'name'),
  TOOL_ARGUMENTS: at('tool', 'arguments'),
  TOOL_TASK: at('tool', 'task'),
  RESOURCE_URI: at('resource', 'uri'),
  RESOURCE_TEMPLATE: at('resource', 'template'),
  RESOURCE_VARIABLES: at('resource', 'variables'),
  PROMPT_NAME: at('prompt', 'name'),
  PROMPT_ARGUMENTS: at('prompt', 'arguments'),
  COMPLETE_PARAMS: at('complete', 'params'),
  METHOD_NAME: at('method', 'method'),
  LIST_NAME: at('list', 'list'),
  LIST_ITEMS: at('list', 'items'),
  METHOD_PARAMS: at('method', 'params'),
  SAMPLING_PARAMS: at('sampling', 'params'),
  ELICITATION_PARAMS: at('elicitation', 'params'),
  CANCELLED_KEY: at('cancelled', 'key'),
  CANCELLED_REASON: at('cancelled', 'reason'),
  RESPONSE_ID: at('response', 'id'),
  RESPONSE_OK: at('response', 'ok'),
  RESPONSE_RESULT: at('response', 'result'),
  PROGRESS_ID: at('progress', 'id'),
  PROGRESS_VALUE: at('progress', 'progress'),
  PROGRESS_TOTAL: at('progress', 'total'),
  PROGRESS_MESSAGE: at('progress', 'message'),
  NOTIFICATION_METHOD: at('notification', 'method'),
  NOTIFICATION_PARAMS: at('notification', 'params'),
  NOTIFICATION_SUBSCRIPTION: at('notification', 'subscription'),
  LOST_REASON: at('lost', 'reason'),
};
