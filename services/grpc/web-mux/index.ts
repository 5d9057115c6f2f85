/**
 * One TCP port for native gRPC (HTTP/2) and gRPC-Web (HTTP/1.1; over HTTP/2 through
 * `handleRequest`, see the gRPC proxy), as a Sui full node serves.
 *
 * Each accepted connection is classified by its first bytes: the HTTP/2 client preface goes to
 * the grpc-js server through `createConnectionInjector` (the socket itself, with the peeked bytes
 * put back, so HTTP/2 runs on its native handle); anything else goes to an HTTP/1.1
 * server that translates gRPC-Web (`application/grpc-web[+proto]`, `application/grpc-web-text
 * [+proto]`) into a native gRPC call on the same grpc-js server over an in-memory HTTP/2
 * session, then streams the response back with trailers in a trailer frame and CORS headers.
 * Unary and server-streaming methods work over gRPC-Web (browsers cannot stream requests).
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { ServerCredentials } from '@grpc/grpc-js';
import type { Server as GrpcServer, ServerCredentials as GrpcServerCredentials } from '@grpc/grpc-js';
import { duplexPair } from './duplex-pair.js';
import { BINARY_BODY, FrameSplitter, TextBodyDecoder, encodeTrailerFrame } from './grpc-web-framing.js';
import { relayRequestBody } from './request-body-relay.js';

/** Whatever serves the HTTP/2 connections (a grpc-js server's injector, or a node:http2 server). */
export { FrameSplitter } from './grpc-web-framing.js';

export interface Http2ConnectionTarget {
  injectConnection(connection: Duplex): void;
  destroy(): void;
}

export interface GrpcWebMuxOptions {
  /** The grpc-js server holding the services (it need not be bound to a port); or give `target`. */
  readonly grpcServer?: GrpcServer;
  /** Serves HTTP/2 connections instead of a grpc-js server (the gRPC proxy's node:http2 server). */
  readonly target?: Http2ConnectionTarget;
  /**
   * Headers added to each translated gRPC-Web call (e.g. a mark that the call came from a
   * browser, with its Origin, which is otherwise not forwarded as metadata).
   */
  readonly translatedHeaders?: (req: http.IncomingMessage) => Record<string, string>;
  /** Response metadata a browser may read besides the grpc-* headers (CORS expose list). */
  readonly exposeHeaders?: readonly string[];
  /** Credentials for injected connections (default insecure; TLS is terminated in front). */
  readonly credentials?: GrpcServerCredentials;
  /** HTTP/1.1 requests that are not gRPC-Web (default: 404). */
  readonly fallback?: http.RequestListener;
  /** Allowed browser origins: `*` (default) or a predicate; allowed origins are echoed. */
  readonly allowOrigin?: '*' | ((origin: string) => boolean);
  /**
   * A path prefix gRPC-Web clients put before `/package.Service/Method` (the SDK's `baseUrl`
   * may carry one, e.g. `/mainnet`); it is removed before the call reaches the gRPC server.
   */
  readonly pathPrefix?: string;
  /**
   * A connection that has not said which protocol it speaks (the HTTP/2 preface, or a first
   * HTTP/1.1 byte) within this many ms is closed (default 10,000): before, a connection that sent
   * nothing was kept forever, one file descriptor each, for anyone, without a key.
   */
  readonly handshakeTimeoutMs?: number;
  /** Whether to serve a connection just accepted (default all); a refused one is closed at once, unread. */
  readonly admitConnection?: (socket: net.Socket) => boolean;
}

