import http2 from 'node:http2';
import { RpcError, type MethodInfo, type RpcMetadata, type RpcOptions } from '@protobuf-ts/runtime-rpc';
import { decodeGrpcMessage, frameMessage, GrpcMessageReader, grpcTimeout, MAX_TIMER_MS, metadataOf, statusName, statusOfHttp } from '../core/index.js';
import type { RawGrpcChannel } from './grpc-raw-channel.js';
import { REQUEST_CANCELLATION, RequestCancellation } from './request-cancellation.js';

const {
  NGHTTP2_CANCEL, NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY, NGHTTP2_FLAG_END_STREAM,
} = http2.constants;

/**
 * One gRPC call as one HTTP/2 stream on the shared channel. Subclasses decide what the messages
 * and the final status mean to their caller (one message for unary, a stream for server
 * streaming); this class owns the wire: request framing, deadline, cancellation, response
 * framing and how every way a stream can end becomes a gRPC status.
 *
 * The statuses are the ones grpc-js gives for the same events (its subchannel-call.ts), so
 * `fromGrpcError` sorts them into the same UpstreamError kinds: a refused connection, a reset
 * or a dropped connection is UNAVAILABLE (a transport failure the breaker counts), our deadline
 * is DEADLINE_EXCEEDED, our cancel CANCELLED.
 */
export abstract class Http2GrpcCall<I extends object, O extends object> {
  protected readonly method: MethodInfo<I, O>;
  protected readonly options: RpcOptions;
  #stream: http2.ClientHttp2Stream | undefined;
  #session: http2.Http2Session | undefined;
  #timer: NodeJS.Timeout | undefined;
  #httpStatus = 0;
  /** The status from trailers (or trailers-only headers), kept until the stream's data is all read. */
  #status: { code: string; detail: string; trailers: RpcMetadata } | undefined;
  #streamError: (Error & { code?: string }) | undefined;
  #done = false;
  /** A request's cancellation handed over by SuiUpstream instead of `abort` (a plain hook, no EventTarget). */
  readonly #cancellation: RequestCancellation | undefined;
  readonly #reader: GrpcMessageReader;
  readonly #onAbort = () => this.#fail(new RpcError('Cancelled on client', 'CANCELLED'));

  constructor(method: MethodInfo<I, O>, options: RpcOptions, maxReceiveLength: number) {
    this.method = method;
    this.options = options;
    this.#reader = new GrpcMessageReader(maxReceiveLength);
    const cancellation = options[REQUEST_CANCELLATION];
    this.#cancellation = cancellation instanceof RequestCancellation ? cancellation : undefined;
  }

  /** Response headers of a call that goes on to send messages. */
  protected abstract headersReceived(meta: RpcMetadata): void;
  /** One response message, still encoded; may throw an RpcError to end the call with it. */
  protected abstract messageReceived(message: Buffer): void;
  /** The call ended with status OK. */
  protected abstract completed(detail: string, trailers: RpcMetadata): void;
  /** The call ended with any other status, or never reached one. */
  protected abstract failed(error: RpcError): void;

