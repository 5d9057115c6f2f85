import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATH_PARAMETER_MAX_LENGTH } from '../../core/index.js';
import { COIN_TYPES } from '../../simnet/index.js';
import { startRestE2E, type RestE2E } from '../../../test/support/rest-e2e.js';
import { NAME_MAX_LENGTH } from '../schemas.js';

const FRAMEWORK = `0x${'0'.repeat(63)}2`;
const FULL_USDC = COIN_TYPES.USDC;

/** A struct tag of exactly `length` characters: `0x0…02::<module>::T`, the module name padding it out. */
function coinTypeOfLength(length: number): string {
  const fixed = `${FRAMEWORK}::`.length + '::T'.length;
  return `${FRAMEWORK}::m${'a'.repeat(length - fixed - 1)}::T`;
}

/** A name of exactly `length` characters: labels of 63 joined by dots, then the rest in a last label. */
function nameOfLength(length: number): string {
  const labels: string[] = [];
  let left = length;
  for (; left > 63; left -= 64) labels.push('n'.repeat(63));
  return [...labels, 'n'.repeat(left)].join('.');
}

/**
 * Path parameters longer than fastify's default 100 characters are still parameters: a coin type
 * in its full form with a type argument, a subname past 100 characters. The router takes them up
 * to PATH_PARAMETER_MAX_LENGTH (the longest parameter a route takes); past it, 414.
 */
describe('REST path parameters over 100 characters reach their route', () => {
  let e2e: RestE2E;
  beforeAll(async () => { e2e = await startRestE2E(); });
  afterAll(async () => e2e.stop());

  it('a full-form generic coin type (136 characters) is looked up, not refused as too long', async () => {
    const type = `${FRAMEWORK}::coin::Coin<${FULL_USDC}>`;
    expect(type.length).toBeGreaterThan(100);
    for (const spelled of [type, encodeURIComponent(type)]) {
      const response = await e2e.get(`/coins/${spelled}/metadata`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'COIN_NOT_FOUND', message: `No coin metadata for ${type}` });
    }
  });

  it(`a coin type of ${PATH_PARAMETER_MAX_LENGTH} characters is looked up; one more is 414 URI_TOO_LONG`, async () => {
    const longest = coinTypeOfLength(PATH_PARAMETER_MAX_LENGTH);
    expect(longest.length).toBe(PATH_PARAMETER_MAX_LENGTH);
    const atLimit = await e2e.get(`/coins/${longest}/metadata`);
    expect(atLimit.status).toBe(404);
    expect(atLimit.body).toMatchObject({ code: 'COIN_NOT_FOUND' });
    const past = await e2e.get(`/coins/${coinTypeOfLength(PATH_PARAMETER_MAX_LENGTH + 1)}/metadata`);
    expect(past.status).toBe(414);
    expect(past.body).toMatchObject({ code: 'URI_TOO_LONG' });
  });

  it(`a name of ${NAME_MAX_LENGTH} characters is resolved and checked; one more is 400 INVALID_NAME`, async () => {
    const longest = nameOfLength(NAME_MAX_LENGTH);
    expect(longest.length).toBe(NAME_MAX_LENGTH);
    const resolved = await e2e.get(`/names/${longest}`);
    expect(resolved.status).toBe(404);
    expect(resolved.body).toMatchObject({ code: 'NAME_NOT_FOUND' });
    const availability = await e2e.get(`/names/${longest}/availability`);
    expect(availability).toEqual({ status: 200, body: { data: { name: longest, available: true, registered: false } } });
    const past = await e2e.get(`/names/${nameOfLength(NAME_MAX_LENGTH + 1)}`);
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ code: 'INVALID_NAME' });
  });
});
