// @ts-check
'use strict';
// Schemas for tools and prompts: plain JSON Schema, zod (v3 or v4: a schema or a "raw
// shape" of field schemas) or any Standard Schema. zod is never required: it is only
// touched when the user hands us zod schemas.

const { DefinitionError } = require('./errors.cjs');

/**
 * @typedef {{[key: string]: any}} AnyObject an object whose fields are read as found: zod's
 *   internals, a JSON Schema
 * @typedef {{ok: true, value: any} | {ok: false, message: string, errors?: string[]}} ParseResult
 * @typedef {(value: any) => ParseResult} Parser a zod / Standard Schema parser: defaults, transforms
 * @typedef {import('./types/protocol').PromptArgument} PromptArgument
 */

/** @param {unknown} v @returns {v is AnyObject} */
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** @param {unknown} v @returns {v is AnyObject} */
const isZod4 = (v) => isObj(v) && v._zod !== undefined;
/** @param {unknown} v @returns {v is AnyObject} */
const isZod3 = (v) => isObj(v) && isObj(v._def) && typeof v._def.typeName === 'string';
/** @param {unknown} v @returns {v is AnyObject} */
const isZod = (v) => isZod4(v) || isZod3(v);
/** @param {unknown} v @returns {v is AnyObject} */
const isStandard = (v) => isObj(v) && isObj(v['~standard']) && typeof v['~standard'].validate === 'function';

/**
 * A raw shape: `{ a: z.string(), b: z.number() }`.
 * @param {unknown} v
 * @returns {v is AnyObject}
 */