export interface GrpcWebMux {
  readonly server: net.Server;
  /**
   * The gRPC-Web translation for one request that arrived some other way: gRPC-Web over HTTP/2,
   * through node's HTTP/2 compatibility API (its request and response mirror http's for what
   * the translation uses), from a server that took the connection as native HTTP/2.
   */
  handleRequest: http.RequestListener;
  /** Starts listening; port 0 picks a free port. Resolves with the bound address. */
  listen(port: number, host?: string): Promise<net.AddressInfo>;
  /** Hands an already accepted connection to the mux (for callers with their own listener). */
  handleConnection(socket: net.Socket): void;
  /**
   * Stops accepting connections, answers a gRPC-Web call that still arrives UNAVAILABLE, closes
   * each idle HTTP/1.1 connection at once and the others once their answers are sent; resolves
   * when every connection the mux accepted has closed (HTTP/2 ones close when their owner, sent GOAWAY, has ended their calls).
   */
  stopAccepting(): Promise<void>;
  /** Stops accepting, destroys every open connection and the internal HTTP/2 session. */
  close(): Promise<void>;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** Request headers that are HTTP/1.1 or browser plumbing, not gRPC metadata. */
const NOT_METADATA = new Set([
  'host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'content-length', 'content-type',
  'te', 'accept', 'accept-encoding', 'accept-language', 'origin', 'referer', 'x-grpc-web', 'x-user-agent', 'cache-control', 'pragma',
  'priority', 'http2-settings',
]);
const GRPC_WEB_TYPES = new Set(['application/grpc-web', 'application/grpc-web+proto', 'application/grpc-web-text', 'application/grpc-web-text+proto']);
const EXPOSED_HEADERS = 'grpc-status,grpc-message,grpc-status-details-bin,grpc-encoding,grpc-accept-encoding';

export function createGrpcWebMux(options: GrpcWebMuxOptions): GrpcWebMux {
  const target = options.target ?? options.grpcServer?.createConnectionInjector(options.credentials ?? ServerCredentials.createInsecure());
  if (!target) throw new Error('createGrpcWebMux needs a grpcServer or a target');
  const injector: Http2ConnectionTarget = target;
  const exposed = [EXPOSED_HEADERS, ...(options.exposeHeaders ?? [])].join(',');
  const sockets = new Set<Duplex>();
  let session: http2.ClientHttp2Session | undefined;
  let closed = false;

  function internalSession(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    const [clientEnd, serverEnd] = duplexPair();
    sockets.add(serverEnd);
    serverEnd.once('close', () => sockets.delete(serverEnd));
    injector.injectConnection(serverEnd);
    const created = http2.connect('http://grpc-web-mux.internal', { createConnection: () => clientEnd });
    created.on('error', () => created.destroy());
    created.once('close', () => {
      if (session === created) session = undefined;
    });
    session = created;
    return created;
  }

  /**
   * Takes a failing internal session out of use: later calls open a new one while this one's
   * open calls finish (a GOAWAY closes the session, and so replaces it, by itself). Every gRPC-Web
   * call shares the session, so one that refuses streams (Node
   * resets each new stream ENHANCE_YOUR_CALM once the session's memory is over
   * `maxSessionMemory`) would otherwise fail every browser's calls until a restart.
   */
  function retire(failing: http2.ClientHttp2Session): void {
    if (session === failing) session = undefined;
    if (!failing.closed && !failing.destroyed) failing.close();
  }

  function corsHeaders(req: http.IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    if (!origin) return {};
    if (options.allowOrigin && options.allowOrigin !== '*' && !options.allowOrigin(origin)) return {};
    return {
      'access-control-allow-origin': options.allowOrigin === undefined || options.allowOrigin === '*' ? '*' : origin,
      'access-control-expose-headers': exposed,
      vary: 'Origin',
    };
  }

  function preflight(req: http.IncomingMessage, res: http.ServerResponse): void {
    const cors = corsHeaders(req);
    res.writeHead(204, {
      ...cors,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type,x-grpc-web,x-user-agent,grpc-timeout,authorization',
      'access-control-max-age': '86400',
    });
    res.end();
  }

  function respondError(res: http.ServerResponse, cors: Record<string, string>, contentType: string, code: number, message: string): void {
    if (res.headersSent) {
      res.end(encodeTrailerFrame({ 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) }));
      return;
    }
    res.writeHead(200, { ...cors, 'content-type': contentType, 'grpc-status': String(code), 'grpc-message': encodeURIComponent(message) });
    res.end();
  }

