import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

const REQUEST_ID = expect.stringMatching(/^[0-9a-f-]{36}$/);

/** One raw HTTP/1.1 exchange: what the server wrote until it closed the connection. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

function parseRaw(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe("fastify's and Node's own errors have the standard body and a table code", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it.each([
    ['a bad percent-encoding', 400, 'INVALID_URL', '/mainnet/v1/accounts/%E0%A4%A'],
    ['a lone percent sign', 400, 'INVALID_URL', '/mainnet/v1/chain%'],
    ['an over-long path parameter', 414, 'URI_TOO_LONG', `/mainnet/v1/names/${'a'.repeat(8_000)}`],
  ])('%s → %i %s', async (_what, status, code, url) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ error: expect.any(String), message: expect.any(String), code, requestId: REQUEST_ID });
    expect(response.body).not.toContain('FST_ERR');
  });

  it.each([
    ['POST', '/mainnet/v1/chain', 'GET, HEAD, OPTIONS'],
    ['PROPFIND', '/mainnet/v1/chain', 'GET, HEAD, OPTIONS'],
    ['PUT', '/mainnet/v1/keys', 'GET, HEAD, OPTIONS, POST'],
    ['POST', `/mainnet/v1/keys/key_x`, 'DELETE, OPTIONS, PATCH'],
    ['DELETE', '/mainnet/v1/chain', 'GET, HEAD, OPTIONS'],
  ])('%s %s (a known path, another method) → 405 with Allow: %s', async (method, url, allow) => {
    const response = await t.app.inject({ method: method as 'POST', url, headers: { 'x-api-key': t.adminKey } });
    expect(response.statusCode).toBe(405);
    expect(response.headers['allow']).toBe(allow);
    expect(response.json()).toEqual({ error: 'Method not allowed', message: expect.stringContaining(allow), code: 'METHOD_NOT_ALLOWED', requestId: REQUEST_ID });
  });

  it('an unknown path is still 404 NOT_FOUND, whatever the method', async () => {
    for (const method of ['GET', 'PROPFIND'] as const) {
      const response = await t.app.inject({ method: method as 'GET', url: '/mainnet/v1/nothing-here' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', requestId: REQUEST_ID });
      expect(response.headers['allow']).toBeUndefined();
    }
  });

  it('a DELETE with Content-Type: application/json and an empty body works', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey },
      payload: { name: 'to delete', projectId: t.projects.mainnet },
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { data: { id: string } }).data.id;
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/mainnet/v1/keys/${id}`,
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { id, enabled: false } });
  });

  it('a POST with Content-Type: application/json and an empty body stays 400 INVALID_BODY', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/mainnet/v1/keys',
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_BODY', requestId: REQUEST_ID });
  });

  describe('on a listening server (errors Node raises before fastify sees a request)', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as { port: number }).port;
    });

    it('an unknown method (FOO) → 400 BAD_REQUEST with the standard body, connection closed', async () => {
      const raw = await rawExchange(port, 'FOO /mainnet/v1/chain HTTP/1.1\r\nHost: x\r\n\r\n');
      const response = parseRaw(raw);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({ error: 'Bad request', message: 'Unknown HTTP method.', code: 'BAD_REQUEST', requestId: REQUEST_ID });
      expect(response.headers['x-request-id']).toBe((response.body as { requestId: string }).requestId);
      expect(raw).not.toContain('FST_ERR');
    });

    it('a malformed request line → 400 BAD_REQUEST', async () => {
      const response = parseRaw(await rawExchange(port, 'GET /mainnet/v1/chain HTTP/9\r\n\r\n'));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'BAD_REQUEST', requestId: REQUEST_ID });
    });

    it('oversized headers → 431 HEADERS_TOO_LARGE', async () => {
      const response = parseRaw(await rawExchange(port, `GET /mainnet/v1/chain HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
      expect(response.status).toBe(431);
      expect(response.body).toMatchObject({ code: 'HEADERS_TOO_LARGE', requestId: REQUEST_ID });
    });
  });
});
