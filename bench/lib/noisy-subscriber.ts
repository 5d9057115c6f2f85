/**
 * The JSON-RPC attacker of bench/noisy-neighbour.ts, in a process of its own: an organization on
 * NOISY_TIER (default growth) whose WebSockets on the gateway's `/v1/jsonrpc` hold the most
 * JSON-RPC subscriptions the filter limits allow, each an event filter of 100 distinct Move event
 * types that never match (so nothing is ever charged for a notification): the attack.
 *
 * `node bin/run-ts.js bench/lib/noisy-subscriber.ts` with GATEWAY_URL and DATABASE_URL;
 * NOISY_SOCKETS sockets (default 16: past the organization's 1 MiB of filters). SIGUSR1 opens the
 * sockets and subscribes on each until the gateway refuses (the refusals, by `data.code`, e.g.
 * FILTER_LIMIT_EXCEEDED, are the limits saying no; a rate refusal is waited out and retried);
 * SIGUSR2 closes every socket (keeping one small subscription with NOISY_BASELINE=1, see
 * `baseline`). Protocol: bench/lib/attacker-process.ts.
 */
import WebSocket from 'ws';
import { createAttackerOrganization, Refusals, serveAttacker, type AttackerReport } from './attacker-process.js';
import { exitWithParent } from './service-process.js';

exitWithParent();

const gatewayUrl = process.env['GATEWAY_URL']!;
const socketCount = Number(process.env['NOISY_SOCKETS'] ?? 16);
const attacker = await createAttackerOrganization(['data']);
const wsUrl = `${gatewayUrl.replace(/^http/, 'ws')}/mainnet/v1/jsonrpc`;

/** 100 distinct types no event has: the filter's most distinct values, every part evaluated per event by the old matcher. */
const neverMatching = (socket: number, subscription: number) => ({
  Any: Array.from({ length: 100 }, (_, i) => ({ MoveEventType: `0x${(socket * 1_000 + subscription + 1).toString(16)}::noisy_${i}::Never<0x2::sui::SUI>` })),
});

let sockets: WebSocket[] = [];
const refusals = new Refusals();
let requests = 0;

type Answer = { result?: unknown; error?: { code?: number; data?: { code?: string } } };

async function call(socket: WebSocket, id: number, method: string, params: unknown): Promise<Answer> {
  requests += 1;
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as Answer & { id?: number };
      if (frame.id !== id) return;
      socket.off('message', onMessage);
      resolve(frame);
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

/** A socket; an upgrade refused for the plan's rate (429) is counted, waited out and asked again. */
async function open(): Promise<WebSocket> {
  for (;;) {
    const socket = new WebSocket(wsUrl, { headers: { 'x-api-key': attacker.apiKey } });
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('open', () => resolve(101));
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('error', reject);
    });
    if (status === 101) {
      sockets.push(socket);
      return socket;
    }
    socket.terminate();
    refusals.add(`upgrade ${status}`);
    if (status !== 429) throw new Error(`the gateway answered the upgrade ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function subscribe(): Promise<AttackerReport> {
  requests = 0;
  let subscriptions = 0;
  for (let s = 0; s < socketCount; s += 1) {
    const socket = await open();
    // Until the gateway says no: the subscriptions per socket, the socket's or the organization's filter limits.
    for (let i = 0, id = 1; i < 1_000; id += 1) {
      const answer = await call(socket, id, 'suix_subscribeEvent', [neverMatching(s, i)]);
      if (answer.result !== undefined) {
        subscriptions += 1;
        i += 1;
        continue;
      }
      const code = answer.error?.data?.code ?? String(answer.error?.code ?? 'unknown');
      refusals.add(code);
      // The plan's rate: wait a second and ask again; any other refusal is a limit, the socket is full.
      if (!/RATE|LIMITED/.test(code) || /FILTER|SUBSCRIPTIONS/.test(code)) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  return { held: subscriptions, requests, refusals: { ...refusals.counts } };
}

function closeAll(): void {
  for (const socket of sockets) socket.terminate();
  sockets = [];
}

/**
 * NOISY_BASELINE=1: "alone" keeps one socket with one one-address filter, so the gateway's
 * checkpoint feed (opened by the first subscription of the process) runs in both conditions and
 * the ratio measures what the attacker's filters cost, not what any subscriber costs.
 */
async function baseline(): Promise<AttackerReport> {
  closeAll();
  const report = { requests, refusals: refusals.take() };
  if (process.env['NOISY_BASELINE'] !== '1') return { held: 0, ...report };
  const answer = await call(await open(), 1, 'suix_subscribeEvent', [{ Sender: '0x0' }]);
  return { held: answer.result === undefined ? 0 : 1, ...report };
}

serveAttacker('noisy-subscriber', attacker, { start: subscribe, stop: baseline });
