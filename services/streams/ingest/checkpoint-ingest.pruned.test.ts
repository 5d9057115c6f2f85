import { RpcError } from '@protobuf-ts/runtime-rpc';
import { describe, expect, it } from 'vitest';
import { ManualClock, createLogger } from '../../core/index.js';
import { type Upstream } from '../../upstream/index.js';
import { useIngestSimnet } from '../../../test/support/ingest-simnet.js';
import { capturedLogger } from '../../../test/support/captured-log.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { CheckpointIngest } from './checkpoint-ingest.js';

/**
 * Full nodes prune old checkpoints (GetServiceInfo's `lowest_available_checkpoint`; GetCheckpoint
 * below it is NOT_FOUND). A `streams` process down for longer than the upstream keeps checkpoints
 * cannot backfill the whole gap: it must take what is still there and go on, not fail on the first
 * pruned checkpoint, resubscribe, and fail on it again for good while every stream and webhook of
 * the network receives nothing.
 */
describe('CheckpointIngest after a gap the upstream has partly pruned (simnet)', () => {
  const chain = useIngestSimnet({ seed: 'ingest-pruned', transactionsPerCheckpoint: 2 });
  const clock = new ManualClock();


  /** simnet as a full node that keeps checkpoints from `lowest` on only. */
  function prunedAt(lowest: bigint): Upstream {
    const ledger = chain.upstream.grpc.ledgerService;
    return {
      grpc: {
        subscriptionService: chain.upstream.grpc.subscriptionService,
        ledgerService: {
          getServiceInfo: async (...args: Parameters<typeof ledger.getServiceInfo>) => {
            const { response } = await ledger.getServiceInfo(...args);
            return { response: { ...response, lowestAvailableCheckpoint: lowest } };
          },
          getCheckpoint: async (...args: Parameters<typeof ledger.getCheckpoint>) => {
            const id = args[0].checkpointId;
            if (id.oneofKind === 'sequenceNumber' && id.sequenceNumber < lowest) {
              throw new RpcError(`checkpoint ${id.sequenceNumber} has been pruned`, 'NOT_FOUND');
            }
            return ledger.getCheckpoint(...args);
          },
        },
      },
    } as unknown as Upstream;
  }

  it('backfills from the lowest available checkpoint, with a warning, and follows the chain from there', async () => {
    const log = new MemoryStreamLog(clock);
    const seen: bigint[] = [];
    const first = new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), onCheckpoint: (seq) => seen.push(seq) });
    await first.start();
    await expect.poll(async () => {
      await chain.simnet.produceCheckpoint();
      return seen.length;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    const cursor = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(cursor);
    await first.stop();

    // Down while 6 checkpoints are sealed; the upstream has pruned the first 3 of them meanwhile.
    for (let i = 0; i < 6; i += 1) await chain.simnet.produceCheckpoint();
    const lowest = cursor + 4n;
    const captured = capturedLogger('warn');
    const after: bigint[] = [];
    const second = new CheckpointIngest({ network: 'mainnet', upstream: prunedAt(lowest), database: chain.db.database, log, clock, logger: captured.logger, reconnectMs: 50, onCheckpoint: (seq) => after.push(seq) });
    await second.start();
    try {
      await chain.simnet.produceCheckpoint();
      const tip = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
      await expect.poll(() => after.at(-1), { timeout: 10_000 }).toBe(tip);
      expect(after).toEqual(Array.from({ length: Number(tip - lowest) + 1 }, (_, i) => lowest + BigInt(i)));
      expect(second.cursor).toBe(tip);
      expect(captured.lines.map((line) => line.msg))
        .toEqual(['the upstream has pruned checkpoints after the ingest cursor; ingest resumes at its lowest available checkpoint']);
    } finally {
      await second.stop();
    }
  });
});
