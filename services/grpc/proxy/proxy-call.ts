import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { ApiError, GrpcStatus, MAX_TIMER_MS, parseGrpcTimeout, systemClock, type Clock, type Network } from '../../core/index.js';
import { readApiKey, type Principal } from '../../identity/index.js';
import type { MeterTicket } from '../../metering/index.js';
import { KeyRecheck, type RequestPipeline } from '../../pipeline/index.js';
import type { Upstream, UpstreamSet } from '../../upstream/index.js';
import { FrameSplitter } from '../web-mux/index.js';
import { chargeOf, CLIENT_CANCELLED, statusOf, statusOfApiError, trailerFields, type CallStatus } from './grpc-status.js';
import { openUpstreamCall, type CallerLink, type OpenedCall } from './upstream-call.js';
import { metricOperationOf } from './metric-operation.js';
import { recordCall, type CallInstruments } from './call-metrics.js';


/** Who the call came from, as the listener saw it (the gRPC-Web translation passes on the browser's). */
export interface CallOrigin {
  /** The browser's Origin for a gRPC-Web call; native gRPC has none, whatever its metadata says. */
  origin: string | undefined;
  clientIp: string;
}

export interface ProxyCallDeps {
  pipeline: RequestPipeline;
  upstreams: UpstreamSet;
  /** Each finished call is counted with the HTTP requests (protocol `grpc`). */
  metrics?: CallInstruments;
  /** Times each stream's life (the premature-reset rule, premature-resets.ts) and the key's checks (KEY_RECHECK_MS); default the system clock. */
  clock?: Clock;
}

/**
 * Per-call price (spec: Limits): 1 credit per call, which covers its first response message; 1 per
 * further streamed message. Reflection is a call like any other: it reaches the upstream, so the
 * per-key caps, the plan's rate and credits apply to it too.
 */
const CALL_CREDITS = 1;
const MESSAGE_CREDITS = 1;

/** Request headers that are transport plumbing or the caller's credentials: never sent upstream. */
const NOT_FORWARDED = new Set([
  'x-api-key', 'authorization', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'http2-settings',
]);
/** Response headers the proxy sets itself or that belong to one hop. */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'server']);

/**
 * One call through the proxy, in the pipeline's order (services/pipeline):
 * authenticate (key from `x-api-key` or `authorization: Bearer`; network, `data` scope, origin) →
 * limit (the Meter's admission: caps, plan rate, credits) → handle (frames forwarded as bytes to
 * the network's upstream; deadline and cancellation both ways) → meter (settle by the final
 * status; 1 more credit per streamed message past the first). While the call lives its key is
 * checked again every KEY_RECHECK_MS (services/pipeline/key-recheck.ts): disabled, expired, scope
 * or origin refused, the call ends with the table's status (UNAUTHENTICATED, PERMISSION_DENIED),
 * what was delivered settled as at any end. Refusals at the start are trailers-only
 * answers with the table's gRPC status and the spec's code in the message; the rate-limit and
 * credit headers go out as trailing metadata.
 */
