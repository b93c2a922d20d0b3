// Type definitions for hypermcp: the schemas hypermcp accepts besides plain JSON Schema
// (zod 3 and 4, Standard Schema, recognised structurally: zod is never imported) and the types
// inferred from schemas.
//
// Part of the package's public API: bindings-node/js/index.d.ts re-exports everything declared
// here (see the note there on exports).

import type { JsonSchemaObject } from './protocol.js';

// =============================================================================================
// Schemas: JSON Schema, zod (3 and 4) and Standard Schema, recognised structurally
// =============================================================================================

/** A zod 4 schema (classic or mini), recognised by its `_zod` internals. */
export interface Zod4Like<Output = unknown> {
  /** zod 4 internals. */
  readonly _zod: { readonly output: Output };
}

/** A zod 3 schema, recognised by its `_output` and `_def`. */
export interface Zod3Like<Output = unknown> {
  /** zod 3's output type carrier. */
  readonly _output: Output;
  /** zod 3's definition. */
  readonly _def: unknown;
}

/** A Standard Schema (https://standardschema.dev): zod 3.24+, zod 4, valibot, arktype... */
export interface StandardSchemaLike<Output = unknown> {
  /** The Standard Schema interface. */
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/** Any schema object hypermcp recognises besides plain JSON Schema. */
export type SchemaLike = Zod4Like | Zod3Like | StandardSchemaLike;

/** A zod "raw shape": `{ city: z.string(), days: z.number().optional() }`. */
export type ZodRawShape = { readonly [field: string]: SchemaLike };

/** What a tool's `inputSchema`/`outputSchema` (or an elicitation form) can be. */
export type ObjectSchema = JsonSchemaObject | SchemaLike | ZodRawShape;

/** The output type of one zod / Standard Schema schema. */
export type InferSchemaOutput<S> = S extends { readonly _zod: { readonly output: infer O } }
  ? O
  : S extends { readonly _output: infer O }
    ? O
    : S extends { readonly '~standard': { readonly types?: infer T } }
      ? NonNullable<T> extends { readonly output: infer O }
        ? O
        : unknown
      : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type OptionalShapeKeys<S> = { [K in keyof S]-?: undefined extends InferSchemaOutput<S[K]> ? K : never }[keyof S];

/** The object type a zod raw shape parses to (fields that accept undefined are optional). */
export type InferShape<S> = Simplify<
  { -readonly [K in Exclude<keyof S, OptionalShapeKeys<S>>]: InferSchemaOutput<S[K]> } & {
    -readonly [K in OptionalShapeKeys<S>]?: InferSchemaOutput<S[K]>;
  }
>;

type JsonTypeName<N, S> = N extends 'string'
  ? string
  : N extends 'number' | 'integer'
    ? number
    : N extends 'boolean'
      ? boolean
      : N extends 'null'
        ? null
        : N extends 'array'
          ? S extends { readonly items: infer I }
            ? InferJsonSchema<I>[]
            : unknown[]
          : N extends 'object'
            ? JsonObjectType<S>
            : unknown;

type JsonRequired<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;

type JsonObjectType<S> = S extends { readonly properties: infer P }
  ? P extends object
    ? Simplify<
        { -readonly [K in Extract<keyof P, JsonRequired<S>>]: InferJsonSchema<P[K]> } & {
          -readonly [K in Exclude<keyof P, JsonRequired<S>>]?: InferJsonSchema<P[K]>;
        }
      >
    : { [key: string]: unknown }
  : { [key: string]: unknown };

/**
 * The type a JSON Schema written inline (or `as const`) describes: `type`, `properties`,
 * `required`, `items`, `enum`, `const`, `anyOf`/`oneOf`. Anything it cannot read is `unknown`.
 */
export type InferJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer U)[] }
      ? InferJsonSchema<U>
      : S extends { readonly oneOf: readonly (infer U)[] }
        ? InferJsonSchema<U>
        : S extends { readonly type: infer T }
          ? T extends readonly (infer N)[]
            ? JsonTypeName<N, S>
            : JsonTypeName<T, S>
          : unknown;

type ObjectOr<T> = unknown extends T ? { [key: string]: unknown } : T extends object ? T : { [key: string]: unknown };

/**
 * The arguments a handler receives for a tool `inputSchema` (or the content of an elicitation
 * form): inferred from a zod schema or raw shape, or from an inline JSON Schema; otherwise
 * `{ [key: string]: unknown }`.
 */
export type InferArgs<S> = [S] extends [undefined]
  ? { [key: string]: unknown }
  : S extends SchemaLike
    ? ObjectOr<InferSchemaOutput<S>>
    : S extends ZodRawShape
      ? InferShape<S>
      : ObjectOr<InferJsonSchema<S>>;
