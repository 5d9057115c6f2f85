import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZkLoginE2E, type ZkLoginE2E } from '../../test/support/zklogin-e2e.js';

let e2e: ZkLoginE2E;

beforeAll(async () => {
  e2e = await startZkLoginE2E();
});
afterAll(async () => { await e2e.stop(); });

/** simnet's chain moves to the next epoch (what an epoch change does to GetEpoch). */
function startNextEpoch(): void {
  const { ledger } = e2e.simnet;
  const current = ledger.currentEpoch();
  const epochs = Array.from({ length: Number(current.epoch) + 1 }, (_, i) => ledger.getEpoch(BigInt(i))!);
  const startMs = ledger.nowMs();
  epochs[epochs.length - 1] = { ...current, endTimestampMs: startMs };
  epochs.push({ ...current, epoch: current.epoch + 1n, startTimestampMs: startMs, endTimestampMs: undefined });
  ledger.setSystem({ ...ledger.systemState(), epoch: current.epoch + 1n }, ledger.protocolConfig(), epochs);
}

describe('the current epoch is reused for 2 s of the service clock', () => {
  it('a new epoch shows at 2,000 ms after the read, not at 1,999 ms', async () => {
    const { extendedEphemeralPublicKey } = e2e.session(0);
    // epochs 0: maxEpoch is the current epoch as the service read it.
    const maxEpoch = async () => {
      const response = await e2e.call('POST', '/v1/zklogin/nonce', { body: { extendedEphemeralPublicKey, epochs: 0 } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data.maxEpoch as number;
    };
    const { clock } = e2e.gateway;
    const before = e2e.currentEpoch();
    expect(await maxEpoch()).toBe(before);
    const readAt = clock.now();

    startNextEpoch();
    // Each call moves the clock 25 ms before it is made.
    clock.set(readAt + 1_999 - 25);
    expect(await maxEpoch()).toBe(before);
    clock.set(readAt + 2_000 - 25);
    expect(await maxEpoch()).toBe(before + 1);
  });
});