export async function proxyCall(
  stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, network: Network, from: CallOrigin, deps: ProxyCallDeps,
): Promise<void> {
  const path = String(headers[':path'] ?? '');
  const contentType = String(headers['content-type'] ?? '');
  if (headers[':method'] !== 'POST' || !contentType.startsWith('application/grpc')) {
    if (!stream.destroyed) stream.respond({ ':status': 415, 'content-type': 'text/plain' }, { endStream: true });
    return;
  }
  const { pipeline } = deps;
  const startedAt = performance.now();
  const finished = (status: CallStatus) => {
    if (deps.metrics) recordCall(deps.metrics, path, status, startedAt);
  };
  let principal: Principal;
  let ticket: MeterTicket | undefined;
  try {
    const apiKey = readApiKey({ xApiKey: headers['x-api-key'], authorization: headers.authorization });
    const access = { network, scope: 'data' as const, origin: from.origin, clientIp: from.clientIp };
    principal = await pipeline.authenticateKey(apiKey, access);
    const upstream = deps.upstreams.get(network);
    if (!upstream) throw new ApiError('NETWORK_NOT_CONFIGURED', { message: `No upstream is configured for ${network}` });
    // The usage row names a known method, else `other`: the path is the caller's, and one of a few
    // thousand random characters was past PostgreSQL's index row limit, failing every usage flush of the process.
    const admission = await pipeline.admit({ principal, clientIp: from.clientIp, network, route: `gRPC ${metricOperationOf(path)}`, cost: CALL_CREDITS });
    ticket = admission.ticket;
    if (admission.error) {
      const refused = statusOfApiError(admission.error);
      answerTrailersOnly(stream, refused, pipeline.settle(ticket, chargeOf(refused, 0)));
      finished(refused);
      return;
    }
    const recheck = new KeyRecheck(pipeline, apiKey, access);
    await new ForwardedCall(stream, headers, path, upstream, principal, ticket, pipeline, finished).run(recheck, deps.clock ?? systemClock);
  } catch (error) {
    const status = statusOf(error);
    answerTrailersOnly(stream, status, pipeline.settle(ticket, chargeOf(status, 0)));
    finished(status);
  }
}

function answerTrailersOnly(stream: http2.ServerHttp2Stream, status: CallStatus, metadata: Record<string, string>): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...metadata, ...trailerFields(status) }, { endStream: true });
}

/** The handle and meter stages of one admitted call. */
class ForwardedCall implements CallerLink {
  readonly #client: http2.ServerHttp2Stream;
  readonly #headers: http2.IncomingHttpHeaders;
  readonly #path: string;
  readonly #upstream: Upstream;
  readonly #principal: Principal;
  readonly #ticket: MeterTicket | undefined;
  readonly #pipeline: RequestPipeline;
  /** Counts the call in the request metrics (proxyCall's). */
  readonly #onEnd: (status: CallStatus) => void;
  #call: OpenedCall | undefined;
  #messages = 0;
  #finished = false;
  #deadline: NodeJS.Timeout | undefined;
  #unwatchKey: (() => void) | undefined;
  /** Set while streamed messages wait for the ledger; an end decided meanwhile comes after them. */
  #paying: Promise<void> | undefined;
  /** Batches of streamed messages waiting for the ledger: each holds the upstream until it is paid for and written. */
  #unpaid = 0;
  /** The client's stream took no more: the upstream is held until it drains. */
  #awaitingDrain = false;
  cancelAttempt: (() => void) | undefined;

  constructor(
    client: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, path: string, upstream: Upstream, principal: Principal,
    ticket: MeterTicket | undefined, pipeline: RequestPipeline, finished: (status: CallStatus) => void,
  ) {
    this.#client = client;
    this.#headers = headers;
    this.#path = path;
    this.#upstream = upstream;
    this.#principal = principal;
    this.#ticket = ticket;
    this.#pipeline = pipeline;
    this.#onEnd = finished;
  }

  get gone(): boolean {
    return this.#finished;
  }

  refuse(error: ApiError): void {
    this.#end({ ...statusOfApiError(error), chargedAs: error.status }, true);
  }

