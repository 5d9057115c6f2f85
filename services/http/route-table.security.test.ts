import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteAuth } from '../route-contract/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { call, createKeyVia } from '../../test/support/management-calls.js';
import { registeredRoutes } from './app.js';

/**
 * Walks every route the real app registered (plugin routes included), so a route is covered the
 * day it is added: without a key, with a disabled key, a key of another network, a key lacking
 * the route's scope, and with the key in the `api_key` query parameter, each is refused before
 * the handler runs. Only routes declared `auth: 'none'` are exempt.
 */
describe('every registered route fails closed', () => {
  let t: TestApp;
  let disabledKey: string;
  let testnetKey: string;
  const lacking = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp();
    const disabled = await createKeyVia(t, { scopes: ['data', 'streams', 'manage', 'zkLogin'] });
    expect((await call(t, 'DELETE', `/v1/keys/${disabled.id}`, { key: t.adminKey })).status).toBe(200);
    disabledKey = disabled.apiKey;
    testnetKey = (await createKeyVia(t, { projectId: t.projects.testnet, scopes: ['data', 'streams', 'manage', 'zkLogin'] })).apiKey;
    for (const scope of ['data', 'streams', 'manage', 'zkLogin']) {
      const others = ['data', 'streams', 'manage', 'zkLogin'].filter((other) => other !== scope);
      lacking.set(scope, (await createKeyVia(t, { scopes: others })).apiKey);
    }
  });
  afterAll(async () => t.close());

  const protectedRoutes = () =>
    registeredRoutes(t.app)
      .flatMap((route) => (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({ ...route, method })))
      .filter((route) => route.config?.auth !== 'none');

  const send = (method: string, url: string, key?: string) =>
    t.app.inject({
      method: method as 'GET',
      url: url.replace(/:[A-Za-z]+/g, 'x').replace(/\*/g, 'x'),
      headers: key === undefined ? {} : { 'x-api-key': key },
      ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: {} } : {}),
    });

  /** What a route answered, named by the route; HEAD answers carry no body, so no code. */
  const verdict = (route: { method: string; url: string }, response: { statusCode: number; body: string }) => ({
    route: `${route.method} ${route.url}`,
    status: response.statusCode,
    ...(route.method === 'HEAD' ? {} : { code: (JSON.parse(response.body) as { code?: string }).code }),
  });
  const expected = (route: { method: string; url: string }, status: number, code: string) => ({
    route: `${route.method} ${route.url}`,
    status,
    ...(route.method === 'HEAD' ? {} : { code }),
  });

  it('the app has protected routes under both networks, and every route declares its auth', () => {
    const routes = protectedRoutes();
    expect(routes.some((route) => route.url.startsWith('/mainnet/'))).toBe(true);
    expect(routes.some((route) => route.url.startsWith('/testnet/'))).toBe(true);
    expect(registeredRoutes(t.app).filter((route) => route.config?.auth === undefined)).toEqual([]);
    expect(registeredRoutes(t.app).some((route) => route.url.startsWith('/docs'))).toBe(true);
  });

  it('without a key, every route not declared public is 401', async () => {
    for (const route of protectedRoutes()) {
      const response = await send(route.method, route.url);
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode }).toEqual({ route: `${route.method} ${route.url}`, status: 401 });
    }
  });

  it('with a disabled key, every route not declared public is 401', async () => {
    for (const route of protectedRoutes()) {
      const response = await send(route.method, route.url, disabledKey);
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode }).toEqual({ route: `${route.method} ${route.url}`, status: 401 });
    }
  });

  it('with a key of another network, every route not declared public is 403 NETWORK_MISMATCH', async () => {
    for (const route of protectedRoutes()) {
      const key = route.url.startsWith('/mainnet/') ? testnetKey : t.adminKey;
      const response = await send(route.method, route.url, key);
      expect(verdict(route, response)).toEqual(expected(route, 403, 'NETWORK_MISMATCH'));
    }
  });

  it('with a key lacking the declared scope, every scoped route is 403 INSUFFICIENT_SCOPE', async () => {
    const scoped = protectedRoutes().filter((route) => route.url.startsWith('/mainnet/') && typeof route.config?.auth === 'object');
    expect(scoped.length).toBeGreaterThan(0);
    for (const route of scoped) {
      const { scope } = route.config?.auth as Exclude<RouteAuth, string>;
      const response = await send(route.method, route.url, lacking.get(scope));
      expect(verdict(route, response)).toEqual(expected(route, 403, 'INSUFFICIENT_SCOPE'));
    }
  });

  it('with the key in the api_key query parameter, every route without the opt-in is 401', async () => {
    const routes = protectedRoutes().filter((route) => route.url.startsWith('/mainnet/') && route.config?.queryKey !== true);
    for (const route of routes) {
      const response = await send(route.method, `${route.url}?api%5Fkey=${t.adminKey}`);
      expect({ route: `${route.method} ${route.url}`, status: response.statusCode }).toEqual({ route: `${route.method} ${route.url}`, status: 401 });
    }
  });
});
