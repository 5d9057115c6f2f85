import fastJsonStringify, { type Schema as SerializerSchema } from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { ResponseSerializationError, serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type AnySchema = z.core.$ZodType;

/**
 * Zod types whose encoding is the identity on valid data: a schema made only of these (and
 * checks that do not rewrite the value) serializes to the same JSON through fast-json-stringify
 * as through `z.encode` + `JSON.stringify`. Anything else (transforms, codecs, pipes, defaults,
 * catch, unions other than `nullable`, dates, bigints, lazy or custom types) keeps zod, and so
 * does `unknown`: fast-json-stringify writes an undefined value there as `undefined`, which is
 * not JSON (JSON.stringify leaves the key out, or writes null in an array).
 */
const IDENTITY_TYPES = new Set(['object', 'array', 'record', 'string', 'number', 'boolean', 'null', 'enum', 'literal', 'nullable', 'optional']);

interface ZodDef {
  type: string;
  checks?: { _zod: { def: { check: string } } }[];
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  innerType?: AnySchema;
  keyType?: AnySchema;
  valueType?: AnySchema;
  catchall?: AnySchema;
}

const defOf = (schema: AnySchema) => schema._zod.def as unknown as ZodDef;

/** Why the schema must keep zod's encoder, or undefined when its encoding is the identity. */
export function identityProblem(schema: AnySchema, path = '$'): string | undefined {
  const def = defOf(schema);
  if (!IDENTITY_TYPES.has(def.type)) return `${path}: ${def.type}`;
  // `.trim()`, `.toLowerCase()`, `.overwrite()` rewrite the value while checking it.
  if (def.checks?.some((check) => check._zod.def.check === 'overwrite')) return `${path}: a check that rewrites the value`;
  // `.passthrough()` (catchall unknown) keeps extra keys after the declared ones, as fast-json-stringify's `additionalProperties: {}` does.
  if (def.type === 'object' && def.catchall !== undefined && !['never', 'unknown'].includes(defOf(def.catchall).type)) return `${path}: catchall`;
  const children: [string, AnySchema | undefined][] = [
    ...Object.entries(def.shape ?? {}).map(([key, child]): [string, AnySchema] => [`${path}.${key}`, child]),
    [`${path}[]`, def.element],
    [path, def.innerType],
    [`${path}{key}`, def.keyType],
    [`${path}{}`, def.valueType],
  ];
  for (const [childPath, child] of children) {
    const problem = child === undefined ? undefined : identityProblem(child, childPath);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

type JsonSchema = Record<string, unknown>;

/**
 * Two rewrites for fast-json-stringify:
 * - `anyOf: [X, {type: 'null'}]` (how `z.toJSONSchema` writes a nullable object or enum) becomes
 *   `X` with `type: [X.type, 'null']`: fast-json-stringify picks an `anyOf` branch by validating
 *   the value with ajv on every call, but a type list with one `typeof` test;
 * - objects lose `required`: fast-json-stringify writes required properties before optional ones,
 *   zod in the schema's order. Without it the order is the schema's, and an undefined property is
 *   left out, as JSON.stringify does (a handler that omits a required field is not caught here).
 */
function forSerializer(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forSerializer);
  if (node === null || typeof node !== 'object') return node;
  const simplified: JsonSchema = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, forSerializer(value)]));
  if (Array.isArray(simplified['required']) && typeof simplified['properties'] === 'object') delete simplified['required'];
  const anyOf = simplified['anyOf'];
  if (Array.isArray(anyOf) && anyOf.length === 2 && (anyOf[1] as JsonSchema)['type'] === 'null') {
    const inner = anyOf[0] as JsonSchema;
    if (typeof inner['type'] === 'string') {
      const { anyOf: _, ...rest } = simplified;
      return { ...rest, ...inner, type: [inner['type'], 'null'] };
    }
  }
  return simplified;
}

