import WebSocket from 'ws';
import { startRestE2E, type RestE2E } from './rest-e2e.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC bodies, checked field by field in the tests

export interface JsonRpcE2E extends RestE2E {
  /** `http://127.0.0.1:PORT/mainnet/v1/jsonrpc`: the gateway listening on loopback. */
  url: string;
  /** POSTs `payload` (an object, or raw text) over HTTP with the admin key unless `headers` say otherwise. */
  send(payload: unknown, options?: { headers?: Record<string, string>; query?: string; raw?: boolean }): Promise<{ status: number; body: Body; headers: Headers }>;
  /** One call's `result`, failing on an error object. */
  call(method: string, params?: unknown): Promise<Body>;
  /** An open WebSocket of /v1/jsonrpc with `key`: every frame it receives, parsed, and how it closed (`autoPong: false`: a peer that answers no ping). */
  socket(key: string, options?: { autoPong?: boolean }): Promise<JsonRpcSocket>;
}

export interface JsonRpcSocket {
  socket: WebSocket;
  frames: Body[];
  closed: Promise<{ code: number; reason: string }>;
}

/** The gateway on simnet (as rest-e2e builds it), listening on a loopback port for real HTTP clients. */
export async function startJsonRpcE2E(options: Parameters<typeof startRestE2E>[0] = {}): Promise<JsonRpcE2E> {
  const e2e = await startRestE2E(options);
  const address = await e2e.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `${address}/mainnet/v1/jsonrpc`;
  let ids = 0;
  const send: JsonRpcE2E['send'] = async (payload, { headers, query, raw } = {}) => {
    // The test clock moves only when told: 25 ms per request keeps sequential calls inside the plan's rate.
    e2e.gateway.clock.advance(25);
    const response = await fetch(`${url}${query ?? ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(headers ?? { 'x-api-key': e2e.gateway.adminKey }) },
      body: raw ? String(payload) : JSON.stringify(payload),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
  };
  return {
    ...e2e,
    url,
    send,
    async call(method, params = []) {
      const id = ++ids;
      const { status, body } = await send({ jsonrpc: '2.0', id, method, params });
      if (status !== 200 || body.error) throw new Error(`${method} failed: ${status} ${JSON.stringify(body)}`);
      return body.result;
    },
    async socket(key, { autoPong = true } = {}) {
      const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers: { 'x-api-key': key }, autoPong });
      const frames: Body[] = [];
      socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
      const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      return { socket, frames, closed };
    },
  };
}
