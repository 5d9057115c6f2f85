import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../core/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

/** Request logging is off by default; failures, slow requests and a sample are logged. */
describe('request logging', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function logged(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await createTestApp({ env, extra: { logger: createLogger('info', {}, sink) } });
    const before = lines.length;
    expect((await t.app.inject({ method: 'GET', url: '/mainnet/v1/auth/me', headers: { 'x-api-key': t.adminKey } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/mainnet/v1/auth/me' })).statusCode).toBe(401);
    return lines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['msg'] === 'request completed');
  }

  it('logs no successful or refused request by default', async () => {
    expect(await logged({})).toEqual([]);
  });

  it('logs requests slower than SUIGW_LOG_SLOW_MS at warn, with the request, status and time', async () => {
    const lines = await logged({ SUIGW_LOG_SLOW_MS: '0' });
    expect(lines.map((line) => [line['level'], (line['res'] as { statusCode: number }).statusCode])).toEqual([
      [40, 200],
      [40, 401],
    ]);
    expect(lines[0]).toMatchObject({ req: { method: 'GET', url: '/mainnet/v1/auth/me' } });
    expect(typeof lines[0]!['responseTime']).toBe('number');
  });

  it('logs the sampled share at info', async () => {
    const lines = await logged({ SUIGW_LOG_SAMPLE_RATE: '1' });
    expect(lines.map((line) => line['level'])).toEqual([30, 30]);
  });
});
