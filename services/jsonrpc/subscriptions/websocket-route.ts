import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { ApiError, ERRORS, errorResponses, everyHeartbeat, isApiError, webSocketHeartbeat, type Clock } from '../../core/index.js';
import { readApiKey } from '../../identity/index.js';
import { KeyRecheck, refusesKey, type RequestPipeline } from '../../pipeline/index.js';
import type { App, Capability } from '../../route-contract/index.js';
import type { UpstreamSet } from '../../upstream/index.js';
import { WEBSOCKET_DESCRIPTION, webSocketQuery } from '../openapi-schemas.js';
import { CheckpointFeeds } from './checkpoint-feed.js';
import type { OrganizationShares, OrganizationSocketShare } from './organization-shares.js';
import { SubscriptionSession, type Charge } from './session.js';

export interface JsonRpcWebSocketOptions {
  upstreams: UpstreamSet;
  pipeline: RequestPipeline;
  /** The clock of the heartbeats (HEARTBEAT_MS) and of the key's checks (KEY_RECHECK_MS). */
  clock: Clock;
  /** Shared by every network scope of the process (one upstream stream per network); closed with the app. */
  feeds?: CheckpointFeeds;
  maxSubscriptionsPerSocket?: number;
  /** Bytes of one call's answer frame (docs/jsonrpc.md, Response size). */
  maxResponseBytes?: number;
  /** A socket whose unsent frames exceed this (a client not reading) is closed with 1013. */
  maxBufferedBytes?: number;
  /** Each organization's sockets, subscriptions and filter bytes; shared by every network scope of the process. */
  organizationShares: OrganizationShares;
}

/** The price of opening the socket, of each call over it and of each notification. */
export const WEBSOCKET_MESSAGE_COST = 1;

function closeCode(code: string): number {
  return (ERRORS as Record<string, { ws: number }>)[code]?.ws ?? 1011;
}

/** Spent credits close with 1008 and the reason `QUOTA_EXCEEDED`, as Warp sockets do (spec: Errors). */
function closeReason(code: string, message: string): string {
  return code === 'CU_QUOTA_EXCEEDED' ? 'QUOTA_EXCEEDED' : `${code}: ${message}`.slice(0, 120);
}

/**
 * A failed check of the key as the session answers the call: a refusal of the key ends the socket;
 * a failure to check it (a database error, a 429) answers this call only; anything else is a failure to log.
 */
function keyRefusal(error: unknown): { code: string; message: string; closing: boolean } {
  if (!isApiError(error)) throw error;
  return { code: error.code, message: error.message, closing: refusesKey(error) };
}

/**
 * The WebSocket of `/v1/jsonrpc` (GET with `Upgrade: websocket`, as a node's WS port): JSON-RPC
 * subscriptions. The upgrade passes the data routes' pipeline (authentication with scope `data`,
 * `api_key` query accepted, network binding, limits) and costs one credit; then through the same
 * pipeline every call (its errors included) is admitted and charged as a request (limits
 * included), and every notification is charged before it is sent, one credit each (as gRPC
 * streamed messages: not rate limited); spent credits close the socket with 1008 and the reason
 * QUOTA_EXCEEDED, and a notification they cannot pay for is not sent. The upgrade's key is
 * checked again before each call and every KEY_RECHECK_MS (services/pipeline/key-recheck.ts):
 * disabled, expired, scope or origin refused, the socket gets the error (the call's answer, or
 * one with id null) and closes with the error table's code (4001, 4003), its subscriptions
 * dropped. Every HEARTBEAT_MS the socket is pinged; one that answered no ping since the last is ended.
 */
