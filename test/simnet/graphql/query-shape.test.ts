import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kind, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { LIMITS } from './limits.js';
import { checkQueryShape } from './query-shape.js';
import type { ShapeLimits } from './query-shape.js';
import { schemaPath, suiSchema } from './schema.js';

const check = (query: string, limits: Partial<ShapeLimits> = {}, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  return checkQueryShape(suiSchema(), document, getOperationAST(document)!, variables, { ...LIMITS, ...limits });
};

// The worked example of `ServiceConfig.maxOutputNodes` in Sui's schema: 514 nodes.
const SUI_EXAMPLE = `query {
  checkpoint { sequenceNumber }
  multiGetObjects(keys: [{address: "0x1"}, {address: "0x2"}, {address: "0x3"}]) { address digest }
  transactions { pageInfo { hasNextPage endCursor } nodes { digest effects { objectChanges(first: 10) { nodes { address } } } } }
}`;

describe('query shape limits', () => {
  it("estimates output nodes as Sui's own worked example does", () => {
    expect(check(SUI_EXAMPLE, { maxOutputNodes: 514 })).toBeNull();
    expect(check(SUI_EXAMPLE, { maxOutputNodes: 513 })).toBe('Estimated output nodes exceeds 513');
  });

  it('takes page sizes and multi-get keys from variables', () => {
    const query = 'query($n: Int, $keys: [ObjectKey!]!) { transactions(first: $n) { nodes { digest } } multiGetObjects(keys: $keys) { address } }';
    const keys = [{ address: '0x1' }, { address: '0x2' }];
    // transactions 1 + nodes 1 + items n + digests n + multiGetObjects 1 + addresses 2
    expect(check(query, { maxOutputNodes: 25 }, { n: 10, keys })).toBeNull();
    expect(check(query, { maxOutputNodes: 24 }, { n: 10, keys })).not.toBeNull();
  });

  it('counts fields through fragments and limits depth', () => {
    const fragment = 'query { epoch { ...E } } fragment E on Epoch { epochId referenceGasPrice }';
    expect(check(fragment, { maxQueryNodes: 3 })).toBeNull();
    expect(check(fragment, { maxQueryNodes: 2 })).toBe('Query has too many nodes. The maximum allowed is 2');
    expect(check('{ epoch { validatorSet { activeValidators { nodes { atRisk } } } } }', { maxQueryDepth: 4 })).toBe('Query nesting is over 4');
  });

  it("lets every query the SDK's client sends through Sui's limits", () => {
    const dir = join(dirname(schemaPath()), '..', 'queries');
    const variables = { includeEffects: true, includeEvents: true, includeObjectTypes: true, includeBalanceChanges: true, includeTransaction: true, includeBcs: true };
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.graphql'))) {
      const document = parse(readFileSync(join(dir, file), 'utf8'));
      for (const operation of document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION)) {
        expect(checkQueryShape(suiSchema(), document, operation, variables), `${file} ${operation.name?.value}`).toBeNull();
      }
    }
  });
});
