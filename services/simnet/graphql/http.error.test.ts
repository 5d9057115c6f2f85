import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../ledger/index.js';
import { serveGraphql } from './test-server.js';

describe('GraphQL over HTTP: bad requests never crash the service', () => {
  let server: Awaited<ReturnType<typeof serveGraphql>>;

  beforeAll(async () => {
    server = await serveGraphql(createLedger());
  });

  afterAll(() => server.close());

  const post = (body: string) => fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const query = async (q: string, variables?: unknown) => {
    const res = await post(JSON.stringify({ query: q, variables }));
    expect(res.status).toBe(200);
    return (await res.json()) as { data: unknown; errors?: { message: string; extensions: { code: string }; path?: unknown[] }[] };
  };

  it('answers 400 for a body that is not JSON', async () => {
    const res = await post('{not json');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    expect((await post('[1,2]')).status).toBe(400);
  });

  it('reports a syntax error as GRAPHQL_PARSE_FAILED with HTTP 200', async () => {
    const body = await query('{ epoch {');
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('reports an unknown field as GRAPHQL_VALIDATION_FAILED', async () => {
    const body = await query('{ epoch { noSuchField } }');
    expect(body.errors![0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('reports a malformed address variable as BAD_USER_INPUT', async () => {
    const body = await query('query($a: SuiAddress!) { address(address: $a) { address } }', { a: 'not-an-address' });
    expect(body.errors![0]!.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('reports a malformed coin type as BAD_USER_INPUT', async () => {
    const body = await query('{ address(address: "0x1") { balance(coinType: "not a type") { totalBalance } } }');
    expect(body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, path: ['address', 'balance'] });
  });

  it('rejects first and last together, oversized pages and bad cursors', async () => {
    const both = await query('{ checkpoints(first: 1, last: 1) { nodes { sequenceNumber } } }');
    expect(both.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, path: ['checkpoints'] });
    const big = await query('{ checkpoints(first: 51) { nodes { sequenceNumber } } }');
    expect(big.errors![0]).toMatchObject({ message: 'Page size is too large: 51 > 50', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    const cursor = await query('{ checkpoints(after: "%%%") { nodes { sequenceNumber } } }');
    expect(cursor.errors![0]!.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('enforces the query depth limit', async () => {
    const deep = `{ address(address: "0x1") { ${'asObject { owner { ... on AddressOwner { address { '.repeat(7)}address${' } } } }'.repeat(7)} } }`;
    const body = await query(deep);
    expect(body.errors![0]).toMatchObject({ message: 'Query nesting is over 20', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' }, locations: [expect.any(Object)] });
  });

  it('enforces the estimated output nodes limit', async () => {
    const wide = `{ ${'epoch { checkpoints(first: 50) { nodes { '.repeat(4)}sequenceNumber${' } } }'.repeat(4)} }`;
    const body = await query(wide);
    expect(body.errors![0]).toMatchObject({ message: expect.stringMatching(/^Query is estimated to produce over 1000000 output nodes/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  it('reports usage when asked with x-sui-rpc-show-usage, and budgets transaction bytes apart', async () => {
    const body = JSON.stringify({ query: '{ epoch { epochId } }' });
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-sui-rpc-show-usage': 'true' }, body });
    expect(await res.json()).toMatchObject({
      extensions: { usage: { input: { nodes: 2, depth: 2 }, output: { nodes: 2 }, payload: { query_payload_size: Buffer.byteLength(body), tx_payload_size: 0 } } },
    });
    const bigTx = 'A'.repeat(8000);
    const tx = await query('mutation($t: Base64!) { executeTransaction(transactionDataBcs: $t, signatures: []) { effects { digest } } }', { t: bigTx });
    expect(tx.errors![0]!.message).not.toContain('payload');
    const bigQuery = await query('query($v: String!) { transaction(digest: $v) { digest } }', { v: 'x'.repeat(6000) });
    expect(bigQuery.errors![0]).toMatchObject({ message: expect.stringMatching(/^Query payload too large: \d+B > 5000B$/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  it('answers an unserved field with FEATURE_UNAVAILABLE and keeps the rest of the data', async () => {
    const body = await query('{ chainIdentifier checkpoint { sequenceNumber validatorSignatures { signature } } }');
    expect(body.data).toMatchObject({ chainIdentifier: expect.any(String), checkpoint: { sequenceNumber: 0, validatorSignatures: null } });
    expect(body.errors![0]).toMatchObject({ extensions: { code: 'FEATURE_UNAVAILABLE' }, path: ['checkpoint', 'validatorSignatures'] });
  });

  it('serves GET with a query parameter and answers CORS preflight', async () => {
    const res = await fetch(`${server.url}?query=${encodeURIComponent('{ chainIdentifier }')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toMatchObject({ data: { chainIdentifier: expect.any(String) } });
    const mutation = await fetch(`${server.url}?query=${encodeURIComponent('mutation { executeTransaction(transactionDataBcs: "", signatures: []) { effects { digest } } }')}`);
    expect(await mutation.json()).toMatchObject({ data: null, errors: [{ message: 'Mutations must be sent with POST' }] });
    const preflight = await fetch(server.url, { method: 'OPTIONS', headers: { origin: 'http://example.test', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
  });
});
