import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { streamsDb } from '../definitions/store.js';

const PKG = `0x${'ab'.repeat(32)}`;
const ADDRESS = `0x${'cd'.repeat(32)}`;
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

describe('/v1/streams (happy)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'enterprise' });
  });
  afterAll(async () => t.close());

  it('201 {data: {id, name, type, filters, createdAt}} for each of the four types, filters normalized', async () => {
    const bodies = [
      { name: 'swaps', type: 'event', filters: { eventTypes: [`${PKG}::pool::SwapEvent`, '0x2::coin::Coin<0x2::sui::SUI>'], fields: { pool: '0x1', amount: 5, buy: true } } },
      { name: 'whale', type: 'address', filters: { addresses: ['0x5', ADDRESS] } },
      { name: 'sui moves', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } },
      { name: 'obj', type: 'object', filters: { objectIds: [ADDRESS] } },
    ];
    const expectedFilters = [
      { eventTypes: [`${PKG}::pool::SwapEvent`, `0x${'0'.repeat(63)}2::coin::Coin<${SUI}>`], fields: { pool: '0x1', amount: 5, buy: true } },
      { addresses: [`0x${'0'.repeat(63)}5`, ADDRESS] },
      { coinTypes: [SUI] },
      { objectIds: [ADDRESS] },
    ];
    const ids: string[] = [];
    for (const [index, body] of bodies.entries()) {
      const response = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body });
      expect(response.status).toBe(201);
      const data = response.body.data as Record<string, unknown>;
      expect(Object.keys(data).sort()).toEqual(['createdAt', 'filters', 'fromCheckpoint', 'id', 'name', 'type']);
      // No ingest has read a checkpoint of this network yet: every checkpoint it reads applies.
      expect(data).toMatchObject({ fromCheckpoint: null, name: body.name, type: body.type, filters: expectedFilters[index], createdAt: new Date(t.clock.now()).toISOString() });
      expect(data['id']).toMatch(/^str_[1-9A-HJ-NP-Za-km-z]+$/);
      ids.push(data['id'] as string);
    }
    const list = await call(t, 'GET', '/v1/streams', { key: t.adminKey });
    expect(list.status).toBe(200);
    expect((list.body.data as { id: string }[]).map((s) => s.id)).toEqual(ids);
    const one = await call(t, 'GET', `/v1/streams/${ids[1]}`, { key: t.adminKey });
    expect(one.body.data).toMatchObject({ id: ids[1], type: 'address', filters: expectedFilters[1] });
  });

  it('fromCheckpoint is two past the ingest cursor: the checkpoint after the cursor may be matched already with the old definitions', async () => {
    await streamsDb(t.db.database).insertInto('stream_ingest_cursors').values({ network: 'mainnet', checkpoint: '41', updated_at: new Date(t.clock.now()) }).execute();
    const body = { name: 'after cursor', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } };
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body });
    expect(created.status).toBe(201);
    expect((created.body.data as { fromCheckpoint: string }).fromCheckpoint).toBe('43');
    await call(t, 'DELETE', `/v1/streams/${(created.body.data as { id: string }).id}`, { key: t.adminKey });
    await streamsDb(t.db.database).deleteFrom('stream_ingest_cursors').where('network', '=', 'mainnet').execute();
  });

  it('PATCH renames and replaces filters of the same type; DELETE removes it from the list and reads', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 'c', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const id = (created.body.data as { id: string }).id;
    const patched = await call(t, 'PATCH', `/v1/streams/${id}`, { key: t.adminKey, body: { name: 'renamed', filters: { coinTypes: [`${PKG}::usdc::USDC`] } } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, name: 'renamed', type: 'coin', filters: { coinTypes: [`${PKG}::usdc::USDC`] } });
    const deleted = await call(t, 'DELETE', `/v1/streams/${id}`, { key: t.adminKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect((await call(t, 'GET', `/v1/streams/${id}`, { key: t.adminKey })).body.code).toBe('STREAM_NOT_FOUND');
    const list = await call(t, 'GET', '/v1/streams', { key: t.adminKey });
    expect((list.body.data as { id: string }[]).map((s) => s.id)).not.toContain(id);
  });

  it('streams belong to the key’s network: a testnet listing does not show mainnet streams', async () => {
    const response = await call(t, 'GET', '/v1/streams', { key: t.adminKey, network: 'testnet' });
    expect(response.body.code).toBe('NETWORK_MISMATCH');
  });
});
