import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVED_JSONRPC_METHODS } from '../../services/cli/jsonrpc-methods.js';
import { OPENRPC_DOCUMENT } from '../../services/jsonrpc/index.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

type Document = { openrpc: string; info: { title: string; version: string }; methods: { name: string }[]; components: { schemas: Record<string, unknown> } };

/** Every `$ref` of `value` that does not name a schema of `document`'s components. */
function danglingRefs(value: unknown, document: Document): string[] {
  const refs = JSON.stringify(value).match(/"\$ref":"[^"]*"/g) ?? [];
  return refs.map((ref) => ref.slice(8, -1)).filter((ref) => !Object.hasOwn(document.components.schemas, ref.replace('#/components/schemas/', '')));
}

const suiMethod = (name: string) => OPENRPC_DOCUMENT.methods.find((method) => method.name === name);

/** `rpc.discover`: the OpenRPC document of exactly the methods each transport serves, one credit per call. */
describe('rpc.discover', () => {
  let e: JsonRpcE2E;
  beforeAll(async () => {
    e = await startJsonRpcE2E();
  }, 60_000);
  afterAll(async () => e.stop());

  it('over HTTP lists every method POST /v1/jsonrpc serves, each as in Sui\'s document, and no other', async () => {
    const response = await e.send({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' });
    expect(response.status).toBe(200);
    const document = response.body.result as Document;
    expect(document.openrpc).toBe('1.2.6');
    expect(document.info).toMatchObject({ title: 'Sui JSON-RPC (suigw)', version: '1.78.2' });
    const listed = document.methods.map((method) => method.name);
    expect(listed).toEqual(SERVED_JSONRPC_METHODS.map((method) => method.name).sort());
    for (const method of document.methods) expect(method).toEqual(suiMethod(method.name));
    expect(danglingRefs(document, document)).toEqual([]);

    // Each listed method is served (never -32601); each of Sui's methods left out is not.
    const calls = listed.map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] }));
    const answers = [...(await e.send(calls.slice(0, 25))).body, ...(await e.send(calls.slice(25))).body];
    expect(answers).toHaveLength(listed.length);
    expect(answers.filter((answer: { error?: { code: number } }) => answer.error?.code === -32601)).toEqual([]);
    const omitted = OPENRPC_DOCUMENT.methods.map((method) => method.name).filter((name) => !listed.includes(name));
    expect(omitted).toEqual(['suix_subscribeEvent', 'suix_subscribeTransaction']);
    for (const name of omitted) {
      expect((await e.send({ jsonrpc: '2.0', id: 1, method: name, params: [] })).body.error).toEqual({ code: -32601, message: `Method not found: ${name}` });
    }
  });

  it('costs one credit, like any JSON-RPC call', async () => {
    const first = await e.send({ jsonrpc: '2.0', id: 1, method: 'rpc.discover', params: [] });
    const second = await e.send({ jsonrpc: '2.0', id: 2, method: 'rpc.discover', params: {} });
    expect(first.body.result.methods).toHaveLength(SERVED_JSONRPC_METHODS.length);
    expect(second.body.result).toEqual(first.body.result);
    expect(Number(first.headers.get('x-svc-credit-remaining')) - Number(second.headers.get('x-svc-credit-remaining'))).toBe(1);
  });

  it('takes no params: one is -32602', async () => {
    const response = await e.send({ jsonrpc: '2.0', id: 3, method: 'rpc.discover', params: ['x'] });
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params: rpc.discover takes at most 0 params, got 1' } });
  });

  it('over the WebSocket lists its subscribe and unsubscribe methods, each of which it serves', async () => {
    const { socket, frames } = await e.socket(e.gateway.adminKey);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' }));
    await expect.poll(() => frames.length).toBe(1);
    const document = frames[0].result as Document;
    expect(document.methods.map((method) => method.name)).toEqual(['suix_subscribeEvent', 'suix_subscribeTransaction', 'suix_unsubscribeEvent', 'suix_unsubscribeTransaction']);
    expect(document.methods[0]).toEqual(suiMethod('suix_subscribeEvent'));
    expect(document.methods[1]).toEqual(suiMethod('suix_subscribeTransaction'));
    expect(danglingRefs(document, document)).toEqual([]);
    // The schemas are those the four methods reach, not the whole of Sui's document.
    expect(Object.keys(document.components.schemas)).toContain('EventFilter');
    expect(Object.keys(document.components.schemas)).not.toContain('SuiSystemStateSummary');

    socket.send(JSON.stringify([
      { jsonrpc: '2.0', id: 2, method: 'suix_subscribeEvent', params: [{ All: [] }] },
      { jsonrpc: '2.0', id: 3, method: 'suix_subscribeTransaction', params: [{ FromAddress: e.address('alice') }] },
    ]));
    await expect.poll(() => frames.length).toBe(3);
    socket.send(JSON.stringify([
      { jsonrpc: '2.0', id: 4, method: 'suix_unsubscribeEvent', params: [frames[1].result] },
      { jsonrpc: '2.0', id: 5, method: 'suix_unsubscribeTransaction', params: [frames[2].result] },
    ]));
    await expect.poll(() => frames.length).toBe(5);
    expect(frames.slice(1).map((frame) => frame.result)).toEqual([expect.any(Number), expect.any(Number), true, true]);
    socket.close();
  });
});
