import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, runCli, STACK_FRAME } from '../support/cli.js';
import { TEST_SECRET } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Every role whose port is taken says so in one line, naming the port and the setting that moves
 * it, and exits 2: a setting to change, not a crash with a Node stack trace.
 */
describe('a role whose port is already in use: one line and exit 2', () => {
  let test: TestDatabase;
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    test = await createTestDatabase();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    await test.drop();
  });

  const P = 'PORT_IN_USE';
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: test.url, SUIGW_SECRET: TEST_SECRET, PORT: '0', SUIGW_METRICS_PORT: '0', SUIGW_GRPC_PORT: '0', ...extra,
  });
  it.each([
    ['gateway', [], { PORT: P }, 'PORT'],
    ['gateway', [], { SUIGW_METRICS_PORT: P }, 'SUIGW_METRICS_PORT'],
    ['streams', [], { PORT: P }, 'PORT'],
    ['grpc', [], { SUIGW_GRPC_PORT: P }, 'SUIGW_GRPC_PORT'],
    ['authz', ['--port', P], {}, '--port'],
    ['ratelimit', ['--port', P], {}, '--port'],
    ['dev', [], { PORT: P }, 'PORT'],
    ['simnet', ['--grpc-port', P, '--http-port', '0'], {}, '--grpc-port'],
    ['simnet', ['--grpc-port', '0', '--http-port', P], {}, '--http-port'],
  ] as const)('suigw %s %j with %j taken names %s', async (role, args, extra, setting) => {
    const withPort = (value: string) => (value === P ? String(port) : value);
    const result = await runCli([role, ...args.map(withPort)], env(Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, withPort(v)]))));
    expect(result.stderr).toBe(`suigw ${role}: port ${port} is already in use: stop what listens there, or set ${setting} to another port\n`);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, CLI_TIMEOUT_MS);
});
