import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey, createOrganization, type KeyRateLimit } from '../../services/identity/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { PLANS } from '../../services/plans/index.js';
import { ALL_SCOPES } from '../support/test-app.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * The WebSocket of /v1/jsonrpc passes the same pipeline as HTTP: every call over it costs 1
 * credit (its errors included, as over HTTP), and every notification is paid before it is sent,
 * whatever per-key cap the key has (notifications are metered, not rate limited).
 */
describe('JSON-RPC WebSocket metering', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();

  beforeAll(async () => {
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 1 }, extra: { jsonRpcFeeds: feeds } });
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  /** A wallet organization (no monthly credits) with `credits` prepaid, and a key of it. */
  async function walletKey(credits: number, rateLimit?: Partial<KeyRateLimit>): Promise<string> {
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: `W${credits}`, tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    // 10 micro-USD per credit (docs/metering.md).
    await database.db.updateTable('organizations').set({ prepaid_micro_usd: BigInt(credits * 10) }).where('id', '=', organization.id).execute();
    return (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays: 30, ...(rateLimit ? { rateLimit } : {}),
    })).apiKey;
  }

  const remaining = async (key: string) =>
    Number((await e.send({ jsonrpc: '2.0', id: 0, method: 'sui_getChainIdentifier' }, { headers: { 'x-api-key': key } })).headers.get('x-svc-credit-remaining'));

  it('every call costs 1 credit, errors included: parse error, invalid request, unknown method, unsubscribe', async () => {
    const key = await walletKey(100);
    const before = await remaining(key);
    const { socket, frames } = await e.socket(key);
    socket.send('{');
    socket.send(JSON.stringify({ id: 2, method: 'suix_subscribeEvent' }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'sui_getObject', params: [] }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'suix_unsubscribeEvent', params: [1] }));
    await expect.poll(() => frames.length).toBe(4);
    expect(frames.map((frame) => frame.error?.code ?? frame.result)).toEqual([-32700, -32600, -32601, false]);
    socket.close();
    // The upgrade, four calls, and the second balance read itself.
    expect(await remaining(key)).toBe(before - 1 - 1 - 4);
  });

  it('the 101 of the upgrade carries the X-RateLimit-* and X-Svc-Credit-* headers, as every metered answer (spec: Limits), its credit charged', async () => {
    const key = await walletKey(100);
    const before = await remaining(key);
    const socket = new WebSocket(e.url.replace(/^http/, 'ws'), { headers: { 'x-api-key': key } });
    const upgrade = await new Promise<IncomingMessage>((resolve, reject) => {
      socket.once('upgrade', resolve);
      socket.once('error', reject);
    });
    expect(upgrade.statusCode).toBe(101);
    expect(upgrade.headers['x-ratelimit-limit']).toBe(String(PLANS.wallet.orgRps));
    expect(upgrade.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(upgrade.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    // What the balance read left, less the upgrade's credit.
    expect(upgrade.headers['x-svc-credit-remaining']).toBe(String(before - 1));
    expect(upgrade.headers['x-svc-credit-replenish-date']).toEqual(expect.any(String));
    socket.close();
  });

  it('with a per-key cap, notifications are still each paid before they are sent: exactly what the credits cover, then 1008', async () => {
    // 4 credits: the upgrade and the subscribe call (both within the cap of 2 a second), then two notifications.
    const key = await walletKey(4, { perKeyRps: 2 });
    const { socket, frames, closed } = await e.socket(key);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    expect(await closed).toEqual({ code: 1008, reason: 'QUOTA_EXCEEDED' });
    expect(frames[0]).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    expect(frames.slice(1).map((frame) => frame.method)).toEqual(['suix_subscribeEvent', 'suix_subscribeEvent']);
  });
});

describe('JSON-RPC WebSocket with SUIGW_METERING=off', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();
  beforeAll(async () => {
    e = await startJsonRpcE2E({ env: { SUIGW_METERING: 'off' }, simnet: { transactionsPerCheckpoint: 1 }, extra: { jsonRpcFeeds: feeds } });
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  it('charges nothing: a spent wallet organization still subscribes and receives notifications', async () => {
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: 'Spent', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    const key = (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays: 30,
    })).apiKey;
    const { socket, frames } = await e.socket(key);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(frames[0]).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    socket.close();
  });
});
