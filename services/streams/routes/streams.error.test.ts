import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call, createKeyVia } from '../../../test/support/management-calls.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { PLANS } from '../../plans/index.js';
import { eventFiltersSchema, FILTER_LIMITS, filterBytes } from '../index.js';

const VALID = { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } };

describe('/v1/streams (errors)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'team' });
  });
  afterAll(async () => t.close());

  it.each([
    ['an unknown type', { name: 's', type: 'nft', filters: { coinTypes: ['0x2::sui::SUI'] } }],
    ['filters of another type', { name: 's', type: 'event', filters: { coinTypes: ['0x2::sui::SUI'] } }],
    ['an empty list', { name: 's', type: 'address', filters: { addresses: [] } }],
    ['a malformed Move type', { name: 's', type: 'event', filters: { eventTypes: ['pool::Swap'] } }],
    ['a malformed address', { name: 's', type: 'object', filters: { objectIds: ['0xZZ'] } }],
    ['an address too long', { name: 's', type: 'address', filters: { addresses: [`0x${'1'.repeat(65)}`] } }],
    ['an unknown filter key', { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'], extra: 1 } }],
    ['a non-scalar field filter', { name: 's', type: 'event', filters: { eventTypes: ['0x2::a::B'], fields: { x: { y: 1 } } } }],
    ['a field value number beyond 2^53 (it would lose digits and match nothing)', { name: 's', type: 'event', filters: { eventTypes: ['0x2::a::B'], fields: { amount: 2 ** 53 } } }],
    ['a fractional field value (no Move value has one)', { name: 's', type: 'event', filters: { eventTypes: ['0x2::a::B'], fields: { amount: 1.5 } } }],
    ['101 entries', { name: 's', type: 'object', filters: { objectIds: Array.from({ length: 101 }, (_, i) => `0x${i.toString(16)}`) } }],
    ['a blank name', { name: '  ', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } }],
    ['no filters', { name: 's', type: 'coin' }],
    ['an unknown top-level field', { ...VALID, extra: true }],
  ])('400 VALIDATION_FAILED for %s', async (_case, body) => {
    const response = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  // Move Registry names parse as struct tags, but chain activity names every type by its package
  // address: a filter naming one was stored (201) and silently matched nothing, ever.
  it.each([
    ['an event type named by a Move Registry name', { name: 's', type: 'event', filters: { eventTypes: ['@mvr/pkg::pool::Swap'] } }],
    ['a coin type with a Move Registry name inside', { name: 's', type: 'coin', filters: { coinTypes: ['0x2::coin::Coin<app.sui/pkg::c::C>'] } }],
  ])('400 VALIDATION_FAILED naming the field for %s; nothing is stored', async (_case, body) => {
    const before = (await call(t, 'GET', '/v1/streams', { key: t.adminKey })).body.data;
    const response = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body });
    const field = body.type === 'event' ? 'eventTypes' : 'coinTypes';
    const issue = `body.filters.${field}.0: not a Move struct type with package addresses (0xADDRESS::module::Name<...>; Move Registry names are not resolved)`;
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
    });
    expect((await call(t, 'GET', '/v1/streams', { key: t.adminKey })).body.data).toEqual(before);
  });

  it(`filters of ${FILTER_LIMITS.maxBytes} bytes (normalized) are accepted; one byte more is 400 VALIDATION_FAILED naming the limit`, async () => {
    // 100 event types (the list's most) whose normalized JSON is exactly `target` bytes.
    const types = (target: number) => {
      const base = Array.from({ length: 100 }, (_, i) => `0x2::m${i}${'a'.repeat(200)}::T`);
      const missing = target - filterBytes(eventFiltersSchema.parse({ eventTypes: base }));
      return base.map((type, i) => type.replace('::T', `${'a'.repeat(Math.floor(missing / 100) + (i < missing % 100 ? 1 : 0))}::T`));
    };
    const atLimit = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'event', filters: { eventTypes: types(FILTER_LIMITS.maxBytes) } } });
    expect(atLimit.status).toBe(201);
    expect((await call(t, 'DELETE', `/v1/streams/${(atLimit.body.data as { id: string }).id}`, { key: t.adminKey })).status).toBe(200);
    const over = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'event', filters: { eventTypes: types(FILTER_LIMITS.maxBytes + 1) } } });
    const message = 'body.filters: the filters exceed 32768 bytes (limit: bytesPerFilter)';
    expect({ status: over.status, body: over.body }).toEqual({
      status: 400, body: { error: 'Validation failed', message, code: 'VALIDATION_FAILED', requestId: expect.any(String), issues: [message] },
    });
  });

  it('a field value number is accepted up to 2^53 − 1; 2^53 is refused with a message that says to use a string', async () => {
    const body = (amount: number) => ({ name: 's', type: 'event', filters: { eventTypes: ['0x2::a::B'], fields: { amount } } });
    const atLimit = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: body(Number.MAX_SAFE_INTEGER) });
    expect(atLimit.status).toBe(201);
    expect((atLimit.body.data as { filters: unknown }).filters).toEqual({ eventTypes: [`0x${'0'.repeat(63)}2::a::B`], fields: { amount: Number.MAX_SAFE_INTEGER } });
    expect((await call(t, 'DELETE', `/v1/streams/${(atLimit.body.data as { id: string }).id}`, { key: t.adminKey })).status).toBe(200);
    const over = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: body(2 ** 53) });
    const message = 'body.filters.fields.amount: numbers must be integers within ±(2^53 − 1); give larger Move integers as strings';
    expect({ status: over.status, body: over.body }).toEqual({
      status: 400, body: { error: 'Validation failed', message, code: 'VALIDATION_FAILED', requestId: expect.any(String), issues: [message] },
    });
  });

  // PATCH checks new filters against the stream's type itself; an unknown key there was named at
  // `body.filters.:` (an empty path after the dot), unlike the same filters on create.
  it('an unknown filter key is named under body.filters alike on create and on PATCH, and changes nothing', async () => {
    const filters = { coinTypes: ['0x2::sui::SUI'], extra: 1, more: 2 };
    const issue = 'body.filters: Unrecognized keys: "extra", "more"';
    const expected = { status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) } };
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { ...VALID, filters } });
    expect({ status: created.status, body: created.body }).toEqual(expected);
    const stream = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: VALID });
    const id = (stream.body.data as { id: string }).id;
    const patched = await call(t, 'PATCH', `/v1/streams/${id}`, { key: t.adminKey, body: { filters } });
    expect({ status: patched.status, body: patched.body }).toEqual(expected);
    expect((await call(t, 'GET', `/v1/streams/${id}`, { key: t.adminKey })).body.data).toMatchObject({ filters: { coinTypes: [expect.stringContaining('::sui::SUI')] } });
    expect((await call(t, 'DELETE', `/v1/streams/${id}`, { key: t.adminKey })).status).toBe(200);
  });

  it('400 INVALID_BODY for a body that is not JSON, 415 for another media type', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/mainnet/v1/streams', headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' }, payload: '{"name":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('INVALID_BODY');
    const text = await t.app.inject({ method: 'POST', url: '/mainnet/v1/streams', headers: { 'x-api-key': t.adminKey, 'content-type': 'text/plain' }, payload: 'x' });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('403 STREAM_LIMIT_REACHED at the plan’s stream count; a deleted stream frees its slot', async () => {
    const limit = PLANS.team.streams;
    const ids: string[] = [];
    for (let i = 0; i < limit; i += 1) {
      const response = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: VALID });
      expect(response.status).toBe(201);
      ids.push((response.body.data as { id: string }).id);
    }
    const over = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: VALID });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('STREAM_LIMIT_REACHED');
    expect((await call(t, 'DELETE', `/v1/streams/${ids[0]}`, { key: t.adminKey })).status).toBe(200);
    expect((await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: VALID })).status).toBe(201);
  });

  it('404 STREAM_NOT_FOUND for unknown ids on GET, PATCH, DELETE; a second DELETE is 404', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await call(t, method, '/v1/streams/str_missing', { key: t.adminKey, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('STREAM_NOT_FOUND');
    }
  });

  it('PATCH with filters of another type is 400 VALIDATION_FAILED and changes nothing', async () => {
    const list = await call(t, 'GET', '/v1/streams', { key: t.adminKey });
    const id = (list.body.data as { id: string }[])[0]!.id;
    const response = await call(t, 'PATCH', `/v1/streams/${id}`, { key: t.adminKey, body: { filters: { addresses: ['0x1'] } } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect((await call(t, 'GET', `/v1/streams/${id}`, { key: t.adminKey })).body.data).toMatchObject({ type: 'coin' });
  });

  it('403 INSUFFICIENT_SCOPE for a key without manage (a streams key connects, it does not define)', async () => {
    const key = await createKeyVia(t, { scopes: ['data', 'streams'] });
    const response = await call(t, 'POST', '/v1/streams', { key: key.apiKey, body: VALID });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('another organization’s stream is not found, and cannot be changed or deleted', async () => {
    const seeded = await createOrganization(t.db.database.db, t.clock, { name: 'Other', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
    const otherKey = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'o', scopes: ['manage'], expiresInDays: 30,
    });
    const created = await call(t, 'POST', '/v1/streams', { key: otherKey.apiKey, body: VALID });
    expect(created.status).toBe(201);
    const id = (created.body.data as { id: string }).id;
    expect((await call(t, 'GET', `/v1/streams/${id}`, { key: t.adminKey })).body.code).toBe('STREAM_NOT_FOUND');
    expect((await call(t, 'PATCH', `/v1/streams/${id}`, { key: t.adminKey, body: { name: 'x' } })).body.code).toBe('STREAM_NOT_FOUND');
    expect((await call(t, 'DELETE', `/v1/streams/${id}`, { key: t.adminKey })).body.code).toBe('STREAM_NOT_FOUND');
    expect((await call(t, 'GET', `/v1/streams/${id}`, { key: otherKey.apiKey })).body.data).toMatchObject({ id, name: 's' });
  });
});
