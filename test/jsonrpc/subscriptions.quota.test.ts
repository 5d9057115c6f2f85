import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { ALL_SCOPES } from '../support/test-app.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * Credits run out mid-subscription: a wallet organization (no monthly credits) with 4 prepaid
 * credits pays 1 for the upgrade, 1 for the subscribe call and 1 per notification, so exactly two
 * notifications arrive; the third cannot be paid and the socket closes as the spec says for
 * credits (WebSocket 1008, reason QUOTA_EXCEEDED). The balance is then spent over HTTP too.
 */
describe('JSON-RPC WebSocket subscription when credits run out', () => {
  let e: JsonRpcE2E;
  let key: string;
  const feeds = new CheckpointFeeds();

  beforeAll(async () => {
    // Generated traffic with events, one transaction per checkpoint.
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 1 }, extra: { jsonRpcFeeds: feeds } });
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: 'W', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    // 10 micro-USD per credit (docs/metering.md): 40 = 4 credits, set before the ledger first reads the organization.
    await database.db.updateTable('organizations').set({ prepaid_micro_usd: 40n }).where('id', '=', organization.id).execute();
    key = (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays: 30,
    })).apiKey;
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  it('two paid notifications, then close 1008 QUOTA_EXCEEDED; nothing is delivered unpaid', async () => {
    const { socket, frames, closed } = await e.socket(key);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] }));

    expect(await closed).toEqual({ code: 1008, reason: 'QUOTA_EXCEEDED' });
    expect(frames[0]).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    const notifications = frames.slice(1);
    expect(notifications).toHaveLength(2);
    for (const notification of notifications) {
      expect(notification).toMatchObject({ jsonrpc: '2.0', method: 'suix_subscribeEvent', params: { subscription: frames[0].result } });
    }

    const after = await e.send({ jsonrpc: '2.0', id: 2, method: 'suix_getLatestCheckpointSequenceNumber', params: [] }, { headers: { 'x-api-key': key } });
    expect(after.status).toBe(429);
    expect(after.body).toMatchObject({ code: 'CU_QUOTA_EXCEEDED' });
    expect(after.headers.get('x-svc-credit-remaining')).toBe('0');
  });

  it('a call on a socket whose credits are spent is answered -32000 with data.code, then the socket closes 1008 QUOTA_EXCEEDED', async () => {
    // An organization with 1 credit: the upgrade spends it, the first call finds nothing left.
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: 'W1', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    await database.db.updateTable('organizations').set({ prepaid_micro_usd: 10n }).where('id', '=', organization.id).execute();
    const oneCredit = (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ALL_SCOPES, expiresInDays: 30,
    })).apiKey;
    const { socket, frames, closed } = await e.socket(oneCredit);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'suix_subscribeTransaction', params: [{ FromAddress: e.address('alice') }] }));
    expect(await closed).toEqual({ code: 1008, reason: 'QUOTA_EXCEEDED' });
    expect(frames).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Monthly credits spent', data: { code: 'CU_QUOTA_EXCEEDED' } } }]);
  });
});
