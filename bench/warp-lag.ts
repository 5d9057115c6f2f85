/**
 * Warp delivery lag (issue 10): checkpoint-to-client p50/p99 lag and events/s with 1, 100 and
 * 1,000 open streams while simnet seals 4 checkpoints/s × 50 transactions.
 *
 * Separate processes: simnet (bench/lib/warp-simnet-process.ts, which reports each checkpoint's
 * seal time), one `suigw streams` (the real role: Redis Streams log on a private redis-server,
 * PostgreSQL, LOG_LEVEL=info, metering on), and this process holding every WebSocket client.
 * Lag = Date.now() when an event reaches its client − Date.now() in simnet when its checkpoint
 * was sealed: two processes of one machine reading one clock. The event id's millisecond part is
 * the streams process's clock at append, which splits the lag into ingest (seal → append) and
 * delivery (append → client).
 *
 * One stream is hot (every SUI balance change: about 2 events per transaction); the others watch
 * object ids nothing touches, so the open-stream count grows without multiplying the event volume
 * (each idle connection still holds a lease, a log and a consumer group). Each client acks every
 * event, as an exactly-once client must.
 *
 * Rounds are interleaved: round r runs the counts starting from the (r mod 3)-th, after one
 * unmeasured warm-up pass. Knobs: BENCH_WARP_ROUNDS (3), BENCH_WARP_ROUND_MS (8000),
 * BENCH_WARP_SETTLE_MS (2000, after the clients connect and before measuring),
 * BENCH_WARP_COUNTS (1,100,1000), BENCH_STREAMS_NODE_FLAGS (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`, written when the streams process stops). `npm run bench -- warp`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { credentials } from '@grpc/grpc-js';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import WebSocket from 'ws';
import { systemClock } from '../services/core/index.js';
import { createKey, createOrganization } from '../services/identity/index.js';
import { COIN_TYPES } from '../services/simnet/index.js';
import { streamsDb } from '../services/streams/definitions/store.js';
import { startRedis, TEST_SECRET } from '../test/support/processes.js';
import { createTestDatabase } from '../test/support/test-database.js';
import { printTable } from './lib/report.js';
import { spread } from './lib/rounds.js';
import { processCpuMicros, startServiceProcess } from './lib/service-process.js';
import { cleanEnvironment } from './lib/stack.js';
import { startStreamsRole, type StreamsRole } from './lib/streams-role.js';
import { percentile } from './lib/stats.js';
import type { SealedMessage, WarpSimnetReady } from './lib/warp-simnet-process.js';

const ROUNDS = Number(process.env['BENCH_WARP_ROUNDS'] ?? 3);
const ROUND_MS = Number(process.env['BENCH_WARP_ROUND_MS'] ?? 8_000);
const SETTLE_MS = Number(process.env['BENCH_WARP_SETTLE_MS'] ?? 2_000);
const COUNTS = (process.env['BENCH_WARP_COUNTS'] ?? '1,100,1000').split(',').map(Number);

interface RoundResult {
  round: number;
  count: number;
  /** Seal → client, seal → append, append → client (ms), sorted. */
  lag: number[];
  /** Seal → a bare SubscribeCheckpoints client (sequence numbers only) in this process: the machine's floor. */
  reference: number[];
  ingest: number[];
  delivery: number[];
  eventsPerSecond: number;
  /** simnet's own pace in the window (the target is 4). */
  checkpointsPerSecond: number;
  /** CPU of the streams process, % of one core, and µs per delivered event. */
  streamsCpuPercent: number;
  streamsCpuPerEvent: number;
  simnetCpuPercent: number;
}

