import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { Metrics } from '../core/index.js';
import { call } from '../../test/support/management-calls.js';
import { EventCatalog, type CatalogEvent, type CatalogProtocol } from './index.js';
import * as schemas from './schemas.js';

const SIMNET_DEX = '0xca100d09d0943baca1caa92da345351c72f5be3d2085913e287e308f1727a8d6';
const ID = `0x${'0'.repeat(63)}2::object::ID`;

describe('GET /v1/catalog/protocols and /v1/catalog/events', () => {
  let t: TestApp;
  const metrics = new Metrics({ defaultMetrics: false });
  // mainnet is served by simnet here, testnet by a real network.
  beforeAll(async () => {
    t = await createTestApp({ env: { SUIGW_CATALOG_SIMNET_NETWORKS: 'mainnet' }, extra: { metrics } });
  });
  afterAll(async () => t.close());

  const get = (path: string, network = 'mainnet') => call(t, 'GET', path, { key: t.adminKey, network });

  it('protocols of the key\'s network: the framework\'s everywhere, simnet\'s stand-ins only where simnet serves', async () => {
    const mainnet = await get('/v1/catalog/protocols');
    expect(mainnet.status).toBe(200);
    expect((mainnet.body.data as CatalogProtocol[]).map((p) => p.id)).toEqual(['sui-system', 'sui-kiosk', 'simnet-dex', 'simnet-lending']);
    expect(mainnet.body.pagination).toEqual({ limit: 50, hasNext: false });
    expect((mainnet.body.data as CatalogProtocol[])[2]).toEqual(schemas.examples.CatalogProtocol);
    // 1 credit (docs/costs.md).
    expect(mainnet.headers['x-svc-credit-remaining']).toBe('24999999');

    const testnetKey = (await call(t, 'POST', '/v1/keys', { key: t.adminKey, body: { name: 't', projectId: t.projects.testnet, scopes: ['data'] } })).body.data as { apiKey: string };
    const testnet = await call(t, 'GET', '/v1/catalog/protocols', { key: testnetKey.apiKey, network: 'testnet' });
    expect(testnet.status).toBe(200);
    expect((testnet.body.data as CatalogProtocol[]).map((p) => p.id)).toEqual(['sui-system', 'sui-kiosk']);
  });

  it('events with their Move layout and field schemas; filtered by protocol and by package', async () => {
    const swaps = await get('/v1/catalog/events?protocol=simnet-dex');
    expect(swaps.status).toBe(200);
    const [swap] = swaps.body.data as CatalogEvent[];
    expect(swap).toMatchObject({
      type: `${SIMNET_DEX}::pool::SwapEvent`, protocol: 'simnet-dex', packageId: SIMNET_DEX, module: 'pool', name: 'SwapEvent',
      abilities: ['copy', 'drop'],
      typeParameters: [{ name: 'T0', constraints: [], isPhantom: true }, { name: 'T1', constraints: [], isPhantom: true }],
    });
    expect(swap!.fields).toEqual([
      { name: 'pool_id', type: ID, schema: { type: 'string', pattern: '^0x[0-9a-f]{64}$' } },
      { name: 'sender', type: 'address', schema: { type: 'string', pattern: '^0x[0-9a-f]{64}$' } },
      { name: 'a_to_b', type: 'bool', schema: { type: 'boolean' } },
      { name: 'amount_in', type: 'u64', schema: { type: 'string', pattern: '^[0-9]+$' } },
      { name: 'amount_out', type: 'u64', schema: { type: 'string', pattern: '^[0-9]+$' } },
    ]);
    expect(swap!.schema).toEqual({
      type: 'object',
      properties: Object.fromEntries(swap!.fields.map((field) => [field.name, field.schema])),
      required: ['pool_id', 'sender', 'a_to_b', 'amount_in', 'amount_out'],
    });

    const system = await get('/v1/catalog/events?package=0x3');
    expect((system.body.data as CatalogEvent[]).map((e) => e.type)).toEqual([
      `0x${'0'.repeat(63)}3::validator::StakingRequestEvent`, `0x${'0'.repeat(63)}3::validator::UnstakingRequestEvent`,
    ]);
    const wrapped = await get('/v1/catalog/events?protocol=simnet-lending&package=0x623f888a57f29d0a131f4f4493b05852d7aa5f69aacbf1666504b4b93c573f45');
    expect((wrapped.body.data as CatalogEvent[]).map((e) => [e.name, e.fields[0]])).toEqual([
      ['Wrapped', { name: 'inner', type: 'T0', schema: { description: "type parameter T0: the instantiation's JSON form" } }],
    ]);
    const none = await get('/v1/catalog/events?protocol=sui-system&package=0x2');
    expect(none.body).toEqual({ data: [], pagination: { limit: 50, hasNext: false } });
  });

  it('pages: limit and signed cursors walk the whole list once', async () => {
    const all = EventCatalog.shipped().events('simnet').map((event) => event.type);
    const walked: string[] = [];
    let path = '/v1/catalog/events?limit=3';
    for (;;) {
      const page = await get(path);
      expect(page.status).toBe(200);
      walked.push(...(page.body.data as CatalogEvent[]).map((event) => event.type));
      const pagination = page.body.pagination as { limit: number; cursor?: string; hasNext: boolean };
      expect(pagination.limit).toBe(3);
      if (!pagination.hasNext) {
        expect(pagination.cursor).toBeUndefined();
        break;
      }
      path = `/v1/catalog/events?limit=3&cursor=${pagination.cursor}`;
    }
    expect(walked).toEqual(all);
    expect(walked.length).toBeGreaterThan(3);
  });

  it('counts in the request metrics as protocol "rest": data-scoped REST reads, not management calls', async () => {
    expect((await get('/v1/catalog/protocols')).status).toBe(200);
    expect((await get('/v1/catalog/events?protocol=no-such-protocol')).status).toBe(404);
    // The registry holds the earlier tests' catalog requests too: every one of them is `rest`.
    const lines = (await metrics.exposition()).body.split('\n').filter((line) => line.startsWith('suigw_requests_total{') && line.includes('/v1/catalog/'));
    expect(lines).toEqual(expect.arrayContaining([
      expect.stringMatching(/^suigw_requests_total\{protocol="rest",route="\/mainnet\/v1\/catalog\/protocols",method="GET",status="200"\} \d+$/),
      expect.stringMatching(/^suigw_requests_total\{protocol="rest",route="\/mainnet\/v1\/catalog\/events",method="GET",status="404"\} 1$/),
    ]));
    for (const line of lines) expect(line).toMatch(/^suigw_requests_total\{protocol="rest",/);
  });

  it('documents both routes in OpenAPI with examples valid against their schemas', async () => {
    const document = (await t.app.inject({ url: '/v1/openapi.json' })).json<{ paths: Record<string, { get: { summary: string; responses: Record<string, unknown> } }>; components: { schemas: Record<string, { examples?: unknown[] }> } }>();
    for (const path of ['/v1/catalog/protocols', '/v1/catalog/events']) {
      const operation = document.paths[path]?.get;
      expect(operation?.summary, path).toEqual(expect.any(String));
      for (const status of ['200', '400', '401', '403']) expect(operation!.responses[status], `${path} ${status}`).toBeDefined();
    }
    expect(document.paths['/v1/catalog/events']!.get.responses['404']).toBeDefined();
    for (const [id, example] of Object.entries(schemas.examples)) {
      expect(document.components.schemas[id]?.examples, id).toHaveLength(1);
      expect(() => (schemas[id as keyof typeof schemas.examples] as z.ZodObject).strict().parse(example), id).not.toThrow();
    }
  });
});
