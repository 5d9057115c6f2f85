import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../core/index.js';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { MemoryStreamLease } from './stream-lease.js';

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
    const clock = new ManualClock();
    log = new MemoryStreamLog(clock);
    t = await createTestApp({ tier: 'wallet', extra: { clock, warp: { log, lease: new MemoryStreamLease(clock) } } });
    // 10 micro-USD per credit (docs/metering.md): 50 micro-USD = 5 credits, before the ledger first reads the organization.
    await t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 50n }).where('id', '=', t.organizationId).execute();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    streamId = (created.body.data as { id: string }).id;
    url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mainnet/v1/warp/${streamId}/ws?mode=resume`;
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