  async run(recheck: KeyRecheck, clock: Clock): Promise<void> {
    const client = this.#client;
    // The caller went away while it was authenticated and admitted: the same end as below.
    if (client.closed || client.destroyed) {
      this.#end(CLIENT_CANCELLED, false);
      return;
    }
    // The caller went away (RST_STREAM, connection lost): cancel upstream, charge only what was delivered.
    client.once('close', () => {
      if (!this.#finished) this.#end(CLIENT_CANCELLED, false);
    });
    // A key disabled, expired or re-scoped ends a stream already open, as it refuses a new call.
    // Messages already paid for are sent first: what was charged is what was delivered.
    this.#unwatchKey = recheck.watch(clock, (error) => {
      void (this.#paying ?? Promise.resolve()).then(() => this.#end(statusOf(error), true));
    });
    const deadlineMs = parseGrpcTimeout(this.#headers['grpc-timeout']);
    // Node fires a timer longer than 2^31 - 1 ms (24.8 days) at once: a deadline that far away
    // is left to the upstream, which gets the same grpc-timeout.
    if (deadlineMs !== undefined && deadlineMs <= MAX_TIMER_MS) {
      // The upstream gets the same grpc-timeout and normally ends the call itself; this bounds a node that does not.
      this.#deadline = setTimeout(() => this.#end({ code: GrpcStatus.DEADLINE_EXCEEDED, message: 'deadline exceeded' }, true), deadlineMs);
    }
    // A proxied call is one upstream call: its request's budget goes straight to it (no
    // per-request view of the upstream: there is no fan-out to bound). Cancellation reaches the
    // attempt through `cancelAttempt`; a call that ends while queued for a slot gives the slot
    // back as soon as it gets it, without opening a stream.
    const name = `${this.#upstream.network}/grpc`;
    const headers = this.#headers;
    try {
      this.#call = await this.#upstream.rawGrpc(metricOperationOf(this.#path), (channel, timeoutMs) =>
        openUpstreamCall(channel, name, this.#path, forwardedHeaders(headers, this.#path, channel.authority), client, timeoutMs, this), {
        tenant: this.#principal.organization.id,
        ...(deadlineMs === undefined ? {} : { deadlineMs }),
      });
    } catch (error) {
      // The failure ends the call here, where the client's 'close' cannot end it a second time
      // (counted twice, as 503 and 499). Already answered (cancelled by the client, or its
      // deadline): the failed attempt is that end, and `#end` does nothing.
      this.#end(statusOf(error), false);
      return;
    }
    if (this.#finished) {
      this.#call.stream.close(http2.constants.NGHTTP2_CANCEL);
      return;
    }
    this.#relay(this.#call);
  }

