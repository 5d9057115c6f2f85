import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GrpcTypes } from '@mysten/sui/grpc';
import WebSocket from 'ws';
import { COIN_TYPES } from '../../services/simnet/index.js';
import type { CheckpointClock } from './checkpoint-clock.js';
import { GRPC_HEADERS } from './grpc-frame.js';
import { h2load } from './h2load.js';
import type { NoisyStack } from './noisy-stack.js';
import { percentile } from './stats.js';

/**
 * What the victim organization sees in one measured window: a rate (requests or deliveries per
 * second), the p99 latency or delivery lag, and failures (non-2xx or failed requests, repeated
 * deliveries, dropped sockets).
 */
export interface VictimWindow {
  rate: number;
  p99Ms: number;
  failures: number;
  /** Failures by what ended them (a gRPC status and message), where the victim can tell. */
  failureKinds?: Record<string, number>;
}

export interface Victim {
  name: string;
  /** `rps` or `deliveries/s`; the p99 is latency (`p99 ms`) or delivery lag (`p99 lag ms`, see Arrivals). */
  rateUnit: string;
  p99Unit: string;
  /** One window: `warmupSeconds` unmeasured, then `seconds` measured. */
  measure(seconds: number, warmupSeconds: number): Promise<VictimWindow>;
  close(): Promise<void>;
}

/** How hard an h2load victim pushes: as fast as answered, or a fixed rate per connection (the soak's steady load). */
export interface VictimLoad {
  /** HTTP/1.1 connections (auth/me), or concurrent calls on one h2c connection (gRPC). */
  concurrency: number;
  requestsPerSecond?: number;
}

/** h2load on the gateway's `GET /mainnet/v1/auth/me` with the victim's key (`concurrency` HTTP/1.1 connections). */
export function authMeVictim(stack: NoisyStack, load: VictimLoad, gatewayUrl = stack.gateway.ready.url): Victim {
  return {
    name: 'auth/me (h2load)', rateUnit: 'rps', p99Unit: 'p99 ms',
    async measure(seconds, warmupSeconds) {
      const run = await h2load({ url: `${gatewayUrl}/mainnet/v1/auth/me`, http1: true, headers: { 'x-api-key': stack.victim.apiKey } },
        { connections: load.concurrency, streamsPerConnection: 1, durationSeconds: seconds, warmupSeconds, requestsPerSecond: load.requestsPerSecond });
      return { rate: run.rps, p99Ms: run.p99 / 1000, failures: run.failures };
    },
    close: async () => undefined,
  };
}

/**
 * h2load on the gRPC proxy: unary `GetObject` with the victim's key, one h2c connection with
 * `concurrency` concurrent calls (as bench/grpc.ts). A refusal is a grpc-status in a 200, which h2load
 * counts as a success; the victim's plan (50,000/s) does not refuse it.
 */
export async function grpcVictim(stack: NoisyStack, load: VictimLoad): Promise<Victim> {
  const directory = await mkdtemp(join(tmpdir(), 'suigw-noisy-grpc-'));
  const message = GrpcTypes.GetObjectRequest.toBinary({ objectId: stack.objectIds[0]! });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  const bodyFile = join(directory, 'get-object.grpc');
  await writeFile(bodyFile, frame);
  return {
    name: 'gRPC GetObject (h2load)', rateUnit: 'rps', p99Unit: 'p99 ms',
    async measure(seconds, warmupSeconds) {
      const run = await h2load({ url: `${stack.grpcProxy!.ready.url}/sui.rpc.v2.LedgerService/GetObject`, http1: false, headers: { ...GRPC_HEADERS, 'x-api-key': stack.victim.apiKey }, bodyFile },
        { connections: 1, streamsPerConnection: load.concurrency, durationSeconds: seconds, warmupSeconds, requestsPerSecond: load.requestsPerSecond });
      return { rate: run.rps, p99Ms: run.p99 / 1000, failures: run.failures };
    },
    close: () => rm(directory, { recursive: true, force: true }),
  };
}

/**
 * The soak's gRPC victim: unary `GetObject` calls on the gRPC proxy at a fixed rate from this
 * process (one h2c connection), each one's grpc-status read: a call that ends with any status but
 * 0 (a refusal, an upstream timeout) is a failure, which h2load would count as a success (a
 * gRPC error is an HTTP 200). Rate = calls answered OK per second; p99 = latency.
 */
