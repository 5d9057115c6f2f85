import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { MemoryStreamLog } from '../log/stream-log.memory.js';
import { DeliverySession, type StreamMessage } from './delivery-session.js';
import type { EventCharges } from './warp-charges.js';

/** A balance of `credits` as the meter keeps it for a WebSocket: held on send, charged from the hold on ack, given back. */
class Balance implements EventCharges {
  held = 0;
  charged = 0;
  /** Acks charged with no held credit behind them: taken from the balance, never the rule after a quota. */
  beyondHeld = 0;

  constructor(public credits: number) {}

  async beforeSend(): Promise<boolean> {
    if (this.credits === 0) return false;
    this.credits -= 1;
    this.held += 1;
    return true;
  }

  async acked(count: number): Promise<void> {
    const fromHold = Math.min(count, this.held);
    this.held -= fromHold;
    this.beyondHeld += count - fromHold;
    this.charged += count;
  }

  release(count: number): void {
    this.held -= count;
    this.credits += count;
  }
}

/**
 * Credits run out in the middle of a WebSocket's delivery: `quota_exceeded`, then the close. The
 * client's acks of the events it received arrive after that message; they are taken until the
 * session stops, each charged from the credit held for its event and from nothing else.
 */
describe('DeliverySession when credits run out', () => {
  async function spentAfter(credits: number) {
    const clock = new ManualClock();
    const log = new MemoryStreamLog(clock);
    await log.append('s', Array.from({ length: 5 }, (_, n) => ({ kind: 'coin' as const, data: { n } })));
    const sent: StreamMessage[] = [];
    const closes: string[] = [];
    const balance = new Balance(credits);
    const session = new DeliverySession({
      streamId: 's', log, clock, acks: 'client', charges: balance,
      sink: { send: async (message) => { sent.push(message); }, close: (_code, reason) => closes.push(reason), heartbeat: () => undefined },
    });
    await session.begin(await session.prepare('resume', undefined));
    await expect.poll(() => sent.at(-1)?.event).toBe('quota_exceeded');
    const ids = sent.flatMap((message) => (message.id === undefined ? [] : [message.id]));
    const pending = async () => (await log.readPending('s', undefined, 10)).map((entry) => (entry.data as { n: number }).n);
    return { session, sent, closes, balance, ids, pending };
  }

  it('acks after quota_exceeded are taken and charged from their held credits; nothing more is sent', async () => {
    const { session, sent, closes, balance, ids, pending } = await spentAfter(3);
    expect(sent.map((message) => message.event)).toEqual(['coin', 'coin', 'coin', 'quota_exceeded']);
    expect(closes).toEqual(['QUOTA_EXCEEDED']);
    for (const id of ids) await session.ack(id);
    session.stop();
    expect(sent.map((message) => message.event)).toEqual(['coin', 'coin', 'coin', 'quota_exceeded']);
    expect(await pending()).toEqual([3, 4]);
    expect({ credits: balance.credits, held: balance.held, charged: balance.charged, beyondHeld: balance.beyondHeld }).toEqual({ credits: 0, held: 0, charged: 3, beyondHeld: 0 });
  });

  it('an ack still on its way to the log when the session stops keeps its credit; the rest is given back; later acks are ignored', async () => {
    const { session, balance, ids, pending } = await spentAfter(3);
    const acking = session.ack(ids[0]!);
    session.stop();
    await acking;
    await session.ack(ids[1]!);
    expect(await pending()).toEqual([1, 2, 3, 4]);
    expect({ credits: balance.credits, held: balance.held, charged: balance.charged, beyondHeld: balance.beyondHeld }).toEqual({ credits: 2, held: 0, charged: 1, beyondHeld: 0 });
  });
});
