import { randomUUID } from 'node:crypto';
import { WsClose, type Clock, type Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { Principal } from '../../identity/index.js';
import { planOf, type Metering } from '../../metering/index.js';
import { isStreamPaused } from '../definitions/pause.js';
import { findStream } from '../definitions/store.js';
import type { StreamLog } from '../log/stream-log.js';
import { DeliverySession, type MessageSink } from './delivery-session.js';
import { LEASE_RENEW_MS, newLeaseToken, type StreamLease } from './stream-lease.js';
import { WarpCharges } from './warp-charges.js';

/** What the delivery routes need; handed over by the composition root. */
export interface WarpDeliveryDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  log: StreamLog;
  lease: StreamLease;
  metering: Pick<Metering, 'ledger' | 'usage'>;
}

export interface ConnectRequest {
  streamId: string;
  principal: Principal;
  network: string;
  protocol: 'websocket' | 'sse';
  mode: 'live' | 'resume';
  lastEventId: string | undefined;
}

/** A running connection: the transport feeds it acks and tells it when it closed. */
export interface OpenConnection {
  ack(id: string): void;
  closed(): Promise<void>;
}

/**
 * Opens one stream connection over any transport: the stream must be the caller's (else an
 * `error` STREAM_NOT_FOUND) and within the plan's stream count (else `error` STREAM_PAUSED,
 * close 4003), the stream's lease must be free (else `error`
 * STREAM_ALREADY_CONNECTED), then `connected`, then the session; the lease is renewed while
 * the connection lives and each started minute is charged.
 */
export async function openConnection(deps: WarpDeliveryDeps, request: ConnectRequest, sink: MessageSink): Promise<OpenConnection | undefined> {
  const stream = await findStream(deps.database, request.streamId);
  if (!stream || stream.organizationId !== request.principal.organization.id || stream.network !== request.network) {
    await sink.send({ event: 'error', data: { code: 'STREAM_NOT_FOUND', message: 'Stream not found' } });
    sink.close(4004, 'STREAM_NOT_FOUND');
    return undefined;
  }
  if (await isStreamPaused(deps.database, stream, planOf(request.principal.organization).streams)) {
    await sink.send({ event: 'error', data: { code: 'STREAM_PAUSED', message: 'The stream is beyond the plan’s stream count (paused); upgrade or delete older streams.' } });
    sink.close(WsClose.FORBIDDEN, 'STREAM_PAUSED');
    return undefined;
  }
  const token = newLeaseToken();
  if (!(await deps.lease.acquire(stream.id, token))) {
    await sink.send({ event: 'error', data: { code: 'STREAM_ALREADY_CONNECTED', message: 'The stream has an active connection.' } });
    sink.close(4009, 'STREAM_ALREADY_CONNECTED');
    return undefined;
  }
  const charges = new WarpCharges(deps.metering, request.principal, request.network);
  const session = new DeliverySession({
    streamId: stream.id, log: deps.log, clock: deps.clock, sink,
    acks: request.protocol === 'websocket' ? 'client' : 'window',
    chargeEvent: () => charges.event(),
  });
  const stopListening = deps.log.onAppend((id) => {
    if (id === stream.id) session.pump();
  });
  const quota = async () => {
    await sink.send({ event: 'quota_exceeded', data: { code: 'CU_QUOTA_EXCEEDED', message: 'Monthly credits spent' } });
    sink.close(1008, 'QUOTA_EXCEEDED');
  };
  if (!(await charges.minute())) {
    await deps.lease.release(stream.id, token);
    stopListening();
    await quota();
    return undefined;
  }
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((resolve) => { resolveClosed = resolve; });
  const renew = setInterval(() => {
    deps.lease.renew(stream.id, token).then((held) => {
      if (!held) sink.close(4009, 'STREAM_ALREADY_CONNECTED');
    }, (error: unknown) => deps.logger.warn({ err: error }, 'stream lease renewal failed'));
  }, LEASE_RENEW_MS);
  const minutes = setInterval(() => {
    charges.minute().then((ok) => {
      if (!ok) { session.stop(); void quota(); }
    }, () => undefined);
  }, 60_000);
  // SSE acknowledges what it wrote once the redelivery window has passed.
  const window = request.protocol === 'sse' ? setInterval(() => { void session.ackWritten().catch(() => undefined); }, 1_000) : undefined;
  await sink.send({ event: 'connected', data: { connId: randomUUID(), subscriptionId: stream.id, subscriptionType: stream.type, protocol: request.protocol } });
  await session.start(request.mode, request.lastEventId);
  return {
    ack: (id) => { void session.ack(id).catch(() => undefined); },
    closed: async () => {
      session.stop();
      stopListening();
      clearInterval(renew);
      clearInterval(minutes);
      clearInterval(window);
      await deps.lease.release(stream.id, token).catch(() => undefined);
      resolveClosed();
      await closedPromise;
    },
  };
}
