import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { call as managementCall } from '../support/management-calls.js';
import { startJsonRpcE2E, type JsonRpcE2E, type JsonRpcSocket } from '../support/jsonrpc-e2e.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC frames and error bodies, checked whole

/**
 * Every transaction is matched against every live subscription of the process, so one
 * organization's count of sockets and subscriptions is bounded per process, whatever its filters'
 * size: at the shipped defaults, 16 sockets (the 17th upgrade is 429 CONNECTION_LIMIT_REACHED)
 * and 256 subscriptions (the 257th is -32602 TOO_MANY_SUBSCRIPTIONS). Another organization is
 * not affected; a close or an unsubscribe gives the place back.
 */
describe('JSON-RPC WebSocket: sockets and subscriptions per organization', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();
  const open: JsonRpcSocket[] = [];
  let ids = 0;

  beforeAll(async () => {
    e = await startJsonRpcE2E({ extra: { jsonRpcFeeds: feeds } });
  }, 60_000);
  afterAll(async () => {
    for (const { socket } of open) socket.terminate();
    feeds.close();
    await e.stop();
  });

  async function organizationKey(name: string): Promise<string> {
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name, tier: 'business', projects: [{ name: 'D', network: 'mainnet' }] });
    return (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'], expiresInDays: 30,
    })).apiKey;
  }

  async function socketOf(key: string): Promise<JsonRpcSocket> {
    // Time moves between requests as it would for a client: the rate limits are not what is tested here.
    e.gateway.clock.advance(25);
    const socket = await e.socket(key);
    open.push(socket);
    return socket;
  }

  /** An upgrade's answer: 101 with the open socket, or the refusal's status and body. */
  function upgrade(key: string): Promise<{ status: number; body?: Body; open?: JsonRpcSocket }> {
    e.gateway.clock.advance(25);
    return new Promise((resolve) => {
      const socket = new WebSocket(e.url.replace(/^http/, 'ws'), { headers: { 'x-api-key': key } });
      const frames: Body[] = [];
      socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
      const closed = new Promise<{ code: number; reason: string }>((done) => socket.on('close', (code, reason) => done({ code, reason: reason.toString() })));
      socket.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
          socket.terminate();
        });
      });
      socket.once('open', () => {
        const opened = { socket, frames, closed };
        open.push(opened);
        resolve({ status: 101, open: opened });
      });
      socket.once('error', () => undefined);
    });
  }

  async function call({ socket, frames }: JsonRpcSocket, method: string, params: unknown): Promise<Body> {
    e.gateway.clock.advance(25);
    const id = ++ids;
    socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    // The first subscription of the process opens the upstream feed first.
    await expect.poll(() => frames.some((frame) => frame.id === id), { timeout: 15_000 }).toBe(true);
    return frames.find((frame) => frame.id === id);
  }

  const closed = async ({ socket, closed }: JsonRpcSocket) => {
    socket.close();
    await closed;
  };

  it('16 sockets per organization: the 17th upgrade is 429 CONNECTION_LIMIT_REACHED; another organization still connects; a close gives the place back', async () => {
    const key = await organizationKey('Sockets');
    const sockets: JsonRpcSocket[] = [];
    for (let i = 0; i < 16; i += 1) sockets.push(await socketOf(key));
    expect(await upgrade(key)).toEqual({
      status: 429,
      body: {
        error: 'Connection limit reached',
        message: 'at most 16 JSON-RPC WebSocket connections per organization are open on this server; close one first',
        code: 'CONNECTION_LIMIT_REACHED',
        requestId: expect.any(String),
      },
    });
    const other = await socketOf(await organizationKey('Neighbour'));
    expect((await call(other, 'suix_subscribeEvent', [{ All: [] }])).result).toEqual(expect.any(Number));
    await closed(sockets[0]!);
    // The server sees the connection end a moment after the client does.
    let again: JsonRpcSocket | undefined;
    await expect.poll(async () => (again = (await upgrade(key)).open), { timeout: 15_000 }).toBeDefined();
    expect((await call(again!, 'suix_subscribeEvent', [{ All: [] }])).result).toEqual(expect.any(Number));
    for (const socket of [...sockets.slice(1), again!, other]) await closed(socket);
  });

  it('a plain GET (426 UPGRADE_REQUIRED) takes no socket place, however many come over one kept-alive connection', async () => {
    const key = await organizationKey('Plain');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const plainGet = () => new Promise<{ status: number; code: string }>((resolve, reject) => {
      e.gateway.clock.advance(25);
      http.get(e.url, { agent, headers: { 'x-api-key': key } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, code: JSON.parse(text).code }));
      }).once('error', reject);
    });
    try {
      for (let i = 0; i < 17; i += 1) expect(await plainGet()).toEqual({ status: 426, code: 'UPGRADE_REQUIRED' });
      // The connection is still open: had the GETs held places, the organization would have none left.
      const upgraded = await upgrade(key);
      expect(upgraded.status).toBe(101);
      await closed(upgraded.open!);
    } finally {
      agent.destroy();
    }
  });

  it('256 subscriptions per organization over its sockets: the 257th is -32602 TOO_MANY_SUBSCRIPTIONS; another organization still subscribes; an unsubscribe or a close gives the place back', async () => {
    const key = await organizationKey('Subscriptions');
    const sockets: JsonRpcSocket[] = [];
    const held: number[] = [];
    for (let s = 0; s < 4; s += 1) {
      const socket = await socketOf(key);
      sockets.push(socket);
      for (let i = 0; i < 64; i += 1) held.push((await call(socket, 'suix_subscribeEvent', [{ All: [] }])).result);
    }
    expect(held.every((id) => typeof id === 'number')).toBe(true);
    const fifth = await socketOf(key);
    const refused = await call(fifth, 'suix_subscribeTransaction', [{ FromAddress: e.address('alice') }]);
    expect(refused).toEqual({
      jsonrpc: '2.0', id: refused.id, error: {
        code: -32602, message: 'Invalid params: at most 256 subscriptions per organization',
        data: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 'subscriptionsPerOrganization', max: 256 },
      },
    });
    const other = await socketOf(await organizationKey('Other'));
    expect((await call(other, 'suix_subscribeEvent', [{ All: [] }])).result).toEqual(expect.any(Number));
    expect((await call(sockets[0]!, 'suix_unsubscribeEvent', [held[0]])).result).toBe(true);
    expect((await call(fifth, 'suix_subscribeEvent', [{ All: [] }])).result).toEqual(expect.any(Number));
    expect((await call(fifth, 'suix_subscribeEvent', [{ All: [] }])).error.data.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    // A closed socket's 63 subscriptions go back at once.
    await closed(sockets[0]!);
    await expect.poll(async () => (await call(fifth, 'suix_subscribeEvent', [{ All: [] }])).result, { timeout: 15_000 }).toEqual(expect.any(Number));
    for (const socket of [...sockets.slice(1), fifth, other]) await closed(socket);
  });
});

