import { JSONRPC_ERROR, JsonRpcError } from './method.js';
import type { OpenRpcMethodSpec, OpenRpcSchemas } from './openrpc.js';

/**
 * A call's params as the method's named params: positional params are mapped to the document's
 * param names in order, `null` for an optional param means absent (the SDK sends `null` for
 * every optional param it was not given), and every present param is checked against its
 * schema in the document. Anything else is -32602 with the reason.
 */
export function namedParams(spec: OpenRpcMethodSpec, params: unknown, schemas: OpenRpcSchemas): Record<string, unknown> {
  refuseDeepNesting(params);
  const given = new Map<string, unknown>();
  if (Array.isArray(params)) {
    if (params.length > spec.params.length) {
      throw invalidParams(`${spec.name} takes at most ${spec.params.length} params, got ${params.length}`);
    }
    params.forEach((value, index) => given.set(spec.params[index]!.name, value));
  } else if (params !== undefined) {
    const known = new Set(spec.params.map((param) => param.name));
    for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
      if (!known.has(name)) throw invalidParams(`unknown param '${name}'`);
      given.set(name, value);
    }
  }
  const named: Record<string, unknown> = {};
  for (const param of spec.params) {
    const value = given.get(param.name);
    if (value === undefined || (value === null && !param.required)) {
      if (param.required) throw invalidParams(`missing required param '${param.name}'`);
      continue;
    }
    const problem = schemas.check(param.schema, value);
    if (problem !== null) throw invalidParams(`param '${param.name}' ${problem}`);
    named[param.name] = value;
  }
  return named;
}

/**
 * How deep a call's params may nest. The document's deepest legitimate params (a batch
 * transaction's Move call arguments, an event filter's `Any`) are a few levels; the schema
 * validator, the filters and JSON.stringify all recurse, and a few thousand levels, a few KiB of
 * JSON, would overflow the stack in any of them.
 */
export const MAX_PARAMS_DEPTH = 32;

/** -32602 when `params` nests deeper than MAX_PARAMS_DEPTH (measured without recursion). */
function refuseDeepNesting(params: unknown): void {
  let level: unknown[] = [params];
  for (let depth = 0; level.length > 0; depth += 1) {
    if (depth > MAX_PARAMS_DEPTH) {
      throw invalidParams(`params nest deeper than ${MAX_PARAMS_DEPTH} levels`, { code: 'PARAMS_TOO_DEEP', max: MAX_PARAMS_DEPTH });
    }
    const next: unknown[] = [];
    for (const value of level) {
      if (value !== null && typeof value === 'object') for (const child of Object.values(value)) next.push(child);
    }
    level = next;
  }
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/**
 * A u64 the caller sent (a decimal string or an integer): -32602 naming the param when it is
 * anything else, so caller input never reaches a method or the upstream as an internal error.
 */
export function u64Param(value: unknown, name: string): bigint {
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  if (!/^[0-9]{1,20}$/.test(text)) throw invalidParams(`${name} is not a u64`);
  const n = BigInt(text);
  if (n > U64_MAX) throw invalidParams(`${name} is not a u64`);
  return n;
}

export function invalidParams(detail: string, data?: unknown): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${detail}`, data);
}
