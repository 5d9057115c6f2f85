import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingParts } from '../cli/billing-parts.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../upstream/index.js';
import { startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';

const at = (iso: string) => Date.parse(iso);

/**
 * A node that accepts billing's calls and never answers them must not hold the pass (and the
 * charging lock every organization's charge needs) until the process is killed: each call has a
 * deadline, the plan's renewal is our failure (`unavailable`), retried an hour later.
 */
describe('billing pass against a node that never answers', () => {
  let h: BillingHarness;
  let silentNode: http2.Http2Server;
  const sessions = new Set<http2.ServerHttp2Session>();
  beforeAll(async () => {
    h = await startBillingHarness({ seed: 'billing-silent-node', start: at('2027-05-03T09:00:00.000Z') });
    // Takes every call (headers, request) and answers none of them.
    silentNode = http2.createServer();
    silentNode.on('session', (session) => {
      sessions.add(session);
      session.on('error', () => undefined);
    });
    silentNode.on('stream', (stream) => stream.on('error', () => undefined));
    await new Promise<void>((listening) => silentNode.listen(0, '127.0.0.1', listening));
  });
  afterAll(async () => {
    for (const session of sessions) session.destroy();
    await new Promise<void>((closed) => silentNode.close(() => closed()));
    await h.close();
  });

  // The calls wait 300 ms for a node that would hold them forever: a test still running at 30 s
  // means the deadline was not applied.
  it('ends the plan\'s renewal as unavailable within the calls\' deadline; the next pass on a live node renews it', { timeout: 30_000 }, async () => {
    const funder = h.account('grace');
    const prepared = await h.billing.service.prepare(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', funderAddress: funder.address, prefundPeriods: 2 });
    const bytes = fromBase64(prepared.txBytes);
    const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    h.simnet.seal();
    const allowanceId = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    const plan = await h.billing.service.activate(h.organizationId, { network: 'testnet', tier: 'team', interval: 'month', allowanceId });
    h.moveTo(at('2027-06-03T10:00:00.000Z'));

    const url = `http://127.0.0.1:${(silentNode.address() as AddressInfo).port}`;
    const silent = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: url, graphqlUrl: url }, policy: defaultUpstreamPolicy });
    try {
      const parts = billingParts({ config: h.config, database: h.db.database, clock: h.clock, upstreams: new Map([['testnet', silent]]), chainCallTimeoutMs: 300 });
      expect(await parts.pass.run()).toMatchObject({ charged: 0, unavailable: 1, failed: 0 });
    } finally {
      await silent.close();
    }
    const renewals = () => h.db.database.db.selectFrom('billing_charges').select('status').where('plan_id', '=', plan.id).where('kind', '=', 'renewal').execute();
    expect(await renewals()).toEqual([]);

    h.moveTo(at('2027-06-03T11:01:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ charged: 1, failed: 0 });
    expect(await renewals()).toEqual([{ status: 'succeeded' }]);
  });
});
