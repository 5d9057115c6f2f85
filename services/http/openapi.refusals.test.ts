import { describe, expect, it } from 'vitest';
import { useGatewayOpenApi, type OpenApiDocument } from '../../test/support/openapi-document.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(document: OpenApiDocument): { entry: string; operation: OpenApiDocument }[] {
  return Object.entries(document.paths as Record<string, Record<string, OpenApiDocument>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ entry: `${method} ${path}`, operation })),
  );
}

/**
 * Authentication and the limit stage answer before any route runs, and so does validation of
 * path and query parameters: the document must show those answers on every route they apply to.
 * `GET /v1/usage` documented no 404 (a deleted organization) nor 429 (caps, management
 * allowance); `DELETE /v1/keys/{id}` no 400 (an id over 64 characters) nor 429; `GET /v1/chain` not
 * even 401.
 */
describe('OpenAPI: the refusals that come before the route', () => {
  const openApi = useGatewayOpenApi();

  it('every route that needs a key documents 401, 403, 404 (organization deleted) and 429 (caps, rate, credits)', () => {
    const keyed = operations(openApi.document).filter(({ operation }) => (operation.security as unknown[] | undefined)?.length !== 0);
    expect(keyed.map(({ entry }) => entry)).toEqual(expect.arrayContaining(['get /v1/keys', 'delete /v1/keys/{id}', 'get /v1/usage', 'get /v1/chain']));
    for (const { entry, operation } of keyed) {
      for (const status of ['401', '403', '404', '429']) {
        expect(operation.responses[status]?.content?.['application/json']?.schema, `${entry} ${status}`).toBeDefined();
      }
    }
  });

  it('a POST that takes no body documents no request body (it refuses members, and a required body would make generated clients send one)', () => {
    const paths = openApi.document.paths as Record<string, Record<string, OpenApiDocument>>;
    for (const path of ['/v1/webhooks/{id}/rotate-secret', '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', '/v1/billing/onchain/cancel']) {
      expect(paths[path]?.post, path).toBeDefined();
      expect(paths[path]!.post!.requestBody, path).toBeUndefined();
    }
    // A route that takes one still documents it.
    expect(paths['/v1/keys']!.post!.requestBody).toBeDefined();
  });

  it('every route with path or query parameters documents 400', () => {
    const parameterized = operations(openApi.document).filter(({ operation }) => (operation.parameters as unknown[] | undefined)?.length);
    expect(parameterized.map(({ entry }) => entry)).toEqual(expect.arrayContaining(['delete /v1/keys/{id}', 'get /v1/usage', 'get /v1/wallet/challenge']));
    for (const { entry, operation } of parameterized) {
      expect(operation.responses['400']?.content?.['application/json']?.schema, `${entry} 400`).toBeDefined();
    }
  });

  it('every route with a body documents 413 and 415, the JSON-RPC envelope too (the framework answers both before any route runs)', () => {
    const withBody = operations(openApi.document).filter(({ operation }) => operation.requestBody !== undefined);
    expect(withBody.map(({ entry }) => entry)).toEqual(expect.arrayContaining(['post /v1/keys', 'post /v1/jsonrpc', 'post /v1/graphql']));
    for (const { entry, operation } of withBody) {
      for (const status of ['413', '415']) {
        expect(operation.responses[status]?.content?.['application/json']?.schema, `${entry} ${status}`).toBeDefined();
      }
    }
  });

  it('public routes document no authentication refusal', () => {
    const challenge = openApi.operation('get /v1/wallet/challenge');
    expect(challenge.security).toEqual([]);
    expect(challenge.responses['401']).toBeUndefined();
  });

  it('what a route declares itself is kept', () => {
    const created = openApi.operation('post /v1/keys');
    expect(Object.keys(created.responses).sort()).toEqual(['201', '400', '401', '403', '404', '413', '415', '429']);
    expect(openApi.operation('get /v1/keys').responses['200'].content['application/json'].schema.properties.data.items).toEqual({ $ref: '#/components/schemas/ApiKeyListItem' });
  });
});
