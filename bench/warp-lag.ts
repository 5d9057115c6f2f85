/**
 * Warp delivery lag: checkpoint-to-client p50/p99 and events/s with 1, 100 and 1,000 open
 * streams, simnet sealing 4 checkpoints/s × 50 transactions. Separate processes: simnet
 * (`suigw simnet`), one `suigw streams` (Redis Streams log on a private redis-server), and this
 * process as the clients. Lag = arrival of an event at its WebSocket client − arrival of its
 * checkpoint at a direct SubscribeCheckpoints client of simnet in this same process (so both
 * ends read one clock). One stream is hot (every SUI balance change); the others watch object ids
 * nothing touches, so the open-stream count grows without multiplying the event volume.
 * Rounds are interleaved (1, 100, 1,000, 1, 100, 1,000). `npm run bench -- warp`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import WebSocket from 'ws';
import { systemClock } from '../services/core/index.js';
import { createKey, createOrganization } from '../services/identity/index.js';
import { COIN_TYPES } from '../services/simnet/index.js';
import { streamsDb } from '../services/streams/definitions/store.js';
import { freePort, startRedis, TEST_SECRET } from '../test/support/processes.js';
import { createTestDatabase } from '../test/support/test-database.js';
import { printTable } from './lib/report.js';
import { percentile } from './lib/stats.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'suigw.js');
const ROUND_MS = Number(process.env['BENCH_WARP_ROUND_MS'] ?? 8_000);
const COUNTS = [1, 100, 1_000];

function spawnRole(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}):\n${output}`)));
  });
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export default async function warpLag(): Promise<void> {
  const db = await createTestDatabase();
  const redis = await startRedis();
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const simnet = await spawnRole(['simnet', '--grpc-port', String(grpcPort), '--http-port', String(httpPort), '--seed', 'warp-bench',
    '--checkpoint-interval-ms', '250', '--transactions-per-checkpoint', '50'], {}, /GraphQL\s+(\S+)/);
  const grpcUrl = `http://127.0.0.1:${grpcPort}`;
  const { organization, projects } = await createOrganization(db.database.db, systemClock, { name: 'bench', tier: 'enterprise' });
  const apiKey = (await createKey(db.database, systemClock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'b', scopes: ['streams'], expiresInDays: 1 })).apiKey;
  const ids = Array.from({ length: Math.max(...COUNTS) }, (_, i) => `str_bench${i}`);
  await streamsDb(db.database).insertInto('streams').values(ids.map((id, i) => ({
    id, organization_id: organization.id, network: 'mainnet', name: id, type: i === 0 ? 'coin' : 'object', created_at: new Date(),
    filters: JSON.stringify(i === 0 ? { coinTypes: [COIN_TYPES.SUI] } : { objectIds: [`0x${i.toString(16).padStart(64, 'f')}`] }),
  }))).execute();
  const streams = await spawnRole(['streams'], {
    LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', SUIGW_METRICS_PORT: 'off', SUIGW_SECRET: TEST_SECRET, DATABASE_URL: db.url,
    REDIS_URL: redis.url, SUIGW_NETWORKS: 'mainnet', SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: process.env['BENCH_WARP_SHED_MS'] ?? '1000', SUI_MAINNET_GRPC_URL: grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.match[1]!,
  }, /"address":"(http:\/\/[^"]+)".*"msg":"streams listening"/);
  const base = streams.match[1]!.replace(/^http/, 'ws');

  // The reference: when each checkpoint reaches a direct subscriber of simnet.
  const seenAt = new Map<string, number>();
  const abort = new AbortController();
  const direct = new SuiGrpcClient({ network: 'localnet', transport: new GrpcTransport({ host: `127.0.0.1:${grpcPort}`, channelCredentials: credentials.createInsecure() }) });
  void (async () => {
    const call = direct.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { abort: abort.signal });
    for await (const message of call.responses) seenAt.set(String(message.checkpoint?.sequenceNumber), performance.now());
  })().catch(() => undefined);

  const rows: string[][] = [];
  try {
    for (const round of [0, 1]) {
      for (const count of COUNTS) {
        const lags: number[] = [];
        let events = 0;
        const connect = (id: string) => new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(`${base}/mainnet/v1/warp/${id}/ws`, { headers: { 'x-api-key': apiKey } });
          socket.on('message', (raw) => {
            const message = JSON.parse(String(raw)) as { event: string; id?: string; data: { checkpoint?: string } };
            if (message.event === 'connected') return resolve(socket);
            if (message.id === undefined) return;
            events += 1;
            const at = seenAt.get(String(message.data.checkpoint));
            if (at !== undefined) lags.push(performance.now() - at);
            socket.send(JSON.stringify({ type: 'ack', id: message.id }));
          });
          socket.on('error', reject);
        });
        // Opened 25 at a time: a burst of 1,000 upgrades would trip the gateway's load shedding (503).
        const sockets: WebSocket[] = [];
        for (let i = 0; i < count; i += 25) sockets.push(...(await Promise.all(ids.slice(i, Math.min(count, i + 25)).map(connect))));
        lags.length = 0;
        events = 0;
        const cpu0 = cpuMs(streams.child.pid!);
        const t0 = performance.now();
        await new Promise((resolve) => setTimeout(resolve, ROUND_MS));
        const seconds = (performance.now() - t0) / 1000;
        const cpu = cpuMs(streams.child.pid!) - cpu0;
        await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => {
          socket.once('close', () => resolve());
          socket.close();
        })));
        lags.sort((a, b) => a - b);
        rows.push([String(round + 1), String(count), String(lags.length), percentile(lags, 50).toFixed(1), percentile(lags, 99).toFixed(1),
          (events / seconds).toFixed(0), (cpu / 10 / seconds).toFixed(0), (events / (cpu / 1000)).toFixed(0)]);
      }
    }
  } finally {
    abort.abort();
    streams.child.kill('SIGTERM');
    simnet.child.kill('SIGTERM');
    await redis.stop();
    await db.drop();
  }
  printTable(['round', 'open streams', 'lag samples', 'p50 lag ms', 'p99 lag ms', 'events/s', 'streams CPU %', 'events per CPU-s'], rows);
}
