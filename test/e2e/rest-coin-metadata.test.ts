import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../services/core/index.js';
import { COIN_INFO_TTL_MS } from '../../services/rest/domain/coins.js';
import { COIN_TYPES } from '../../services/simnet/index.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

/**
 * Coin metadata is kept for a minute, not for ever: its total supply changes with every mint and
 * burn, and its name, symbol and icon may be updated. Counted on the gateway's own upstream
 * instrument (`suigw_upstream_calls_total{method="GetCoinInfo"}`) against simnet.
 */
describe('REST coin metadata freshness', () => {
  const metrics = new Metrics({ defaultMetrics: false });
  let e2e: RestE2E;
  beforeAll(async () => { e2e = await startRestE2E({ extra: { metrics } }); });
  afterAll(async () => e2e.stop());

  const coinInfoCalls = async () => (await metrics.upstreamCalls.get()).values
    .filter((value) => value.labels['method'] === 'GetCoinInfo')
    .reduce((sum, value) => sum + value.value, 0);
  const read = async () => {
    const before = await coinInfoCalls();
    const response = await e2e.get(`/coins/${encodeURIComponent(COIN_TYPES.USDC)}/metadata`);
    expect(response.status).toBe(200);
    return { calls: (await coinInfoCalls()) - before, data: response.body.data };
  };

  it('is read from the node once, answered from memory within the minute, and read again after it', async () => {
    const first = await read();
    expect(first.calls).toBe(1);
    const kept = await read();
    expect(kept).toEqual({ calls: 0, data: first.data });
    e2e.gateway.clock.advance(COIN_INFO_TTL_MS);
    expect((await read()).calls).toBe(1);
  });
});
