import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type UpstreamPolicy } from './types.js';

/**
 * A node at its capacity (the fake's `queue`: one call at a time, 5 ms each) under one
 * organization's flood of calls, as from the REST batches of a tenant within its plan. With a
 * fixed limit the process keeps all 32 of its slots queued at the node, where every other
 * process's calls (another tenant's, on the gRPC proxy) wait behind them; the adaptive limit
 * keeps a few there and the excess in this process's fair queue.
 */
describe('SuiUpstream: calls in flight to a node that queues', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    fake.state.behaviour = 'queue';
    fake.state.delayMs = 5;
  });
  afterAll(async () => { await fake.stop(); });

  /** 64 callers of one organization, each calling again as soon as answered, for `calls` calls in all; the most in flight at the node over the last quarter. */
  async function flood(policy: UpstreamPolicy, calls: number): Promise<{ lateMaxInFlight: number; failures: number }> {
    const upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    let started = 0;
    let failures = 0;
    const caller = async () => {
      while (started < calls) {
        started += 1;
        if (started === Math.floor(calls * 0.75)) fake.state.maxInFlight = fake.state.inFlight;
        await upstream.call('GetObject', (o) => upstream.grpc.ledgerService.getObject({ objectId: '0x2' }, o).response, { tenant: 'heavy', idempotent: true })
          .catch(() => { failures += 1; });
      }
    };
    try {
      await Promise.all(Array.from({ length: 64 }, caller));
      return { lateMaxInFlight: fake.state.maxInFlight, failures };
    } finally {
      await upstream.close();
    }
  }

  it('adapts: once the node queues, the process keeps well under its 32 slots in flight there', async () => {
    const adaptive = await flood(defaultUpstreamPolicy, 1_200);
    expect(adaptive.failures).toBe(0);
    expect(adaptive.lateMaxInFlight).toBeLessThanOrEqual(20);
  });

  it('with SUIGW_UPSTREAM_ADAPTIVE_CONCURRENCY=false the limit stays fixed: all 32 slots wait at the node', async () => {
    const fixed = await flood({ ...defaultUpstreamPolicy, adaptiveConcurrency: false }, 400);
    expect(fixed.lateMaxInFlight).toBe(32);
  });
});
