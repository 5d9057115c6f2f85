/**
 * The attacker of bench/noisy-neighbour.ts, in a process of its own: an organization of its own
 * (created in DATABASE_URL, the stack's database) whose WebSockets on the gateway's
 * `/v1/jsonrpc` hold the most JSON-RPC subscriptions the filter limits allow, each an event
 * filter of 100 distinct Move event types that never match (so nothing is ever charged for a
 * notification): the attack.
 *
 * `node bin/run-ts.js bench/lib/noisy-subscriber.ts` with GATEWAY_URL and DATABASE_URL;
 * NOISY_SOCKETS sockets (default 16: past the organization's 1 MiB of filters). Announces
 * `{organizationId}`; then SIGUSR1 subscribes
 * (opens the sockets, subscribes on each until the gateway refuses) and replies
 * `{subscriptions, refusals}`; SIGUSR2 closes every socket and replies `{subscriptions: 0}`.
 */
import WebSocket from 'ws';
import { systemClock } from '../../services/core/index.js';
import { openDatabase } from '../../services/db/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface NoisyReady {
  organizationId: string;
}

export interface NoisyReport {
  subscriptions: number;
  /** Refusals by code (`data.code`, e.g. FILTER_LIMIT_EXCEEDED, TOO_MANY_SUBSCRIPTIONS). */
  refusals?: Record<string, number>;
}

const gatewayUrl = process.env['GATEWAY_URL']!;
const socketCount = Number(process.env['NOISY_SOCKETS'] ?? 16);
const database = await openDatabase({ url: process.env['DATABASE_URL']!, poolSize: 1 });
const { organization, projects } = await createOrganization(database.db, systemClock, { name: 'Noisy', tier: 'enterprise' });
const { apiKey } = await createKey(database, systemClock, { kind: 'operator' }, {
  organizationId: organization.id, projectId: projects[0]!.id, name: 'noisy', scopes: ['data'], expiresInDays: 1,
});
await database.close();

/** 100 distinct types no event has: the filter's most distinct values, every part evaluated per event by the old matcher. */
const neverMatching = (socket: number, subscription: number) => ({
  Any: Array.from({ length: 100 }, (_, i) => ({ MoveEventType: `0x${(socket * 1_000 + subscription + 1).toString(16)}::noisy_${i}::Never<0x2::sui::SUI>` })),
});

let sockets: WebSocket[] = [];

async function call(socket: WebSocket, id: number, method: string, params: unknown): Promise<{ result?: unknown; error?: { data?: { code?: string } } }> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { data?: { code?: string } } };
      if (frame.id !== id) return;
      socket.off('message', onMessage);
      resolve(frame);
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

async function subscribe(): Promise<NoisyReport> {
  const refusals: Record<string, number> = {};
  let subscriptions = 0;
  const wsUrl = `${gatewayUrl.replace(/^http/, 'ws')}/mainnet/v1/jsonrpc`;
  for (let s = 0; s < socketCount; s += 1) {
    const socket = new WebSocket(wsUrl, { headers: { 'x-api-key': apiKey } });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    sockets.push(socket);
    // Until the gateway says no: the subscriptions per socket, the socket's or the organization's filter limits.
    for (let i = 0; i < 1_000; i += 1) {
      const answer = await call(socket, i + 1, 'suix_subscribeEvent', [neverMatching(s, i)]);
      if (answer.result !== undefined) {
        subscriptions += 1;
        continue;
      }
      const code = answer.error?.data?.code ?? 'unknown';
      refusals[code] = (refusals[code] ?? 0) + 1;
      break;
    }
  }
  return { subscriptions, refusals };
}

function closeAll(): NoisyReport {
  for (const socket of sockets) socket.terminate();
  sockets = [];
  return { subscriptions: 0 };
}

const reply = (report: NoisyReport) => (process.send ? process.send(report) : console.log(JSON.stringify(report)));
process.on('SIGUSR1', () => void subscribe().then(reply, (error: unknown) => {
  console.error('noisy-subscriber:', error);
  reply({ subscriptions: -1 });
}));
process.on('SIGUSR2', () => reply(closeAll()));

const ready: NoisyReady = { organizationId: organization.id };
serveUntilStopped(ready, async () => {
  closeAll();
});
