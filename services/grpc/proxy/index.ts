/**
 * The gRPC and gRPC-Web proxy to a network's Sui `sui.rpc.v2` services (`suigw grpc`, and one
 * port per network inside `suigw dev`).
 *
 * Why a node:http2 proxy that forwards frames, not grpc-js with pass-through serializers: the
 * proxy never needs to know a method. Any path the upstream serves (every v2 service, reflection,
 * a method added next month) works unchanged; request and response messages, metadata,
 * trailers and `grpc-status-details-bin` pass as bytes; `grpc-timeout` goes upstream as sent; a
 * reset on either side is a reset on the other. grpc-js would need each method registered (from
 * reflection at start-up, going stale when the node upgrades), would decode the status details
 * and rebuild metadata, and runs two full call stacks per call.
 *
 * Native gRPC (HTTP/2, h2c) and gRPC-Web (HTTP/1.1 and HTTP/2, translated by services/grpc/web-mux)
 * share one port: the mux peeks at each connection and hands HTTP/2 ones to this proxy's server,
 * which passes gRPC-Web streams back to the mux's translation.
 */
import http2 from 'node:http2';
import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import { clientOf } from '../../identity/index.js';
import { clientAddressOf, systemClock, type Network, type TrustProxy } from '../../core/index.js';
import { createGrpcWebMux, type GrpcWebMux } from '../web-mux/index.js';
import { RATE_LIMIT_HEADERS } from '../../metering/index.js';
import { proxyCall, type ProxyCallDeps } from './proxy-call.js';
import { PREMATURE_RESET_MS, SessionResets } from './premature-resets.js';

export { chargeStatusOf, statusOfApiError } from './grpc-status.js';

export interface GrpcProxyOptions extends ProxyCallDeps {
  /** The network a call is for, from the authority the client dialled (a fixed one per port in dev). */
  networkOf(authority: string | undefined): Network;
  /** Time a connection has to send its first bytes (the HTTP/2 preface); default 10,000 ms (SUIGW_HTTP_HEADERS_TIMEOUT_MS in the roles). */
  handshakeTimeoutMs?: number;
  /**
   * An HTTP/2 connection with no call open and no frame either way for this long is closed
   * (default 120,000 ms, SUIGW_HTTP_IDLE_TIMEOUT_MS in the roles), as the HTTP port closes idle sockets.
   */
  idleTimeoutMs?: number;
  /**
   * Connections one client IP (IPv6: one /64) may hold open at once; past it a new one is closed
   * at once (default 100, SUIGW_GRPC_MAX_CONNECTIONS_PER_IP in the roles).
   */
  maxConnectionsPerClient?: number;
  /**
   * How long `close()` lets the calls in flight finish before it cuts what is left (a
   * subscription never ends by itself); default 5,000 ms (SUIGW_UPSTREAM_DEADLINE_MS in the
   * roles: no unary call outlives it).
   */
  drainMs?: number;
  /**
   * Trusted proxy hops in front of the proxy (SUIGW_TRUST_PROXY in the roles; default 0): the
   * client IP of the per-IP limits is the X-Forwarded-For entry that many from the right
   * (services/core/client-address.ts), natively and over gRPC-Web, instead of the socket's peer.
   */
  trustProxy?: TrustProxy;
}

export interface GrpcProxy {
  listen(port: number, host?: string): Promise<net.AddressInfo>;
  /**
   * Stops (SIGTERM): no new connection is accepted, every connection gets GOAWAY (a new call on it
   * is refused, for the client to retry elsewhere), the calls in flight are answered; after
   * `drainMs` whatever is still open is cut.
   */
  close(): Promise<void>;
}

/** Headers by which the gRPC-Web translation tells the proxy a call came from a browser. */
const WEB_MARK = 'x-suigw-grpc-web';
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 100;
const DEFAULT_DRAIN_MS = 5_000;
const WEB_ORIGIN = 'x-suigw-web-origin';
const WEB_CLIENT_IP = 'x-suigw-web-client-ip';

