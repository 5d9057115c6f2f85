import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ERRORS, ManualClock, type ErrorCode } from '../../services/core/index.js';
import { reflectionTypes } from '../../services/grpc/reflection/index.js';
import { createKey, createOrganization, type Scope } from '../../services/identity/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../support/grpc-proxy-e2e.js';
import { call } from '../support/management-calls.js';
import { WARP_ENGINES, type WarpEngine } from '../support/warp-engines.js';

/**
 * One pipeline, every transport: the same key in the same state gets the same decision, in the
 * transport's form of the spec's code (HTTP status and `code`, gRPC status and `CODE:` message,
 * a WebSocket upgrade's HTTP answer or close code), with metering on and off. A copy of the
 * rules drifting on one transport shows up here as a row that disagrees.
 */
type Observed = string;
type Transport = (key: string | undefined) => Promise<Observed>;

const GRPC_NAMES = Object.fromEntries(Object.entries(grpc.status).filter(([, value]) => typeof value === 'number').map(([name, value]) => [value, name])) as Record<number, string>;

/**
 * The transport-neutral view of an answer: `ok`, or the spec's code when it is on the wire, or
 * the quoted message for the failures the spec answers without a code (a missing or invalid
 * key). The transport's own status must be the error table's, or the row shows the disagreement.
 */
function neutral(code: string | undefined, message: string, agrees: (definition: (typeof ERRORS)[ErrorCode]) => boolean, raw: string): Observed {
  const definitions = code !== undefined ? [ERRORS[code as ErrorCode]].filter(Boolean) : Object.values(ERRORS).filter((candidate) => candidate.wire === false);
  const name = code ?? `"${message}"`;
  return definitions.some(agrees) ? name : `${name} (${raw})`;
}

function httpForm(status: number, body: unknown): Observed {
  if (status < 400) return 'ok';
  const { code, error, message } = (body ?? {}) as { code?: string; error?: string; message?: string };
  return neutral(code, message ?? error ?? '', (definition) => definition.status === status, `HTTP ${status}`);
}

function grpcForm(status: number, message: string): Observed {
  if (status === grpc.status.OK) return 'ok';
  const prefixed = /^([A-Z_]+): (.*)$/.exec(message);
  return neutral(prefixed?.[1], prefixed ? prefixed[2]! : message, (definition) => definition.grpc === status, `gRPC ${GRPC_NAMES[status]}`);
}