export default async function warpLag(): Promise<void> {
  const db = await createTestDatabase();
  const redis = await startRedis();
  const simnet = await startServiceProcess<WarpSimnetReady>({
    name: 'simnet', script: 'bench/lib/warp-simnet-process.ts', env: cleanEnvironment(), stdout: 'ignore',
  });
  const sealedAt = new Map<string, number>();
  simnet.onMessage((message) => {
    const sealed = message as Partial<SealedMessage>;
    if (typeof sealed.sealed === 'string' && typeof sealed.at === 'number') sealedAt.set(sealed.sealed, sealed.at);
  });
  // The floor: how late a checkpoint reaches a client doing nothing else, on this machine now.
  const referenceAt = new Map<string, number>();
  const abort = new AbortController();
  const direct = new SuiGrpcClient({ network: 'localnet', transport: new GrpcTransport({ host: new URL(simnet.ready.grpcUrl).host, channelCredentials: credentials.createInsecure() }) });
  void (async () => {
    const call = direct.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { abort: abort.signal });
    for await (const message of call.responses) referenceAt.set(String(message.checkpoint?.sequenceNumber), Date.now());
  })().catch(() => undefined);
  let streams: StreamsRole | undefined;
  const rows: RoundResult[] = [];
  let refused = 0;
  try {
    const { organization, projects } = await createOrganization(db.database.db, systemClock, { name: 'bench', tier: 'enterprise' });
    const apiKey = (await createKey(db.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'b', scopes: ['streams'], expiresInDays: 1,
    })).apiKey;
    const ids = Array.from({ length: Math.max(...COUNTS) }, (_, i) => `str_bench${i}`);
    await streamsDb(db.database).insertInto('streams').values(ids.map((id, i) => ({
      id, organization_id: organization.id, network: 'mainnet', name: id, type: i === 0 ? 'coin' : 'object', created_at: new Date(),
      filters: JSON.stringify(i === 0 ? { coinTypes: [COIN_TYPES.SUI] } : { objectIds: [`0x${i.toString(16).padStart(64, 'f')}`] }),
    }))).execute();
    streams = await startStreamsRole({
      ...cleanEnvironment(),
      LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', SUIGW_METRICS_PORT: 'off', SUIGW_SECRET: TEST_SECRET,
      DATABASE_URL: db.url, REDIS_URL: redis.url, SUIGW_NETWORKS: 'mainnet',
      SUI_MAINNET_GRPC_URL: simnet.ready.grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.ready.graphqlUrl,
      ...(process.env['BENCH_WARP_SHED_MS'] ? { SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: process.env['BENCH_WARP_SHED_MS'] } : {}),
    }, (process.env['BENCH_STREAMS_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== ''));
    const base = streams.address.replace(/^http/, 'ws');
    const streamsPid = streams.child.pid!;

    const measure = async (round: number, count: number, windowMs: number): Promise<RoundResult> => {
      const lag: number[] = [];
      const ingest: number[] = [];
      const delivery: number[] = [];
      let events = 0;
      let measuring = false;
      // A 503 from load shedding (the event loop of the streams process lagging on a loaded
      // machine) is retried as a real client would, after a pause; counted and printed.
      const connect = async (id: string): Promise<WebSocket> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await connectOnce(id);
          } catch (error) {
            if (attempt >= 40) throw error;
            refused += 1;
            await sleep(250);
          }
        }
      };
      const connectOnce = (id: string) => new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(`${base}/mainnet/v1/warp/${id}/ws`, { headers: { 'x-api-key': apiKey } });
        socket.on('message', (raw) => {
          const now = Date.now();
          const message = JSON.parse(String(raw)) as { event: string; id?: string; data: { checkpoint?: string } };
          if (message.event === 'connected') return resolve(socket);
          if (message.id === undefined) return;
          socket.send(JSON.stringify({ type: 'ack', id: message.id }));
          if (!measuring) return;
          events += 1;
          const sealed = sealedAt.get(String(message.data.checkpoint));
          if (sealed === undefined) return;
          const appended = Number(message.id.slice(0, message.id.indexOf('-')));
          lag.push(now - sealed);
          ingest.push(appended - sealed);
          delivery.push(now - appended);
        });
        socket.once('error', reject);
      });
      // Opened 25 at a time, as clients reconnecting after a deploy would not all arrive in one tick.
      const sockets: WebSocket[] = [];
      for (let i = 0; i < count; i += 25) sockets.push(...(await Promise.all(ids.slice(i, Math.min(count, i + 25)).map(connect))));
      await sleep(SETTLE_MS);
      const sealedBefore = sealedAt.size;
      const wallStart = Date.now();
      const cpu0 = { streams: processCpuMicros(streamsPid), simnet: simnet.cpuMicros() };
      const t0 = performance.now();
      measuring = true;
      await sleep(windowMs);
      measuring = false;
      const wallEnd = Date.now();
      const seconds = (performance.now() - t0) / 1000;
      const streamsCpu = processCpuMicros(streamsPid) - cpu0.streams;
      const simnetCpu = simnet.cpuMicros() - cpu0.simnet;
      const checkpoints = sealedAt.size - sealedBefore;
      await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
      })));
      const reference: number[] = [];
      for (const [sequence, at] of referenceAt) {
        const sealed = sealedAt.get(sequence);
        if (sealed !== undefined && sealed >= wallStart && sealed <= wallEnd) reference.push(at - sealed);
      }
      for (const list of [lag, ingest, delivery, reference]) list.sort((a, b) => a - b);
      return {
        round, count, lag, reference, ingest, delivery,
        eventsPerSecond: events / seconds,
        checkpointsPerSecond: checkpoints / seconds,
        streamsCpuPercent: streamsCpu / 1e4 / seconds,
        streamsCpuPerEvent: events > 0 ? streamsCpu / events : Number.NaN,
        simnetCpuPercent: simnetCpu / 1e4 / seconds,
      };
    };

    // One unmeasured pass: JIT, pools, the consumer groups of every stream.
    for (const count of COUNTS) await measure(0, count, 1_000);
    for (let round = 1; round <= ROUNDS; round++) {
      for (let i = 0; i < COUNTS.length; i++) rows.push(await measure(round, COUNTS[(round - 1 + i) % COUNTS.length]!, ROUND_MS));
    }
    console.log(`streams process logged ${streams.loggedBytes()} bytes at info; ${refused} connection attempts refused (503) and retried`);
  } finally {
    abort.abort();
    if (streams) await streams.stop();
    await simnet.stop();
    await redis.stop();
    await db.drop();
  }

  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '-');
  console.log(`\nper round (${ROUND_MS} ms windows; lag in ms from the seal at simnet)`);
  printTable(
    ['round', 'streams', 'samples', 'p50 lag', 'p99 lag', 'p99 floor', 'p99 seal→append', 'p99 append→client', 'events/s', 'simnet cp/s', 'streams CPU %', 'µs CPU/event', 'simnet CPU %'],
    rows.map((row) => [String(row.round), String(row.count), String(row.lag.length), ms(percentile(row.lag, 50)), ms(percentile(row.lag, 99)),
      ms(percentile(row.reference, 99)), ms(percentile(row.ingest, 99)), ms(percentile(row.delivery, 99)), row.eventsPerSecond.toFixed(0), row.checkpointsPerSecond.toFixed(2),
      row.streamsCpuPercent.toFixed(0), ms(row.streamsCpuPerEvent), row.simnetCpuPercent.toFixed(0)]),
  );
  const range = (values: number[], digits = 0) => {
    const s = spread(values);
    return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}..${s.max.toFixed(digits)})`;
  };
  console.log(`\nmedian (min..max) over ${ROUNDS} rounds`);
  printTable(
    ['streams', 'p50 lag ms', 'p99 lag ms', 'p99 floor ms', 'events/s', 'µs CPU/event', 'events per CPU-s', 'simnet cp/s'],
    COUNTS.map((count) => {
      const of = rows.filter((row) => row.count === count);
      return [String(count), range(of.map((row) => percentile(row.lag, 50))), range(of.map((row) => percentile(row.lag, 99))),
        range(of.map((row) => percentile(row.reference, 99))), range(of.map((row) => row.eventsPerSecond)), range(of.map((row) => row.streamsCpuPerEvent)),
        range(of.map((row) => (row.eventsPerSecond * 100) / row.streamsCpuPercent)), range(of.map((row) => row.checkpointsPerSecond), 2)];
    }),
  );
}
