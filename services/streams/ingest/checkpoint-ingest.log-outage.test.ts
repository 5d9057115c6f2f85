import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, createLogger } from '../../core/index.js';
import { COIN_TYPES } from '../../simnet/index.js';
import { type Upstream } from '../../upstream/index.js';
import { useIngestSimnet } from '../../../test/support/ingest-simnet.js';
import { createOrganization } from '../../identity/index.js';
import { createStream } from '../definitions/store.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { CheckpointIngest } from './checkpoint-ingest.js';

/**
 * While the stream log is down (a Redis outage) every checkpoint fails and the ingest
 * resubscribes each `reconnectMs`. Each broken attempt must end its own SubscribeCheckpoints:
 * one left open keeps receiving every checkpoint from the upstream, and nobody reads it, so an
 * outage of minutes held hundreds of upstream streams and their buffered checkpoints.
 */
describe('CheckpointIngest while the stream log fails (simnet)', () => {
  const chain = useIngestSimnet({ seed: 'ingest-log-outage', transactionsPerCheckpoint: 2 });
  const clock = new ManualClock();

  beforeAll(async () => {
    const { organization } = await createOrganization(chain.db.database.db, clock, { name: 'o', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    // Every transaction pays gas in SUI: every checkpoint has something to append.
    await createStream(chain.db.database, clock, { organizationId: organization.id, network: 'mainnet', limit: 10, name: 'sui', type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } });
  });

  it('holds one upstream subscription at a time through the outage, and catches up when the log is back', async () => {
    const subscriptions: { open: boolean }[] = [];
    const subscriptionService = chain.upstream.grpc.subscriptionService;
    const counted = {
      grpc: {
        ledgerService: chain.upstream.grpc.ledgerService,
        subscriptionService: {
          subscribeCheckpoints: (...args: Parameters<typeof subscriptionService.subscribeCheckpoints>) => {
            const call = subscriptionService.subscribeCheckpoints(...args);
            const entry = { open: true };
            subscriptions.push(entry);
            const ended = () => { entry.open = false; };
            call.status.then(ended, ended);
            return call;
          },
        },
      },
    } as unknown as Upstream;
    const log = new MemoryStreamLog(clock);
    let down = true;
    const append = log.append.bind(log);
    log.append = async (...args) => {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      return append(...args);
    };
    const seen: bigint[] = [];
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream: counted, database: chain.db.database, log, clock, logger: createLogger('silent'), reconnectMs: 20, onCheckpoint: (seq) => seen.push(seq) });
    await ingest.start();
    try {
      await expect.poll(async () => {
        await chain.simnet.produceCheckpoint();
        return subscriptions.length;
      }, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(6);
      await expect.poll(() => subscriptions.filter((s) => s.open).length, { timeout: 5_000 }).toBeLessThanOrEqual(1);
      expect(seen).toEqual([]);

      // Back: nothing was ingested yet (no cursor), so the ingest starts at the next live checkpoint.
      down = false;
      await expect.poll(async () => {
        await chain.simnet.produceCheckpoint();
        return seen.length;
      }, { timeout: 10_000, interval: 50 }).toBeGreaterThan(0);
      await chain.simnet.produceCheckpoint();
      const tip = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
      await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(tip);
      expect(subscriptions.filter((s) => s.open)).toHaveLength(1);
    } finally {
      await ingest.stop();
    }
  });
});
