/**
 * The gRPC attacker of bench/noisy-neighbour.ts, a process of its own: an organization on
 * NOISY_TIER (default growth) on the gRPC proxy (`suigw grpc`, bench/lib/grpc-proxy-server.ts),
 * over one HTTP/2 connection as a gRPC client multiplexes:
 * - NOISY_GRPC_STREAMS (default 32) `SubscribeCheckpoints` streams, each with the read mask the
 *   Warp ingest asks for (every transaction with its effects, events and balance changes: the
 *   heaviest message the proxy relays), held open; a stream the proxy ends is reopened;
 * - unary `GetObject` calls at the plan's organization rate (NOISY_RPS, default `orgRps`), up to
 *   64 in flight: the calls the proxy meters one by one.
 * The proxy has no per-organization stream count (HTTP/2 allows 1,000 streams a connection);
 * the plan bounds the attacker by its rate: every call or stream refused (grpc-status ≠ 0) is
 * counted by status.
 *
 * `node bin/run-ts.js bench/lib/noisy-grpc.ts` with GRPC_URL, DATABASE_URL and OBJECT_ID (an
 * object that exists). Protocol: bench/lib/attacker-process.ts.
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { GrpcTypes } from '@mysten/sui/grpc';
import { CHECKPOINT_READ_MASK } from '../../services/streams/ingest/chain-activity.js';
import { createAttackerOrganization, atRate, Refusals, serveAttacker, type AttackerReport } from './attacker-process.js';
import { GRPC_HEADERS } from './grpc-frame.js';
import { exitWithParent } from './service-process.js';

exitWithParent();

const grpcUrl = process.env['GRPC_URL']!;
const attacker = await createAttackerOrganization(['data']);
const rate = Number(process.env['NOISY_RPS'] ?? attacker.plan.orgRps);
const streamCount = Number(process.env['NOISY_GRPC_STREAMS'] ?? 32);

function frameOf(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

const subscribeFrame = frameOf(GrpcTypes.SubscribeCheckpointsRequest.toBinary({ readMask: { paths: [...CHECKPOINT_READ_MASK] } }));
const getObjectFrame = frameOf(GrpcTypes.GetObjectRequest.toBinary({ objectId: process.env['OBJECT_ID']! }));

const refusals = new Refusals();
let requests = 0;
let held = 0;
let session: ClientHttp2Session | undefined;
let running: { abort: AbortController; done: Promise<void> } | undefined;

/** One call; resolves with its grpc-status once the stream closes (a refusal is counted). */
function call(path: string, frame: Buffer, onData?: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (!session || session.destroyed) return resolve();
    requests += 1;
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: path, ...GRPC_HEADERS, 'x-api-key': attacker.apiKey });
    let status: string | undefined;
    const read = (headers: Record<string, unknown>) => (status ??= headers['grpc-status'] as string | undefined);
    stream.once('response', read);
    stream.once('trailers', read);
    stream.on('data', () => onData?.());
    stream.on('error', () => undefined);
    stream.once('close', () => {
      if (status !== undefined && status !== '0') refusals.add(`grpc-status ${status}`);
      resolve();
    });
    stream.end(frame);
  });
}

/** A subscription held until the attack stops; reopened when the proxy ends it. */
async function holdStream(signal: AbortSignal): Promise<void> {
  while (!signal.aborted && session && !session.destroyed) {
    held += 1;
    await call('/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints', subscribeFrame);
    held -= 1;
    if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

serveAttacker('noisy-grpc', attacker, {
  async start(): Promise<AttackerReport> {
    requests = 0;
    refusals.take();
    session = connect(grpcUrl);
    session.on('error', (error: Error) => refusals.add(`session ${error.message}`));
    await new Promise<void>((resolve, reject) => {
      session!.once('connect', () => resolve());
      session!.once('error', reject);
    });
    const abort = new AbortController();
    const streams = Array.from({ length: streamCount }, () => holdStream(abort.signal));
    running = { abort, done: Promise.all([...streams, atRate(rate, 64, abort.signal, () => call('/sui.rpc.v2.LedgerService/GetObject', getObjectFrame))]).then(() => undefined) };
    // Give the subscriptions a moment to be answered (or refused) before reporting what is held.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return { held, requests, refusals: { ...refusals.counts }, note: `${streamCount} SubscribeCheckpoints + ${rate}/s GetObject` };
  },
  async stop(): Promise<AttackerReport> {
    if (running) {
      running.abort.abort();
      // Closing the session ends the held subscriptions (and their promises).
      session?.destroy();
      await running.done;
      running = undefined;
    }
    session = undefined;
    return { held: 0, requests, refusals: refusals.take() };
  },
});
