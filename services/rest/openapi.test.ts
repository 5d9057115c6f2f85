import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { useGatewayOpenApi } from '../../test/support/openapi-document.js';
import { examples } from './examples.js';
import * as schemas from './schemas.js';

const REST_PATHS = [
  'get /v1/accounts/{address}', 'get /v1/accounts/{address}/balance', 'get /v1/accounts/{address}/objects',
  'get /v1/accounts/{address}/transactions', 'get /v1/accounts/{address}/delegations', 'get /v1/transactions/latest',
  'get /v1/transactions/stats', 'get /v1/transactions', 'post /v1/transactions/batch', 'get /v1/transactions/{digest}', 'get /v1/transactions/{digest}/raw',
  'get /v1/objects/{id}', 'post /v1/objects/batch', 'get /v1/objects/{id}/metadata', 'get /v1/coins/{coinType}/metadata',
  'get /v1/packages/{id}', 'get /v1/checkpoints/latest', 'get /v1/checkpoints/{checkpoint}', 'get /v1/chain',
  'get /v1/staking/parameters', 'get /v1/network/stats', 'get /v1/validators', 'get /v1/validators/apy',
  'get /v1/names/{name}', 'get /v1/names/reverse/{address}', 'post /v1/names/batch', 'get /v1/names/{name}/availability',
];

describe('REST in the OpenAPI document', () => {
  const openApi = useGatewayOpenApi();

  it.each(REST_PATHS)('%s: documented with a summary, its 200 schema, its error statuses and key security', (entry) => {
    const operation = openApi.operation(entry);
    expect(operation, entry).toBeDefined();
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.responses['200'].content['application/json'].schema).toBeDefined();
    for (const status of ['500', '502', '503', '504']) expect(operation.responses[status], `${entry} ${status}`).toBeDefined();
    expect(operation.security).not.toEqual([]);
  });

  it.each(['post /v1/transactions/batch', 'post /v1/objects/batch', 'post /v1/names/batch'])('%s documents the 413 and 415 the framework answers before the route', (entry) => {
    const operation = openApi.operation(entry);
    for (const status of ['413', '415']) expect(operation.responses[status], `${entry} ${status}`).toEqual(operation.responses['400']);
  });

  it('resource schemas carry examples', () => {
    for (const id of ['Account', 'Balance', 'Object', 'TransactionBlockResponse', 'CoinMetadata', 'Checkpoint', 'ValidatorApy', 'NameResolution']) {
      expect(openApi.document.components.schemas[id]?.examples, id).toHaveLength(1);
    }
  });

  it('every example is valid against its own schema', () => {
    const bySchema: Record<string, z.ZodType> = { ...schemas, Object: schemas.SuiObject, TransactionBlock: schemas.TransactionBlock } as unknown as Record<string, z.ZodType>;
    for (const [name, example] of Object.entries(examples)) {
      const schema = bySchema[name];
      expect(schema, name).toBeDefined();
      expect(() => (schema as z.ZodObject).strict().parse(example), name).not.toThrow();
    }
  });
});