  #relay(call: OpenedCall): void {
    const { stream: up, headers } = call;
    if (call.trailersOnly) {
      up.resume();
      // An answer that ended without a gRPC status (an HTTP error page of a proxy in front of the
      // node, a node bug) is the upstream failing, as when the trailers lack it below.
      const status = headers['grpc-status'] === undefined
        ? { code: GrpcStatus.UNAVAILABLE, message: `UPSTREAM_UNAVAILABLE: the upstream answered HTTP ${headers[':status']} without a gRPC status` }
        : statusOfHeaders(headers);
      this.#end(status, false, returnedMetadata(headers));
      return;
    }
    this.#client.respond({ ...returnedMetadata(headers), ':status': 200 }, { waitForTrailers: true });
    const splitter = new FrameSplitter();
    let trailers: http2.IncomingHttpHeaders | undefined;
    up.on('data', (chunk: Buffer) => {
      // Ended (a refusal, the deadline): what the upstream still sends is neither sent nor charged.
      if (this.#finished) return;
      const frames = splitter.push(chunk);
      if (frames.length === 0) return;
      const first = this.#messages;
      this.#messages += frames.length;
      const extra = this.#ticket ? Math.max(0, this.#messages - Math.max(first, 1)) : 0;
      if (extra === 0) {
        this.#write(frames);
        return;
      }
      // Streamed messages past the first are paid for before they are sent: the stream waits for the ledger.
      this.#unpaid += 1;
      up.pause();
      this.#paying = (this.#paying ?? Promise.resolve()).then(async () => {
        const refusal = await this.#pay(extra);
        this.#unpaid -= 1;
        if (refusal) {
          this.#write(frames.slice(0, frames.length - extra));
          this.#end(refusal, true);
          return;
        }
        this.#write(frames);
        this.#resumeUpstream();
      });
    });
    up.on('trailers', (received) => { trailers = received; });
    const ended = () => {
      if (this.#finished) return;
      if (trailers?.['grpc-status'] !== undefined) {
        this.#end(statusOfHeaders(trailers), false, returnedMetadata(trailers));
        return;
      }
      this.#end({ code: GrpcStatus.UNAVAILABLE, message: `UPSTREAM_UNAVAILABLE: the upstream ended the call without a status (code ${up.rstCode})` }, false);
    };
    up.once('close', () => {
      if (this.#paying) void this.#paying.then(ended);
      else ended();
    });
  }

  /** Charges `extra` streamed messages; the status that ends the call when they cannot be paid. */
  async #pay(extra: number): Promise<CallStatus | undefined> {
    try {
      const refusal = await this.#pipeline.charge(this.#ticket, { credits: extra * MESSAGE_CREDITS });
      return refusal && statusOfApiError(refusal);
    } catch (error) {
      // The ledger could not answer (PostgreSQL, at a credit period's first charge): before, an
      // unhandled rejection, and the stream stayed paused and unsettled until the client left.
      return statusOf(error);
    }
  }

  /**
   * Writes to the client at its pace: when its stream takes no more, the upstream is held until
   * it drains, so HTTP/2 flow control holds the node back. Of a stream its client does not read,
   * the proxy then holds (and has charged) about one message past the client's window, not the
   * rest of the stream, which before piled up here, each message charged though never delivered.
   */
  #write(frames: Buffer[]): void {
    const client = this.#client;
    if (this.#finished || client.destroyed) return;
    let flowing = true;
    for (const frame of frames) flowing = client.write(frame);
    if (flowing || this.#awaitingDrain) return;
    this.#awaitingDrain = true;
    this.#call?.stream.pause();
    client.once('drain', () => {
      this.#awaitingDrain = false;
      this.#resumeUpstream();
    });
  }

  /** Resumes the upstream once nothing holds it: neither messages waiting for the ledger nor a client stream waiting to drain. */
  #resumeUpstream(): void {
    if (this.#finished || this.#unpaid > 0 || this.#awaitingDrain) return;
    this.#call?.stream.resume();
  }

  /** Ends the call once: settles the meter, sends the status (and metadata) to the client, and cancels upstream when asked. */
  #end(status: CallStatus, cancelUpstream: boolean, upstreamTrailers: Record<string, string> = {}): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#deadline);
    this.#unwatchKey?.();
    // Only a call still waiting for the upstream's answer has an attempt to cancel.
    this.cancelAttempt?.();
    const up = this.#call?.stream;
    if (up && (cancelUpstream || status.code === GrpcStatus.CANCELLED) && !up.closed) up.close(http2.constants.NGHTTP2_CANCEL);
    const metering = this.#pipeline.settle(this.#ticket, chargeOf(status, this.#messages));
    this.#onEnd(status);
    const client = this.#client;
    if (client.destroyed || client.closed) return;
    const trailers = { ...upstreamTrailers, ...metering, ...trailerFields(status) };
    if (!client.headersSent) {
      client.respond({ ':status': 200, 'content-type': 'application/grpc', ...trailers }, { endStream: true });
      return;
    }
    client.once('wantTrailers', () => client.sendTrailers(trailers));
    client.end();
  }
}

/** The caller's request headers for the upstream: its metadata as sent, without credentials, hop headers or our own marks. */
function forwardedHeaders(headers: http2.IncomingHttpHeaders, path: string, authority: string): http2.OutgoingHttpHeaders {
  const out: http2.OutgoingHttpHeaders = { ':method': 'POST', ':scheme': 'http', ':path': path, ':authority': authority };
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name.startsWith(':') || NOT_FORWARDED.has(name) || name.startsWith('x-suigw-')) continue;
    out[name] = value;
  }
  return out;
}

function statusOfHeaders(headers: http2.IncomingHttpHeaders): CallStatus {
  const code = Number(headers['grpc-status'] ?? GrpcStatus.UNKNOWN);
  const raw = String(headers['grpc-message'] ?? '');
  let message = raw;
  try {
    message = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded as the protocol says: passed on as sent.
  }
  return { code: Number.isInteger(code) ? code : GrpcStatus.UNKNOWN, message };
}

/** The upstream's metadata for the client: everything but pseudo-headers, hop headers and the status (set by `#end`). */
function returnedMetadata(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  // for…in rather than Object.entries: no array of pairs per header block (two blocks per call).
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || name.startsWith(':') || NOT_RETURNED.has(name) || name === 'grpc-status' || name === 'grpc-message') continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}
