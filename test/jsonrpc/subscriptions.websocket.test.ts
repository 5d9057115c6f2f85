import { fromBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { CONNECTION_FILTER_LIMITS, FILTER_LIMITS, ORGANIZATION_FILTER_LIMITS } from '../../services/streams/index.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';
import { checkResult } from './legacy-result-schemas.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC frames, checked field by field

/** A real `ws` client on the WebSocket of /v1/jsonrpc: frames queue until read. */
class Client {
  readonly frames: Body[] = [];
  readonly #waiters: (() => void)[] = [];
  closed: { code: number; reason: string } | undefined;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()));
      this.#waiters.splice(0).forEach((wake) => wake());
    });
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#waiters.splice(0).forEach((wake) => wake());
    });
  }

  static async open(url: string, headers: Record<string, string>): Promise<Client> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new Client(socket);
  }

  /** The first queued frame matching `match`, waiting for it (the test's own timeout bounds the wait). */
  async next(match: (frame: Body) => boolean): Promise<Body> {
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index >= 0) return this.frames.splice(index, 1)[0];
      if (this.closed) throw new Error(`socket closed: ${JSON.stringify(this.closed)}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async call(id: number, method: string, params: unknown): Promise<Body> {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.next((frame) => frame.id === id);
  }

  async whenClosed(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.closed;
  }
}

describe('JSON-RPC subscriptions over the WebSocket of /v1/jsonrpc', () => {
  let e: JsonRpcE2E;
  let wsUrl: string;
  let alice: string;
  let bob: string;
  const clients: Client[] = [];
  const feeds = new CheckpointFeeds();
  const open = async (headers: Record<string, string> = { 'x-api-key': e.gateway.adminKey }) => {
    const client = await Client.open(wsUrl, headers);
    clients.push(client);
    return client;
  };
  /** A transfer alice → bob built and executed through the gateway over HTTP. */
  const transfer = async (amount: string): Promise<string> => {
    const coins = (await e.call('suix_getCoins', [alice])).data;
    const built = await e.call('unsafe_paySui', [alice, [coins[0].coinObjectId], [bob], [amount], '10000000']);
    const keypair = e.simnet.accounts.find((a) => a.label === 'alice')!.keypair;
    const { signature } = await keypair.signTransaction(fromBase64(built.txBytes));
    const executed = await e.call('sui_executeTransactionBlock', [built.txBytes, [signature], {}, 'WaitForLocalExecution']);
    e.simnet.seal();
    return executed.digest;
  };

  beforeAll(async () => {
    // Generated traffic (with events) from accounts other than alice and bob.
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 1 }, extra: { jsonRpcFeeds: feeds } });
    wsUrl = e.url.replace(/^http/, 'ws');
    alice = e.address('alice');
    bob = e.address('bob');
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    feeds.close();
    await e.stop();
  });

  it('suix_subscribeTransaction: a transaction executed meanwhile arrives as the node\'s notification, then unsubscribe stops it', async () => {
    const client = await open();
    const subscribed = await client.call(1, 'suix_subscribeTransaction', [{ FromAddress: alice }]);
    expect(subscribed).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    const subscription = subscribed.result;

    const digest = await transfer('11');
    const notification = await client.next((frame) => frame.method === 'suix_subscribeTransaction');
    expect(Object.keys(notification).sort()).toEqual(['jsonrpc', 'method', 'params']);
    expect(notification.params.subscription).toBe(subscription);
    expect(notification.params.result.transactionDigest).toBe(digest);
    expect(checkResult('suix_subscribeTransaction', notification.params.result)).toBeNull();

    expect(await client.call(2, 'suix_unsubscribeTransaction', [subscription])).toEqual({ jsonrpc: '2.0', id: 2, result: true });
    expect(await client.call(3, 'suix_unsubscribeTransaction', [subscription])).toEqual({ jsonrpc: '2.0', id: 3, result: false });
    await transfer('12');
    // A call answered after the transfer's checkpoint shows no notification slipped in meanwhile.
    await client.call(4, 'suix_unsubscribeEvent', [1]);
    expect(client.frames.filter((frame) => frame.method)).toEqual([]);
  });

  it('suix_subscribeEvent filters events and validates them against the document', async () => {
    const client = await open();
    const { result: subscription } = await client.call(1, 'suix_subscribeEvent', [{ All: [] }]);
    const { result: none } = await client.call(2, 'suix_subscribeEvent', { filter: { Sender: '0x1234' } });
    const notification = await client.next((frame) => frame.method === 'suix_subscribeEvent');
    expect(notification.params.subscription).toBe(subscription);
    expect(checkResult('suix_subscribeEvent', notification.params.result)).toBeNull();
    expect(client.frames.filter((frame) => frame.params?.subscription === none)).toEqual([]);
  });

  it('all sockets of a network share one upstream checkpoint stream', async () => {
    const { opened, listeners } = feeds.of('mainnet', e.upstream);
    const a = await open();
    const b = await open();
    await a.call(1, 'suix_subscribeTransaction', [{ ToAddress: bob }]);
    await b.call(1, 'suix_subscribeTransaction', [{ ToAddress: bob }]);
    const digest = await transfer('13');
    const [na, nb] = await Promise.all([
      a.next((frame) => frame.params?.result?.transactionDigest === digest),
      b.next((frame) => frame.params?.result?.transactionDigest === digest),
    ]);
    expect(na.params.result).toEqual(nb.params.result);
    // One upstream stream per network for the whole process, whatever the number of sockets.
    const feed = feeds.of('mainnet', e.upstream);
    expect(feed.opened).toBe(opened + (listeners > 0 ? 0 : 1));
    expect(feed.listeners).toBe(listeners + 2);
  });

  it('filters are checked as over HTTP: an All with filters in it, a value of the wrong form and deep nesting are -32602, never a subscription', async () => {
    const client = await open();
    const invalid = (id: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32602, message, ...(data ? { data } : {}) } });
    // `All` takes no filters (the document's maxItems: 0); it once subscribed to every event.
    expect(await client.call(1, 'suix_subscribeEvent', [{ All: [{ Sender: alice }] }])).toEqual(invalid(1, "Invalid params: param 'filter' must NOT have more than 0 items at /All"));
    expect(await client.call(2, 'suix_subscribeEvent', [{ Sender: 'zz' }])).toEqual(invalid(2, 'Invalid params: param \'filter\' must match format "sui-address" at /Sender'));
    expect(await client.call(3, 'suix_subscribeEvent', [{ Transaction: 'not-a-digest' }])).toEqual(invalid(3, 'Invalid params: param \'filter\' must match format "base58-digest" at /Transaction'));
    expect(await client.call(4, 'suix_subscribeEvent', [{ MoveEventType: '!!' }])).toEqual(invalid(4, 'Invalid params: MoveEventType: Invalid struct type: !!. Got error: unrecognized token: !!'));
    expect(await client.call(5, 'suix_subscribeTransaction', [{ Checkpoint: 'abc' }])).toEqual(invalid(5, 'Invalid params: Checkpoint is not a u64'));
    // 3,000 levels in 24 KiB: written as text, since JSON.stringify itself would overflow the stack.
    const deep = `${'{"Any":['.repeat(3_000)}{"Sender":"${alice}"}${']}'.repeat(3_000)}`;
    client.socket.send(`{"jsonrpc":"2.0","id":6,"method":"suix_subscribeEvent","params":[${deep}]}`);
    expect(await client.next((frame) => frame.id === 6)).toEqual(invalid(6, 'Invalid params: params nest deeper than 32 levels', { code: 'PARAMS_TOO_DEEP', max: 32 }));
    expect(await client.call(7, 'suix_subscribeEvent', [{ Any: [{ Any: [{ Any: [{ Any: [{ Sender: alice }] }] }] }] }])).toEqual(invalid(7,
      'Invalid params: the filter exceeds 4 levels of nesting (limit: depthPerFilter)', { code: 'FILTER_LIMIT_EXCEEDED', limit: 'depthPerFilter', max: 4 }));
    expect(client.frames).toEqual([]);
  });

  it('the envelope is read as over HTTP: a notification is not answered nor run, a bad id or an empty batch is -32600', async () => {
    const client = await open();
    const listeners = feeds.of('mainnet', e.upstream).listeners;
    // A subscription nobody could know the id of would notify (and charge) forever.
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    expect(await client.next(() => true)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: `id` must be a string, a number or null' } });
    client.socket.send('[]');
    expect(await client.next(() => true)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: empty batch' } });
    // A subscription made and ended after them: had the notification subscribed, the socket would still listen.
    const made = await client.call(1, 'suix_subscribeEvent', [{ Sender: alice }]);
    expect(await client.call(2, 'suix_unsubscribeEvent', [made.result])).toEqual({ jsonrpc: '2.0', id: 2, result: true });
    expect(feeds.of('mainnet', e.upstream).listeners).toBe(listeners);
    expect(client.frames).toEqual([]);
  });

  it('JSON that is not a call (null, a number, a string, true) is -32600, alone or in a batch, and the socket stays open', async () => {
    const client = await open();
    const notAnObject = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a request must be an object' } };
    for (const frame of ['null', '42', '"suix_subscribeEvent"', 'true']) {
      client.socket.send(frame);
      expect(await client.next(() => true)).toEqual(notAnObject);
    }
    client.socket.send('[null,42]');
    expect([await client.next(() => true), await client.next(() => true)]).toEqual([notAnObject, notAnObject]);
    expect(await client.call(3, 'suix_unsubscribeEvent', [1])).toEqual({ jsonrpc: '2.0', id: 3, result: false });
    expect(client.closed).toBeUndefined();
  });

  it('errors: bad filter -32602, unknown method -32601, malformed frame -32700, all with the id echoed', async () => {
    const client = await open();
    expect(await client.call(7, 'suix_subscribeEvent', [{ NoSuchFilter: 1 }])).toEqual({
      jsonrpc: '2.0', id: 7, error: {
        code: -32602,
        message: "Invalid params: param 'filter' has an unknown variant 'NoSuchFilter' (one of All, Any, Sender, Transaction, MoveModule, MoveEventType, MoveEventModule, TimeRange)",
      },
    });
    expect(await client.call(8, 'suix_subscribeTransaction', [])).toEqual({
      jsonrpc: '2.0', id: 8, error: { code: -32602, message: "Invalid params: missing required param 'filter'" },
    });
    expect(await client.call(9, 'suix_getBalance', [alice])).toEqual({
      jsonrpc: '2.0', id: 9, error: {
        code: -32601, message: 'Method not found: suix_getBalance',
        data: { reason: 'the WebSocket of /v1/jsonrpc serves subscriptions; send other methods with POST /v1/jsonrpc' },
      },
    });
    client.socket.send('{"jsonrpc":');
    expect(await client.next((frame) => frame.error?.code === -32700)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('filter limits over the socket: a filter past a limit is -32602 naming it; the socket\'s and the organization\'s bytes are bounded, and freed by unsubscribe', async () => {
    // An organization of its own, so the other tests' subscriptions count toward nothing here.
    const { gateway } = e;
    const seeded = await createOrganization(gateway.db.database.db, gateway.clock, { name: 'Filters', tier: 'business', projects: [{ name: 'Default', network: 'mainnet' }] });
    const { apiKey } = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'filters', scopes: ['data'], expiresInDays: 30,
    });
    const ownOpen = () => {
      gateway.clock.advance(100);
      return open({ 'x-api-key': apiKey });
    };
    const client = await ownOpen();
    const tooManyParts = { Any: Array.from({ length: FILTER_LIMITS.maxParts }, () => ({ Sender: alice })) };
    expect(await client.call(1, 'suix_subscribeEvent', [tooManyParts])).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: the filter exceeds 200 parts (limit: partsPerFilter)', data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'partsPerFilter', max: 200 } },
    });
    // Filters of exactly the per-filter byte limit ({"MoveEventType":"…"}: 20 bytes around a long event type).
    const full = (n: number) => ({ MoveEventType: `0x2::m${n}::`.padEnd(FILTER_LIMITS.maxBytes - 20, 'T') });
    const perSocket = CONNECTION_FILTER_LIMITS.maxBytes / FILTER_LIMITS.maxBytes;
    const sockets = [client];
    while (sockets.length < ORGANIZATION_FILTER_LIMITS.maxBytes / CONNECTION_FILTER_LIMITS.maxBytes) sockets.push(await ownOpen());
    const held: [Client, number][] = [];
    for (const [s, socket] of sockets.entries()) {
      for (let i = 0; i < perSocket; i += 1) {
        // Time moves between calls as it would for a client: the rate limits are not what is tested here.
        gateway.clock.advance(100);
        const answer = await socket.call(10 + i, 'suix_subscribeEvent', [full(s * 100 + i)]);
        expect(answer.result).toEqual(expect.any(Number));
        held.push([socket, answer.result]);
      }
      if (s === 0) {
        expect(await socket.call(99, 'suix_subscribeEvent', [full(99)])).toEqual({
          jsonrpc: '2.0', id: 99, error: { code: -32602, message: "Invalid params: the filter exceeds 262144 bytes over the socket's subscriptions (limit: bytesPerSocket)", data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'bytesPerSocket', max: 262144 } },
        });
      }
    }
    // The organization holds 1 MiB on four sockets: a fifth socket's first filter is refused.
    const fifth = await ownOpen();
    expect(await fifth.call(1, 'suix_subscribeEvent', [{ Sender: alice }])).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Invalid params: the filter exceeds 1048576 bytes over the organization's subscriptions (limit: bytesPerOrganization)", data: { code: 'FILTER_LIMIT_EXCEEDED', limit: 'bytesPerOrganization', max: 1048576 } },
    });
    const [owner, subscription] = held[0]!;
    gateway.clock.advance(100);
    expect(await owner.call(2, 'suix_unsubscribeEvent', [subscription])).toEqual({ jsonrpc: '2.0', id: 2, result: true });
    gateway.clock.advance(100);
    expect((await fifth.call(3, 'suix_subscribeEvent', [{ Sender: alice }])).result).toEqual(expect.any(Number));
    for (const socket of [...sockets, fifth]) socket.socket.close();
  });

  it('the upgrade is authenticated like every data route: no key or a bad key is refused with HTTP 401 (and the socket freed); the api_key query works', async () => {
    const refusal = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(wsUrl, { headers });
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.once('open', () => reject(new Error('upgraded without a valid key')));
      socket.once('error', () => undefined);
    });
    expect(await refusal({})).toBe(401);
    expect(await refusal({ 'x-api-key': 'svc_pat_not-a-key' })).toBe(401);
    // The spec's compatibility query parameter works on the upgrade too.
    const viaQuery = await Client.open(`${wsUrl}?api_key=${e.gateway.adminKey}`, {});
    clients.push(viaQuery);
    expect((await viaQuery.call(1, 'suix_subscribeEvent', [{ All: [] }])).result).toEqual(expect.any(Number));
  });

  it('over plain HTTP the subscriptions answer as a node (jsonrpsee) does: -32601 Method not found', async () => {
    for (const [id, method] of [[5, 'suix_subscribeEvent'], [6, 'suix_subscribeTransaction'], [7, 'suix_unsubscribeEvent']] as const) {
      const { status, body } = await e.send({ jsonrpc: '2.0', id, method, params: [{ All: [] }] });
      expect(status).toBe(200);
      expect(body).toEqual({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
    }
  });
});
