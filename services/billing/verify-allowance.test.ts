import { describe, expect, it } from 'vitest';
import { verifyAllowance, verifyAllowanceCap, type AllowanceExpectation } from './verify-allowance.js';
import type { OnchainAllowance, OnchainAllowanceCap } from './chain/index.js';

const settings = { packageId: `0x${'b'.repeat(64)}`, configId: `0x${'c'.repeat(64)}`, usdcType: `0x${'d'.repeat(64)}::usdc::USDC`, treasury: `0x${'e'.repeat(64)}` };
const now = Date.UTC(2027, 0, 1);
const expected: AllowanceExpectation = { settings, spender: `0x${'5'.repeat(64)}`, organizationId: 'org_1', price: 49_000_000n, interval: 'month', now };
const good: OnchainAllowance = {
  objectId: `0x${'a'.repeat(64)}`, coinType: settings.usdcType, funder: `0x${'f'.repeat(64)}`, spender: expected.spender, app: `${settings.packageId}::billing::BillingApp`,
  name: 'org_1', periodLimit: 49_000_000n, windowMonths: 1, windowStartMs: 0, month: 0, periodSpent: 0n, startMs: 0, expirationMs: null,
};
const DAY = 86_400_000;

describe('verifyAllowance: the spec’s checks in order, each its own code', () => {
  it('accepts the allowance prepare makes', () => {
    expect(verifyAllowance(good, expected)).toBe(good);
  });
  it.each([
    ['ALLOWANCE_NOT_FOUND', null],
    ['ALLOWANCE_WRONG_COIN', { ...good, coinType: '0x2::sui::SUI' }],
    ['ALLOWANCE_WRONG_SPENDER', { ...good, spender: null }],
    ['ALLOWANCE_WRONG_APP', { ...good, app: `0x${'9'.repeat(64)}::billing::BillingApp` }],
    ['ALLOWANCE_WRONG_APP', { ...good, app: null }],
    ['ALLOWANCE_WRONG_FUNDER', { ...good, funder: expected.spender }],
    ['ALLOWANCE_WRONG_ORGANIZATION', { ...good, name: 'org_2' }],
    ['ALLOWANCE_LIMIT_TOO_LOW', { ...good, periodLimit: 48_999_999n }],
    ['ALLOWANCE_LIMIT_TOO_LOW', { ...good, windowMonths: 12 }],
    ['ALLOWANCE_NOT_STARTED', { ...good, startMs: now + 1 }],
    ['ALLOWANCE_EXPIRES_TOO_SOON', { ...good, expirationMs: now + 38 * DAY - 1 }],
  ] as const)('%s', (code, allowance) => {
    expect(() => verifyAllowance(allowance, expected)).toThrow(expect.objectContaining({ code }));
  });
  it('boundaries: the exact price, a start of now, an expiry of one period plus 7 retry days are enough', () => {
    expect(verifyAllowance({ ...good, periodLimit: 49_000_000n, startMs: now, expirationMs: now + 38 * DAY }, expected).objectId).toBe(good.objectId);
  });
  it('a replacement allowance must come from the plan’s funder', () => {
    expect(() => verifyAllowance(good, { ...expected, funder: `0x${'7'.repeat(64)}` })).toThrow(expect.objectContaining({ code: 'ALLOWANCE_WRONG_FUNDER' }));
  });
});

describe('verifyAllowanceCap: the cap of that allowance, of its coin, held by its funder', () => {
  const cap: OnchainAllowanceCap = { objectId: `0x${'3'.repeat(64)}`, allowanceId: good.objectId, coinType: good.coinType, owner: good.funder };
  it('accepts the cap prepare gives the funder', () => {
    expect(verifyAllowanceCap(cap, good)).toBe(cap);
  });
  it.each([
    ['no such cap', null],
    ['another allowance\'s cap', { ...cap, allowanceId: `0x${'4'.repeat(64)}` }],
    ['a cap of another coin', { ...cap, coinType: '0x2::sui::SUI' }],
    ['held by someone else', { ...cap, owner: `0x${'7'.repeat(64)}` }],
    ['not held by an address', { ...cap, owner: null }],
  ] as const)('%s: ALLOWANCE_CAP_MISMATCH', (_, given) => {
    expect(() => verifyAllowanceCap(given, good)).toThrow(expect.objectContaining({ code: 'ALLOWANCE_CAP_MISMATCH', status: 400 }));
  });
});
