import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction } from '@mysten/sui/transactions';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger } from './ledger/index.js';
import { startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

const running: RunningSimnet[] = [];
afterAll(async () => {
  await Promise.all(running.map((simnet) => simnet.stop()));
});

/** Same steps on a simnet: produced checkpoints, then a user transfer, then a seal. */
async function run(seed: string) {
  const simnet = await startSimnet({ seed, autoStart: false });
  running.push(simnet);
  await simnet.produceCheckpoint();
  await simnet.produceCheckpoint();
  const client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
  const [alice, bob] = simnet.accounts;
  const tx = new Transaction();
  tx.setSender(alice!.address);
  tx.transferObjects([tx.splitCoins(tx.gas, [42])[0]!], bob!.address);
  const result = await client.signAndExecuteTransaction({ transaction: tx, signer: alice!.keypair });
  simnet.sealNow();
  await simnet.produceCheckpoint();
  const checkpoints = [0n, 1n, 2n, 3n, 4n].map((n) => simnet.ledger.getCheckpoint(n));
  return {
    chainId: simnet.chainId,
    addresses: simnet.accounts.map((account) => account.address),
    transfer: result.Transaction?.digest,
    checkpoints: checkpoints.map((checkpoint) => ({ digest: checkpoint?.digest, timestampMs: checkpoint?.timestampMs, transactions: checkpoint?.transactionDigests })),
  };
}

describe('determinism', () => {
  it('gives the same chain id, accounts, digests and checkpoints for the same seed', async () => {
    const [first, second] = await Promise.all([run('determinism'), run('determinism')]);
    expect(first.transfer).toBeDefined();
    expect(second).toEqual(first);
    expect(first.checkpoints[1]!.transactions!.length).toBeGreaterThan(0);
  });

  it('gives a different chain for a different seed', () => {
    expect(createLedger({ seed: 'a' }).chainId).not.toBe(createLedger({ seed: 'b' }).chainId);
  });

  it('with newChain, each start is a chain of its own with the same accounts (suigw dev: a restart is another chain)', async () => {
    const starts = await Promise.all([startSimnet({ seed: 'restarted', autoStart: false }), startSimnet({ seed: 'restarted', autoStart: false, newChain: true }),
      startSimnet({ seed: 'restarted', autoStart: false, newChain: true })]);
    running.push(...starts);
    expect(new Set(starts.map((simnet) => simnet.chainId)).size).toBe(3);
    const [fixed, ...fresh] = starts.map((simnet) => simnet.accounts.map((account) => account.address));
    for (const accounts of fresh) expect(accounts).toEqual(fixed);
    // Genesis moves by less than a day, never backwards.
    const genesis = starts.map((simnet) => simnet.ledger.getCheckpoint(0n)!.timestampMs);
    for (const moved of genesis.slice(1)) expect(Number(moved - genesis[0]!)).toBeGreaterThan(0);
    for (const moved of genesis.slice(1)) expect(Number(moved - genesis[0]!)).toBeLessThan(86_400_000);
  });

  it('stamps checkpoints with simulated time: genesis time + n × interval', () => {
    const ledger = createLedger({ seed: 'clock', checkpointIntervalMs: 1000 });
    const genesis = ledger.latestCheckpoint().timestampMs;
    ledger.sealCheckpoint();
    ledger.sealCheckpoint();
    expect(ledger.latestCheckpoint().timestampMs).toBe(genesis + 2000n);
  });
});
