import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

/** Opens a WebSocket and collects its messages until it closes. */
async function session(url: string, key: string): Promise<{ messages: { event: string; data: unknown }[]; close: Promise<{ code: number; reason: string }>; socket: WebSocket }> {
  const socket = new WebSocket(url, { headers: { 'x-api-key': key } });
  const messages: { event: string; data: unknown }[] = [];
  socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as { event: string; data: unknown }));
  const close = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
  });
  return { messages, close, socket };
}

/**
 * The plan-end pause for streams (the rule webhooks use): on Team (5 streams) the organization
 * holds 2; its plan ends (Free: 1); the newer stream refuses connections with STREAM_PAUSED.
 */
describe('Warp streams above the plan’s count pause when the plan ends', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let base: string;
  const ids: string[] = [];

  const setSubscription = async (status: string) => {
    await t.db.database.db.updateTable('organizations').set({ subscription_plan: 'team', subscription_status: status }).where('id', '=', t.organizationId).execute();
    clock.advance(t.config.keyCacheTtlMs);
  };

  beforeAll(async () => {
    t = await createTestApp({ tier: 'free', extra: { clock, warp: { log: new MemoryStreamLog(clock), lease: new MemoryStreamLease(clock) } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp`;
    await setSubscription('active');
    for (const name of ['older', 'newer']) {
      const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
      expect(created.status).toBe(201);
      ids.push((created.body.data as { id: string }).id);
    }
  });
  afterAll(async () => t.close());

  it('the newer stream answers error STREAM_PAUSED and closes 4003; the older connects; both again once the plan allows', async () => {
    await setSubscription('ended');
    const paused = await session(`${base}/${ids[1]}/ws`, t.adminKey);
    expect(await paused.close).toEqual({ code: 4003, reason: 'STREAM_PAUSED' });
    expect(paused.messages).toEqual([{ event: 'error', data: { code: 'STREAM_PAUSED', message: 'The stream is beyond the plan’s stream count (paused); upgrade or delete older streams.' } }]);

    const kept = await session(`${base}/${ids[0]}/ws`, t.adminKey);
    await expect.poll(() => kept.messages[0]?.event).toBe('connected');
    kept.socket.close();
    await kept.close;

    await setSubscription('active');
    const resumed = await session(`${base}/${ids[1]}/ws`, t.adminKey);
    await expect.poll(() => resumed.messages[0]?.event).toBe('connected');
    resumed.socket.close();
    await resumed.close;
  });

  it('a connection open when the plan ends stops: the paused stream gets error STREAM_PAUSED and closes 4003; the older stays open', async () => {
    await setSubscription('active');
    const kept = await session(`${base}/${ids[0]}/ws`, t.adminKey);
    const paused = await session(`${base}/${ids[1]}/ws`, t.adminKey);
    await expect.poll(() => [kept.messages[0]?.event, paused.messages[0]?.event]).toEqual(['connected', 'connected']);

    // Before, a connection open when the plan ended kept delivering until its client left.
    await setSubscription('ended');
    expect(await paused.close).toEqual({ code: 4003, reason: 'STREAM_PAUSED' });
    expect(paused.messages.slice(1)).toEqual([{ event: 'error', data: { code: 'STREAM_PAUSED', message: 'The stream is beyond the plan’s stream count (paused); upgrade or delete older streams.' } }]);
    expect(kept.socket.readyState).toBe(WebSocket.OPEN);
    kept.socket.close();
    await kept.close;
  });
});
