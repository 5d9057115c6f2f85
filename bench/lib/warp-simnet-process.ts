/**
 * simnet for bench/warp-lag.ts in a process of its own: sealing 4 checkpoints/s × 50 generated
 * transactions (the load), and telling the parent over IPC the wall-clock time (Date.now,
 * the same machine clock the clients and the streams process read) at which each checkpoint was
 * sealed: `{ sealed: '<sequence>', at: <ms> }`. That is where the delivery lag starts.
 */
import { startSimnet } from '../../services/simnet/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface WarpSimnetReady {
  grpcUrl: string;
  graphqlUrl: string;
}

export interface SealedMessage {
  sealed: string;
  at: number;
}

const simnet = await startSimnet({
  seed: 'warp-bench',
  checkpointIntervalMs: Number(process.env['BENCH_WARP_INTERVAL_MS'] ?? 250),
  transactionsPerCheckpoint: Number(process.env['BENCH_WARP_TRANSACTIONS'] ?? 50),
});
serveUntilStopped({ grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl } satisfies WarpSimnetReady, () => simnet.stop());
simnet.ledger.onCheckpoint((checkpoint) => {
  const message: SealedMessage = { sealed: String(checkpoint.sequenceNumber), at: Date.now() };
  process.send?.(message);
});
