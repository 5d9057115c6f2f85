import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../ledger/index.js';
import { serveGraphql } from './test-server.js';

/** Malformed and hostile requests: each must answer GraphQL errors (or 4xx), never a 500. */
const CASES: { name: string; body: unknown }[] = [
  { name: 'UInt53 above 2^53', body: { query: 'query($n: UInt53) { checkpoint(sequenceNumber: $n) { digest } }', variables: { n: 2 ** 60 } } },
  { name: 'negative page size', body: { query: '{ checkpoints(first: -1) { nodes { digest } } }' } },
  { name: 'cursor that is JSON but not a key', body: { query: `{ checkpoints(after: "${Buffer.from('{"a":1}').toString('base64')}") { nodes { digest } } }` } },
  { name: 'transaction cursor that is a string', body: { query: `{ transactions(after: "${Buffer.from('"x"').toString('base64')}") { nodes { digest } } }` } },
  { name: 'BigInt given as a word', body: { query: 'query($t: String!) { coinMetadata(coinType: $t) { supply } }', variables: { t: 'not::a::type<' } } },
  { name: 'Base64 that is not', body: { query: 'mutation { executeTransaction(transactionDataBcs: "%%%", signatures: []) { effects { digest } } }' } },
  { name: 'transaction bytes that are not TransactionData', body: { query: 'mutation { executeTransaction(transactionDataBcs: "AAAA", signatures: ["AAAA"]) { effects { digest } } }' } },
  { name: 'simulate garbage JSON', body: { query: 'query($t: JSON!) { simulateTransaction(transaction: $t) { effects { status } } }', variables: { t: { kind: 42 } } } },
  { name: 'several operations, none named', body: { query: 'query A { chainIdentifier } query B { chainIdentifier }' } },
  { name: 'unknown operation name', body: { query: 'query A { chainIdentifier }', operationName: 'B' } },
  { name: 'too many aliases', body: { query: `{ ${Array.from({ length: 400 }, (_, i) => `a${i}: chainIdentifier`).join(' ')} }` } },
  { name: 'query over the payload limit', body: { query: `{ chainIdentifier ${' '.repeat(6000)} }` } },
  { name: 'variables that are a list', body: { query: '{ chainIdentifier }', variables: [1, 2] } },
  { name: 'query that is not a string', body: { query: { chainIdentifier: true } } },
  { name: 'dynamic field name with a literal', body: { query: '{ address(address: "0x5") { dynamicField(name: { literal: "1u64" }) { address } } }' } },
  { name: 'invalid type filter', body: { query: '{ objects(filter: { type: "not a type" }) { nodes { address } } }' } },
  { name: 'invalid function filter', body: { query: '{ transactions(filter: { function: "0x2::a::b::c" }) { nodes { digest } } }' } },
  { name: 'node id that is not one', body: { query: '{ node(id: "!!!") { id } }' } },
  { name: 'too many multi-get keys', body: { query: `{ multiGetCheckpoints(keys: [${Array.from({ length: 201 }, (_, i) => i).join(',')}]) { digest } }` } },
];

describe('GraphQL over HTTP: hostile requests', () => {
  let server: Awaited<ReturnType<typeof serveGraphql>>;

  beforeAll(async () => {
    server = await serveGraphql(createLedger());
  });

  afterAll(() => server.close());

  for (const { name, body } of CASES) {
    it(`answers errors, not a crash, for ${name}`, async () => {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      const json = (await res.json()) as { errors?: { extensions: { code: string } }[] };
      expect(json.errors?.length).toBeGreaterThan(0);
      expect(json.errors!.map((e) => e.extensions.code)).not.toContain('INTERNAL_SERVER_ERROR');
    });
  }
});
