/**
 * simnet in a process of its own, so the upstream's CPU is not the benchmarked process's CPU:
 * `node bin/run-ts.js bench/lib/simnet-process.ts` prints `{grpcUrl, graphqlUrl, owner}` (over
 * IPC when started by `startSimnetProcess`). No generated transactions, so the ledger does not
 * grow during a run. `BENCH_SIMNET_CHECKPOINT_INTERVAL_MS` sets how often it seals a (then empty)
 * checkpoint (default simnet's 250 ms): the streaming benchmark raises the rate.
 * `BENCH_SIMNET_TRANSACTIONS_PER_CHECKPOINT` adds generated transactions (with events) to each
 * checkpoint, for benchmarks whose subject matches what the chain does (bench/noisy-neighbour.ts).
 */
import { startSimnet } from '../../services/simnet/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface SimnetReady {
  grpcUrl: string;
  graphqlUrl: string;
  /** An account with balances in several coins (alice, never touched by the producer). */
  owner: string;
}

const interval = process.env['BENCH_SIMNET_CHECKPOINT_INTERVAL_MS'];
const simnet = await startSimnet({
  seed: 'bench',
  transactionsPerCheckpoint: Number(process.env['BENCH_SIMNET_TRANSACTIONS_PER_CHECKPOINT'] ?? 0),
  ...(interval ? { checkpointIntervalMs: Number(interval) } : {}),
});
const owner = simnet.accounts.find((a) => a.label === 'alice')!.address;
const ready: SimnetReady = { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl, owner };
serveUntilStopped(ready, () => simnet.stop());
