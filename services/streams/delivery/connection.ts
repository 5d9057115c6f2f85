import { randomUUID } from 'node:crypto';
import { ApiError, heartbeatSchedule, isApiError, WsClose, type Clock, type Logger, type Metrics } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { Principal } from '../../identity/index.js';
import { type MeterTicket } from '../../metering/index.js';
import { planOf } from '../../plans/index.js';
import type { KeyRecheck, RequestPipeline } from '../../pipeline/index.js';
import { isStreamPaused, STREAM_PAUSED_MESSAGE } from '../definitions/pause.js';
import { findStream } from '../definitions/store.js';
import type { StreamLog } from '../log/stream-log.js';
import { DeliverySession, type MessageSink } from './delivery-session.js';
import { LEASE_RENEW_MS, newLeaseToken, type StreamLease } from './stream-lease.js';
import type { StreamPresence } from './stream-presence.js';
import { StartedMinutes, WarpCharges } from './warp-charges.js';

/** How often a connection looks at the clock (minute charges, SSE's redelivery window, heartbeats). */
const TICK_MS = 1_000;

/** What the delivery routes need; handed over by the composition root. */
export interface WarpDeliveryDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  log: StreamLog;
  lease: StreamLease;
  /** Settles the connect request (a hijacked reply never reaches the meter's onSend) and charges events and minutes. */
  pipeline: RequestPipeline;
  /** Counts the open connections (`suigw_warp_connections`). */
  metrics?: Pick<Metrics, 'warpConnections'>;
}

/** What the delivery routes build from the deps once: the process's watch on deleted streams. */
export interface DeliveryDeps extends WarpDeliveryDeps {
  presence: StreamPresence;
}

export interface ConnectRequest {
  streamId: string;
  principal: Principal;
  /** The connect request's ticket (undefined when metering is off): events and minutes are charged on it. */
  ticket: MeterTicket | undefined;
  network: string;
  protocol: 'websocket' | 'sse';
  mode: 'live' | 'resume';
  lastEventId: string | undefined;
  /** The connect request's key, checked again while the connection lives (services/pipeline/key-recheck.ts). */
  recheck: KeyRecheck;
  /**
   * Settles the connect request once its outcome is known, before any message: opened
   * (undefined), or the refusal it is answered with, charged as that refusal's HTTP status
   * would be (spec: Limits; a 4xx the connect's price, none for a 5xx).
   */
  answered(refusal: ApiError | undefined): void;
}

/** A running connection: the transport feeds it acks and tells it when it closed. */
export interface OpenConnection {
  ack(id: string): void;
  closed(): Promise<void>;
}

/**
 * Opens one stream connection over any transport: the stream must be the caller's (else an
 * `error` STREAM_NOT_FOUND) and within the plan's stream count (else `error` STREAM_PAUSED,
 * close 4003; checked again every second while open, StreamPresence), the stream's lease must be free (else `error`
 * STREAM_ALREADY_CONNECTED), the log must be ready (live: buffer discarded; resume: acked
 * through `lastEventId`); then the connect is settled (`request.answered`), its first minute
 * charged, `connected` sent and the session started; the lease is renewed while
 * the connection lives, each started minute is charged and the key is checked again every
 * KEY_RECHECK_MS (a refusal: an `error` message with its code, then the close code of the error table).
 */
