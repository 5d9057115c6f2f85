import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVED_JSONRPC_METHODS } from '../../services/cli/jsonrpc-methods.js';
import { OPENRPC_METHODS, OpenRpcSchemas } from '../../services/jsonrpc/index.js';
import { SUBSCRIPTION_METHODS } from '../../services/jsonrpc/index.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';
import type { ConformanceCase, ConformanceEnv } from './conformance-case.js';
import { WIRE_EXCEPTIONS } from './openrpc-exceptions.js';

/**
 * Every case module under cases/ (each exports `cases: ConformanceCase[]`): each case calls its
 * method through HTTP on the gateway (simnet upstream) and validates the result against the
 * OpenRPC document's result schema, with the documented wire exceptions. Prints the per-method
 * table (served / passed / missing) for all methods of the document.
 */
const directory = new URL('./cases/', import.meta.url);
const files = (await readdir(directory)).filter((file) => file.endsWith('.ts')).sort();
const modules = await Promise.all(files.map(async (file) => ({ file, cases: ((await import(new URL(file, directory).href)) as { cases: ConformanceCase[] }).cases })));
const all = modules.flatMap((module) => module.cases.map((entry) => ({ ...entry, file: module.file })));

describe('JSON-RPC conformance against the OpenRPC document', () => {
  let e2e: JsonRpcE2E;
  let env: ConformanceEnv;
  const schemas = new OpenRpcSchemas('results');
  const passed = new Map<string, number>();

  beforeAll(async () => {
    e2e = await startJsonRpcE2E();
    env = { e2e, address: (label) => e2e.address(label), call: (method, params) => e2e.call(method, params) };
  }, 60_000);

  afterAll(async () => {
    const served = new Set(SERVED_JSONRPC_METHODS.map((method) => method.name));
    const rows = [...OPENRPC_METHODS.keys()].sort().map((name) => {
      const state = SUBSCRIPTION_METHODS.includes(name)
        ? 'WebSocket only (test/jsonrpc/subscriptions.websocket.test.ts)'
        : !served.has(name) ? 'missing' : (passed.get(name) ?? 0) > 0 ? 'passed' : 'served, no passing case';
      return `  ${name.padEnd(42)} ${state}${passed.has(name) ? ` (${passed.get(name)} case${passed.get(name) === 1 ? '' : 's'})` : ''}`;
    });
    const count = (state: string) => rows.filter((row) => row.includes(state)).length;
    console.log([
      `JSON-RPC conformance: ${OPENRPC_METHODS.size} methods: ${served.size} over HTTP (${count(' passed')} passed), ${count('WebSocket only')} over the WebSocket, ${count(' missing')} missing`,
      `wire exceptions: ${WIRE_EXCEPTIONS.map(({ target }) => ('methodParam' in target ? `${target.methodParam.method}.${target.methodParam.param}` : Object.values(target)[0])).join(', ')}`,
      ...rows,
    ].join('\n'));
    await e2e?.stop();
  });

  it('the cases are named after methods of the document', () => {
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((entry) => !OPENRPC_METHODS.has(entry.method)).map((entry) => `${entry.file}: ${entry.method}`)).toEqual([]);
  });

  it.each(all.map((entry) => [`${entry.method}${entry.name ? ` (${entry.name})` : ''}`, entry] as const))('%s', async (_label, entry) => {
    const params = await entry.params(env);
    const { status, body } = await e2e.send({ jsonrpc: '2.0', id: 1, method: entry.method, params });
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    const problem = schemas.check(OPENRPC_METHODS.get(entry.method)!.result, body.result);
    expect(problem, JSON.stringify(body.result).slice(0, 2_000)).toBeNull();
    await entry.check?.(body.result, env);
    passed.set(entry.method, (passed.get(entry.method) ?? 0) + 1);
  });

  it('serves every method of the document: over HTTP, or over the WebSocket for the subscriptions', () => {
    const served = new Set([...SERVED_JSONRPC_METHODS.map((method) => method.name), ...SUBSCRIPTION_METHODS]);
    expect([...OPENRPC_METHODS.keys()].filter((name) => !served.has(name))).toEqual([]);
  });

  it('every method the gateway serves has a passing case', () => {
    const missing = SERVED_JSONRPC_METHODS.map((method) => method.name).filter((name) => !passed.has(name));
    expect(missing).toEqual([]);
  });
});