/** The JSON Schema fast-json-stringify compiles: every sub-schema inline, no metadata. */
export function serializerJsonSchema(schema: AnySchema): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'output',
    // An empty registry: the OpenAPI ids and examples of the global one would only add `$ref`s.
    metadata: z.registry(),
    reused: 'inline',
    cycles: 'throw',
    unrepresentable: 'throw',
  }) as JsonSchema;
  return forSerializer(json) as JsonSchema;
}

/** Compiled serializers by JSON Schema text: the same schema under every network and for HEAD is compiled once. */
const compiled = new Map<string, (data: unknown) => string>();

/**
 * fast-json-stringify's function for the schema, or zod's reason to keep its encoder. Also
 * checked on the schema's own OpenAPI examples: if the two disagree there, zod stays.
 */
export function compileIdentitySerializer(schema: AnySchema): { serialize: (data: unknown) => string } | { reason: string } {
  const problem = identityProblem(schema);
  if (problem !== undefined) return { reason: problem };
  let json: JsonSchema;
  try {
    json = serializerJsonSchema(schema);
  } catch (error) {
    return { reason: `no JSON Schema: ${error instanceof Error ? error.message : String(error)}` };
  }
  const text = JSON.stringify(json);
  let serialize = compiled.get(text);
  if (serialize === undefined) {
    serialize = fastJsonStringify(json as unknown as SerializerSchema) as (data: unknown) => string;
    compiled.set(text, serialize);
  }
  const example = exampleOf(schema);
  if (example !== undefined) {
    const encoded = z.safeEncode(schema as z.ZodType, example as never);
    if (encoded.success && JSON.stringify(encoded.data) !== serialize(example)) return { reason: 'differs from zod on the schema\'s example' };
  }
  return { serialize };
}

/**
 * A value built from the schema's OpenAPI examples (`.meta({ example })` or `examples`), or
 * undefined where a part has none; used to check a compiled serializer against zod.
 */
export function exampleOf(schema: AnySchema): unknown {
  const meta = z.globalRegistry.get(schema) as { example?: unknown; examples?: unknown[] } | undefined;
  if (meta?.example !== undefined) return meta.example;
  if (Array.isArray(meta?.examples) && meta.examples.length > 0) return meta.examples[0];
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const entries = Object.entries(def.shape ?? {}).map(([key, child]) => [key, exampleOf(child)] as const);
      if (entries.some(([, value]) => value === undefined)) return undefined;
      return Object.fromEntries(entries);
    }
    case 'array': {
      const element = exampleOf(def.element!);
      return element === undefined ? undefined : [element];
    }
    case 'nullable':
      return exampleOf(def.innerType!) ?? null;
    case 'optional':
      return exampleOf(def.innerType!);
    case 'enum':
      return (schema as z.ZodEnum).options[0];
    case 'literal':
      return (schema as z.ZodLiteral).value;
    default:
      return undefined;
  }
}

/**
 * The response serializer of every route and status, compiled once when first used: the zod
 * schema's JSON Schema through fast-json-stringify where zod's encoding is the identity (about
 * a seventh of zod's `safeEncode` + `JSON.stringify` on auth/me's body), zod's own serializer
 * otherwise. A compiled serializer does not validate: the handler's return type is checked
 * against the schema by TypeScript (the zod type provider); what zod would refuse at run time
 * (a pattern, an enum value, a missing field) is written as it is instead of a 500. A value
 * fast-json-stringify cannot write still fails as a response serialization error (500).
 */
export const responseSerializerCompiler: FastifySerializerCompiler<AnySchema> = (route) => {
  const { schema, method, url } = route;
  const viaZod = zodSerializerCompiler(route as never) as (data: unknown) => string;
  let serialize: ((data: unknown) => string) | undefined;
  const choose = (): ((data: unknown) => string) => {
    const result = compileIdentitySerializer(schema);
    if ('reason' in result) return viaZod;
    const fast = result.serialize;
    return (data) => {
      try {
        return fast(data);
      } catch (error) {
        throw new ResponseSerializationError(method, url, { cause: error as never });
      }
    };
  };
  return (data) => (serialize ??= choose())(data);
};
