import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, Metrics, createLogger } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { CATALOG, COIN_TYPES } from '../../simnet/index.js';
import { useIngestSimnet } from '../../../test/support/ingest-simnet.js';
import { createStream } from '../definitions/store.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import type { LogEntry } from '../log/stream-log.js';
import { CheckpointIngest } from './checkpoint-ingest.js';

/**
 * Ingest against simnet's real SubscribeCheckpoints and GetCheckpoint: what the log holds is
 * compared with the ledger's own record of every checkpoint, across a stop (the gap backfilled).
 */
describe('CheckpointIngest (simnet)', () => {
  const chain = useIngestSimnet({ seed: 'streams-ingest', transactionsPerCheckpoint: 8 });
  const clock = new ManualClock();
  const log = new MemoryStreamLog(clock);
  let swaps: string;
  let usdc: string;

  beforeAll(async () => {
    const { organization } = await createOrganization(chain.db.database.db, clock, { name: 'o', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    const base = { organizationId: organization.id, network: 'mainnet' as const, limit: 10 };
    // The generic event type without instantiation: matches every SwapEvent<A, B>.
    swaps = (await createStream(chain.db.database, clock, { ...base, name: 'swaps', type: 'event', filters: { eventTypes: [`${CATALOG.dexPackage}::pool::SwapEvent`] } })).stream.id;
    usdc = (await createStream(chain.db.database, clock, { ...base, name: 'usdc', type: 'coin', filters: { coinTypes: [COIN_TYPES.USDC] } })).stream.id;
  });

  function truth(from: bigint, to: bigint): { swaps: string[]; usdc: string[] } {
    const out = { swaps: [] as string[], usdc: [] as string[] };
    for (let seq = from; seq <= to; seq += 1n) {
      for (const tx of chain.simnet.ledger.checkpointTransactions(seq)) {
        for (const event of tx.events) if (event.type.includes('::pool::SwapEvent<')) out.swaps.push(`${tx.digest}/${event.eventIndex}`);
        for (const change of tx.balanceChanges) if (change.coinType === COIN_TYPES.USDC) out.usdc.push(`${tx.digest}/${change.address}`);
      }
    }
    return out;
  }

  async function drain(streamId: string): Promise<LogEntry[]> {
    const out: LogEntry[] = [];
    for (let page = await log.readNew(streamId, 500); page.length > 0; page = await log.readNew(streamId, 500)) out.push(...page);
    return out;
  }

  it('matches live checkpoints, then backfills the gap after a restart without duplicates', async () => {
    const seen: bigint[] = [];
    const ingest = () => new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), onCheckpoint: (seq) => seen.push(seq) });
    const first = ingest();
    await first.start();
    // The subscription starts at the tip: produce until the ingest sees a checkpoint (no fixed
    // wait for the subscription to open), then four more.
    await expect.poll(async () => {
      await chain.simnet.produceCheckpoint();
      return seen.length;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    const start = seen[0]!;
    for (let i = 0; i < 4; i += 1) await chain.simnet.produceCheckpoint();
    const tip = () => chain.simnet.ledger.latestCheckpoint().sequenceNumber;
    const firstEnd = tip();
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(firstEnd);
    await first.stop();

    // While no ingest runs, 6 checkpoints are sealed: the restarted ingest must read them from the
    // ledger. It is not given time to open its subscription: 3 more are sealed at once, so the
    // backfill and the live subscription must splice wherever the subscription happens to start.
    for (let i = 0; i < 6; i += 1) await chain.simnet.produceCheckpoint();
    const second = ingest();
    await second.start();
    for (let i = 0; i < 3; i += 1) await chain.simnet.produceCheckpoint();
    const end = tip();
    expect(end).toBe(firstEnd + 9n);
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(end);
    await second.stop();

    expect(seen).toEqual(Array.from({ length: Number(end - start) + 1 }, (_, i) => start + BigInt(i)));
    const expected = truth(start, end);
    expect(expected.swaps.length).toBeGreaterThan(0);
    expect(expected.usdc.length).toBeGreaterThan(0);
    const gotSwaps = (await drain(swaps)).map((e) => e.data as { digest: string; eventIndex: number; type: string });
    expect(gotSwaps.map((d) => `${d.digest}/${d.eventIndex}`)).toEqual(expected.swaps);
    expect(gotSwaps.every((d) => d.type.includes('::pool::SwapEvent<'))).toBe(true);
    const gotUsdc = (await drain(usdc)).map((e) => e.data as { digest: string; address: string; kind?: string });
    expect(gotUsdc.map((d) => `${d.digest}/${d.address}`)).toEqual(expected.usdc);
  });

  it('a stream created while the ingest runs matches the next checkpoint, not a reload later', async () => {
    const seen: bigint[] = [];
    // No periodic reload within the test: only the definitions version read before each
    // checkpoint can bring the new stream in.
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), refreshMs: 3_600_000, onCheckpoint: (seq) => seen.push(seq) });
    await ingest.start();
    await expect.poll(async () => {
      await chain.simnet.produceCheckpoint();
      return seen.length;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    const cursor = chain.simnet.ledger.latestCheckpoint().sequenceNumber;
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(cursor);

    const { organization } = await createOrganization(chain.db.database.db, clock, { name: 'late', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    const { stream, fromCheckpoint } = await createStream(chain.db.database, clock, { organizationId: organization.id, network: 'mainnet', limit: 10, name: 'sui', type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } });
    expect(fromCheckpoint).toBe(String(cursor + 2n));
    await chain.simnet.produceCheckpoint();
    const next = cursor + 1n;
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(next);
    await ingest.stop();

    // Every transaction pays gas in SUI: the checkpoint right after the creation has matches.
    const expected = chain.simnet.ledger.checkpointTransactions(next).flatMap((tx) => tx.balanceChanges.filter((c) => c.coinType === COIN_TYPES.SUI).map((c) => `${tx.digest}/${c.address}`));
    expect(expected.length).toBeGreaterThan(0);
    const got = (await drain(stream.id)).map((e) => e.data as { digest: string; address: string });
    expect(got.map((d) => `${d.digest}/${d.address}`)).toEqual(expected);
  });

  it('exports its network\'s count at 0 before any checkpoint, so a stall from the start is a flat series, not none', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    new CheckpointIngest({ network: 'testnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), instruments: metrics });
    expect((await metrics.registry.metrics()).split('\n')).toContain('suigw_warp_checkpoints_ingested_total{network="testnet"} 0');
  });

  it('counts each ingested checkpoint and reports how long after its seal it was appended', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const seen: bigint[] = [];
    const ingest = new CheckpointIngest({ network: 'mainnet', upstream: chain.upstream, database: chain.db.database, log, clock, logger: createLogger('silent'), instruments: metrics, onCheckpoint: (seq) => seen.push(seq) });
    await ingest.start();
    await expect.poll(async () => {
      await chain.simnet.produceCheckpoint();
      return seen.length;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    const sealed = chain.simnet.ledger.latestCheckpoint();
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(sealed.sequenceNumber);
    await ingest.stop();
    const lines = (await metrics.registry.metrics()).split('\n');
    expect(lines).toContain(`suigw_warp_checkpoints_ingested_total{network="mainnet"} ${seen.length}`);
    // The manual clock stands still: the lag is exactly its time less the checkpoint's seal time.
    expect(lines).toContain(`suigw_warp_ingest_lag_seconds{network="mainnet"} ${(clock.now() - Number(sealed.timestampMs)) / 1_000}`);
  });
});