export function createGrpcProxy(options: GrpcProxyOptions): GrpcProxy {
  // A per-process secret: a native client cannot claim to be a browser (and so borrow an
  // origin-restricted key) by sending the mark itself.
  const webToken = randomBytes(16).toString('hex');
  const trustProxy = options.trustProxy ?? 0;
  const server = http2.createServer({ settings: { maxConcurrentStreams: 1_000 } });
  const sessions = new Set<http2.ServerHttp2Session>();
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  /** Calls open per session: a session is closed for idleness only with none open. */
  const openCalls = new WeakMap<http2.Http2Session, number>();
  /** Sessions whose idle timer fired while a call was open (a quiet subscription): timed again when their last call ends. */
  const idleFired = new WeakSet<http2.Http2Session>();
  const clock = options.clock ?? systemClock;
  /** Per native session, the streams its client reset prematurely (gRPC-Web's internal session is not counted: its resets are browsers'). */
  const resets = new WeakMap<http2.Http2Session, SessionResets>();
  // Node's session timer restarts at every stream frame read or written (not at PING or SETTINGS:
  // connection-timeouts.edge.test.ts). `setTimeout(ms, callback)` adds
  // a once-listener per call, so it is armed again only after it fired: re-arming it at every
  // call's end piled listeners up on a busy connection (MaxListenersExceededWarning, one more
  // closure per call).
  const armIdleTimeout = (session: http2.Http2Session) => session.setTimeout(idleTimeoutMs, () => {
    if ((openCalls.get(session) ?? 0) === 0) session.destroy();
    else idleFired.add(session);
  });
  let closing: Promise<void> | undefined;
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
    armIdleTimeout(session);
    // A connection that finished its handshake while the proxy closes: GOAWAY at once.
    if (closing) session.close();
  });
  server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    const session = stream.session;
    if (!session) return;
    openCalls.set(session, (openCalls.get(session) ?? 0) + 1);
    const openedAt = clock.now();
    const counted = headers[WEB_MARK] === webToken ? undefined : resets.get(session) ?? new SessionResets();
    if (counted) resets.set(session, counted);
    stream.once('close', () => {
      const left = (openCalls.get(session) ?? 1) - 1;
      openCalls.set(session, left);
      // The timer fired while this call was open: time the session again from its last call's end.
      if (left === 0 && idleFired.delete(session) && !session.destroyed) armIdleTimeout(session);
      const premature = stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR && clock.now() - openedAt < PREMATURE_RESET_MS;
      if (counted?.closed(premature) && !session.destroyed) goAway(session, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    });
  });
  // gRPC-Web over HTTP/2 arrives here with native gRPC (the mux hands over every HTTP/2
  // connection): those streams, and their CORS preflights, go to the mux's translation through
  // node's HTTP/2 compatibility layer, which a server with a 'request' listener applies to the
  // streams it is given.
  const webOverHttp2 = http2.createServer((req, res) => mux.handleRequest(req as never, res as never));
  server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    if (headers[':method'] === 'OPTIONS' || String(headers['content-type'] ?? '').startsWith('application/grpc-web')) {
      stream.on('error', () => undefined);
      webOverHttp2.emit('stream', stream, headers, flags, rawHeaders);
      return;
    }
    const web = headers[WEB_MARK] === webToken;
    const origin = web ? String(headers[WEB_ORIGIN] ?? '') || undefined : undefined;
    const clientIp = (web ? String(headers[WEB_CLIENT_IP] ?? '') : clientAddressOf(stream.session?.socket?.remoteAddress, headers['x-forwarded-for'], trustProxy)) || 'unknown';
    const authority = headers[':authority'] ?? headers.host;
    // A client may reset a stream at any moment (a load generator does at the end of its run):
    // that is the call's end, never the process's.
    stream.on('error', () => undefined);
    proxyCall(stream, headers, options.networkOf(authority), { origin, clientIp }, options).catch(() => {
      if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
  });
  const mux: GrpcWebMux = createGrpcWebMux({
    target: {
      injectConnection: (connection: Duplex) => server.emit('connection', connection),
      destroy: () => {
        for (const session of sessions) session.destroy();
      },
    },
    translatedHeaders: (req) => ({
      [WEB_MARK]: webToken,
      [WEB_ORIGIN]: req.headers.origin ?? '',
      [WEB_CLIENT_IP]: clientAddressOf(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustProxy) ?? '',
    }),
    exposeHeaders: Object.values(RATE_LIMIT_HEADERS),
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    admitConnection: connectionCap(options.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT),
  });
  return {
    listen: (port, host) => mux.listen(port, host),
    close() {
      closing ??= (async () => {
        const drained = mux.stopAccepting();
        // GOAWAY: the calls open on each connection go on, new ones are refused (clients retry
        // them on another connection); a connection closes once its last call has ended.
        for (const session of sessions) session.close();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([drained, new Promise<void>((resolve) => { timer = setTimeout(resolve, options.drainMs ?? DEFAULT_DRAIN_MS); })]);
        clearTimeout(timer);
        await mux.close();
        server.close();
      })();
      return closing;
    },
  };
}
export { networkByAuthority } from './networks.js';

/**
 * Admits a connection while its client holds fewer than `max`: the idle timeout closes a silent
 * connection, but one with a call open (a subscription) lives as long as the call, so without a
 * cap one client could hold any number of sockets (docs/grpc.md, "Abusive connections").
 */
function connectionCap(max: number): (socket: net.Socket) => boolean {
  const open = new Map<string, number>();
  return (socket) => {
    const client = clientOf(socket.remoteAddress ?? '');
    const held = open.get(client) ?? 0;
    if (held >= max) return false;
    open.set(client, held + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
    return true;
  };
}

/** Sends GOAWAY with `code` and closes the session once it is written (`destroy(error, code)` sends NO_ERROR). */
function goAway(session: http2.Http2Session, code: number): void {
  session.goaway(code);
  setImmediate(() => session.destroy());
}
