import http2 from 'node:http2';
import type { Readable } from 'node:stream';
import { ApiError } from '../../core/index.js';
import { UpstreamError, type RawGrpcChannel } from '../../upstream/index.js';
import { forwardRequestBody } from './request-body.js';
import { RequestMessageLimit } from './request-message-limit.js';

/**
 * The proxied call as the attempt sees it. Not an AbortSignal: an EventTarget signal per call
 * (created, listened to, unlistened) was a measurable share of the proxy's CPU per call.
 */
export interface CallerLink {
  /** True once the caller's call has ended (it went away, or was answered, e.g. at its deadline). */
  readonly gone: boolean;
  /** Set by the attempt while it waits for the upstream's answer: cancels it (never breaker-counted). */
  cancelAttempt: (() => void) | undefined;
  /** The caller's request broke a rule once the upstream had answered: the call ends with `error`. */
  refuse(error: ApiError): void;
}

export interface OpenedCall {
  stream: http2.ClientHttp2Stream;
  headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader;
  /** Set when the response headers already carried the status (a trailers-only answer). */
  trailersOnly: boolean;
}

/**
 * Opens one call on the upstream's raw channel, sends the caller's request body as it arrives,
 * and resolves once the upstream answers (its response headers): from then on the call is the
 * node's answer, whatever its gRPC status. Before that, a refused stream, a session error, a
 * reset, or silence past `timeoutMs` is a transport failure (the breaker counts it); the caller
 * going away (`caller.cancelAttempt`) is `cancelled` (never counted). A caller still sending its
 * request when the time is up is the caller's failure, never the node's: the attempt is
 * `cancelled` with the caller's REQUEST_TIMEOUT as its cause (the call ends DEADLINE_EXCEEDED,
 * charged and counted as a 408; the breaker does not count it), so no tenant can open a
 * network's breaker for everyone by opening calls and staying silent.
 */
export function openUpstreamCall(
  channel: RawGrpcChannel, upstream: string, operation: string, headers: http2.OutgoingHttpHeaders,
  body: Readable, timeoutMs: number, caller: CallerLink,
): Promise<OpenedCall> {
  return new Promise((resolve, reject) => {
    // Gone while waiting for a slot: nothing to open.
    if (caller.gone) {
      reject(new UpstreamError('cancelled', upstream, operation, `${operation}: cancelled by the caller`, { local: true }));
      return;
    }
    let stream: http2.ClientHttp2Stream;
    try {
      stream = channel.request(headers);
    } catch (error) {
      reject(new UpstreamError('unavailable', upstream, operation, `${operation}: ${(error as Error).message}`, { cause: error }));
      return;
    }
    let settled = false;
    let stopBody: () => void = () => undefined;
    // Errors are built only for a call that fails: 'close' and 'error' also come after every answer.
    const fail = (kind: 'unavailable' | 'timeout' | 'cancelled', detail: string, cause?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      caller.cancelAttempt = undefined;
      stopBody();
      if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
      const local = kind === 'cancelled';
      reject(new UpstreamError(kind, upstream, operation, `${operation}: ${detail}`, { ...(local ? { local } : {}), ...(cause === undefined ? {} : { cause }) }));
    };
    const timer = setTimeout(() => {
      if (body.readableEnded) {
        fail('timeout', `no answer within ${Math.round(timeoutMs)} ms`);
        return;
      }
      // The caller's own failure, as a REST request whose body stalls: the attempt is given up
      // for the caller (never breaker-counted), and the call ends with the caller's error.
      const ms = Math.round(timeoutMs);
      fail('cancelled', `the caller had not sent its whole request within ${ms} ms`,
        new ApiError('REQUEST_TIMEOUT', { message: `The request was not received in full within ${ms} ms.` }));
    }, timeoutMs);
    caller.cancelAttempt = () => fail('cancelled', 'cancelled by the caller');
    // Errors after the answer are handled by the forwarder, through 'close' and its rstCode.
    stream.on('error', (error) => fail('unavailable', error.message, error));
    stream.once('close', () => fail('unavailable', `stream closed before an answer (code ${stream.rstCode})`));
    stream.once('response', (responseHeaders, flags) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      caller.cancelAttempt = undefined;
      const endStream = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
      resolve({ stream, headers: responseHeaders, trailersOnly: endStream || responseHeaders['grpc-status'] !== undefined });
    });
    // A message over the limit is the caller's failure, found before any of it is forwarded: the
    // attempt is given up for the caller (never breaker-counted), as for a stalled request.
    const limit = new RequestMessageLimit();
    stopBody = forwardRequestBody(body, stream, limit, (length) => {
      const error = new ApiError('PAYLOAD_TOO_LARGE', { message: `The request message is ${length} bytes; at most ${limit.maxBytes} are accepted.` });
      if (settled) caller.refuse(error);
      else fail('cancelled', `the caller sent a message of ${length} bytes, over the limit`, error);
    });
  });
}
