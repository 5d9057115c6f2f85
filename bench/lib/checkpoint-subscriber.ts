import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { GrpcTypes } from '@mysten/sui/grpc';

/**
 * Server-streaming `SubscriptionService/SubscribeCheckpoints` over raw h2c (node:http2), the
 * client of bench/grpc-stream.ts: it only splits the 5-byte gRPC frames and decodes the two
 * fields it asked for (sequence number, summary timestamp), so the benchmark process spends as
 * little as it can per message. Each message is recorded with its wall-clock receipt time.
 */
export const SUBSCRIBE_CHECKPOINTS_PATH = '/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints';

export interface Receipt {
  sequence: bigint;
  /** The checkpoint's own timestamp (simnet: genesis + n × interval), ms since the epoch. */
  checkpointMs: number;
  /** When the client had the whole message, ms since the epoch (sub-millisecond). */
  receivedMs: number;
}

export interface SubscriptionSet {
  /** Messages received so far, on every stream of the set. */
  readonly count: number;
  /** Start (or restart) keeping receipts; `count` keeps counting regardless. */
  record(on: boolean): void;
  receipts(): Receipt[];
  /** Streams that ended with a gRPC status other than OK, or an HTTP/2 error. */
  readonly failures: string[];
  close(): Promise<void>;
}

function requestFrame(): Buffer {
  const message = GrpcTypes.SubscribeCheckpointsRequest.toBinary({ readMask: { paths: ['sequence_number', 'summary.timestamp'] } });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

const wallClockMs = () => performance.timeOrigin + performance.now();

function timestampMs(timestamp: { seconds: bigint; nanos: number } | undefined): number {
  return timestamp ? Number(timestamp.seconds) * 1000 + timestamp.nanos / 1e6 : Number.NaN;
}

/** `streams` subscriptions on one HTTP/2 connection to `url` (as a gRPC client multiplexes them). */
export async function subscribeCheckpoints(url: string, streams: number, headers: Record<string, string> = {}): Promise<SubscriptionSet> {
  const session: ClientHttp2Session = connect(url);
  const failures: string[] = [];
  session.on('error', (error: Error) => failures.push(`session: ${error.message}`));
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  let count = 0;
  let recording = false;
  const kept: Receipt[] = [];
  const frame = requestFrame();
  const open: ClientHttp2Stream[] = [];
  let closing = false;
  for (let i = 0; i < streams; i++) {
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: SUBSCRIBE_CHECKPOINTS_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    open.push(stream);
    let pending: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      const receivedMs = wallClockMs();
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 5 + length) break;
        const body = pending.subarray(5, 5 + length);
        pending = pending.subarray(5 + length);
        count += 1;
        if (!recording) continue;
        const message = GrpcTypes.SubscribeCheckpointsResponse.fromBinary(body);
        const sequence = message.cursor ?? message.checkpoint?.sequenceNumber;
        if (sequence === undefined) continue;
        kept.push({ sequence, checkpointMs: timestampMs(message.checkpoint?.summary?.timestamp), receivedMs });
      }
    });
    const status = (fields: Record<string, unknown>) => {
      const code = fields['grpc-status'];
      if (code !== undefined && code !== '0' && !closing) failures.push(`grpc-status ${String(code)}: ${String(fields['grpc-message'])}`);
    };
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('error', (error: Error) => {
      if (!closing) failures.push(`stream: ${error.message}`);
    });
    stream.end(frame);
  }
  return {
    get count() {
      return count;
    },
    record(on) {
      recording = on;
    },
    receipts: () => kept,
    failures,
    async close() {
      closing = true;
      for (const stream of open) if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
      await new Promise<void>((resolve) => session.close(() => resolve()));
    },
  };
}
