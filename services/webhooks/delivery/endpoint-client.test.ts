import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { EndpointClient } from './endpoint-client.js';
import { guardedAgents, IDLE_CONNECTION_MS } from './guarded-agents.js';

/** The SSRF guard at connection time, against a real receiver on loopback. */
describe('EndpointClient', () => {
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => receiver.close());
  const now = () => Date.UTC(2026, 10, 22);

  it('refuses loopback by IP and by a host name that resolves to it, before sending anything', async () => {
    const client = new EndpointClient({ timeoutMs: 2_000, allowedAddresses: [] });
    const port = new URL(receiver.url).port;
    const spellings = ['127.0.0.1', 'localhost', 'localhost.', '[::127.0.0.1]', '[::ffff:127.0.0.1]', '[::1]', '0.0.0.0'];
    for (const url of spellings.map((host) => `http://${host}:${port}/x`)) {
      expect(await client.post(url, {}, '{}', now)).toEqual({ status: null, retryAfterMs: null, error: 'address not allowed (private, loopback or reserved)' });
    }
    expect(receiver.received).toEqual([]);
    client.close();
  });

  it('refuses a public-looking name whose DNS answer became loopback (checked on the resolved address)', async () => {
    // A DNS answer that changed after the URL was accepted (rebinding): hooks.example.com now says ::ffff:127.0.0.1.
    const client = new EndpointClient({ timeoutMs: 2_000, allowedAddresses: [], resolve: (_name, done) => done(null, [{ address: '::ffff:127.0.0.1', family: 6 }]) });
    expect(await client.post(`http://hooks.example.com:${new URL(receiver.url).port}/x`, {}, '{}', now)).toEqual({ status: null, retryAfterMs: null, error: 'address not allowed (private, loopback or reserved)' });
    expect(receiver.received).toEqual([]);
    client.close();
  });

  it('reaches an address on the allowed list, and reads the status and Retry-After', async () => {
    const client = new EndpointClient({ timeoutMs: 2_000, allowedAddresses: ['127.0.0.0/8'] });
    receiver.answer({ status: 429, headers: { 'retry-after': '30' } });
    expect(await client.post(`${receiver.url}/x`, { 'webhook-id': 'msg_1' }, '{"a":1}', now)).toEqual({ status: 429, retryAfterMs: 30_000, error: 'HTTP 429' });
    expect(await client.post(`${receiver.url}/y`, {}, '{}', now)).toEqual({ status: 200, retryAfterMs: null, error: null });
    expect(receiver.received.map((r) => [r.path, r.body, r.headers['webhook-id']])).toEqual([['/x', '{"a":1}', 'msg_1'], ['/y', '{}', undefined]]);
    client.close();
  });
});

/**
 * A raw HTTP/1.1 receiver on loopback that answers each request by its number on its connection
 * (1-based): a raw response, or `reset` (the connection reset, the request unread). `requests`
 * counts the requests of each connection, in the order they were opened.
 */
async function rawReceiver(answer: (nth: number) => string | 'reset') {
  const requests: number[] = [];
  const server = net.createServer((socket) => {
    const index = requests.push(0) - 1;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      requests[index]! += 1;
      const response = answer(requests[index]!);
      if (response === 'reset') socket.resetAndDestroy();
      else socket.write(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests, close: () => server.close() };
}

const NO_CONTENT = 'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n';

/** Kept-alive connections a receiver closes: never a failed attempt of ours. */
describe('EndpointClient on kept-alive connections', () => {
  const now = () => Date.UTC(2026, 10, 22);

  it('sends a delivery again on a new connection when the receiver closed the kept-alive one as it was written', async () => {
    // A receiver whose idle timeout races the delivery: it answers the first request on a
    // connection and resets the connection when a second one arrives on it (as a server that
    // closed it at that moment), unread.
    const receiver = await rawReceiver((nth) => (nth === 1 ? 'HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n' : 'reset'));
    const { url } = receiver;
    const client = new EndpointClient({ timeoutMs: 5_000, allowedAddresses: ['127.0.0.0/8'] });
    expect(await client.post(url, {}, '{"n":1}', now)).toEqual({ status: 500, retryAfterMs: null, error: 'HTTP 500' });
    // The retry goes out on the kept-alive connection, is reset unread, and is sent on a new one.
    expect(await client.post(url, {}, '{"n":2}', now)).toEqual({ status: 500, retryAfterMs: null, error: 'HTTP 500' });
    expect(receiver.requests).toEqual([2, 1]);
    client.close();
    receiver.close();
  });

  it('closes an idle connection a second before the receiver says it will (Keep-Alive: timeout=5, Node\'s default)', async () => {
    const receiver = await startWebhookReceiver();
    const agent = guardedAgents(['127.0.0.0/8']).http;
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.request(`${receiver.url}/x`, { method: 'POST', agent }, resolve).on('error', reject).end('{}');
    });
    expect(response.headers['keep-alive']).toBe('timeout=5');
    response.resume();
    await new Promise((resolve) => response.on('end', resolve));
    await expect.poll(() => Object.values(agent.freeSockets).flat().length).toBe(1);
    expect(Object.values(agent.freeSockets).flat().map((socket) => socket!.timeout)).toEqual([4_000]);
    agent.destroy();
    await receiver.close();
  });
});

describe('EndpointClient, connections the receiver resets', () => {
  const now = () => Date.UTC(2026, 10, 22);

  it('does not send again when a new connection is reset: that is a failed attempt', async () => {
    const receiver = await rawReceiver(() => 'reset');
    const client = new EndpointClient({ timeoutMs: 5_000, allowedAddresses: ['127.0.0.0/8'] });
    expect(await client.post(receiver.url, {}, '{}', now)).toEqual({ status: null, retryAfterMs: null, error: 'connection failed (ECONNRESET)' });
    expect(receiver.requests).toEqual([1]);
    client.close();
    receiver.close();
  });

  it('sends once more at most, on a new connection, though several idle ones were kept', async () => {
    // Two connections kept alive (two deliveries at once), both reset at their second request.
    const receiver = await rawReceiver((nth) => (nth === 2 ? 'reset' : NO_CONTENT));
    const client = new EndpointClient({ timeoutMs: 5_000, allowedAddresses: ['127.0.0.0/8'] });
    const answered = { status: 204, retryAfterMs: null, error: null };
    expect(await Promise.all([client.post(receiver.url, {}, '{"n":1}', now), client.post(receiver.url, {}, '{"n":2}', now)])).toEqual([answered, answered]);
    expect(receiver.requests).toEqual([1, 1]);
    // The next goes out on one of them, is reset, and is sent again on a third connection, not on the other kept one.
    expect(await client.post(receiver.url, {}, '{"n":3}', now)).toEqual(answered);
    expect(receiver.requests.toSorted()).toEqual([1, 1, 2]);
    client.close();
    receiver.close();
  });

  it('keeps an idle connection at most IDLE_CONNECTION_MS (30 s) when the receiver gives no Keep-Alive hint', async () => {
    expect(IDLE_CONNECTION_MS).toBe(30_000);
    const receiver = await rawReceiver(() => NO_CONTENT);
    const agent = guardedAgents(['127.0.0.0/8']).http;
    await new Promise<void>((resolve, reject) => {
      http.request(receiver.url, { method: 'POST', agent }, (response) => response.resume().on('end', resolve)).on('error', reject).end('{}');
    });
    await expect.poll(() => Object.values(agent.freeSockets).flat().length).toBe(1);
    expect(Object.values(agent.freeSockets).flat().map((socket) => socket!.timeout)).toEqual([30_000]);
    agent.destroy();
    receiver.close();
  });
});
