import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';

const MINUTE = 60_000;
/** Mid-month, 30 seconds into a minute, and the 1st of the month, half an hour after the credits replenished. */
const MID_MONTH = Date.UTC(2026, 10, 22, 12, 0, 30);
const FIRST_OF_MONTH = Date.UTC(2026, 11, 1, 0, 30, 30);

/**
 * GET /v1/usage without dates: a window each interval accepts. The month so far (the old default
 * for every interval) is over a day of minutes on every day but the 1st, so `interval=minute`
 * was a 400 there; minutes now default to the last 60 whole minutes up to `to`.
 */
describe('GET /v1/usage: the default period of each interval', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Metering off: these tests move the clock back and forth between months, which the
    // management allowance (a rate on that clock) would read as a burst at a time to come.
    t = await createTestApp({ env: { SUIGW_METERING: 'off' } });
  });
  afterAll(async () => t.close());

  const usage = (query: string) => t.app.inject({ url: `/mainnet/v1/usage?${query}`, headers: { 'x-api-key': t.adminKey } });

  /** One request of 1 credit at `minuteMs`, as the usage recorder writes it. */
  async function usedAt(minuteMs: number): Promise<void> {
    await t.db.database.db.insertInto('usage_minutes').values({
      organization_id: t.organizationId, key_id: t.adminKeyId, network: 'mainnet', route: 'GET /v1/defaults-probe', minute: new Date(minuteMs), requests: 1n, credits: 1n,
    }).execute();
  }

  const iso = (ms: number) => new Date(ms).toISOString();

  it.each([
    { day: 'mid-month', now: MID_MONTH },
    { day: 'the 1st of the month', now: FIRST_OF_MONTH },
  ])('interval=minute on $day: the last 60 whole minutes, the current one included', async ({ now }) => {
    t.clock.set(now);
    const minute = Math.floor(now / MINUTE) * MINUTE;
    // At the window's first minute and one before it (the 60 of the rule, and 61).
    await usedAt(minute - 59 * MINUTE);
    await usedAt(minute - 60 * MINUTE);
    await usedAt(minute);
    const response = await usage('interval=minute');
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect({ from: data.from, to: data.to, interval: data.interval }).toEqual({ from: iso(minute - 59 * MINUTE), to: iso(minute + MINUTE), interval: 'minute' });
    expect(data.series).toEqual([
      { start: iso(minute - 59 * MINUTE), requests: 1, credits: 1 },
      { start: iso(minute), requests: 1, credits: 1 },
    ]);
    expect(data.totals).toEqual({ requests: 2, credits: 2 });
  });

  it.each([
    { day: 'mid-month', now: MID_MONTH, periodStart: Date.UTC(2026, 10, 1) },
    { day: 'the 1st of the month', now: FIRST_OF_MONTH, periodStart: Date.UTC(2026, 11, 1) },
  ])('interval=hour and day (and none: day) on $day: the credit period so far, as before', async ({ now, periodStart }) => {
    t.clock.set(now);
    for (const query of ['interval=hour', 'interval=day', '']) {
      const response = await usage(query);
      expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
      expect(response.json().data).toMatchObject({ from: iso(periodStart), to: iso(Math.ceil((now + 1) / MINUTE) * MINUTE), interval: query === 'interval=hour' ? 'hour' : 'day' });
    }
  });

  it('with only `to`, the default period ends there: 60 minutes before it, or the credit period it falls in', async () => {
    t.clock.set(MID_MONTH);
    const minute = await usage('interval=minute&to=2026-10-15T08:00:00Z');
    expect(minute.json().data).toMatchObject({ from: '2026-10-15T07:00:00.000Z', to: '2026-10-15T08:00:00.000Z' });
    // An end on the 1st at 00:00 closes the month before: that month from its 1st.
    for (const interval of ['hour', 'day']) {
      const response = await usage(`interval=${interval}&to=2026-11-01T00:00:00Z`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data).toMatchObject({ from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' });
    }
  });

  it('explicit dates keep their limits: a day of minutes, not a millisecond more', async () => {
    t.clock.set(MID_MONTH);
    expect((await usage('interval=minute&from=2026-11-21T12:00:00Z&to=2026-11-22T12:00:00Z')).statusCode).toBe(200);
    const over = await usage('interval=minute&from=2026-11-21T11:59:59.999Z&to=2026-11-22T12:00:00Z');
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'from must precede to, by at most 1 days for interval minute.' });
  });

  it('an unaligned range counts the whole minutes it touches, and the answer names them: counts exact for [from, to)', async () => {
    t.clock.set(MID_MONTH);
    const base = Date.UTC(2026, 10, 20, 9, 0);
    for (const minute of [base - MINUTE, base, base + MINUTE, base + 2 * MINUTE]) await usedAt(minute);
    const read = async (from: string, to: string) => {
      const response = await usage(`interval=minute&from=${from}&to=${to}`);
      expect(response.statusCode, response.body).toBe(200);
      const { data } = response.json();
      return { from: data.from, to: data.to, totals: data.totals, starts: data.series.map((s: { start: string }) => s.start) };
    };
    expect(await read('2026-11-20T09:00:30Z', '2026-11-20T09:01:30Z')).toEqual({
      from: iso(base), to: iso(base + 2 * MINUTE), totals: { requests: 2, credits: 2 }, starts: [iso(base), iso(base + MINUTE)],
    });
    // On a minute, nothing moves: the end stays exclusive. One millisecond past it takes the next minute whole.
    expect(await read('2026-11-20T09:00:00Z', '2026-11-20T09:02:00Z')).toMatchObject({ from: iso(base), to: iso(base + 2 * MINUTE), totals: { requests: 2, credits: 2 } });
    expect(await read('2026-11-20T09:00:00Z', '2026-11-20T09:02:00.001Z')).toMatchObject({ to: iso(base + 3 * MINUTE), totals: { requests: 3, credits: 3 } });
    expect(await read('2026-11-20T08:59:59.999Z', '2026-11-20T09:01:00Z')).toMatchObject({ from: iso(base - MINUTE), totals: { requests: 2, credits: 2 } });
  });

  it('the OpenAPI document states the defaults', async () => {
    const document = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const from = document.paths['/v1/usage'].get.parameters.find((parameter: { name: string }) => parameter.name === 'from');
    expect(from.description).toContain('Default for interval `minute`: the last 60 whole minutes up to `to`');
    expect(from.description).toContain('for `hour` and `day`: the start of the credit period `to` falls in');
  });
});
