import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { registeredRoutes } from '../http/app.js';
import { useGatewayOpenApi } from '../../test/support/openapi-document.js';

/** The protocol gateways of issue 9: documented, declared (auth, cost) and priced like every route. */
const GATEWAY_ROUTES = [
  { method: 'POST', path: '/v1/jsonrpc', body: 'JsonRpcRequestInput' },
  { method: 'GET', path: '/v1/jsonrpc', websocket: true },
  { method: 'POST', path: '/v1/graphql', body: 'GraphQLRequestInput' },
] as const;

describe('JSON-RPC, its WebSocket and GraphQL in the OpenAPI document, the route table and the cost table', () => {
  const openApi = useGatewayOpenApi();

  it.each(GATEWAY_ROUTES)('$method $path: documented with a summary, key security and its refusals', (route) => {
    const operation = openApi.document.paths[route.path]?.[route.method.toLowerCase()];
    expect(operation, `${route.method} ${route.path}`).toBeDefined();
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.security).not.toEqual([]);
    for (const status of ['401', '403', '429']) expect(operation.responses[status], status).toBeDefined();
    if ('websocket' in route) {
      expect(operation.responses['101']).toEqual({ description: 'Switching Protocols: the WebSocket is open' });
      expect(operation.parameters).toEqual([expect.objectContaining({ in: 'query', name: 'api_key', required: false })]);
    } else {
      expect(JSON.stringify(operation.requestBody)).toContain(`#/components/schemas/${route.body}`);
      expect(openApi.document.components.schemas[route.body].examples, route.body).toHaveLength(1);
    }
  });

  it('the JSON-RPC response envelope carries examples (a result and an error)', () => {
    expect(openApi.document.components.schemas.JsonRpcResponse?.examples).toHaveLength(2);
  });

  it('every gateway route is registered under each network with scope data, the api_key opt-in and a price', () => {
    for (const network of ['mainnet', 'testnet']) {
      for (const route of GATEWAY_ROUTES) {
        const registered = registeredRoutes(openApi.app).find((r) => r.url === `/${network}${route.path}` && [r.method].flat().includes(route.method));
        expect(registered?.config, `${route.method} /${network}${route.path}`).toMatchObject({ auth: { scope: 'data' }, cost: 1, queryKey: true });
      }
    }
  });

  it('docs/costs.md prices the routes and the WebSocket messages', async () => {
    const table = await readFile(new URL('../../docs/costs.md', import.meta.url), 'utf8');
    for (const route of GATEWAY_ROUTES) expect(table).toContain(`| ${route.method} | \`${route.path}\` | 1 |`);
    expect(table).toContain('| JSON-RPC WebSocket call or notification (subscriptions) | 1 | per message (the upgrade: 1) |');
  });
});