/**
 * A subscribe call is charged before it runs, and the charge authenticates the key again, which
 * may wait on PostgreSQL (its cache entry expired). A socket that closes meanwhile has given its
 * places back already: the subscription its call then made was held for good, by nobody, so an
 * organization with other sockets open lost a place for each such race (and the feed kept a
 * listener for a closed socket) until the process ended.
 */
describe('JSON-RPC WebSocket: a socket closed while its subscribe call is charged', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();

  beforeAll(async () => {
    e = await startJsonRpcE2E({
      env: { SUIGW_JSONRPC_WS_MAX_SOCKETS_PER_ORGANIZATION: '2', SUIGW_JSONRPC_WS_MAX_SUBSCRIPTIONS_PER_ORGANIZATION: '1' },
      extra: { jsonRpcFeeds: feeds },
    });
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  /** An upgrade with `key`: the open socket, or undefined when it is refused. */
  function upgrade(key: string): Promise<JsonRpcSocket | undefined> {
    return new Promise((resolve) => {
      const socket = new WebSocket(e.url.replace(/^http/, 'ws'), { headers: { 'x-api-key': key } });
      const frames: Body[] = [];
      socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
      const closed = new Promise<{ code: number; reason: string }>((done) => socket.on('close', (code, reason) => done({ code, reason: reason.toString() })));
      socket.once('unexpected-response', () => {
        socket.terminate();
        resolve(undefined);
      });
      socket.once('open', () => resolve({ socket, frames, closed }));
      socket.once('error', () => undefined);
    });
  }

  it('holds nothing: the organization\'s next socket still subscribes', async () => {
    const { database } = e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e.gateway.clock, { name: 'Racer', tier: 'business', projects: [{ name: 'D', network: 'mainnet' }] });
    const keyOf = async (name: string) => (await createKey(database, e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name, scopes: ['data', 'manage'], expiresInDays: 30,
    })).apiKey;
    const [racing, next, another] = [await keyOf('racing'), await keyOf('next'), await keyOf('another')];
    // Another socket of the organization stays open throughout, as a client's other sockets would.
    const other = await upgrade(another);
    const first = await upgrade(racing);
    expect([other, first].every((socket) => socket !== undefined)).toBe(true);
    // The next key is cached 2 s after the racing one: once the clock is past the racing key's
    // 3 s (SUIGW_KEY_CACHE_TTL_MS), its check goes to PostgreSQL, which waits on the lock, while
    // the next key still answers from the cache.
    e.gateway.clock.advance(2_000);
    expect((await managementCall(e.gateway, 'GET', '/v1/auth/me', { key: next })).status).toBe(200);
    const locker = new pg.Client({ connectionString: e.gateway.db.url });
    await locker.connect();
    let second: JsonRpcSocket | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      e.gateway.clock.advance(1_100);
      // Written before the socket is cut, so the server reads the call, then the close.
      await new Promise<void>((resolve, reject) => first!.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] }), (error) => (error ? reject(error) : resolve())));
      first!.socket.terminate();
      // The organization's second socket place is free once the server has seen the close.
      await expect.poll(async () => (second = await upgrade(next)), { timeout: 15_000 }).toBeDefined();
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    // The cut socket's call has been charged (and so has run) once its usage row is there.
    await expect.poll(async () => {
      const usage = await managementCall(e.gateway, 'GET', '/v1/usage', { key: next });
      return (usage.body.data as { routes: { route: string; requests: number }[] }).routes.find((row) => row.route === 'WS /v1/jsonrpc')?.requests;
    }, { timeout: 15_000 }).toBe(1);
    second!.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    await expect.poll(() => second!.frames.find((frame) => frame.id === 2), { timeout: 15_000 }).toBeDefined();
    expect(second!.frames.find((frame) => frame.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: expect.any(Number) });
    for (const socket of [second!, other!]) {
      socket.socket.close();
      await socket.closed;
    }
  });
});
