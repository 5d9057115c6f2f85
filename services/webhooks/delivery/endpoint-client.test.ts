import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { EndpointClient } from './endpoint-client.js';

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
