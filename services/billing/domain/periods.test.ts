import { describe, expect, it } from 'vitest';
import { chargeDate } from './periods.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('chargeDate (Billing rule 3)', () => {
  it('monthly from Jan 31: the last day of short months, back to the 31st when the month has one', () => {
    const first = at('2027-01-31T10:00:00.000Z');
    expect([0, 1, 2, 3, 4].map((n) => iso(chargeDate(first, 'month', n)))).toEqual([
      '2027-01-31T10:00:00.000Z', '2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z', '2027-04-30T10:00:00.000Z', '2027-05-31T10:00:00.000Z',
    ]);
  });

  it('February of a leap year has a 29th', () => {
    expect(iso(chargeDate(at('2028-01-31T00:00:00.000Z'), 'month', 1))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(chargeDate(at('2028-01-29T00:00:00.000Z'), 'month', 1))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(chargeDate(at('2027-01-28T00:00:00.000Z'), 'month', 1))).toBe('2027-02-28T00:00:00.000Z');
  });

  it('the day of month up to 28 is kept every month; December rolls into the next year', () => {
    expect(iso(chargeDate(at('2027-11-15T08:30:00.000Z'), 'month', 2))).toBe('2028-01-15T08:30:00.000Z');
    expect(iso(chargeDate(at('2027-03-28T00:00:00.000Z'), 'month', 11))).toBe('2028-02-28T00:00:00.000Z');
  });

  it('annual on the anniversary; Feb 29 falls on Feb 28 in common years and back on 29 in leap years', () => {
    const first = at('2028-02-29T12:00:00.000Z');
    expect([1, 2, 3, 4].map((n) => iso(chargeDate(first, 'year', n)))).toEqual([
      '2029-02-28T12:00:00.000Z', '2030-02-28T12:00:00.000Z', '2031-02-28T12:00:00.000Z', '2032-02-29T12:00:00.000Z',
    ]);
  });
});
