import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zocker } from 'zocker';
import { registeredRoutes } from '../../services/http/index.js';
import { compileIdentitySerializer, exampleOf } from '../../services/http/response-serializer.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Generated samples per response schema (seeded: the same values on every run). */
const SAMPLES = 12;

/** Strings whose JSON escaping differs between naive serializers: quotes, controls, non-ASCII, lone surrogates. */
const AWKWARD_STRINGS = ['plain', 'quote " and \\ backslash', 'line\nbreak\ttab\u0000nul\u001f', 'ünïcødé 😀 \u2028\u2029', 'lone \ud800 surrogate \udc00', ''];

/**
 * A sample with what a handler may hand over besides the schema's fields: an extra key on every
 * object (zod strips it, fast-json-stringify must skip it) and awkward strings in place of
 * every string (only kept where zod still accepts the sample).
 */
function roughen(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => roughen(item, seed + i));
  if (typeof value === 'string') return AWKWARD_STRINGS[seed % AWKWARD_STRINGS.length];
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, item], i) => [key, roughen(item, seed + i)]);
  return { ...Object.fromEntries(entries), extraKeyNotInTheSchema: { secret: 'never serialized' } };
}

/** The JSON written, or that writing it failed. */
function written(write: () => string): string {
  try {
    return write();
  } catch (error) {
    return `failed: ${error instanceof Error ? error.name : String(error)}`;
  }
}

interface ResponseSchema {
  route: string;
  status: string;
  schema: z.ZodType;
}

/**
 * Every route with a response schema: the compiled serializer (services/http/response-serializer.ts)
 * must write exactly what zod's encoder + JSON.stringify writes, on the route's OpenAPI examples
 * and on generated samples, for every schema it compiles; the others keep zod.
 */
describe('compiled response serializers equal the zod encoder on every route', () => {
  let t: TestApp;
  let schemas: ResponseSchema[];
  beforeAll(async () => {
    t = await createTestApp();
    schemas = registeredRoutes(t.app).flatMap((route) => {
      const response = (route as { schema?: { response?: Record<string, z.ZodType> } }).schema?.response ?? {};
      return Object.entries(response).map(([status, schema]) => ({ route: `${[route.method].flat().join(',')} ${route.url}`, status, schema }));
    });
  });
  afterAll(async () => t.close());

  it('compiles the hot routes and most of the rest; says why the others keep zod', () => {
    const choices = schemas.map((entry) => ({ ...entry, result: compileIdentitySerializer(entry.schema) }));
    const compiled = (route: string, status: string) => {
      const choice = choices.find((entry) => entry.route === route && entry.status === status);
      expect(choice, `${route} ${status}`).toBeDefined();
      return 'serialize' in choice!.result;
    };
    expect(compiled('GET /mainnet/v1/auth/me', '200')).toBe(true);
    expect(compiled('GET /mainnet/v1/accounts/:address/balance', '200')).toBe(true);
    // The error body (`.passthrough()`) of every route.
    expect(compiled('GET /mainnet/v1/accounts/:address/balance', '404')).toBe(true);
    // A union of two arrays: fast-json-stringify would pick the branch with ajv, zod by parsing.
    const union = choices.find((entry) => entry.route === 'GET /mainnet/v1/accounts/:address/transactions' && entry.status === '200')!;
    expect(union.result).toEqual({ reason: '$.data: union' });
    const kept = choices.filter((entry) => 'reason' in entry.result);
    expect(kept.length / choices.length).toBeLessThan(0.2);
  });

  it('writes the same JSON as zod on the OpenAPI examples and on generated samples, extra keys and awkward strings included', () => {
    let compared = 0;
    let compiledSchemas = 0;
    const seen = new Set<z.ZodType>();
    for (const { route, status, schema } of schemas) {
      if (seen.has(schema)) continue;
      seen.add(schema);
      const result = compileIdentitySerializer(schema);
      if (!('serialize' in result)) continue;
      compiledSchemas += 1;
      const generated = Array.from({ length: SAMPLES }, (_, seed) => zocker(schema).setSeed(seed + 1).generate());
      const samples = [exampleOf(schema), ...generated, ...generated.map((sample, seed) => roughen(sample, seed))].filter((sample) => sample !== undefined);
      for (const sample of samples) {
        const encoded = z.safeEncode(schema, sample as never);
        // Only what zod accepts is a response at all (zod answers anything else with a 500).
        if (!encoded.success) continue;
        // A value JSON cannot hold (a bigint in an `unknown` field) must fail both ways.
        expect(written(() => result.serialize(sample)), `${route} ${status}`).toBe(written(() => JSON.stringify(encoded.data)));
        compared += 1;
      }
    }
    expect(compiledSchemas).toBeGreaterThan(50);
    // Most samples are responses: the comparison is not vacuous.
    expect(compared).toBeGreaterThan(compiledSchemas * SAMPLES);
  });
});