  start(channel: RawGrpcChannel, input: I): void {
    const { abort, timeout } = this.options;
    if (abort?.aborted || this.#cancellation?.cancelled) {
      this.#fail(new RpcError('Cancelled on client', 'CANCELLED'));
      return;
    }
    const timeoutMs = timeout === undefined ? undefined : typeof timeout === 'number' ? timeout : timeout.getTime() - Date.now();
    if (timeoutMs !== undefined && timeoutMs <= 0) {
      this.#fail(new RpcError('Deadline exceeded', 'DEADLINE_EXCEEDED'));
      return;
    }
    // Encoded before a stream exists: an input that cannot be encoded throws to the caller, as with grpc-js.
    const request = frameMessage(this.method.I.toBinary(input, this.options.binaryOptions));
    let stream: http2.ClientHttp2Stream;
    try {
      stream = channel.request(this.#requestHeaders(timeoutMs));
    } catch (error) {
      this.#fail(new RpcError(error instanceof Error ? error.message : String(error), 'UNAVAILABLE'));
      return;
    }
    this.#stream = stream;
    this.#session = stream.session;
    // Headers and the one request message leave in one write, as one DATA frame with END_STREAM.
    stream.end(request);
    // Node fires longer timers at once; a deadline that far away is no deadline for us.
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) {
      this.#timer = setTimeout(() => this.#fail(new RpcError('Deadline exceeded', 'DEADLINE_EXCEEDED')), timeoutMs);
    }
    abort?.addEventListener('abort', this.#onAbort);
    this.#cancellation?.onCancel(this.#onAbort);
    stream.on('response', (headers, flags) => this.#onResponse(headers, flags));
    stream.on('trailers', (trailers) => this.#onTrailers(trailers));
    stream.on('data', (chunk: Buffer) => this.#onData(chunk));
    stream.on('end', () => this.#settle());
    stream.on('error', (error) => { this.#streamError = error; });
    stream.on('close', () => this.#onClose());
  }

  #requestHeaders(timeoutMs: number | undefined): http2.OutgoingHttpHeaders {
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/${this.method.service.typeName}/${this.method.name}`,
      'content-type': 'application/grpc',
      te: 'trailers',
    };
    if (timeoutMs !== undefined) headers['grpc-timeout'] = grpcTimeout(timeoutMs);
    const meta = this.options.meta;
    // `-bin` values are base64 in protobuf-ts metadata, which is also their form on the wire.
    if (meta) for (const key in meta) if (key.charCodeAt(0) !== 0x3a) headers[key.toLowerCase()] = meta[key];
    return headers;
  }

  #onResponse(headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader, flags: number): void {
    if (this.#done) return;
    this.#httpStatus = headers[':status'] ?? 0;
    if ((flags & NGHTTP2_FLAG_END_STREAM) !== 0) {
      this.#onTrailers(headers);
      return;
    }
    if (this.#httpStatus !== 200) {
      this.#fail(new RpcError(`Received HTTP status code ${this.#httpStatus}`, statusOfHttp(this.#httpStatus)));
      return;
    }
    this.headersReceived(metadataOf(headers));
  }

  #onTrailers(trailers: http2.IncomingHttpHeaders): void {
    if (this.#done) return;
    const grpcStatus = trailers['grpc-status'];
    const status = grpcStatus !== undefined
      ? { code: statusName(grpcStatus as string), detail: decodeGrpcMessage(trailers['grpc-message']) }
      : this.#httpStatus !== 200 && this.#httpStatus !== 0
        ? { code: statusOfHttp(this.#httpStatus), detail: `Received HTTP status code ${this.#httpStatus}` }
        : { code: 'UNKNOWN', detail: 'No status information received' };
    this.#status = { ...status, trailers: metadataOf(trailers) };
    // Trailers come after the data; the readable side may still hold some (settled on 'end').
    if (this.#stream?.readableEnded) this.#settle();
  }

  #onData(chunk: Buffer): void {
    if (this.#done) return;
    try {
      this.#reader.push(chunk, (message) => this.messageReceived(message));
    } catch (error) {
      this.#fail(error instanceof RpcError ? error : new RpcError(String(error), 'INTERNAL'));
    }
  }

  /** The response is fully read: ends the call with its status, if one came. */
  #settle(): void {
    const status = this.#status;
    if (this.#done || status === undefined) return;
    if (status.code === 'OK' && !this.#reader.atBoundary) {
      this.#fail(new RpcError('Response ended in the middle of a message', 'INTERNAL'));
      return;
    }
    this.#finish();
    if (status.code === 'OK') this.completed(status.detail, status.trailers);
    else this.failed(this.#error(new RpcError(status.detail, status.code, status.trailers)));
  }

  /** The stream closed before a status: why, in grpc-js's terms. */
  #onClose(): void {
    if (this.#done) return;
    if (this.#status) {
      this.#settle();
      return;
    }
    const error = this.#streamError;
    const rstCode = this.#stream?.rstCode ?? NGHTTP2_NO_ERROR;
    const connectionDropped = this.#session === undefined || this.#session.destroyed || this.#session.closed;
    // A session-level error (refused, reset, GOAWAY, keepalive) rather than a reset of this stream alone.
    if (error && error.code !== 'ERR_HTTP2_STREAM_ERROR') this.#fail(new RpcError(error.message, 'UNAVAILABLE'));
    else if (rstCode === NGHTTP2_REFUSED_STREAM) this.#fail(new RpcError('Stream refused by server', 'UNAVAILABLE'));
    else if (rstCode === NGHTTP2_ENHANCE_YOUR_CALM) this.#fail(new RpcError('Bandwidth exhausted or memory limit exceeded', 'RESOURCE_EXHAUSTED'));
    else if (rstCode === NGHTTP2_INADEQUATE_SECURITY) this.#fail(new RpcError('Protocol not secure enough', 'PERMISSION_DENIED'));
    else if (connectionDropped && rstCode !== NGHTTP2_NO_ERROR) this.#fail(new RpcError('Connection dropped', 'UNAVAILABLE'));
    else if (rstCode === NGHTTP2_CANCEL) this.#fail(new RpcError('Call cancelled', 'CANCELLED'));
    else if (rstCode === NGHTTP2_NO_ERROR && this.#httpStatus !== 200 && this.#httpStatus !== 0) {
      this.#fail(new RpcError(`Received HTTP status code ${this.#httpStatus}`, statusOfHttp(this.#httpStatus)));
    } else {
      const why = rstCode === NGHTTP2_NO_ERROR ? ' (Call ended without gRPC status)' : '';
      this.#fail(new RpcError(`Received RST_STREAM with code ${rstCode}${why}`, 'INTERNAL'));
    }
  }

  #fail(error: RpcError): void {
    if (this.#done) return;
    this.#finish();
    const stream = this.#stream;
    if (stream && !stream.closed) stream.close(NGHTTP2_CANCEL);
    this.failed(this.#error(error));
  }

  #finish(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.options.abort?.removeEventListener('abort', this.#onAbort);
    this.#cancellation?.offCancel(this.#onAbort);
  }

  #error(error: RpcError): RpcError {
    error.methodName = this.method.name;
    error.serviceName = this.method.service.typeName;
    return error;
  }
}
