import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { errorResponses, isApiError, webSocketHeartbeat, WsClose } from '../../core/index.js';
import { readApiKey } from '../../identity/index.js';
import { KeyRecheck } from '../../pipeline/index.js';
import { caller, type App } from '../../route-contract/index.js';
import { isLogId } from '../log/stream-log.js';
import { openConnection, type DeliveryDeps, type OpenConnection, type WarpDeliveryDeps } from './connection.js';
import type { MessageSink, StreamMessage } from './delivery-session.js';

const params = z.object({ id: z.string().min(1).max(64) });
const wsQuery = z.object({
  api_key: z.string().optional(),
  mode: z.enum(['live', 'resume']).optional(),
  lastEventId: z.string().max(40).refine(isLogId, { message: 'not an event id' }).optional(),
});
const sseQuery = z.object({ api_key: z.string().optional(), mode: z.enum(['live', 'resume']).optional() });

/** Connection opening: 1 credit, and it counts once against the per-key/per-IP caps (spec: Limits). */
const CONNECT_COST = 1;

/**
 * The spec answers a WebSocket refused for scope or origin with close 4003: the upgrade is
 * completed so the client sees the close code, not an HTTP status. `@fastify/websocket` keeps
 * the upgrade's socket and head under symbols on the raw request.
 */
function closeUpgrade(app: App, request: FastifyRequest, reply: FastifyReply, code: number, reason: string): boolean {
  const raw = request.raw as unknown as Record<symbol, unknown>;
  const symbols = Object.getOwnPropertySymbols(raw);
  const socketKey = symbols.find((symbol) => symbol.description === 'ws-socket');
  const headKey = symbols.find((symbol) => symbol.description === 'ws-head');
  if (!socketKey || !headKey) return false;
  void reply.hijack();
  app.websocketServer.handleUpgrade(request.raw, raw[socketKey] as never, raw[headKey] as Buffer, (ws) => ws.close(code, reason));
  return true;
}

/** The connect request's own credentials, checked again by the pipeline while the connection lives. */
function recheckOf(deps: WarpDeliveryDeps, request: FastifyRequest): KeyRecheck {
  const apiKey = readApiKey({
    xApiKey: request.headers['x-api-key'],
    authorization: request.headers.authorization,
    queryApiKey: (request.query as { api_key?: unknown }).api_key,
  });
  return new KeyRecheck(deps.pipeline, apiKey, { network: request.network, scope: 'streams', origin: request.headers.origin, clientIp: request.ip });
}

/**
 * The id a client's `{"type":"ack","id":"…"}` acknowledges. Anything else a client sends (not
 * JSON, JSON that is not an object, another type, an id that is not a string) is ignored: this
 * runs in the socket's event handler, where a throw would end the process.
 */
function ackedId(raw: RawData): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(String(raw));
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, id } = message as { type?: unknown; id?: unknown };
  return type === 'ack' && typeof id === 'string' ? id : undefined;
}