  function handleGrpcWeb(req: http.IncomingMessage, res: http.ServerResponse, requestType: string): void {
    const text = requestType.startsWith('application/grpc-web-text');
    const responseType = text ? 'application/grpc-web-text+proto' : 'application/grpc-web+proto';
    const cors = corsHeaders(req);
    req.on('error', () => res.destroy());
    forward(req, res, cors, text, responseType);
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, cors: Record<string, string>, text: boolean, responseType: string): void {
    const prefix = options.pathPrefix?.replace(/\/+$/, '') ?? '';
    // HTTP/1.1 names the authority in Host; HTTP/2 in its `:authority` pseudo-header.
    const authority = String(req.headers.host ?? req.headers[':authority'] ?? 'localhost');
    // What HTTP/2 would refuse (the stream reset: a retryable 14 for a call that cannot succeed)
    // is answered here. The absolute form (`POST http://host/pkg.Service/Method`) is its path.
    const url = requestPath(req.url ?? '/');
    if (url === undefined) {
      respondError(res, cors, responseType, 12, `The request target ${req.url ?? ''} names no method.`);
      return;
    }
    if (!AUTHORITY.test(authority)) {
      respondError(res, cors, responseType, 3, `The Host header ${authority} is not a host name.`);
      return;
    }
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': prefix && url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : url,
      ':authority': authority,
      'content-type': 'application/grpc',
      te: 'trailers',
    };
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name.startsWith(':') || NOT_METADATA.has(name) || name.startsWith('sec-') || name.startsWith('access-control-')) continue;
      headers[name] = value;
    }
    Object.assign(headers, options.translatedHeaders?.(req));
    if (closed) {
      // Stopping: the internal session is closing; the client retries on another server.
      respondError(res, cors, responseType, 14, 'the server is shutting down');
      return;
    }
    let stream: http2.ClientHttp2Stream;
    const internal = internalSession();
    try {
      stream = internal.request(headers);
    } catch (error) {
      respondError(res, cors, responseType, 14, error instanceof Error ? error.message : 'unavailable');
      return;
    }
    const splitter = new FrameSplitter();
    // HTTP/2 may deliver body bytes before the 'response' event; hold them until headers go out.
    const early: Buffer[] = [];
    let finished = false;
    const writeBody = (chunk: Buffer) => {
      if (!res.headersSent) {
        early.push(chunk);
        return;
      }
      let flowing = true;
      if (!text) flowing = res.write(chunk);
      else for (const frame of splitter.push(chunk)) flowing = res.write(frame.toString('base64'));
      // A client that reads slower than the stream comes (or not at all) holds the call back, as
      // HTTP/2 flow control does a native caller's, instead of the response piling up here.
      if (!flowing && !stream.isPaused()) {
        stream.pause();
        res.once('drain', () => stream.resume());
      }
    };
    const sendHeaders = (metadata: Record<string, string>) => {
      if (res.headersSent) return;
      res.writeHead(200, { ...cors, 'content-type': responseType, ...metadata });
      for (const chunk of early.splice(0)) writeBody(chunk);
    };
    const finish = (trailers: Record<string, string>) => {
      if (finished) return;
      sendHeaders({});
      finished = true;
      const frame = encodeTrailerFrame(trailers);
      res.end(text ? frame.toString('base64') : frame);
      // Answered before its whole body was sent (a refusal): the rest is not wanted.
      if (!stream.closed && !stream.writableEnded) stream.close(http2.constants.NGHTTP2_CANCEL);
    };

    stream.on('response', (responseHeaders) => {
      const metadata = headerValues(responseHeaders);
      delete metadata['content-type'];
      sendHeaders(metadata);
      // Trailers-only response: the status came with the headers; repeat it in a trailer frame.
      if (metadata['grpc-status'] !== undefined) finish(pickTrailers(metadata));
    });
    stream.on('data', (chunk: Buffer) => {
      if (!finished) writeBody(chunk);
    });
    // Node emits 'trailers' when they arrive, which can be before the data the stream still holds
    // for a slow client was read (it is paused above): the trailer frame goes out after the body
    // has ended, never cutting it short under an OK status.
    let trailersReceived: Record<string, string> | undefined;
    stream.on('trailers', (trailers) => {
      trailersReceived = headerValues(trailers);
      if (stream.readableEnded) finish(trailersReceived);
    });
    stream.on('end', () => {
      if (trailersReceived) finish(trailersReceived);
    });
    stream.on('close', () => {
      if (stream.rstCode === http2.constants.NGHTTP2_ENHANCE_YOUR_CALM) retire(internal);
      if (finished) return;
      if (trailersReceived) {
        finish(trailersReceived);
        return;
      }
      if (!res.headersSent && early.length === 0) {
        respondError(res, cors, responseType, 14, 'upstream closed the stream');
        finished = true;
        return;
      }
      finish({ 'grpc-status': '14', 'grpc-message': 'upstream%20closed%20the%20stream' });
    });
    stream.on('error', () => undefined);
    res.on('close', () => {
      if (!finished && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
    });
    relayRequestBody(req, stream, text ? new TextBodyDecoder() : BINARY_BODY);
  }

  const handleRequest: http.RequestListener = (req, res) => {
    // Stopping: an HTTP/1.1 connection is not kept alive after this answer.
    if (closed && res instanceof http.ServerResponse) res.shouldKeepAlive = false;
    const contentType = String(req.headers['content-type'] ?? '');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      preflight(req, res);
      return;
    }
    if (req.method === 'POST' && contentType.startsWith('application/grpc-web')) {
      const mediaType = contentType.split(';')[0]!.trim();
      if (!GRPC_WEB_TYPES.has(mediaType)) {
        // Only protobuf payloads are served (the gRPC server speaks protobuf, not JSON).
        respondError(res, corsHeaders(req), 'application/grpc-web+proto', 12, `unsupported content type ${mediaType}`);
        return;
      }
      handleGrpcWeb(req, res, mediaType);
      return;
    }
    if (options.fallback) {
      options.fallback(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
  /**
   * The HTTP/1.1 connections handed to `httpServer`, each with its requests not yet answered: that
   * server never listens (it is given sockets), so its own `closeIdleConnections()` knows none.
   */
  const httpConnections = new Map<net.Socket, Set<http.ServerResponse>>();
  const httpServer = http.createServer();
  httpServer.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const open = httpConnections.get(socket);
    if (!open) return;
    open.add(res);
    const answered = () => {
      if (!open.delete(res)) return;
      // Stopping: the connection closes once its last answer is sent (an idle one would hold the close).
      if (closed && open.size === 0) closeAfterWrites(socket);
    };
    res.once('finish', answered);
    res.once('close', answered);
  });
  httpServer.on('request', handleRequest);

  /** Stopping: closes the idle HTTP/1.1 connections now, the others once their answers are sent (`Connection: close` where not begun). */
  function closeHttpConnections(): void {
    for (const [socket, open] of httpConnections) {
      if (open.size === 0) {
        socket.destroy();
        continue;
      }
      for (const res of open) if (!res.headersSent) res.shouldKeepAlive = false;
    }
  }

  function handleConnection(socket: net.Socket): void {
    if (closed || options.admitConnection?.(socket) === false) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // Small gRPC frames must not wait for Nagle's algorithm (~40 ms per exchange otherwise).
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    // Peek in paused mode ('readable' + read(), never a 'data' listener), then put the bytes back
    // with unshift. Node's HTTP/2 session takes over the native socket and feeds itself the bytes
    // still buffered in the socket (core.js reads `socket.readableLength` on creation), so HTTP/2
    // runs on the socket's own handle rather than through a JS stream wrapper.
    let head: Buffer = Buffer.alloc(0);
    const handshake = setTimeout(() => socket.destroy(), options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS);
    handshake.unref();
    socket.once('close', () => clearTimeout(handshake));
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const compared = Math.min(head.length, HTTP2_PREFACE.length);
      const isHttp2 = head.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
      if (isHttp2 && head.length < HTTP2_PREFACE.length) return;
      socket.off('readable', onReadable);
      clearTimeout(handshake);
      socket.unshift(head);
      if (isHttp2) {
        injector.injectConnection(socket);
        return;
      }
      httpConnections.set(socket, new Set());
      socket.once('close', () => httpConnections.delete(socket));
      httpServer.emit('connection', socket);
    };
    socket.on('readable', onReadable);
  }

  const server = net.createServer(handleConnection);

  return {
    server,
    handleRequest,
    handleConnection,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as net.AddressInfo);
        });
      });
    },
    stopAccepting() {
      closed = true;
      const allClosed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      closeHttpConnections();
      return allClosed;
    },
    async close() {
      closed = true;
      const serverClosed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      session?.destroy();
      injector.destroy();
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await serverClosed;
    },
  };
}

/** Ends a connection once what was written to it is sent, then destroys it (the peer need not close its side). */
function closeAfterWrites(socket: net.Socket): void {
  if (socket.destroyed || socket.writableFinished) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  if (!socket.writableEnded) socket.end();
}

/** A host and optional port, a bracketed IPv6 literal included (RFC 3986 3.2.2, reg-name without percent-encoding). */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=]+)(?::\d*)?$/;

/** The origin-form path of a request target: as is, or the path and query of the absolute form; undefined for anything else (`*`). */
function requestPath(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  if (!/^https?:\/\//i.test(target)) return undefined;
  try {
    const parsed = new URL(target);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

function headerValues(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    values[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return values;
}

function pickTrailers(metadata: Record<string, string>): Record<string, string> {
  const trailers: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata)) if (name.startsWith('grpc-')) trailers[name] = value;
  return trailers;
}
