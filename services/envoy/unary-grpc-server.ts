import http2 from 'node:http2';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { RpcError } from '@protobuf-ts/runtime-rpc';
import { GrpcStatus, isApiError, type Logger } from '../core/index.js';
import { encodeGrpcMessage, GrpcMessageReader, parseGrpcTimeout } from '../upstream/index.js';

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
   * The answer to one request message as one gRPC frame (prefix included). Throws (or rejects
   * with) a MalformedMessage for a message that does not decode, an ApiError to answer with its
   * gRPC status; anything else is a failure to decide.
   */
  call(message: Buffer): Promise<Buffer>;
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
  const reader = new GrpcMessageReader(MAX_REQUEST_BYTES);
  let request: Buffer | undefined;
  let messages = 0;
  let refused = false;
  const take = (message: Buffer) => {
    messages += 1;
    request = message;
  };
  stream.on('data', (chunk: Buffer) => {
    if (refused) return;
    try {
      reader.push(chunk, take);
    } catch (error) {
      refused = true;
      const code = error instanceof RpcError ? GrpcStatus[error.code as keyof typeof GrpcStatus] : undefined;
      answerStatus(stream, code ?? GrpcStatus.INTERNAL, error instanceof Error ? error.message : String(error));
    }
  });
  stream.once('end', () => {
    if (refused) return;
    if (messages !== 1 || !reader.atBoundary) {
      answerStatus(stream, GrpcStatus.UNIMPLEMENTED, messages === 0 ? `Received no request message for ${method.path}` : `Received more than one request message for ${method.path}`);
      return;
    }
    let answer: Promise<Buffer>;
    try {
      answer = method.call(request!);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (frame) => {
        if (stream.destroyed || stream.closed) return;
        if (deadline !== undefined && performance.now() > deadline) {
          answerStatus(stream, GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded');
          return;
        }
        stream.on('wantTrailers', sendOkTrailers);
        stream.respond(RESPONSE_HEADERS, ANSWER_OPTIONS);
        stream.end(frame);
      },
      (error: unknown) => {
        if (error instanceof MalformedMessage) {
          answerStatus(stream, GrpcStatus.INVALID_ARGUMENT, error.message);
        } else if (isApiError(error)) {
          answerStatus(stream, error.definition.grpc, error.message);
        } else {
          logger.error({ err: error }, `${method.name} call failed`);
          answerStatus(stream, GrpcStatus.UNAVAILABLE, `${method.name} could not decide`);
        }
      },
    );
  });
}

/** A trailers-only answer: the status in the response headers, no message. */
function answerStatus(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond({ ...RESPONSE_HEADERS, 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) }, TRAILERS_ONLY_OPTIONS);
}
