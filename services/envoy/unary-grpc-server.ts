import http2 from 'node:http2';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { RpcError } from '@protobuf-ts/runtime-rpc';
import { encodeGrpcMessage, GrpcMessageReader, GrpcStatus, isApiError, parseGrpcTimeout, type Logger } from '../core/index.js';

/** A request message that does not decode (truncated, a field of the wrong wire type): INVALID_ARGUMENT. */
export class MalformedMessage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedMessage';
  }
}

/** One unary gRPC method: request message in, answer out, both as bytes. */
export interface UnaryMethod {
  /** `/package.Service/Method`, as the request's `:path`. */
  path: string;
  /** Names the method in logs and in the UNAVAILABLE message ("ext_authz could not decide"). */
  name: string;
  /**
   * The answer to one request message as one gRPC frame (prefix included), or a DeferredAnswer.
   * Throws (or rejects with) a MalformedMessage for a message that does not decode, an ApiError to
   * answer with its gRPC status; anything else is a failure to decide.
   */
  call(message: Buffer): Promise<Buffer | DeferredAnswer>;
}

/**
 * An answer with a consequence only a sent answer may have (a ratelimit refusal's charge: one
 * past the deadline never reaches Envoy, which lets the request through, and the service behind
 * it charges that request). Exactly one of the two is called.
 */
export interface DeferredAnswer {
  /** The answer is about to be sent: its frame. */
  send(): Buffer;
  /** The answer will not be sent (the caller gone, or its deadline passed). */
  drop(): void;
}

export interface UnaryGrpcServer {
  /** The port bound (the one asked for, or the one chosen for port 0). */
  port: number;
  close(): Promise<void>;
}

/** grpc-js's default for what a server accepts. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

// The same objects for every call: node:http2 copies headers it is given, never changes them.
const RESPONSE_HEADERS: http2.OutgoingHttpHeaders = { ':status': 200, 'content-type': 'application/grpc' };
const OK_TRAILERS: http2.OutgoingHttpHeaders = { 'grpc-status': '0' };
const ANSWER_OPTIONS: http2.ServerStreamResponseOptions = { waitForTrailers: true };
const TRAILERS_ONLY_OPTIONS: http2.ServerStreamResponseOptions = { endStream: true };

const ignore = () => undefined;

function sendOkTrailers(this: http2.ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

/**
 * A plaintext HTTP/2 (h2c) server for unary gRPC methods, gRPC's framing done here
 * (PROTOCOL-HTTP2.md) over node:http2, as Envoy's gRPC clusters call a service. The protocol's
 * own failures: not gRPC (wrong method or content type) → HTTP 415; an unknown path →
 * UNIMPLEMENTED; a compressed request (no compression is offered) → UNIMPLEMENTED for a
 * `grpc-encoding` other than identity, INTERNAL for a compressed frame without one; a request
 * over 4 MiB → RESOURCE_EXHAUSTED; no request message or more than one → UNIMPLEMENTED (grpc-js's
 * answers). `grpc-timeout`: an answer ready after the caller's deadline is DEADLINE_EXCEEDED; a
 * caller that gave up (reset the stream, as Envoy does at its timeout) gets nothing.
 */