export function grpcStatusVictim(stack: NoisyStack, requestsPerSecond: number): Victim {
  const message = GrpcTypes.GetObjectRequest.toBinary({ objectId: stack.objectIds[0]! });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  const session = connect(stack.grpcProxy!.ready.url);
  session.on('error', () => undefined);
  const call = () => new Promise<{ ok: boolean; ms: number; kind: string }>((resolve) => {
    const t0 = performance.now();
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/sui.rpc.v2.LedgerService/GetObject', ...GRPC_HEADERS, 'x-api-key': stack.victim.apiKey });
    let status: unknown;
    let message: unknown;
    let streamError = '';
    const read = (headers: Record<string, unknown>) => {
      status ??= headers['grpc-status'];
      message ??= headers['grpc-message'];
    };
    stream.once('response', read);
    stream.once('trailers', read);
    stream.on('data', () => undefined);
    stream.on('error', (error: Error) => { streamError = error.message; });
    stream.once('close', () => resolve({
      ok: status === '0', ms: performance.now() - t0,
      kind: status === undefined ? `no status: ${streamError || 'stream closed'}` : `grpc-status ${String(status)}: ${decodeURIComponent(String(message ?? ''))}`,
    }));
    stream.end(frame);
  });
  return {
    name: 'gRPC GetObject (status read)', rateUnit: 'rps', p99Unit: 'p99 ms',
    async measure(seconds) {
      const calls: Promise<{ ok: boolean; ms: number; kind: string }>[] = [];
      const t0 = performance.now();
      for (let i = 0; performance.now() - t0 < seconds * 1000; i += 1) {
        calls.push(call());
        const wait = t0 + ((i + 1) * 1000) / requestsPerSecond - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const done = await Promise.all(calls);
      const elapsed = (performance.now() - t0) / 1000;
      const latencies = done.filter((c) => c.ok).map((c) => c.ms).sort((a, b) => a - b);
      const failureKinds: Record<string, number> = {};
      for (const failed of done.filter((c) => !c.ok)) failureKinds[failed.kind] = (failureKinds[failed.kind] ?? 0) + 1;
      return { rate: latencies.length / elapsed, p99Ms: percentile(latencies, 99), failures: done.length - latencies.length, failureKinds };
    },
    async close() {
      session.close();
    },
  };
}

/** Deliveries as they arrive: when, and the lag from when their checkpoint reached a bare client (CheckpointClock). */
class Arrivals {
  at: number[] = [];
  lag: number[] = [];
  failures = 0;
  constructor(readonly clock: CheckpointClock) {}
  add(body: string): void {
    const now = Date.now();
    const checkpoint = /"checkpoint":"?(\d+)/.exec(body);
    const seen = checkpoint ? this.clock.seenAt(checkpoint[1]!) : undefined;
    this.at.push(now);
    this.lag.push(seen === undefined ? Number.NaN : now - seen);
  }
  async window(seconds: number, warmupSeconds: number): Promise<VictimWindow> {
    await sleep(warmupSeconds * 1000);
    const failuresBefore = this.failures;
    const from = Date.now();
    await sleep(seconds * 1000);
    const to = Date.now();
    const lags: number[] = [];
    let count = 0;
    for (let i = 0; i < this.at.length; i += 1) {
      if (this.at[i]! < from || this.at[i]! >= to) continue;
      count += 1;
      if (Number.isFinite(this.lag[i])) lags.push(this.lag[i]!);
    }
    // Only what a window needs is kept.
    const keep = this.at.findIndex((at) => at >= to);
    this.at = keep < 0 ? [] : this.at.slice(keep);
    this.lag = keep < 0 ? [] : this.lag.slice(keep);
    lags.sort((a, b) => a - b);
    return { rate: count / ((to - from) / 1000), p99Ms: percentile(lags, 99), failures: this.failures - failuresBefore };
  }
}

async function post(url: string, apiKey: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
  const answer = (await response.json()) as { data?: { id: string } };
  if (response.status !== 201 || !answer.data) throw new Error(`POST ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer.data;
}

/**
 * The victim's Warp stream: one `coin` stream on SUI (every simnet transaction moves SUI), one
 * WebSocket on the streams process acking each event. Rate = events/s, lag = arrival − when the
 * checkpoint reached a bare client; a socket that closes or errs is a failure (and is reopened).
 */
export async function warpVictim(stack: NoisyStack): Promise<Victim> {
  const { id } = await post(`${stack.gateway.ready.url}/v1/streams`, stack.victim.apiKey, { name: 'victim', type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } });
  const arrivals = new Arrivals(stack.checkpoints);
  let socket: WebSocket | undefined;
  let closing = false;
  const open = () => {
    socket = new WebSocket(`${stack.streams!.address.replace(/^http/, 'ws')}/mainnet/v1/warp/${id}/ws`, { headers: { 'x-api-key': stack.victim.apiKey } });
    const current = socket;
    current.on('message', (raw) => {
      const text = String(raw);
      const message = JSON.parse(text) as { event: string; id?: string };
      if (message.id === undefined) return;
      arrivals.add(text);
      current.send(JSON.stringify({ type: 'ack', id: message.id }));
    });
    current.on('error', () => undefined);
    current.once('close', () => {
      if (closing) return;
      arrivals.failures += 1;
      setTimeout(open, 500);
    });
  };
  open();
  return {
    name: 'Warp coin stream', rateUnit: 'events/s', p99Unit: 'p99 lag ms',
    measure: (seconds, warmupSeconds) => arrivals.window(seconds, warmupSeconds),
    async close() {
      closing = true;
      socket?.terminate();
    },
  };
}

/**
 * The victim's webhook: one `coin` webhook on SUI to a receiver in this process that answers 200
 * at once. Rate = deliveries/s, lag = arrival − when the checkpoint reached a bare client; a delivery id
 * (`webhook-id`) seen again is a retry, so an attempt that failed: a failure.
 */
export async function webhookVictim(stack: NoisyStack): Promise<Victim> {
  const arrivals = new Arrivals(stack.checkpoints);
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200).end();
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) arrivals.failures += 1;
      seen.add(id);
      arrivals.add(Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/victim`;
  const { id } = await post(`${stack.gateway.ready.url}/v1/webhooks`, stack.victim.apiKey, { url, type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } });
  return {
    name: 'webhook deliveries', rateUnit: 'deliveries/s', p99Unit: 'p99 lag ms',
    measure: (seconds, warmupSeconds) => arrivals.window(seconds, warmupSeconds),
    async close() {
      await fetch(`${stack.gateway.ready.url}/v1/webhooks/${id}`, { method: 'DELETE', headers: { 'x-api-key': stack.victim.apiKey } }).catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
