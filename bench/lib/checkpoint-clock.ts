import { credentials } from '@grpc/grpc-js';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';

/**
 * When each checkpoint reached a bare `SubscribeCheckpoints` client (sequence numbers only) in
 * the benchmark's own process, straight from simnet: the reference a delivery's lag is taken
 * from. simnet's checkpoint timestamps are its own chain time, not this machine's clock, so the
 * lag is "delivered − seen by a client doing nothing else", as in bench/warp-lag.ts's floor.
 */
export interface CheckpointClock {
  /** Date.now() when `sequence` was seen, if it was. */
  seenAt(sequence: string): number | undefined;
  close(): void;
}

export function startCheckpointClock(grpcUrl: string): CheckpointClock {
  const seen = new Map<string, number>();
  const abort = new AbortController();
  const client = new SuiGrpcClient({ network: 'localnet', transport: new GrpcTransport({ host: new URL(grpcUrl).host, channelCredentials: credentials.createInsecure() }) });
  void (async () => {
    const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } }, { abort: abort.signal });
    for await (const message of call.responses) {
      seen.set(String(message.checkpoint?.sequenceNumber), Date.now());
      // A soak runs for minutes: an hour of checkpoints is more than any delivery lags.
      if (seen.size > 20_000) seen.delete(seen.keys().next().value!);
    }
  })().catch(() => undefined);
  return { seenAt: (sequence) => seen.get(sequence), close: () => abort.abort() };
}
