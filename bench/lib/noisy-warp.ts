/**
 * The Warp attacker of bench/noisy-neighbour.ts, a process of its own: an organization on
 * NOISY_TIER (default growth: 20 streams) that creates Warp streams on the gateway until the plan
 * says no (403 STREAM_LIMIT_REACHED, counted), each an `event` stream whose filter is at the
 * filter limits (streams/definitions/filter-limits.ts: 100 distinct Move event types, exactly
 * 32 KiB normalized) and never matches, then holds one WebSocket per stream on the streams
 * process (`/mainnet/v1/warp/{id}/ws`, connected and idle): every checkpoint is matched against
 * all of them.
 *
 * `node bin/run-ts.js bench/lib/noisy-warp.ts` with GATEWAY_URL, STREAMS_URL and DATABASE_URL.
 * SIGUSR1 creates the streams (the first time) and connects; SIGUSR2 closes the sockets (the
 * streams stay defined, idle). Protocol: bench/lib/attacker-process.ts.
 */
import WebSocket from 'ws';
import { eventFiltersSchema, FILTER_LIMITS, filterBytes } from '../../services/streams/index.js';
import { createAttackerOrganization, Refusals, serveAttacker, type AttackerReport } from './attacker-process.js';
import { exitWithParent } from './service-process.js';

exitWithParent();

const gatewayUrl = process.env['GATEWAY_URL']!;
const streamsUrl = process.env['STREAMS_URL']!;
const attacker = await createAttackerOrganization(['manage', 'streams']);
const refusals = new Refusals();
const streamIds: string[] = [];
let sockets: WebSocket[] = [];
let requests = 0;

/** 100 distinct event types no event has, padded so that the normalized filter is exactly FILTER_LIMITS.maxBytes. */
function filterAtLimits(stream: number): { eventTypes: string[] } {
  const count = FILTER_LIMITS.maxDistinctValues;
  const base = Array.from({ length: count }, (_, i) => `0x${(stream + 1).toString(16)}::m${i}${'a'.repeat(200)}::T`);
  const missing = FILTER_LIMITS.maxBytes - filterBytes(eventFiltersSchema.parse({ eventTypes: base }));
  const eventTypes = base.map((type, i) => type.replace('::T', `${'a'.repeat(Math.floor(missing / count) + (i < missing % count ? 1 : 0))}::T`));
  const bytes = filterBytes(eventFiltersSchema.parse({ eventTypes }));
  if (bytes !== FILTER_LIMITS.maxBytes) throw new Error(`the attacker's filter is ${bytes} bytes, not ${FILTER_LIMITS.maxBytes}`);
  return { eventTypes };
}

async function createStreams(): Promise<void> {
  for (let i = 0; i < 10_000; i += 1) {
    requests += 1;
    const response = await fetch(`${gatewayUrl}/v1/streams`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': attacker.apiKey },
      body: JSON.stringify({ name: `noisy-${i}`, type: 'event', filters: filterAtLimits(i) }),
    });
    const body = (await response.json()) as { data?: { id: string }; code?: string };
    if (response.status === 201 && body.data) {
      streamIds.push(body.data.id);
      continue;
    }
    refusals.add(`${response.status} ${body.code ?? ''}`.trim());
    // The plan's stream count: expected once. Anything else (e.g. a 429) is retried after a pause.
    if (body.code === 'STREAM_LIMIT_REACHED') return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

function connect(id: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    requests += 1;
    const socket = new WebSocket(`${streamsUrl.replace(/^http/, 'ws')}/mainnet/v1/warp/${id}/ws`, { headers: { 'x-api-key': attacker.apiKey } });
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { event: string; id?: string; data?: { code?: string } };
      if (message.event === 'connected') resolve(socket);
      else if (message.event === 'error') refusals.add(message.data?.code ?? 'error');
      // Never matches, but an exactly-once client acks whatever comes.
      else if (message.id !== undefined) socket.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    socket.once('unexpected-response', (_request, response) => {
      refusals.add(`${response.statusCode}`);
      reject(new Error(`warp connect: ${response.statusCode}`));
    });
    socket.once('error', reject);
  });
}

serveAttacker('noisy-warp', attacker, {
  async start(): Promise<AttackerReport> {
    requests = 0;
    if (streamIds.length === 0) await createStreams();
    sockets = await Promise.all(streamIds.map(connect));
    return { held: sockets.length, requests, refusals: refusals.take(), note: `${streamIds.length} streams × ${FILTER_LIMITS.maxDistinctValues} types, ${FILTER_LIMITS.maxBytes} B each` };
  },
  async stop(): Promise<AttackerReport> {
    await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once('close', () => resolve());
      socket.close();
    })));
    sockets = [];
    return { held: 0, requests, refusals: refusals.take() };
  },
});
