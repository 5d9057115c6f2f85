import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { useGatewayOpenApi } from '../../test/support/openapi-document.js';
import * as schemas from './schemas.js';

const ZKLOGIN_PATHS = [
  'post /v1/zklogin/address', 'post /v1/zklogin/nonce', 'post /v1/zklogin/prove',
  'get /v1/zklogin/audiences', 'post /v1/zklogin/audiences', 'delete /v1/zklogin/audiences/{id}',
];

describe('zkLogin in the OpenAPI document', () => {
  const openApi = useGatewayOpenApi();

  it.each(ZKLOGIN_PATHS)('%s: a summary, its success schema, 401/403 and key security', (entry) => {
    const operation = openApi.operation(entry);
    expect(operation, entry).toBeDefined();
    expect(operation.summary).toEqual(expect.any(String));
    const success = operation.responses['200'] ?? operation.responses['201'];
    expect(success.content['application/json'].schema).toBeDefined();
    for (const status of ['401', '403']) expect(operation.responses[status], `${entry} ${status}`).toBeDefined();
    expect(operation.security).not.toEqual([]);
  });

  it('the proof endpoint documents 429, 502 and 503; address and nonce 503', () => {
    const prove = openApi.document.paths['/v1/zklogin/prove'].post;
    for (const status of ['400', '429', '502', '503']) expect(prove.responses[status], status).toBeDefined();
    expect(openApi.document.paths['/v1/zklogin/address'].post.responses['503']).toBeDefined();
    expect(openApi.document.paths['/v1/zklogin/nonce'].post.responses['503']).toBeDefined();
  });

  it('request and response schemas carry examples', () => {
    for (const id of ['ZkLoginAddressRequest', 'ZkLoginAddress', 'ZkLoginNonceRequest', 'ZkLoginNonce', 'ZkLoginProveRequest', 'ZkLoginProof', 'ZkLoginAudience']) {
      expect(openApi.document.components.schemas[id]?.examples, id).toHaveLength(1);
    }
  });

  it('every example is valid against its own schema', () => {
    const bySchema: Record<string, z.ZodType> = {
      AddressRequest: schemas.addressBody, NonceRequest: schemas.nonceBody, ProveRequest: schemas.proveBody,
      ZkLoginAddress: schemas.ZkLoginAddress, ZkLoginNonce: schemas.ZkLoginNonce, ZkLoginProof: schemas.ZkLoginProof, ZkLoginAudience: schemas.ZkLoginAudience,
    };
    for (const [name, example] of Object.entries(schemas.examples)) {
      const schema = bySchema[name];
      expect(schema, name).toBeDefined();
      expect(() => (schema as z.ZodObject).strict().parse(example), name).not.toThrow();
    }
  });
});
