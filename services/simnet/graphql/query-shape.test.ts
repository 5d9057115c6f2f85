import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kind, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';
import { checkQueryShape } from './query-shape.js';
import type { ShapeLimits } from './query-shape.js';
import { schemaPath, suiSchema } from './schema.js';

/** The shape's usage, or the message of the limit it breaks. */
const check = (query: string, limits: Partial<ShapeLimits> = {}, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  try {
    return checkQueryShape(suiSchema(), document, getOperationAST(document)!, variables, { ...LIMITS, ...limits });
  } catch (error) {
    return (error as Error).message;
  }
};

// The worked example of `ServiceConfig.maxOutputNodes` in Sui's schema. Its comment says 514;
// Sui's implementation (sui-indexer-alt-graphql's output-node rule) also counts each of the
// three multi-get elements, which is what simnet follows: 517.
const SUI_EXAMPLE = `query {
  checkpoint { sequenceNumber }
  multiGetObjects(keys: [{address: "0x1"}, {address: "0x2"}, {address: "0x3"}]) { address digest }
  transactions { pageInfo { hasNextPage endCursor } nodes { digest effects { objectChanges(first: 10) { nodes { address } } } } }
}`;

describe('query shape limits', () => {
  it("estimates output nodes as Sui's implementation does", () => {
    expect(check(SUI_EXAMPLE)).toEqual({ input: { nodes: 15, depth: 6 }, output: { nodes: 517 } });
    expect(check(SUI_EXAMPLE, { maxOutputNodes: 516 })).toMatch(/^Query is estimated to produce over 516 output nodes/);
  });

  it('takes page sizes and multi-get keys from variables', () => {
    const query = 'query($n: Int, $keys: [ObjectKey!]!) { transactions(first: $n) { nodes { digest } } multiGetObjects(keys: $keys) { address } }';
    const keys = [{ address: '0x1' }, { address: '0x2' }];
    // transactions 1 + nodes 1 + items n + digests n + multiGetObjects 1 + elements 2 + addresses 2
    expect(check(query, {}, { n: 10, keys })).toMatchObject({ output: { nodes: 27 } });
    expect(check(query, {}, { n: 51, keys })).toBe('Page size is too large: 51 > 50');
    expect(check(query, { maxMultiGetSize: 1 }, { n: 10, keys })).toBe('Too many keys supplied to multi-get: 2 > 1');
  });

  it('counts fields through fragments and limits depth', () => {
    const fragment = 'query { epoch { ...E } } fragment E on Epoch { epochId referenceGasPrice }';
    expect(check(fragment, { maxQueryNodes: 3 })).toMatchObject({ input: { nodes: 3, depth: 2 } });
    expect(check(fragment, { maxQueryNodes: 2 })).toBe('Query has over 2 nodes');
    expect(check('{ epoch { validatorSet { activeValidators { nodes { atRisk } } } } }', { maxQueryDepth: 4 })).toBe('Query nesting is over 4');
    expect(check('{ ...Missing }')).toBe('Fragment Missing referred to but not found in document');
  });

  it("lets every query the SDK's client sends through Sui's limits", () => {
    const dir = join(dirname(schemaPath()), '..', 'queries');
    const variables = { includeEffects: true, includeEvents: true, includeObjectTypes: true, includeBalanceChanges: true, includeTransaction: true, includeBcs: true };
    // The SDK's files share fragments (its codegen reads them as one document).
    const sources = readdirSync(dir).filter((name) => name.endsWith('.graphql'));
    const document = parse(sources.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n'));
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations.length).toBeGreaterThan(15);
    for (const operation of operations) {
      expect(() => checkQueryShape(suiSchema(), document, operation, variables), operation.name?.value).not.toThrow();
    }
  });
});
