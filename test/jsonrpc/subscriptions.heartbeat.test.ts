import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_MS } from '../../services/core/index.js';
import { CheckpointFeeds } from '../../services/jsonrpc/index.js';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * A subscriber that vanished without closing (machine asleep, network gone) answers nothing.
 * Before, nothing checked the peer: its socket stayed open for good, its subscriptions kept their
 * filter budget and every notification sent into the void was charged. Now every HEARTBEAT_MS (on
 * the gateway's clock) the socket is pinged, and ended when the previous ping went unanswered.
 */
describe('JSON-RPC WebSocket heartbeats', () => {
  let e: JsonRpcE2E;
  const feeds = new CheckpointFeeds();

  beforeAll(async () => {
    e = await startJsonRpcE2E({ extra: { jsonRpcFeeds: feeds } });
  }, 60_000);
  afterAll(async () => {
    feeds.close();
    await e.stop();
  });

  async function subscribed(autoPong: boolean) {
    const client = await e.socket(e.gateway.adminKey, { autoPong });
    let pings = 0;
    client.socket.on('ping', () => { pings += 1; });
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_subscribeEvent', params: [{ All: [] }] }));
    await expect.poll(() => client.frames.length, { timeout: 10_000 }).toBe(1);
    expect(client.frames[0]).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    return { ...client, pings: () => pings };
  }

  it('a socket that answers no ping is ended after two heartbeats', async () => {
    const gone = await subscribed(false);
    let closed: { code: number } | undefined;
    void gone.closed.then(({ code }) => { closed = { code }; });
    e.gateway.clock.advance(HEARTBEAT_MS);
    await expect.poll(() => gone.pings(), { timeout: 10_000 }).toBe(1);
    expect(closed).toBeUndefined();
    e.gateway.clock.advance(HEARTBEAT_MS);
    expect(await gone.closed).toEqual({ code: 1006, reason: '' });
  });

  it('a socket that answers its pings stays open', async () => {
    const alive = await subscribed(true);
    for (let beat = 1; beat <= 3; beat += 1) {
      e.gateway.clock.advance(HEARTBEAT_MS);
      await expect.poll(() => alive.pings(), { timeout: 10_000 }).toBe(beat);
      // The gateway has read our pong once it answers a ping sent after it (frames arrive in order).
      await new Promise((resolve) => {
        alive.socket.once('pong', resolve);
        alive.socket.ping();
      });
    }
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    alive.socket.close();
    expect((await alive.closed).code).toBe(1005);
  });
});
