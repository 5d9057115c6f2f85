import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { systemClock } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { COIN_TYPES, startSimnet, type RunningSimnet } from '../../services/simnet/index.js';
import { startRedis, TEST_SECRET, type OwnedProcess } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { streamsDb } from '../../services/streams/definitions/store.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');

interface StreamsProcess {
  url: string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** `suigw streams` in a process of its own, on a free port; resolves once it listens. */
async function startStreamsProcess(env: Record<string, string>): Promise<StreamsProcess> {
  const child = spawn(process.execPath, [BIN, 'streams'], {
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', SUIGW_METRICS_PORT: 'off', HOST: '127.0.0.1', SUIGW_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"address":"(http:\/\/[^"]+)","networks".*"msg":"streams listening"/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`streams exited before listening:\n${output}`)));
  });
  return {
    url,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

interface Message { event: string; id?: string; data: unknown }

describe('suigw streams: two processes sharing Redis', () => {
  let simnet: RunningSimnet;
  let db: TestDatabase;
  let redis: OwnedProcess & { url: string };
  let a: StreamsProcess;
  let b: StreamsProcess;
  let apiKey: string;
  let streamId: string;

  beforeAll(async () => {
    simnet = await startSimnet({ seed: 'warp-processes', checkpointIntervalMs: 100, transactionsPerCheckpoint: 4 });
    simnet.pause();
    db = await createTestDatabase();
    redis = await startRedis();
    const { organization, projects } = await createOrganization(db.database.db, systemClock, { name: 'o', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    apiKey = (await createKey(db.database, systemClock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['streams', 'manage'], expiresInDays: 30 })).apiKey;
    streamId = 'str_processes';
    await streamsDb(db.database).insertInto('streams').values({
      id: streamId, organization_id: organization.id, network: 'mainnet', name: 'sui', type: 'coin',
      filters: JSON.stringify({ coinTypes: [COIN_TYPES.SUI] }), created_at: new Date(),
    }).execute();
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, SUIGW_NETWORKS: 'mainnet', SUI_MAINNET_GRPC_URL: simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.graphqlUrl };
    [a, b] = await Promise.all([startStreamsProcess(env), startStreamsProcess(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
    await simnet?.stop();
    await redis?.stop();
    await db?.drop();
  });

  const wsUrl = (server: StreamsProcess, query = '') => `${server.url.replace(/^http/, 'ws')}/mainnet/v1/warp/${streamId}/ws${query}`;

  function open(url: string, onEvent: (message: Message, socket: WebSocket) => void) {
    const socket = new WebSocket(url, { headers: { 'x-api-key': apiKey } });
    const messages: Message[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as Message;
      messages.push(message);
      onEvent(message, socket);
    });
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    return { socket, messages, closed };
  }

  it('serves only what the streams role needs: Warp and /health, not the gateway\'s routes', async () => {
    const status = async (path: string) => (await fetch(`${a.url}${path}`, { headers: { 'x-api-key': apiKey } })).status;
    expect(await status('/health')).toBe(200);
    for (const path of ['/mainnet/v1/streams', '/mainnet/v1/keys', '/mainnet/v1/chain', '/v1/openapi.json']) expect({ path, status: await status(path) }).toEqual({ path, status: 404 });
  });

  it('one active connection per stream across both processes; SIGKILL of the holder, resume on the other: every event acked, none lost', async () => {
    const acked: string[] = [];
    const ack = (message: Message, socket: WebSocket) => {
      if (message.id === undefined) return;
      acked.push(message.id);
      socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    };
    const first = open(wsUrl(a, '?mode=resume'), ack);
    await expect.poll(() => first.messages[0]?.event, { timeout: 10_000 }).toBe('connected');
    const second = open(wsUrl(b), ack);
    expect(await second.closed).toBe(4009);
    expect(second.messages).toEqual([{ event: 'error', data: { code: 'STREAM_ALREADY_CONNECTED', message: 'The stream has an active connection.' } }]);

    simnet.resume();
    await expect.poll(() => acked.length, { timeout: 10_000 }).toBeGreaterThan(100);
    await a.kill('SIGKILL');
    const ackedBeforeKill = acked.length;
    // The killed process's lease lapses (LEASE_TTL_MS); until then the stream is still "connected".
    let resumed: ReturnType<typeof open> | undefined;
    for (let attempt = 0; attempt < 40 && !resumed; attempt += 1) {
      const candidate = open(wsUrl(b, '?mode=resume'), ack);
      await expect.poll(() => candidate.messages.length > 0 || candidate.socket.readyState === WebSocket.CLOSED, { timeout: 5_000 }).toBe(true);
      if (candidate.messages[0]?.event === 'connected') resumed = candidate;
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(resumed).toBeDefined();
    await expect.poll(() => acked.length, { timeout: 10_000 }).toBeGreaterThan(ackedBeforeKill + 100);
    simnet.pause();

    // Everything the log holds has been acked: the group's pending list drains to empty and
    // the acked ids are exactly the log's ids, in order.
    const inspect = new Redis(redis.url);
    try {
      const key = `suigw:warp:log:{${streamId}}`;
      await expect.poll(async () => {
        const [count] = (await inspect.xpending(key, 'delivery')) as [number];
        const unread = (await inspect.xinfo('GROUPS', key)) as unknown[][];
        const lag = unread[0]![unread[0]!.indexOf('lag') + 1];
        return { count, lag };
      }, { timeout: 15_000 }).toEqual({ count: 0, lag: 0 });
      const logIds = ((await inspect.xrange(key, '-', '+')) as [string, string[]][]).map(([id]) => id);
      const unique = [...new Set(acked)];
      expect(logIds.length).toBeLessThanOrEqual(2_000);
      expect(unique.slice(-logIds.length)).toEqual(logIds);
      expect([...unique].sort()).toEqual(unique.slice().sort());
      // An ack the killed process never read is redelivered once by the other: only ids acked
      // just before the kill may appear twice.
      const repeated = acked.filter((id, index) => acked.indexOf(id) !== index);
      for (const id of repeated) expect(acked.indexOf(id)).toBeLessThan(ackedBeforeKill);
    } finally {
      inspect.disconnect();
    }
    resumed!.socket.close();
  }, 90_000);
});