describe.each([{ metering: 'on' }, { metering: 'off' }])('the pipeline decides alike on every transport (SUIGW_METERING=$metering)', ({ metering }) => {
  const on = metering === 'on';
  let e2e: GrpcProxyE2E;
  let engine: WarpEngine;
  let base: string;
  let streamId: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    engine = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
    e2e = await startGrpcProxyE2E({ env: { SUIGW_METERING: metering }, extra: { clock, warp: engine } });
    await e2e.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(e2e.gateway.app.server.address() as AddressInfo).port}/mainnet`;
    const created = await call(e2e.gateway, 'POST', '/v1/streams', { key: e2e.gateway.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await e2e.stop();
    await engine.close();
  });

  const headers = (key: string | undefined): Record<string, string> => (key ? { 'x-api-key': key } : {});
  const json = async (response: Response) => {
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };

  /** A WebSocket upgrade: refused over HTTP (status and body), or closed with a code (reason = the spec's code), or open. */
  const upgrade = (url: string, key: string | undefined) => new Promise<Observed>((resolve) => {
    const socket = new WebSocket(url, { headers: headers(key) });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => { text += String(chunk); });
      response.on('end', () => resolve(httpForm(response.statusCode ?? 0, text ? JSON.parse(text) : undefined)));
    });
    socket.on('open', () => setTimeout(() => {
      if (socket.readyState === socket.OPEN) {
        socket.close();
        resolve('ok');
      }
    }, 300));
    // Past the pipeline (admitted): what the stream says next (another organization's stream,
    // one already connected) is the capability's answer, not the pipeline's.
    socket.on('close', (code, reason) => resolve(code === 4001 || code === 4003 || code === 1008 ? String(reason) || `WS ${code}` : 'ok'));
    socket.on('error', () => undefined);
  });

  const reflection = (key: string | undefined) => new Promise<Observed>((resolve) => {
    const types = reflectionTypes('grpc.reflection.v1');
    const client = new grpc.Client(e2e.host, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    if (key) metadata.set('x-api-key', key);
    const stream = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      (request: Parameters<typeof types.Request.toBinary>[0]) => Buffer.from(types.Request.toBinary(request)),
      (bytes: Buffer) => types.Response.fromBinary(bytes),
      metadata,
    );
    stream.on('data', () => undefined);
    stream.on('error', () => undefined);
    stream.on('status', (status: grpc.StatusObject) => {
      client.close();
      resolve(grpcForm(status.code, status.details));
    });
    stream.write(types.Request.create({ host: '', messageRequest: { oneofKind: 'listServices', listServices: '' } }));
    stream.end();
  });

  const TRANSPORTS: Record<string, Transport> = {
    'REST': async (key) => {
      const response = await fetch(`${base}/v1/chain`, { headers: headers(key) });
      return httpForm(response.status, await json(response));
    },
    'JSON-RPC HTTP': async (key) => {
      const response = await fetch(`${base}/v1/jsonrpc`, {
        method: 'POST', headers: { ...headers(key), 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier' }),
      });
      return httpForm(response.status, await json(response));
    },
    'GraphQL': async (key) => {
      const response = await fetch(`${base}/v1/graphql`, {
        method: 'POST', headers: { ...headers(key), 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ chainIdentifier }' }),
      });
      return httpForm(response.status, await json(response));
    },
    'gRPC native': async (key) => {
      try {
        await e2e.native(key).ledgerService.getServiceInfo({}).response;
        return 'ok';
      } catch (error) {
        const { code, message } = error as { code: string; message: string };
        return grpcForm(grpc.status[code as keyof typeof grpc.status] as number, message);
      }
    },
    'gRPC-Web': async (key) => {
      try {
        await e2e.web(key).ledgerService.getServiceInfo({}).response;
        return 'ok';
      } catch (error) {
        const { code, message } = error as { code: string; message: string };
        return grpcForm(grpc.status[code as keyof typeof grpc.status] as number, decodeURIComponent(message));
      }
    },
    'gRPC reflection': reflection,
    'JSON-RPC WebSocket': (key) => upgrade(`${base.replace(/^http/, 'ws')}/v1/jsonrpc`, key),
    'Warp WebSocket': (key) => upgrade(`${base.replace(/^http/, 'ws')}/v1/warp/${streamId}/ws`, key),
    'Warp SSE': async (key) => {
      const aborted = new AbortController();
      const response = await fetch(`${base}/v1/warp/${streamId}/stream`, { headers: headers(key), signal: aborted.signal });
      const observed = response.status === 200 ? 'ok' : httpForm(response.status, await json(response));
      aborted.abort();
      return observed;
    },
  };

  /** A key of the gateway's organization (mainnet unless said), with every scope a transport needs unless said. */
  const keyOf = async (wanted: { scopes?: Scope[]; network?: 'testnet'; perKeyRps?: number } = {}) =>
    (await createKey(e2e.gateway.db.database, e2e.gateway.clock, { kind: 'operator' }, {
      organizationId: e2e.gateway.organizationId,
      projectId: wanted.network === 'testnet' ? e2e.gateway.projects.testnet : e2e.gateway.projects.mainnet,
      name: 'parity',
      scopes: wanted.scopes ?? ['data', 'streams'],
      expiresInDays: 30,
      ...(wanted.perKeyRps ? { rateLimit: { perKeyRps: wanted.perKeyRps } } : {}),
    }));

  /** What every transport answered for the same key. */
  const across = async (key: string | undefined): Promise<Record<string, Observed>> => {
    const observed: Record<string, Observed> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) observed[name] = await transport(key);
    return observed;
  };
  const everywhere = (observed: Observed) => Object.fromEntries(Object.keys(TRANSPORTS).map((name) => [name, observed]));

  it('a valid key: admitted everywhere', async () => {
    expect(await across((await keyOf()).apiKey)).toEqual(everywhere('ok'));
  });

  it('no key: 401 Missing API key everywhere (the spec sends no code)', async () => {
    expect(await across(undefined)).toEqual(everywhere('"Missing API key"'));
  });

  it('an unknown key: 401 Invalid API key everywhere', async () => {
    expect(await across(`svc_pat_${'x'.repeat(40)}`)).toEqual(everywhere('"Invalid API key"'));
  });

  it('a disabled key: 401 saying so everywhere', async () => {
    const key = await keyOf();
    expect((await call(e2e.gateway, 'DELETE', `/v1/keys/${key.id}`, { key: e2e.gateway.adminKey })).status).toBe(200);
    expect(await across(key.apiKey)).toEqual(everywhere('"This API key has been disabled."'));
  });

  it('an expired key: API_KEY_EXPIRED everywhere', async () => {
    const key = await keyOf();
    await e2e.gateway.db.database.db.updateTable('api_keys').set({ expires_at: new Date(clock.now() - 1_000) }).where('id', '=', key.id).execute();
    expect(await across(key.apiKey)).toEqual(everywhere('API_KEY_EXPIRED'));
  });

  it('a key of another network: NETWORK_MISMATCH everywhere', async () => {
    expect(await across((await keyOf({ network: 'testnet' })).apiKey)).toEqual(everywhere('NETWORK_MISMATCH'));
  });

  it('a key without the scope: INSUFFICIENT_SCOPE everywhere', async () => {
    expect(await across((await keyOf({ scopes: ['manage'] })).apiKey)).toEqual(everywhere('INSUFFICIENT_SCOPE'));
  });

  it(`a per-key cap of 1 a second: a burst of four is ${on ? 'one admitted, the rest RATE_LIMIT_EXCEEDED' : 'all admitted (nothing is limited)'}, everywhere`, async () => {
    const observed: Record<string, Observed[]> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) {
      const key = (await keyOf({ perKeyRps: 1 })).apiKey;
      observed[name] = (await Promise.all([1, 2, 3, 4].map(() => transport(key)))).sort();
    }
    const burst = on ? ['RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ok'] : ['ok', 'ok', 'ok', 'ok'];
    expect(observed).toEqual(Object.fromEntries(Object.keys(TRANSPORTS).map((name) => [name, burst])));
  });

  it(`an organization out of credits: ${on ? 'CU_QUOTA_EXCEEDED' : 'admitted (nothing is charged)'} everywhere`, async () => {
    const { database } = e2e.gateway.db;
    // A wallet organization has no monthly credits and nothing prepaid.
    const { organization, projects } = await createOrganization(database.db, e2e.gateway.clock, { name: 'Spent', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    const key = await createKey(database, e2e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'spent', scopes: ['data', 'streams'], expiresInDays: 30,
    });
    expect(await across(key.apiKey)).toEqual(everywhere(on ? 'CU_QUOTA_EXCEEDED' : 'ok'));
  });
});
