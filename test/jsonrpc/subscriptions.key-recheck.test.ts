import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { KEY_RECHECK_MS } from '../../services/pipeline/index.js';
import { ALL_SCOPES } from '../support/test-app.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

const DAY_MS = 86_400_000;
const SUBSCRIBE = { jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] };

/**
 * An open socket is not a pass. Before, the upgrade's key was checked once: after DELETE
 * /v1/keys/{id}, its expiry or a scope change, calls on an open socket were still served and its
 * notifications kept flowing and being charged. Now the key is checked again before each call and
 * every KEY_RECHECK_MS on the gateway's clock: a refusal is answered as the spec's error, the socket
 * closes with the error table's code and its subscriptions are dropped.
 */
describe('JSON-RPC WebSocket: the key checked again while the socket is open', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();

  beforeAll(async () => {
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 1 }, extra: { jsonRpcFeeds: feeds } });
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  /** A key of an organization of its own (it manages itself: ALL_SCOPES). */
  async function newKey(expiresInDays = 30): Promise<{ apiKey: string; id: string; expiresAt: string }> {
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: 'K', tier: 'team', projects: [{ name: 'D', network: 'mainnet' }] });
    return createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays,
    });
  }

  async function subscribed(apiKey: string) {
    const client = await e.socket(apiKey);
    client.socket.send(JSON.stringify(SUBSCRIBE));
    await expect.poll(() => client.frames.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(client.frames[0]).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    return client;
  }

  async function manage(method: 'DELETE' | 'PATCH', key: { apiKey: string; id: string }, payload?: object) {
    const response = await e.gateway.app.inject({ method, url: `/mainnet/v1/keys/${key.id}`, headers: { 'x-api-key': key.apiKey }, ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBe(200);
  }

  it('a key disabled: at the next check an error with id null, then close 4001', async () => {
    const key = await newKey();
    const { frames, closed } = await subscribed(key.apiKey);
    await manage('DELETE', key);
    e.gateway.clock.advance(KEY_RECHECK_MS);
    expect(await closed).toEqual({ code: 4001, reason: 'API_KEY_DISABLED: This API key has been disabled.' });
    expect(frames.at(-1)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'This API key has been disabled.', data: { code: 'API_KEY_DISABLED' } } });
  });

  it('a key disabled: the next call on the socket is answered API_KEY_DISABLED at once, then close 4001', async () => {
    const key = await newKey();
    const { socket, frames, closed } = await subscribed(key.apiKey);
    await manage('DELETE', key);
    // The clock has not moved: no periodic check is due, the call itself is checked.
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'suix_unsubscribeEvent', params: [frames[0].result] }));
    expect(await closed).toEqual({ code: 4001, reason: 'API_KEY_DISABLED: This API key has been disabled.' });
    expect(frames.at(-1)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'This API key has been disabled.', data: { code: 'API_KEY_DISABLED' } } });
  });

  it('the data scope removed: the next call is answered INSUFFICIENT_SCOPE, then close 4003', async () => {
    const key = await newKey();
    const { socket, frames, closed } = await subscribed(key.apiKey);
    await manage('PATCH', key, { scopes: ['manage'] });
    socket.send(JSON.stringify({ ...SUBSCRIBE, id: 3 }));
    expect(await closed).toEqual({ code: 4003, reason: "INSUFFICIENT_SCOPE: This operation needs the 'data' scope." });
    expect(frames.at(-1)).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: "This operation needs the 'data' scope.", data: { code: 'INSUFFICIENT_SCOPE' } } });
  });

  it('a key that expires while open: at the next check an error with id null, then close 4001 API_KEY_EXPIRED', async () => {
    const key = await newKey(1);
    const { frames, closed } = await subscribed(key.apiKey);
    e.gateway.clock.advance(DAY_MS);
    const message = `This API key expired at ${key.expiresAt}.`;
    expect(await closed).toEqual({ code: 4001, reason: `API_KEY_EXPIRED: ${message}` });
    expect(frames.at(-1)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { code: 'API_KEY_EXPIRED' } } });
  });

  it('a key still valid: the socket stays open across checks', async () => {
    const key = await newKey();
    const { socket, frames } = await subscribed(key.apiKey);
    e.gateway.clock.advance(KEY_RECHECK_MS);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'suix_unsubscribeEvent', params: [frames[0].result] }));
    await expect.poll(() => frames.find((frame) => frame.id === 4), { timeout: 10_000 }).toEqual({ jsonrpc: '2.0', id: 4, result: true });
    expect(socket.readyState).toBe(socket.OPEN);
    socket.close();
  });
});
