import { spawn } from 'node:child_process';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_SERVER_URL } from '../../test/support/test-database.js';

const BIN = new URL('../../bin/suigw.js', import.meta.url).pathname;

/** Runs `suigw gateway` with only the given environment; kills it if it has not exited in 30 s. */
async function runGateway(env: Record<string, string>): Promise<{ code: number | null; stderr: string; cwd: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'suigw-gateway-'));
  const child = spawn(process.execPath, [BIN, 'gateway'], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(guard);
  return { code, stderr, cwd };
}

describe('suigw gateway without SUIGW_SECRET', () => {
  it.each([
    ['the embedded database', {}],
    ['DATABASE_URL set', { DATABASE_URL: TEST_SERVER_URL }],
  ])('with %s: exits 2 naming SUIGW_SECRET, before touching anything', async (_what, env: Record<string, string>) => {
    const { code, stderr, cwd } = await runGateway(env);
    expect(code).toBe(2);
    expect(stderr).toContain('SUIGW_SECRET is required');
    // Nothing was created: the refusal comes before the embedded database is opened.
    expect(await readdir(cwd)).toEqual([]);
  }, 60_000);
});
