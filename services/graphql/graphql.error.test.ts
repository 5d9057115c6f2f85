import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { createKey, createOrganization } from '../identity/index.js';
import { INTROSPECTION_CACHE_BOUNDS, PERSISTED_QUERY_BOUNDS, PersistedQueries, sha256 } from './index.js';

type Fake = Awaited<ReturnType<typeof startFakeUpstream>>;

describe('POST /v1/graphql: guard rails and upstream failures', () => {
  let fake: Fake;
  let upstream: SuiUpstream;
  let gateway: TestApp;
  const persisted = new PersistedQueries(PERSISTED_QUERY_BOUNDS);
  const post = async (payload: unknown) => {
    gateway.clock.advance(25);
    const response = await gateway.app.inject({ method: 'POST', url: '/mainnet/v1/graphql', headers: { 'x-api-key': gateway.adminKey, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };

  beforeAll(async () => {
    fake = await startFakeUpstream();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...defaultUpstreamPolicy, attemptTimeoutMs: 300, deadlineMs: 600 } });
    gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', upstream]]), graphqlPersisted: persisted } });
  });
  afterEach(() => { fake.state.behaviour = 'ok'; });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    await fake.stop();
  });

  it.each([
    ['GRAPHQL_QUERY_TOO_LARGE', `{ a } #${'x'.repeat(16 * 1024)}`, 'GraphQL query too large', 'The query is 16391 bytes; at most 16384 are accepted.'],
    ['GRAPHQL_PARSE_FAILED', '{ a', 'GraphQL query does not parse', 'Syntax Error: Expected Name, found <EOF>.'],
    ['GRAPHQL_QUERY_TOO_DEEP', `{ ${'a { '.repeat(21)}b${' }'.repeat(21)} }`, 'GraphQL query too deep', 'The query nests deeper than 20 levels.'],
    ['GRAPHQL_TOO_MANY_ALIASES', `{ ${Array.from({ length: 51 }, (_, i) => `a${i}: chainIdentifier`).join(' ')} }`, 'GraphQL query has too many aliases', 'The query has more than 50 aliases (fragments counted where spread).'],
    ['GRAPHQL_QUERY_TOO_COMPLEX', `{ ${'chainIdentifier '.repeat(1_001)}}`, 'GraphQL query too complex', 'The query selects more than 1000 fields (fragments counted where spread).'],
  ])('%s: 400 before any upstream call', async (code, query, error, message) => {
    const answer = await post({ query });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error, message, code, requestId: expect.any(String) });
    expect(fake.graphqlBodies.filter((body) => body.includes(query.slice(0, 40)))).toEqual([]);
  });

  it('a persisted query refused by a guard rail is not stored: the store\'s bytes do not move, the hash stays unknown', async () => {
    const before = { bytes: persisted.bytes, size: persisted.size };
    const refused = [
      `{ a } #${'x'.repeat(16 * 1024)}`,
      `{ ${Array.from({ length: 51 }, (_, i) => `a${i}: chainIdentifier`).join(' ')} }`,
      `{ ${'a { '.repeat(21)}b${' }'.repeat(21)} }`,
    ];
    for (const query of refused) {
      const persistedQuery = { version: 1, sha256Hash: sha256(query) };
      const answer = await post({ query, extensions: { persistedQuery } });
      expect(answer.status).toBe(400);
      expect({ bytes: persisted.bytes, size: persisted.size }).toEqual(before);
      expect(await post({ extensions: { persistedQuery } })).toEqual({ status: 200, body: { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] } });
    }
    const accepted = '{ chainIdentifier storedOnce: chainIdentifier }';
    expect((await post({ query: accepted, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(accepted) } } })).status).toBe(200);
    expect({ bytes: persisted.bytes, size: persisted.size }).toEqual({ bytes: before.bytes + accepted.length + `${gateway.organizationId}:`.length + 64, size: before.size + 1 });
  });

  it('counts aliases through fragment spreads: 50 reached through a fragment pass, 51 are 400', async () => {
    const fragment = `fragment F on Query { ${Array.from({ length: 25 }, (_, i) => `f${i}: chainIdentifier`).join(' ')} }`;
    const fifty = await post({ query: `{ ...F ... on Query { ...F } } ${fragment}` });
    expect(fifty.status).toBe(200);
    const fiftyOne = await post({ query: `{ ...F ... on Query { ...F } extra: chainIdentifier } ${fragment}` });
    expect(fiftyOne).toEqual({
      status: 400,
      body: { error: 'GraphQL query has too many aliases', code: 'GRAPHQL_TOO_MANY_ALIASES', message: 'The query has more than 50 aliases (fragments counted where spread).', requestId: expect.any(String) },
    });
  });

  it('an introspection answer is asked upstream once per network and TTL, and served to every caller', async () => {
    const query = 'query IntrospectionQuery { __schema { queryType { name } } }';
    const upstreamCalls = () => fake.graphqlBodies.filter((body) => body.includes('IntrospectionQuery')).length;
    const first = await post({ query });
    expect(first.status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect(await post({ query })).toEqual(first);
    expect(upstreamCalls()).toBe(1);
    gateway.clock.advance(INTROSPECTION_CACHE_BOUNDS.ttlMs);
    expect(await post({ query })).toEqual(first);
    expect(upstreamCalls()).toBe(2);
  });

  it('variants of one introspection query (whitespace, commas, comments) are one entry, asked upstream once', async () => {
    const upstreamCalls = () => fake.graphqlBodies.filter((body) => body.includes('Variants')).length;
    const variants = [
      'query Variants { __schema { queryType { name } } }',
      'query Variants{__schema{queryType{name}}}',
      '# from a playground\nquery Variants {\n  __schema {\n    queryType { name, }\n  }\n}\n',
    ];
    const first = await post({ query: variants[0] });
    expect(first.status).toBe(200);
    for (const query of variants) expect(await post({ query })).toEqual(first);
    expect(upstreamCalls()).toBe(1);
  });

  // The answers are shared (a hit is a hit for any caller), but the room is not: one tenant's
  // stream of new introspection variants used to evict every other tenant's entries.
  it(`a tenant sending ${INTROSPECTION_CACHE_BOUNDS.maxEntries} new introspection variants evicts its own entries, not another tenant's`, async () => {
    const other = await createOrganization(gateway.db.database.db, gateway.clock, { name: 'Churner', tier: 'team' });
    const churner = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: other.organization.id, projectId: other.projects[0]!.id, name: 'churn', scopes: ['data'] });
    const asChurner = async (query: string) => {
      gateway.clock.advance(25);
      const response = await gateway.app.inject({ method: 'POST', url: '/mainnet/v1/graphql', headers: { 'x-api-key': churner.apiKey, 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
      return response.statusCode;
    };
    const query = 'query Popular { __schema { queryType { name } } }';
    const upstreamCalls = () => fake.graphqlBodies.filter((body) => body.includes('Popular')).length;
    expect((await post({ query })).status).toBe(200);
    for (let i = 0; i < INTROSPECTION_CACHE_BOUNDS.maxEntries; i += 1) expect(await asChurner(`query Churn${i} { __type(name: "T${i}") { name } }`)).toBe(200);
    expect((await post({ query })).status).toBe(200);
    expect(upstreamCalls()).toBe(1);
  });

  it('a body without a query is 400 VALIDATION_FAILED; a body that is not JSON is 400 INVALID_BODY', async () => {
    const missing = await post({ variables: {} });
    expect([missing.status, missing.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    gateway.clock.advance(25);
    const garbage = await gateway.app.inject({ method: 'POST', url: '/mainnet/v1/graphql', headers: { 'x-api-key': gateway.adminKey, 'content-type': 'application/json' }, payload: '{"query":' });
    expect([garbage.statusCode, garbage.json().code]).toEqual([400, 'INVALID_BODY']);
  });

  // The variables are forwarded as JSON text: nested a few thousand levels deep (10 KB of
  // `[`), serializing them overflowed the stack and the caller got 500 INTERNAL_ERROR.
  it('variables nested deeper than 64 levels are 400 VALIDATION_FAILED before any upstream call; 64 levels pass', async () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const send = async (json: string) => {
      gateway.clock.advance(25);
      const response = await gateway.app.inject({ method: 'POST', url: '/mainnet/v1/graphql', headers: { 'x-api-key': gateway.adminKey, 'content-type': 'application/json' }, payload: json });
      return { status: response.statusCode, body: response.json() as Record<string, unknown> };
    };
    const issue = 'body: nests deeper than 64 levels of objects and arrays';
    for (const levels of [63, 5_000, 200_000]) {
      const before = fake.graphqlBodies.length;
      // The body is one level, `variables` a second: `levels` arrays under them.
      expect(await send(`{"query":"query Deep { chainIdentifier }","variables":{"a":${nested(levels)}}}`)).toEqual({
        status: 400, body: { error: 'Validation failed', code: 'VALIDATION_FAILED', message: issue, issues: [issue], requestId: expect.any(String) },
      });
      expect(fake.graphqlBodies.length).toBe(before);
    }
    const atLimit = await send(`{"query":"query Deep { chainIdentifier }","variables":{"a":${nested(62)}}}`);
    expect(atLimit.status).toBe(200);
    expect(fake.graphqlBodies.at(-1)).toContain(nested(62));
  });

  it("an upstream 500 with GraphQL errors is the caller's answer, passed through", async () => {
    fake.state.behaviour = 'error';
    const answer = await post({ query: '{ chainIdentifier }' });
    expect(answer).toEqual({ status: 500, body: { errors: [{ message: 'boom' }] } });
  });

  it('GraphQL errors never open the breaker; transport failures do', async () => {
    const threshold = defaultUpstreamPolicy.breakerFailureThreshold;
    fake.state.behaviour = 'graphql_error_beside_data';
    for (let i = 0; i < threshold * 3; i += 1) {
      const answer = await post({ query: '{ chainIdentifier }' });
      expect(answer).toEqual({ status: 200, body: { data: { chainIdentifier: null }, errors: [{ message: 'field failed', path: ['chainIdentifier'] }] } });
    }
    fake.state.behaviour = 'error';
    for (let i = 0; i < threshold * 3; i += 1) expect((await post({ query: '{ chainIdentifier }' })).status).toBe(500);
    expect(upstream.breakers()['graphql']).toBe('closed');

    fake.state.behaviour = 'http_503';
    for (let i = 0; i < threshold; i += 1) {
      const answer = await post({ query: '{ chainIdentifier }' });
      expect([answer.status, answer.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    }
    expect(upstream.breakers()['graphql']).toBe('open');
    fake.state.behaviour = 'ok';
    const refused = await post({ query: '{ refusedWhileOpen }' });
    expect([refused.status, refused.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    expect(fake.graphqlBodies.filter((body) => body.includes('refusedWhileOpen'))).toEqual([]);
  });
});

describe('POST /v1/graphql: upstream down or slow', () => {
  it('an unreachable upstream is 503 UPSTREAM_UNAVAILABLE; a silent one 504 UPSTREAM_TIMEOUT', async () => {
    const fake = await startFakeUpstream();
    const down = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: 'http://127.0.0.1:1', graphqlUrl: 'http://127.0.0.1:1/graphql' }, policy: defaultUpstreamPolicy });
    const slow = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...defaultUpstreamPolicy, attemptTimeoutMs: 200, deadlineMs: 300 } });
    const gateway = await createTestApp({ extra: { upstreams: new Map([['mainnet', down], ['testnet', slow]]) } });
    try {
      const testnetKey = (await import('../identity/index.js')).createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: gateway.organizationId, projectId: gateway.projects.testnet, name: 't', scopes: ['data'] });
      const unreachable = await gateway.app.inject({ method: 'POST', url: '/mainnet/v1/graphql', headers: { 'x-api-key': gateway.adminKey }, payload: { query: '{ chainIdentifier }' } });
      expect([unreachable.statusCode, unreachable.json().code, unreachable.headers['retry-after']]).toEqual([503, 'UPSTREAM_UNAVAILABLE', '1']);
      fake.state.behaviour = 'slow';
      const silent = await gateway.app.inject({ method: 'POST', url: '/testnet/v1/graphql', headers: { 'x-api-key': (await testnetKey).apiKey }, payload: { query: '{ chainIdentifier }' } });
      expect([silent.statusCode, silent.json().code]).toEqual([504, 'UPSTREAM_TIMEOUT']);
    } finally {
      await gateway.close();
      await down.close();
      await slow.close();
      await fake.stop();
    }
  });
});
