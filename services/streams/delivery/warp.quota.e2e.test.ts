import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

/** A wallet organization with 5 prepaid credits, listening, with one coin stream and its resume URL. */
async function walletWithFiveCredits(): Promise<{ t: TestApp; log: MemoryStreamLog; url: string; streamId: string }> {
  const clock = new ManualClock();
  const log = new MemoryStreamLog(clock);
  const t = await createTestApp({ tier: 'wallet', extra: { clock, warp: { log, lease: new MemoryStreamLease(clock) } } });
  // 10 micro-USD per credit (docs/metering.md): 50 micro-USD = 5 credits, before the ledger first reads the organization.
  await t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 50n }).where('id', '=', t.organizationId).execute();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
  const streamId = (created.body.data as { id: string }).id;
  const url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp/${streamId}/ws?mode=resume`;
  return { t, log, url, streamId };
}

/**
 * Credits end mid-stream: a wallet organization (no monthly credits) with 5 prepaid credits pays
 * 1 for the connection, 1 for its first minute and 1 per event: the 4th event is quota_exceeded,
 * then close 1008 QUOTA_EXCEEDED, and the undelivered event stays buffered.
 */
describe('Warp WebSocket when credits run out', () => {
  let t: TestApp;
  let log: MemoryStreamLog;
  let url: string;
  let streamId: string;
  beforeAll(async () => {
    ({ t, log, url, streamId } = await walletWithFiveCredits());
  });
  afterAll(async () => t.close());

  it('three events, then quota_exceeded and close 1008 QUOTA_EXCEEDED; the rest stays buffered', async () => {
    await log.append(streamId, Array.from({ length: 6 }, (_, n) => ({ kind: 'coin' as const, data: { n } })));
    const socket = new WebSocket(url, { headers: { 'x-api-key': t.adminKey } });
    const messages: { event: string; id?: string; data: unknown }[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as { event: string; data: unknown }));
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    expect(closed).toEqual({ code: 1008, reason: 'QUOTA_EXCEEDED' });
    expect(messages.map((m) => m.event)).toEqual(['connected', 'coin', 'coin', 'coin', 'quota_exceeded']);
    expect(messages.at(-1)!.data).toEqual({ code: 'CU_QUOTA_EXCEEDED', message: 'Monthly credits spent' });
    // Nothing was acked: the three delivered and the three never sent all wait for a resume.
    expect((await log.readPending(streamId, undefined, 10)).map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

/**
 * The client's acks of the events it received reach the server after `quota_exceeded` (sent
 * when it read that message, before the close). Before, the quota ended the session and dropped
 * them: three events the client had acknowledged were sent again on its resume. Now sending stops
 * and acks are taken until the connection closes, each charged from the credit held for its event.
 */
describe('Warp WebSocket acks after quota_exceeded', () => {
  let t: TestApp;
  let log: MemoryStreamLog;
  let url: string;
  let streamId: string;
  beforeAll(async () => {
    ({ t, log, url, streamId } = await walletWithFiveCredits());
  });
  afterAll(async () => t.close());

  const usageRoutes = async () => {
    const response = await call(t, 'GET', '/v1/usage', { key: t.adminKey });
    expect(response.status).toBe(200);
    return (response.body.data as { routes: { route: string; requests: number; credits: number }[] }).routes;
  };

  it('acks sent on reading quota_exceeded are taken: those events are delivered and charged from their held credits; the rest stays pending', async () => {
    await log.append(streamId, Array.from({ length: 6 }, (_, n) => ({ kind: 'coin' as const, data: { n } })));
    const socket = new WebSocket(url, { headers: { 'x-api-key': t.adminKey } });
    const messages: { event: string; id?: string; data: unknown }[] = [];
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { event: string; id?: string; data: unknown };
      messages.push(message);
      if (message.event !== 'quota_exceeded') return;
      for (const { id } of messages) if (id !== undefined) socket.send(JSON.stringify({ type: 'ack', id }));
    });
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    expect(closed).toEqual({ code: 1008, reason: 'QUOTA_EXCEEDED' });
    expect(messages.map((m) => m.event)).toEqual(['connected', 'coin', 'coin', 'coin', 'quota_exceeded']);
    await expect.poll(async () => (await log.readPending(streamId, undefined, 10)).map((e) => (e.data as { n: number }).n), { timeout: 10_000 }).toEqual([3, 4, 5]);
    // 5 credits: the connect, its first minute and the three acknowledged events; nothing beyond.
    await expect.poll(usageRoutes, { timeout: 10_000 }).toEqual([
      { network: 'mainnet', route: 'GET /v1/warp/:id/ws', requests: 1, credits: 1 },
      { network: 'mainnet', route: 'WARP connection minute', requests: 1, credits: 1 },
      { network: 'mainnet', route: 'WARP event', requests: 3, credits: 3 },
    ]);
  });
});