export async function openConnection(deps: DeliveryDeps, request: ConnectRequest, sink: MessageSink): Promise<OpenConnection | undefined> {
  const refuse = async (error: ApiError): Promise<undefined> => {
    request.answered(error);
    await sink.send({ event: 'error', data: { code: error.code, message: error.message } });
    sink.close(error.definition.ws, error.code);
    return undefined;
  };
  const stream = await findStream(deps.database, request.streamId);
  if (!stream || stream.organizationId !== request.principal.organization.id || stream.network !== request.network) {
    return refuse(new ApiError('STREAM_NOT_FOUND'));
  }
  if (await isStreamPaused(deps.database, stream, planOf(request.principal.organization).streams)) {
    return refuse(new ApiError('STREAM_PAUSED', { message: STREAM_PAUSED_MESSAGE }));
  }
  const token = newLeaseToken();
  if (!(await deps.lease.acquire(stream.id, token))) {
    return refuse(new ApiError('STREAM_ALREADY_CONNECTED', { message: 'The stream has an active connection.' }));
  }
  const acks = request.protocol === 'websocket' ? 'client' : 'window';
  const charges = new WarpCharges(deps.pipeline, request.ticket, acks);
  const session = new DeliverySession({ streamId: stream.id, log: deps.log, clock: deps.clock, sink, acks, charges });
  let acknowledged: number;
  try {
    acknowledged = await session.prepare(request.mode, request.lastEventId);
  } catch (error) {
    // The log failed at the start (a Redis blip): the lease is given back, or the stream stays
    // taken; the route answers INTERNAL_ERROR, a 5xx, which costs nothing (spec: Limits).
    await deps.lease.release(stream.id, token).catch(() => undefined);
    throw error;
  }
  request.answered(undefined);
  const quota = async () => {
    await sink.send({ event: 'quota_exceeded', data: { code: 'CU_QUOTA_EXCEEDED', message: 'Monthly credits spent' } });
    sink.close(1008, 'QUOTA_EXCEEDED');
  };
  const minutes = new StartedMinutes(deps.clock, () => charges.minute());
  if (!(await minutes.charge())) {
    // What `lastEventId` acknowledged was delivered: charged by the same rule as on an opened connection.
    await charges.acked(acknowledged, false);
    session.stop();
    await deps.lease.release(stream.id, token);
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
  // Once a second: the connection minutes started on the clock (the first was charged above) and,
  // for SSE, what was written more than the redelivery window ago is acknowledged.
  let ending = false;
  const refused = async (error: unknown) => {
    if (ending) return;
    ending = true;
    clearInterval(tick);
    session.stop();
    const code = isApiError(error) ? error.code : 'INTERNAL_ERROR';
    const message = isApiError(error) ? error.message : 'Internal error';
    await sink.send({ event: 'error', data: { code, message } });
    sink.close(isApiError(error) ? error.definition.ws : WsClose.INTERNAL, code);
  };
  // Every HEARTBEAT_MS the peer proves it is alive (services/core/websocket-heartbeat.ts).
  const heartbeatDue = heartbeatSchedule(deps.clock);
  const tick: NodeJS.Timeout = setInterval(() => {
    if (heartbeatDue()) sink.heartbeat();
    minutes.charge().then((ok) => {
      if (ok) return;
      clearInterval(tick);
      // As when an event finds the credits spent: acks of the events in flight are taken until the close.
      session.stopSending();
      void quota();
    }, () => undefined);
    if (request.protocol === 'sse') void session.ackWritten().catch(() => undefined);
  }, TICK_MS);
  // Deleted or paused (its plan ended) while connected: the connection ends as a connect to it
  // would (4004, 4003), so it delivers nothing more and its minutes stop.
  const unwatch = deps.presence.watch(stream.id, (end) => {
    const error = end === 'STREAM_PAUSED' ? new ApiError(end, { message: STREAM_PAUSED_MESSAGE }) : new ApiError(end);
    void refused(error).catch(() => undefined);
  });
  const unwatchKey = request.recheck.watch(deps.clock, (error) => void refused(error).catch(() => undefined));
  // Listened for once `connected` is out: nothing is sent before it.
  let stopListening: () => void = () => undefined;
  const stopAll = async () => {
    unwatch();
    unwatchKey();
    session.stop();
    stopListening();
    clearInterval(renew);
    clearInterval(tick);
    await deps.lease.release(stream.id, token).catch(() => undefined);
  };
  try {
    await sink.send({ event: 'connected', data: { connId: randomUUID(), subscriptionId: stream.id, subscriptionType: stream.type, protocol: request.protocol } });
    stopListening = deps.log.onAppend((id) => {
      if (id === stream.id) session.pump();
    });
    await session.begin(acknowledged);
  } catch (error) {
    // Nobody will call `closed`: the lease, the renewal and the minute charges stop here, or the
    // stream stays taken and charged for good.
    await stopAll();
    throw error;
  }
  const open = deps.metrics?.warpConnections.labels({ network: request.network, protocol: request.protocol });
  open?.inc();
  let counted = open !== undefined;
  return {
    ack: (id) => { void session.ack(id).catch(() => undefined); },
    closed: async () => {
      if (counted) {
        counted = false;
        open!.dec();
      }
      await stopAll();
      resolveClosed();
      await closedPromise;
    },
  };
}
