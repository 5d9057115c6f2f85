import type { Config } from '../core/index.js';

/**
 * Node checks the headers and request timeouts of open connections on an interval (30 s by
 * default), so a stalled client outlives its timeout by up to one interval. One second keeps
 * the documented bound tight at the cost of a walk over the open connections each second.
 */
export const CONNECTION_CHECK_INTERVAL_MS = 1_000;

/**
 * The fastify server options that bound every phase of a connection, so stalled clients cannot
 * hold sockets (and memory) forever:
 * - headers: a client must finish its headers within `headersTimeoutMs`;
 * - body: the whole request within `requestTimeoutMs` (a stalled body gets 408 and a close);
 * - idle: a socket with no traffic either way for `idleTimeoutMs` is destroyed;
 * - keep-alive: an idle kept-alive connection waits `keepAliveTimeoutMs` for its next request.
 * The handler's own time is not bounded here: upstream calls carry their own deadlines.
 */
export function serverTimeouts(http: Config['http']) {
  return {
    connectionTimeout: http.idleTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    requestTimeout: http.requestTimeoutMs,
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(CONNECTION_CHECK_INTERVAL_MS, http.headersTimeoutMs),
    },
  };
}