export async function registerJsonRpcWebSocket(scope: App, options: JsonRpcWebSocketOptions): Promise<void> {
  const feeds = options.feeds ?? new CheckpointFeeds();
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  const { organizationShares } = options;
  // The share each upgrade took before its 101 (preHandler), handed to its socket's session.
  const sharesOfUpgrades = new WeakMap<FastifyRequest['raw'], OrganizationSocketShare>();

  await scope.register(async (inner: App) => {
    // @fastify/websocket is registered once, at the root (services/http/app.ts): it listens to the
    // server's `upgrade` event, so a second registration would route every upgrade twice.
    if (!options.feeds) inner.addHook('onClose', async () => feeds.close());
    // An upgrade refused before the plugin's own hooks ran (authentication, limits) is answered
    // over the raw socket, which nothing would end: the server keeps it half-open forever.
    inner.addHook('onResponse', async (request, reply) => {
      if (reply.statusCode !== 101 && request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket?.destroy();
    });

    inner.get('/v1/jsonrpc', {
      websocket: true,
      config: { auth: { scope: 'data' }, cost: WEBSOCKET_MESSAGE_COST, protocol: 'jsonrpc', queryKey: true },
      // Documented like every WebSocket route with a summary (services/http/openapi.ts: 101 added).
      schema: {
        tags: ['gateways'],
        summary: 'JSON-RPC subscriptions (WebSocket)',
        description: WEBSOCKET_DESCRIPTION,
        querystring: webSocketQuery,
        response: errorResponses(401, 403, 429),
      },
      // After authentication and the limits: an organization at its socket count is refused before the 101.
      preHandler: async (request) => {
        // A plain GET is answered 426 and its connection may live on (kept alive, or Envoy's
        // pooled one): it takes no place, or each would hold one until that connection closed.
        if (!request.ws) return;
        const share = organizationShares.openSocket(request.principal!.organization.id);
        if (!share) {
          throw new ApiError('CONNECTION_LIMIT_REACHED', {
            message: `at most ${organizationShares.limits.maxSockets} JSON-RPC WebSocket connections per organization are open on this server; close one first`,
          });
        }
        sharesOfUpgrades.set(request.raw, share);
        // Given back when the connection ends, whether or not the upgrade completed (a client
        // gone while its key was checked has closed already).
        const connection = request.raw.socket;
        if (connection.destroyed) share.close();
        else connection.once('close', () => share.close());
      },
    }, (socket: WebSocket, request: FastifyRequest) => {
      const ticket = request.meterTicket;
      const { pipeline } = options;
      // Settled once (settle is idempotent per ticket): unserved below, or answered once the network
      // has an upstream. Its 101 carried the ticket's headers (services/http/upgrade-answer-headers.ts).
      const upstream = options.upstreams.get(request.network);
      if (!upstream) {
        // The deployment's configuration, not the caller's request: not charged (NETWORK_NOT_CONFIGURED elsewhere).
        pipeline.settle(ticket, { kind: 'unserved' });
        socket.close(closeCode('UPSTREAM_UNAVAILABLE'), 'no upstream for this network');
        return;
      }
      // The hijacked upgrade never reaches the meter's onSend: it is answered (101) here.
      pipeline.settle(ticket, { kind: 'answered', status: 101 });
      let principal = request.principal!;
      const recheck = new KeyRecheck(pipeline, readApiKey({
        xApiKey: request.headers['x-api-key'],
        authorization: request.headers.authorization,
        queryApiKey: (request.query as { api_key?: unknown }).api_key,
      }), { network: request.network, scope: 'data', origin: request.headers.origin, clientIp: request.ip });
      const route = 'WS /v1/jsonrpc';
      const charge: Charge = async (kind) => {
        let error: ApiError | undefined;
        if (kind === 'notification') {
          error = await pipeline.charge(ticket, { credits: WEBSOCKET_MESSAGE_COST, route: `${route} notification` });
        } else {
          // Each call is authenticated again as a request over HTTP would be (the key cache: at once).
          try {
            principal = (await recheck.check()) ?? principal;
          } catch (refusal) {
            return keyRefusal(refusal);
          }
          const admission = await pipeline.admit({ principal, clientIp: request.ip, network: request.network, route, cost: WEBSOCKET_MESSAGE_COST });
          pipeline.settle(admission.ticket, { kind: 'answered', status: 200 });
          error = admission.error;
        }
        if (!error) return undefined;
        return { code: error.code, message: error.message, closing: error.code === 'CU_QUOTA_EXCEEDED' };
      };
      const session = new SubscriptionSession({
        feed: feeds.of(request.network, upstream),
        maxSubscriptions: options.maxSubscriptionsPerSocket,
        maxResponseBytes: options.maxResponseBytes,
        organization: sharesOfUpgrades.get(request.raw),
        logger: request.log,
        charge,
        send: (text) => {
          if (socket.readyState !== socket.OPEN) return;
          if (socket.bufferedAmount > maxBuffered) {
            socket.close(1013, 'subscriber too slow');
            session.dispose();
            return;
          }
          socket.send(text);
        },
        // Nothing more is delivered or charged once the socket is closing.
        close: (code, message) => {
          socket.close(closeCode(code), closeReason(code, message));
          session.dispose();
        },
      });
      socket.on('message', (data, isBinary) => {
        if (isBinary) {
          socket.close(1003, 'text frames only');
          return;
        }
        void session.receive(data.toString()).catch((error: unknown) => {
          request.log.error({ err: error }, 'JSON-RPC WebSocket call failed');
          socket.close(1011, isApiError(error) ? error.code : 'internal error');
        });
      });
      // A peer gone without closing (asleep, network lost) answers no ping: the socket is ended, so
      // its subscriptions stop charging notifications and give back their filter budget.
      const stopHeartbeat = everyHeartbeat(options.clock, webSocketHeartbeat(socket));
      const unwatchKey = recheck.watch(options.clock, (refusal) => session.end(refusal.code, refusal.message));
      const ended = () => {
        stopHeartbeat();
        unwatchKey();
        session.dispose();
      };
      socket.on('close', ended);
      socket.on('error', ended);
    });
  });
}

/** The capability form, for the composition root's list (one registration per network scope). */
export function jsonRpcWebSocketCapability(options: JsonRpcWebSocketOptions & { feeds: CheckpointFeeds }): Capability {
  return (scope: App) => registerJsonRpcWebSocket(scope, options);
}