function isRawShape(v) {
  if (!isObj(v) || isZod(v) || isStandard(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every((s) => isZod(s) || isStandard(s));
}

/**
 * @param {AnyObject} s a zod 3 schema
 * @returns {AnyObject} its JSON Schema
 */
function zod3ToJson(s) {
  const def = s._def;
  const desc = def.description ? { description: def.description } : {};
  switch (def.typeName) {
    case 'ZodString':
      return { type: 'string', ...desc };
    case 'ZodNumber': {
      const int = (def.checks || []).some((/** @type {AnyObject} */ c) => c.kind === 'int');
      /** @type {AnyObject} */
      const out = { type: int ? 'integer' : 'number', ...desc };
      for (const c of def.checks || []) {
        if (c.kind === 'min') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
        if (c.kind === 'max') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
      }
      return out;
    }
    case 'ZodBigInt':
      return { type: 'integer', ...desc };
    case 'ZodBoolean':
      return { type: 'boolean', ...desc };
    case 'ZodNull':
      return { type: 'null', ...desc };
    case 'ZodAny':
    case 'ZodUnknown':
      return { ...desc };
    case 'ZodLiteral':
      return { const: def.value, ...desc };
    case 'ZodEnum':
      return { type: 'string', enum: def.values, ...desc };
    case 'ZodNativeEnum':
      return { enum: Object.values(def.values).filter((/** @type {any} */ v) => typeof def.values[v] !== 'number'), ...desc };
    case 'ZodArray':
      return { type: 'array', items: zod3ToJson(def.type), ...desc };
    case 'ZodTuple':
      return { type: 'array', prefixItems: def.items.map(zod3ToJson), minItems: def.items.length, ...desc };
    case 'ZodRecord':
      return { type: 'object', additionalProperties: zod3ToJson(def.valueType), ...desc };
    case 'ZodObject': {
      const shape = typeof def.shape === 'function' ? def.shape() : def.shape;
      return { ...shapeToJson(shape), ...desc };
    }
    case 'ZodOptional':
      return { ...zod3ToJson(def.innerType), ...desc };
    case 'ZodNullable':
      return { anyOf: [zod3ToJson(def.innerType), { type: 'null' }], ...desc };
    case 'ZodDefault':
      return { ...zod3ToJson(def.innerType), default: def.defaultValue(), ...desc };
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return { anyOf: [...(def.options.values ? def.options.values() : def.options)].map(zod3ToJson), ...desc };
    case 'ZodEffects':
      return { ...zod3ToJson(def.schema), ...desc };
    case 'ZodDate':
      return { type: 'string', format: 'date-time', ...desc };
    default:
      throw new DefinitionError(`cannot turn zod type ${def.typeName} into JSON Schema`);
  }
}

/** @param {unknown} s */
function isOptional(s) {
  if (isZod4(s)) return s._zod.optin === 'optional' || s._zod.def?.type === 'optional' || s._zod.def?.type === 'default';
  if (isZod3(s)) return typeof s.isOptional === 'function' ? s.isOptional() : false;
  return false;
}

/**
 * @param {AnyObject} s a zod 4 schema
 * @returns {AnyObject} its JSON Schema
 */
function zod4ToJson(s) {
  /** @type {{toJSONSchema(schema: unknown, params: object): AnyObject}} zod, what is used of it */
  let core;
  try {
    core = require('zod/v4/core');
  } catch {
    try {
      core = require('zod');
    } catch {
      throw new DefinitionError('a zod v4 schema was given but the zod package cannot be loaded');
    }
  }
  const json = core.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
  delete json.$schema;
  return json;
}

/**
 * @param {unknown} s a zod / Standard Schema schema, or JSON Schema
 * @returns {AnyObject} its JSON Schema
 */
function toJson(s) {
  if (isZod4(s)) return zod4ToJson(s);
  if (isZod3(s)) return zod3ToJson(s);
  if (isStandard(s)) {
    const std = s['~standard'];
    if (std.jsonSchema && typeof std.jsonSchema.input === 'function') return std.jsonSchema.input({ target: 'draft-2020-12' });
    return {};
  }
  return /** @type {AnyObject} anything else is JSON Schema already */ (s);
}

/**
 * @param {AnyObject} shape a zod raw shape
 * @returns {AnyObject} its JSON Schema
 */
function shapeToJson(shape) {
  /** @type {AnyObject} */
  const properties = {};
  /** @type {string[]} */
  const required = [];
  for (const [key, s] of Object.entries(shape)) {
    properties[key] = toJson(s);
    if (!isOptional(s)) required.push(key);
  }
  /** @type {AnyObject} */
  const out = { type: 'object', properties };
  if (required.length) out.required = required;
  return out;
}

/**
 * Normalises a tool input/output schema to `{ json, parse }`: the JSON Schema the engine
 * validates with, and (for zod / Standard Schema) a parser applying defaults and transforms.
 * @param {unknown} schema
 * @param {string} what for error messages
 * @returns {{json: AnyObject, parse: Parser | null}}
 */
function compile(schema, what) {
  if (schema === undefined || schema === null) return { json: { type: 'object', properties: {} }, parse: null };
  if (isRawShape(schema)) {
    const shape = schema;
    return { json: shapeToJson(shape), parse: shapeParser(shape) };
  }
  if (isZod(schema) || isStandard(schema)) {
    const json = toJson(schema);
    if (json.type !== 'object') throw new DefinitionError(`${what} must describe an object, not ${JSON.stringify(json.type)}`);
    return { json, parse: standardParser(schema) };
  }
  if (!isObj(schema)) throw new DefinitionError(`${what} must be a JSON Schema object, a zod schema or a zod shape`);
  if (schema.type !== 'object') throw new DefinitionError(`${what} must be a JSON Schema with "type": "object"`);
  return { json: schema, parse: null };
}

/**
 * @param {unknown} schema
 * @returns {Parser | null}
 */
function standardParser(schema) {
  if (isZod(schema) && typeof schema.safeParse === 'function') {
    return (value) => {
      const r = schema.safeParse(value);
      if (r.success) return { ok: true, value: r.data };
      const errors = (r.error.issues || []).map((/** @type {AnyObject} */ i) => `${(i.path || []).join('.') || '(root)'}: ${i.message}`);
      return { ok: false, message: errors.join('; '), errors };
    };
  }
  if (isStandard(schema)) {
    return (value) => {
      const r = schema['~standard'].validate(value);
      if (r && typeof r.then === 'function') throw new DefinitionError('async Standard Schema validation is not supported');
      if (!r.issues) return { ok: true, value: r.value };
      const errors = r.issues.map(
        (/** @type {AnyObject} */ i) => `${(i.path || []).map((/** @type {unknown} */ k) => (isObj(k) ? k.key : k)).join('.') || '(root)'}: ${i.message}`,
      );
      return { ok: false, message: errors.join('; '), errors };
    };
  }
  return null;
}

/**
 * @param {AnyObject} shape a zod raw shape
 * @returns {Parser}
 */
function shapeParser(shape) {
  /** @type {[string, Parser | null][]} */
  const parsers = Object.entries(shape).map(([k, s]) => [k, standardParser(s)]);
  return (value) => {
    const out = { ...value };
    /** @type {string[]} */
    const problems = [];
    for (const [k, p] of parsers) {
      if (!p || (value[k] === undefined && isOptional(shape[k]) && !hasDefault(shape[k]))) continue;
      const r = p(value[k]);
      if (r.ok) {
        if (r.value !== undefined || k in value) out[k] = r.value;
      } else for (const e of r.errors ?? [r.message]) problems.push(`${k}${e.startsWith('(root): ') ? e.slice(6) : `.${e}`}`);
    }
    return problems.length ? { ok: false, message: problems.join('; '), errors: problems } : { ok: true, value: out };
  };
}

/** @param {unknown} s */
function hasDefault(s) {
  return (isZod4(s) && s._zod.def?.type === 'default') || (isZod3(s) && s._def.typeName === 'ZodDefault');
}

/**
 * Prompt arguments from a zod shape (`argsSchema`), or as given.
 * @param {{arguments?: readonly PromptArgument[], argsSchema?: unknown}} config
 * @returns {readonly PromptArgument[]}
 */
function promptArguments(config) {
  if (Array.isArray(config.arguments)) return config.arguments;
  const shape = config.argsSchema;
  if (!shape) return [];
  const json = isRawShape(shape) ? shapeToJson(shape) : toJson(shape);
  const required = new Set(json.required || []);
  return Object.entries(json.properties || {}).map(([name, p]) => {
    /** @type {PromptArgument} */
    const arg = { name, required: required.has(name) };
    if (p.description) arg.description = p.description;
    return arg;
  });
}

module.exports = { compile, promptArguments, isZod, isRawShape, isStandard };
