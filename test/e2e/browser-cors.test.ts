import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

// Debian's Chromium; `scripts/ensure-chromium.sh` (make test) installs it when missing.
const CHROMIUM = '/usr/bin/chromium';
// The machine's network is closed: Chromium's background traffic would only fail.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** A tiny site: one empty page, so that scripts run with this server's origin. */
async function startSite(host: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://${host}:${port}` };
}

interface PageFetch {
  ok: boolean;
  status?: number;
  body?: unknown;
  requestId?: string | null;
  error?: string;
}

/** `fetch` from inside the page, as a web app would; a CORS refusal is a TypeError there. */
function fetchFrom(page: Page, url: string, key: string): Promise<PageFetch> {
  return page.evaluate(
    async ({ url, key }) => {
      try {
        const response = await fetch(url, { headers: { 'x-api-key': key } });
        return { ok: true, status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    { url, key },
  );
}

/**
 * A `fetch` for the SDK's clients that runs inside the page: the client builds its request (URL,
 * its own headers, body) as it does in a web app, and the browser sends it under its CORS rules.
 */
function pageFetch(page: Page): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const answer = await page.evaluate(async ({ url, method, headers, body }) => {
      try {
        const response = await fetch(url, { method, headers, body });
        return { status: response.status, text: await response.text() };
      } catch (error) {
        return { error: String(error) };
      }
    }, { url, method: init?.method ?? 'GET', headers, body });
    if ('error' in answer) throw new TypeError(answer.error);
    return new Response(answer.text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
}

describe('a browser page calls the REST API with an origin-restricted key (headless Chromium)', () => {
  let e2e: RestE2E;
  let browser: Browser;
  let gateway: string;
  let siteA: { server: Server; origin: string };
  let siteB: { server: Server; origin: string };
  let webKey: string;
  const seen: { method: string; url: string; origin: string | undefined }[] = [];

  beforeAll(async () => {
    e2e = await startRestE2E();
    // Two origins: another host name and another port.
    siteA = await startSite('127.0.0.1');
    siteB = await startSite('localhost');
    await e2e.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    gateway = `http://127.0.0.1:${(e2e.gateway.app.server.address() as { port: number }).port}`;
    e2e.gateway.app.server.on('request', (request: { method?: string; url?: string; headers: { origin?: string } }) => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', origin: request.headers.origin });
    });
    const created = await e2e.gateway.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': e2e.gateway.adminKey },
      payload: { name: 'web app', projectId: e2e.gateway.projects.mainnet, scopes: ['data'], allowedOrigins: [siteA.origin] },
    });
    expect(created.statusCode).toBe(201);
    webKey = (created.json() as { data: { apiKey: string } }).data.apiKey;
    // Playwright gives each launch a new empty profile of its own.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([siteA, siteB].map((site) => site && new Promise((resolve) => site.server.close(resolve))));
    await e2e?.stop();
  });

  async function open(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  it('the allowed origin reads 200 and the body (after a preflight); another origin reads 403 ORIGIN_NOT_ALLOWED', async () => {
    const pageA = await open(siteA.origin);
    const fromA = await fetchFrom(pageA, `${gateway}/mainnet/v1/chain`, webKey);
    expect(fromA).toMatchObject({ ok: true, status: 200, body: { data: { chainId: e2e.simnet.chainId } } });
    // X-Request-Id is exposed, so the page can read it.
    expect(fromA.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // `x-api-key` is not a CORS-safelisted header: the browser asked first, without the key.
    expect(seen).toContainEqual({ method: 'OPTIONS', url: '/mainnet/v1/chain', origin: siteA.origin });
    expect(seen).toContainEqual({ method: 'GET', url: '/mainnet/v1/chain', origin: siteA.origin });

    const pageB = await open(siteB.origin);
    const fromB = await fetchFrom(pageB, `${gateway}/mainnet/v1/chain`, webKey);
    expect(fromB).toMatchObject({ ok: true, status: 403, body: { error: 'Origin not allowed', code: 'ORIGIN_NOT_ALLOWED' } });
    expect(seen).toContainEqual({ method: 'GET', url: '/mainnet/v1/chain', origin: siteB.origin });
  });

  it("the SDK's GraphQL and JSON-RPC clients work from the allowed origin: the headers they add themselves pass the preflight", async () => {
    const page = await open(siteA.origin);
    const graphql = new SuiGraphQLClient({ url: `${gateway}/mainnet/v1/graphql`, network: 'mainnet', headers: { 'x-api-key': webKey }, fetch: pageFetch(page) });
    expect(await graphql.query({ query: '{ chainIdentifier }', variables: {} })).toEqual({ data: { chainIdentifier: expect.any(String) } });
    const transport = new JsonRpcHTTPTransport({ url: `${gateway}/mainnet/v1/jsonrpc`, rpc: { headers: { 'x-api-key': webKey } }, fetch: pageFetch(page) });
    const jsonRpc = new SuiJsonRpcClient({ network: 'mainnet', transport });
    expect(await jsonRpc.getChainIdentifier()).toEqual(expect.any(String));

    // Another origin gets the key's refusal, readable by the page, not a blocked request.
    const other = new SuiGraphQLClient({ url: `${gateway}/mainnet/v1/graphql`, network: 'mainnet', headers: { 'x-api-key': webKey }, fetch: pageFetch(await open(siteB.origin)) });
    await expect(other.query({ query: '{ chainIdentifier }', variables: {} })).rejects.toThrow(/\(403\)$/);
  });

  it('management routes refuse browsers outright: the page cannot read them even with a manage key', async () => {
    const page = await open(siteA.origin);
    const result = await fetchFrom(page, `${gateway}/mainnet/v1/keys`, e2e.gateway.adminKey);
    expect(result.ok).toBe(false);
    expect(result.error).toContain('TypeError');
    // The preflight was answered without CORS headers, so the browser never sent the key.
    expect(seen).toContainEqual({ method: 'OPTIONS', url: '/mainnet/v1/keys', origin: siteA.origin });
    expect(seen).not.toContainEqual({ method: 'GET', url: '/mainnet/v1/keys', origin: siteA.origin });
  });
});
