import { describe, expect, it } from 'vitest';
import { ManualClock, createLogger } from '../../core/index.js';
import { useIngestSimnet } from '../../../test/support/ingest-simnet.js';
import { createOrganization } from '../../identity/index.js';
import { COIN_TYPES } from '../../simnet/index.js';
import { createStream, streamsDb } from '../definitions/store.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { CheckpointIngest } from './checkpoint-ingest.js';

/**
 * A persisted cursor counts checkpoints of one chain. When the upstream serves another one (a
 * wiped testnet, a restarted `suigw dev`), the ingest must not skip every checkpoint up to
 * the old number: it restarts at the new chain's tip and keeps the new chain's identifier.
 */
describe('CheckpointIngest when the upstream chain changes (simnet)', () => {
  const chain = useIngestSimnet({ seed: 'ingest-chain-change', transactionsPerCheckpoint: 8 });
  const clock = new ManualClock();


  const cursorRow = () => streamsDb(chain.db.database).selectFrom('stream_ingest_cursors').select(['checkpoint', 'chain_id']).where('network', '=', 'mainnet').executeTakeFirstOrThrow();

  async function ingestUntilItSees(count: number, log = new MemoryStreamLog(clock)): Promise<bigint[]> {
    const seen: bigint[] = [];
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), onCheckpoint: (seq) => seen.push(seq) });
    await ingest.start();
    try {
      await expect.poll(async () => {
        await chain.simnet.produceCheckpoint();
        return seen.length;
      }, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    } finally {
      await ingest.stop();
    }
    return seen;
  }

  it('restarts at the tip of the new chain instead of waiting for the old cursor', async () => {
    const now = new Date(clock.now());
    await streamsDb(chain.db.database).insertInto('stream_ingest_cursors')
      .values({ network: 'mainnet', checkpoint: '1000000', chain_id: 'a-chain-this-upstream-does-not-serve', updated_at: now })
      .execute();
    const tipBefore = chain.simnet.ledger.latestCheckpoint().sequenceNumber;

    const seen = await ingestUntilItSees(2);

    expect(seen[0]! > tipBefore).toBe(true);
    expect(seen[0]! < 1_000_000n).toBe(true);
    expect(await cursorRow()).toEqual({ checkpoint: String(seen.at(-1)), chain_id: chain.simnet.ledger.chainId });
  });

  it('restarts at the tip for a cursor beyond it on the same chain identifier (an upstream restarted from genesis)', async () => {
    await streamsDb(chain.db.database).updateTable('stream_ingest_cursors').set({ checkpoint: '1000000', chain_id: chain.simnet.ledger.chainId }).where('network', '=', 'mainnet').execute();
    const tipBefore = chain.simnet.ledger.latestCheckpoint().sequenceNumber;

    const seen = await ingestUntilItSees(2);

    expect(seen[0]! > tipBefore && seen[0]! < 1_000_000n).toBe(true);
    expect((await cursorRow()).chain_id).toBe(chain.simnet.ledger.chainId);
  });

  it('takes a cursor written before chains were kept (no chain), within the tip, to be on the upstream\'s chain', async () => {
    const tip = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
    await streamsDb(chain.db.database).updateTable('stream_ingest_cursors').set({ checkpoint: String(tip - 2n), chain_id: null }).where('network', '=', 'mainnet').execute();

    const seen = await ingestUntilItSees(3);

    // Backfilled from the cursor, not restarted at the tip.
    expect(seen.slice(0, 2)).toEqual([tip - 1n, tip]);
    expect((await cursorRow()).chain_id).toBe(chain.simnet.ledger.chainId);
  });

  it('appends the new chain\'s events to a stream whose log last took a higher checkpoint of the old chain (a wiped network)', async () => {
    const { organization } = await createOrganization(chain.db.database.db, clock, { name: 'wiped', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    const usdc = (await createStream(chain.db.database, clock, { organizationId: organization.id, network: 'mainnet', limit: 10, name: 'usdc', type: 'coin', filters: { coinTypes: [COIN_TYPES.USDC] } })).stream.id;
    const log = new MemoryStreamLog(clock);
    // The old chain's ingest got as far as checkpoint 1,000,000 for this stream.
    await log.append(usdc, [{ kind: 'coin', data: { old: true } }], 1_000_000n, 'a-chain-this-upstream-does-not-serve');
    await log.readNew(usdc, 10);
    await streamsDb(chain.db.database).updateTable('stream_ingest_cursors').set({ checkpoint: '1000000', chain_id: 'a-chain-this-upstream-does-not-serve' }).where('network', '=', 'mainnet').execute();

    const seen = await ingestUntilItSees(3, log);

    expect(seen.every((sequence) => sequence < 1_000_000n)).toBe(true);
    // Before, the stream's guard (1,000,000) dropped every checkpoint of the new chain.
    const appended = await log.readNew(usdc, 500);
    expect(appended.length).toBeGreaterThan(0);
    // And the new chain's checkpoints are guarded under its identifier: a re-splice (a replica
    // that lags) of the last one is skipped.
    const last = seen.at(-1)!;
    expect(await log.append(usdc, [{ kind: 'coin', data: { again: true } }], last, chain.simnet.ledger.chainId)).toEqual([]);
  });
});