function wsSink(socket: WebSocket): MessageSink {
  const heartbeat = webSocketHeartbeat(socket);
  return {
    send: (message: StreamMessage) => new Promise<void>((resolve) => {
      if (socket.readyState !== socket.OPEN) return resolve();
      socket.send(JSON.stringify(message), () => resolve());
    }),
    close: (code, reason) => {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    // A peer that answered no ping since the last one is gone: its close frees the stream and stops its minutes.
    heartbeat,
  };
}

export function registerWarpRoutes(app: App, deps: DeliveryDeps): void {
  // SIGTERM: the server's close waits for every response, and an SSE response ends only when its
  // client leaves, so one connected client held the process until Kubernetes killed it (its last
  // usage unflushed). The close ends each SSE response first (EventSource reconnects, with
  // Last-Event-ID, to another process) and waits for its connection to stop (lease released).
  // WebSockets are closed by @fastify/websocket's own preClose.
  const sseResponses = new Map<ServerResponse, () => Promise<void>>();
  app.addHook('preClose', async () => {
    await Promise.all([...sseResponses.values()].map((end) => end()));
  });

  app.get(
    '/v1/warp/:id/ws',
    {
      websocket: true,
      config: { auth: { scope: 'streams' }, cost: CONNECT_COST, queryKey: true, protocol: 'warp' },
      schema: {
        summary: 'Warp stream over WebSocket',
        description:
          'Upgrade to a WebSocket (GET with `Upgrade: websocket`). Exactly-once: acknowledge each message that has an `id` ' +
          'with `{"type":"ack","id":"…"}`. Live by default; `mode=resume` or `lastEventId` replays the buffer first. ' +
          'Messages: connected, event|address|coin|object, quota_exceeded (then close 1008 `QUOTA_EXCEEDED`), error. ' +
          'Scope or origin refused after the upgrade: close 4003.',
        tags: ['streams'],
        params,
        querystring: wsQuery,
        response: errorResponses(400, 401, 403, 404, 429),
      },
      errorHandler(error, request, reply) {
        if (isApiError(error) && error.definition.ws === WsClose.FORBIDDEN && request.ws && closeUpgrade(app, request, reply, WsClose.FORBIDDEN, error.code)) return;
        throw error;
      },
    },
    (socket, request) => {
      // The 101 carried the ticket's headers (services/http/upgrade-answer-headers.ts), but it is
      // not settled through the meter's onSend: the connect is settled (and its usage row
      // recorded) once openConnection knows its outcome, so a refusal is charged as its HTTP
      // status would be (a 4xx the connect's price, a 5xx nothing).
      const settle = (status: number) => deps.pipeline.settle(request.meterTicket, { kind: 'answered', status });
      const query = request.query as z.infer<typeof wsQuery>;
      const { id } = request.params as z.infer<typeof params>;
      const acks: string[] = [];
      let connection: Awaited<ReturnType<typeof openConnection>> | 'closed' | undefined;
      socket.on('message', (raw) => {
        const id = ackedId(raw);
        if (id === undefined) return;
        if (connection && connection !== 'closed') connection.ack(id);
        else acks.push(id);
      });
      socket.on('close', () => {
        const open = connection;
        connection = 'closed';
        if (open && open !== 'closed') void open.closed();
      });
      openConnection(deps, {
        streamId: id, principal: caller(request), ticket: request.meterTicket, network: request.network, protocol: 'websocket', recheck: recheckOf(deps, request),
        mode: query.mode === 'resume' || query.lastEventId !== undefined ? 'resume' : 'live', lastEventId: query.lastEventId,
        answered: (refusal) => settle(refusal?.status ?? 101),
      }, wsSink(socket)).then((open) => {
        if (!open) return;
        if (connection === 'closed') {
          void open.closed();
          return;
        }
        connection = open;
        for (const id of acks.splice(0)) open.ack(id);
      }, (error: unknown) => {
        deps.logger.error({ err: error }, 'warp websocket failed');
        settle(500);
        socket.close(WsClose.INTERNAL, 'INTERNAL_ERROR');
      });
    },
  );

  app.get(
    '/v1/warp/:id/stream',
    {
      config: { auth: { scope: 'streams' }, cost: CONNECT_COST, queryKey: true, protocol: 'warp' },
      schema: {
        summary: 'Warp stream over Server-Sent Events',
        description:
          'At-least-once. Live by default; `mode=resume` or a `Last-Event-ID` header replays the buffer first ' +
          '(30 minutes, 2,000 events). Messages: connected, event|address|coin|object, quota_exceeded, error.',
        tags: ['streams'],
        params,
        querystring: sseQuery,
        response: errorResponses(400, 401, 403, 404, 429),
      },
    },
    async (request, reply) => {
      // Any Last-Event-ID asks to resume. One that is not an id of ours acknowledges nothing: the
      // buffer is replayed (at least once), where a live connect would have discarded it.
      const lastEventHeader = request.headers['last-event-id'];
      const resuming = typeof lastEventHeader === 'string' && lastEventHeader !== '';
      const lastEventId = resuming && isLogId(lastEventHeader) ? lastEventHeader : undefined;
      const principal = caller(request);
      void reply.hijack();
      const response = reply.raw;
      // A hijacked reply never reaches the meter's onSend: the connect is settled here, with its
      // headers, once openConnection knows its outcome. The response is a 200 whatever it is (a
      // refusal is an `error` message), but a refusal is charged as its HTTP status would be.
      const answer = (status: number) => {
        const meterHeaders = deps.pipeline.settle(request.meterTicket, { kind: 'answered', status });
        if (response.headersSent || response.destroyed) return;
        response.writeHead(200, {
          ...meterHeaders,
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-request-id': request.id,
        });
      };
      let open: OpenConnection | undefined;
      let ended = response.destroyed || request.raw.destroyed;
      let closing: Promise<void> | undefined;
      // Listened for before the connection opens: a client gone meanwhile ends it once it has opened.
      if (!ended) {
        response.once('close', () => {
          ended = true;
          sseResponses.delete(response);
          closing = open?.closed();
        });
        sseResponses.set(response, async () => {
          const socket = response.socket;
          const gone = new Promise<void>((resolve) => response.once('close', () => resolve()));
          // The socket too: a kept-alive connection idle only after the server began closing would hold the close.
          response.end(() => socket?.destroy());
          await gone;
          await closing;
        });
      }
      const sink: MessageSink = {
        send: (message) => new Promise<void>((resolve) => {
          if (ended || response.destroyed) return resolve();
          const lines = `event: ${message.event}\n${message.id === undefined ? '' : `id: ${message.id}\n`}data: ${JSON.stringify(message.data)}\n\n`;
          if (response.write(lines)) return resolve();
          // A client gone while the write waits never drains: its close settles the write as well.
          const settle = () => {
            response.off('drain', settle);
            response.off('close', settle);
            resolve();
          };
          response.once('drain', settle);
          response.once('close', settle);
        }),
        close: () => {
          if (!ended) response.end();
        },
        // A comment line: EventSource ignores it; a peer that is gone makes the write fail in the end.
        heartbeat: () => {
          if (!ended) response.write(': heartbeat\n\n');
        },
      };
      try {
        open = await openConnection(deps, {
          streamId: request.params.id, principal, ticket: request.meterTicket, network: request.network, protocol: 'sse', recheck: recheckOf(deps, request),
          mode: request.query.mode === 'resume' || resuming ? 'resume' : 'live', lastEventId,
          answered: (refusal) => answer(refusal?.status ?? 200),
        }, sink);
      } catch (error) {
        // The reply is hijacked: nothing else would end it, and the client would wait on a silent 200.
        deps.logger.error({ err: error }, 'warp sse failed');
        answer(500);
        await sink.send({ event: 'error', data: { code: 'INTERNAL_ERROR', message: 'Internal error' } });
        sink.close(WsClose.INTERNAL, 'INTERNAL_ERROR');
        return;
      }
      if (open && ended) void open.closed();
    },
  );
}