export async function startUnaryGrpcServer(methods: readonly UnaryMethod[], listen: { host: string; port: number }, logger: Logger): Promise<UnaryGrpcServer> {
  const byPath = new Map(methods.map((method) => [method.path, method]));
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
  });
  server.on('stream', (stream, headers) => {
    // A reset by the caller is the call's end, never the process's.
    stream.on('error', ignore);
    const contentType = headers['content-type'];
    if (headers[':method'] !== 'POST' || contentType === undefined || !contentType.startsWith('application/grpc')) {
      stream.respond({ ':status': 415, 'content-type': 'text/plain' }, { endStream: true });
      return;
    }
    const path = headers[':path'] ?? '';
    const method = byPath.get(path);
    if (!method) {
      answerStatus(stream, GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${path}`);
      return;
    }
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') {
      answerStatus(stream, GrpcStatus.UNIMPLEMENTED, `Compression ${String(encoding)} is not supported`);
      return;
    }
    const timeoutMs = parseGrpcTimeout(headers['grpc-timeout']);
    serveCall(stream, method, timeoutMs === undefined ? undefined : performance.now() + timeoutMs, logger);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Envoy keeps its connections open: GOAWAY to each, and the calls in flight still finish.
        for (const session of sessions) session.close();
      }),
  };
}

/** Reads the one request message, calls the method, answers. */
function serveCall(stream: http2.ServerHttp2Stream, method: UnaryMethod, deadline: number | undefined, logger: Logger): void {
  (stream as CallStream)[CALL] = new UnaryCall(stream, method, deadline, logger);
  stream.on('data', onCallData);
  stream.once('end', onCallEnd);
}

/** A call's state rides on its stream, so that its listeners are functions shared by every call, not closures made per call. */
const CALL = Symbol('unary call');
type CallStream = http2.ServerHttp2Stream & { [CALL]?: UnaryCall };

function onCallData(this: CallStream, chunk: Buffer): void {
  this[CALL]!.push(chunk);
}

function onCallEnd(this: CallStream): void {
  this[CALL]!.end();
}

class UnaryCall {
  readonly #stream: http2.ServerHttp2Stream;
  readonly #method: UnaryMethod;
  readonly #deadline: number | undefined;
  readonly #logger: Logger;
  readonly #reader = new GrpcMessageReader(MAX_REQUEST_BYTES);
  #request: Buffer | undefined;
  #messages = 0;
  /** Answered already (a frame the reader refused): whatever else comes is ignored. */
  #refused = false;
  readonly #take = (message: Buffer) => {
    this.#messages += 1;
    this.#request = message;
  };

  constructor(stream: http2.ServerHttp2Stream, method: UnaryMethod, deadline: number | undefined, logger: Logger) {
    this.#stream = stream;
    this.#method = method;
    this.#deadline = deadline;
    this.#logger = logger;
  }

  push(chunk: Buffer): void {
    if (this.#refused) return;
    try {
      this.#reader.push(chunk, this.#take);
    } catch (error) {
      this.#refused = true;
      const code = error instanceof RpcError ? GrpcStatus[error.code as keyof typeof GrpcStatus] : undefined;
      answerStatus(this.#stream, code ?? GrpcStatus.INTERNAL, error instanceof Error ? error.message : String(error));
    }
  }

  end(): void {
    if (this.#refused) return;
    const path = this.#method.path;
    if (this.#messages !== 1 || !this.#reader.atBoundary) {
      answerStatus(this.#stream, GrpcStatus.UNIMPLEMENTED, this.#messages === 0 ? `Received no request message for ${path}` : `Received more than one request message for ${path}`);
      return;
    }
    let answer: Promise<Buffer | DeferredAnswer>;
    try {
      answer = this.#method.call(this.#request!);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (frame) => this.#answer(frame),
      (error: unknown) => this.#fail(error),
    );
  }

  #answer(answer: Buffer | DeferredAnswer): void {
    const stream = this.#stream;
    const deferred = Buffer.isBuffer(answer) ? undefined : answer;
    if (stream.destroyed || stream.closed) {
      deferred?.drop();
      return;
    }
    if (this.#deadline !== undefined && performance.now() > this.#deadline) {
      deferred?.drop();
      answerStatus(stream, GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
      return;
    }
    let frame: Buffer;
    try {
      frame = deferred ? deferred.send() : (answer as Buffer);
    } catch (error) {
      this.#fail(error);
      return;
    }
    stream.on('wantTrailers', sendOkTrailers);
    stream.respond(RESPONSE_HEADERS, ANSWER_OPTIONS);
    stream.end(frame);
  }

  #fail(error: unknown): void {
    const name = this.#method.name;
    if (error instanceof MalformedMessage) {
      answerStatus(this.#stream, GrpcStatus.INVALID_ARGUMENT, error.message);
    } else if (isApiError(error)) {
      answerStatus(this.#stream, error.definition.grpc, error.message);
    } else {
      this.#logger.error({ err: error }, `${name} call failed`);
      answerStatus(this.#stream, GrpcStatus.UNAVAILABLE, `${name} could not decide`);
    }
  }
}

/** A trailers-only answer: the status in the response headers, no message. */
function answerStatus(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ...RESPONSE_HEADERS, 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) }, TRAILERS_ONLY_OPTIONS);
}
