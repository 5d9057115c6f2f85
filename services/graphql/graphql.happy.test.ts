import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { createKey } from '../identity/index.js';
import { startRestE2E, type RestE2E } from '../../test/support/rest-e2e.js';
import { sha256 } from './persisted-queries.js';

/** The gateway's GraphQL answers as simnet's GraphQL answers, byte for byte. */
describe('POST /v1/graphql against simnet', () => {
  let e2e: RestE2E;
  let base: string;
  const direct = async (body: object) => {
    const response = await fetch(e2e.simnet.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  };
  const viaGateway = async (body: object, headers: Record<string, string> = { 'x-api-key': e2e.gateway.adminKey }, query = '') => {
    e2e.gateway.clock.advance(25);
    const response = await e2e.gateway.app.inject({ method: 'POST', url: `/mainnet/v1/graphql${query}`, headers, payload: body });
    return { status: response.statusCode, text: response.body, headers: response.headers };
  };

  beforeAll(async () => {
    e2e = await startRestE2E();
    e2e.simnet.seal();
    base = await e2e.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => { await e2e.stop(); });

  it('passes data through unchanged, with the metering headers', async () => {
    const body = { query: 'query Chain { chainIdentifier }', operationName: 'Chain' };
    const answer = await viaGateway(body);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe((await direct(body)).text);
    expect(JSON.parse(answer.text)).toEqual({ data: { chainIdentifier: e2e.simnet.chainId } });
    expect(answer.headers['x-ratelimit-limit']).toBeDefined();
    expect(answer.headers['x-svc-credit-remaining']).toBeDefined();
  });

  it('passes variables through', async () => {
    const alice = e2e.address(e2e.simnet.accounts[0]!.label);
    const body = { query: 'query ($a: SuiAddress!) { address(address: $a) { address } }', variables: { a: alice } };
    const answer = await viaGateway(body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { address: { address: alice } } });
  });

  it("passes the upstream's GraphQL errors and status through unchanged", async () => {
    const body = { query: '{ noSuchField }' };
    const upstream = await direct(body);
    const answer = await viaGateway(body);
    expect(answer.status).toBe(upstream.status);
    expect(answer.text).toBe(upstream.text);
    expect(JSON.parse(answer.text).errors[0].message).toMatch(/noSuchField/);
  });

  it('accepts the key as x-api-key, Authorization: Bearer and the api_key query parameter', async () => {
    const body = { query: '{ chainIdentifier }' };
    expect((await viaGateway(body, { authorization: `Bearer ${e2e.gateway.adminKey}` })).status).toBe(200);
    expect((await viaGateway(body, {}, `?api_key=${e2e.gateway.adminKey}`)).status).toBe(200);
    expect(JSON.parse((await viaGateway(body, {})).text)).toMatchObject({ error: 'Missing API key' });
    expect((await viaGateway(body, {})).status).toBe(401);
  });

  it('refuses a key without the data scope (403 INSUFFICIENT_SCOPE) and a key of another network (403 NETWORK_MISMATCH)', async () => {
    const { gateway } = e2e;
    const manageOnly = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: gateway.organizationId, projectId: gateway.projects.mainnet, name: 'manage', scopes: ['manage'] });
    const testnet = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, { organizationId: gateway.organizationId, projectId: gateway.projects.testnet, name: 'testnet', scopes: ['data'] });
    const scope = await viaGateway({ query: '{ chainIdentifier }' }, { 'x-api-key': manageOnly.apiKey });
    expect([scope.status, JSON.parse(scope.text).code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const network = await viaGateway({ query: '{ chainIdentifier }' }, { 'x-api-key': testnet.apiKey });
    expect([network.status, JSON.parse(network.text).code]).toEqual([403, 'NETWORK_MISMATCH']);
  });

  it('serves automatic persisted queries: unknown hash, then hash with query, then hash alone', async () => {
    const query = '{ chainIdentifier }';
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    const unknown = await viaGateway({ extensions: { persistedQuery } });
    expect([unknown.status, JSON.parse(unknown.text)]).toEqual([200, { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] }]);
    expect(JSON.parse((await viaGateway({ query, extensions: { persistedQuery } })).text)).toEqual({ data: { chainIdentifier: e2e.simnet.chainId } });
    expect(JSON.parse((await viaGateway({ extensions: { persistedQuery } })).text)).toEqual({ data: { chainIdentifier: e2e.simnet.chainId } });
    const mismatch = await viaGateway({ query: '{ epoch { epochId } }', extensions: { persistedQuery } });
    expect([mismatch.status, JSON.parse(mismatch.text).code]).toEqual([400, 'GRAPHQL_PERSISTED_QUERY_MISMATCH']);
  });

  it('the official SuiGraphQLClient works through the gateway', async () => {
    const client = new SuiGraphQLClient({ url: `${base}/mainnet/v1/graphql`, network: 'mainnet', headers: { 'x-api-key': e2e.gateway.adminKey } });
    const { chainIdentifier } = await client.core.getChainIdentifier();
    expect(chainIdentifier).toBe(e2e.simnet.chainId);
    const alice = e2e.simnet.accounts[0]!.address;
    const { balance } = await client.core.getBalance({ owner: alice });
    const held = e2e.simnet.ledger.getBalance(alice, '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI');
    expect(balance.balance).toBe(held.balance.toString());
    // Every member the client sends (query, variables, operationName, extensions) is accepted.
    const answer = await client.query({
      query: 'query Chain($n: Int) { chainIdentifier checkpoints(last: $n) { nodes { sequenceNumber } } }',
      variables: { n: 1 }, operationName: 'Chain', extensions: { clientTrace: 'walk' },
    });
    expect(answer.data).toMatchObject({ chainIdentifier: e2e.simnet.chainId });
  });

  it('refuses a body with a member GraphQL over HTTP does not define: 400 VALIDATION_FAILED naming it', async () => {
    const answer = await viaGateway({ query: '{ chainIdentifier }', varibles: { a: 1 } });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      error: 'Validation failed', code: 'VALIDATION_FAILED', message: expect.any(String),
      issues: ['body: Unrecognized key: "varibles"'], requestId: expect.any(String),
    });
  });
});
