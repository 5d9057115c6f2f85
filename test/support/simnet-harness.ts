import { startSimnet, type SimnetOptions } from '../../services/simnet/index.js';

/**
 * simnet for the REST tests: a quiet chain by default (no generated traffic, so what a test
 * sends is what it finds) that seals a checkpoint every 100 ms.
 */
export async function startTestSimnet(options: SimnetOptions = {}) {
  const simnet = await startSimnet({ seed: 'suigw-rest-e2e', checkpointIntervalMs: 100, transactionsPerCheckpoint: 0, ...options });
  return Object.assign(simnet, {
    /** The faucet's base URL, as `requestSuiFromFaucetV2({ host })` takes it. */
    faucetHost: simnet.faucetUrl,
    /** Seals pending transactions now, so they are finalized and indexed. */
    seal: () => simnet.sealNow(),
  });
}

export type TestSimnet = Awaited<ReturnType<typeof startTestSimnet>>;
