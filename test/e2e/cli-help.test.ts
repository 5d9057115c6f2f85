import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, runCli, STACK_FRAME } from '../support/cli.js';

// `suigw <role> --help` prints the role's command line and runs nothing: `migrate --help` applied
// migrations, `billing --help` ran a billing pass, `grpc` and `simnet` started serving, and
// `authz`, `ratelimit` and `dev` crashed with node's parseArgs stack trace.
describe('suigw <role> --help and unexpected arguments', () => {
  let dir: string;
  // No DATABASE_URL: a role that ran anyway would create the embedded database under this directory.
  const env = () => ({ SUIGW_DATA_DIR: join(dir, 'data'), DATABASE_URL: '', PORT: '0', SUIGW_METRICS_PORT: '0', SUIGW_GRPC_PORT: '0' });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suigw-help-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each([
    [['gateway', '--help'], 'usage: suigw gateway [--workers N]\n\n  HTTP: /v1 REST, management, health, OpenAPI\n'],
    [['migrate', '-h'], 'usage: suigw migrate\n\n  apply database migrations and exit\n'],
    [['billing', '--help'], 'usage: suigw billing\n\n  one pass over due on-chain charges, retries, reminders and emails, then exit (exit codes: docs/billing.md)\n'],
    [['authz', '--help'], 'usage: suigw authz [--workers N] [--port 9001]\n\n  Envoy ext_authz service (envoy.service.auth.v3.Authorization), --port (default 9001)\n'],
    [['dev', '--help'], 'usage: suigw dev [--state-file PATH]\n\n  every role in one process, embedded database, seeded admin key\n'],
    [['streams', '--help'], 'usage: suigw streams\n\n  checkpoint ingest and Warp stream delivery (WebSocket, SSE); shares Redis with its replicas\n'],
  ])('%j prints its usage, exit 0, and runs nothing', async (args, expected) => {
    const result = await runCli(args, env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${expected}\n  Settings are environment variables, validated at start-up (README.md, Configuration).\n`);
    expect(await readdir(dir)).toEqual([]);
  }, CLI_TIMEOUT_MS);

  // simnet reads no environment variable (its settings are its options): the footer the other
  // roles print sent users to README's Configuration, where PORT or HOST change nothing for it.
  it('simnet --help names its options as its settings, exit 0, and runs nothing', async () => {
    const result = await runCli(['simnet', '--help'], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe([
      'usage: suigw simnet [--grpc-port 9000] [--http-port 9100] [--host 127.0.0.1] [--seed dev]',
      '                    [--checkpoint-interval-ms 250] [--transactions-per-checkpoint N]',
      '',
      '  a deterministic simulated Sui network: v2 gRPC + gRPC-Web, GraphQL, faucet (tests, offline dev)',
      '',
      '  Settings are the options above; simnet reads no environment variable.',
      '',
    ].join('\n'));
    expect(await readdir(dir)).toEqual([]);
  }, CLI_TIMEOUT_MS);

  it('admin --help prints the admin usage on stdout, exit 0', async () => {
    const result = await runCli(['admin', '--help'], env());
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('usage:');
    expect(result.stdout).toContain('  suigw admin grant --org ORG_ID --usd AMOUNT [--note TEXT]\n');
  }, CLI_TIMEOUT_MS);

  it.each([
    [['gateway', '--port', '9000'], "suigw gateway: unexpected argument '--port'; this role's settings are environment variables (suigw gateway --help)"],
    [['migrate', 'now'], "suigw migrate: unexpected argument 'now'; this role's settings are environment variables (suigw migrate --help)"],
    [['grpc', '--workers', '1', '--port', '1'], "suigw grpc: unexpected argument '--port'; this role's settings are environment variables (suigw grpc --help)"],
    [['authz', '--bogus'], "suigw authz: Unknown option '--bogus'"],
    [['ratelimit', '--port'], "suigw ratelimit: Option '--port <value>' argument missing"],
    [['dev', '--nope'], "suigw dev: Unknown option '--nope'"],
    // simnet started serving with an option it does not take, and crashed with a stack trace (exit
    // 1) on a value it could not use, after listening (a NaN interval) or before (a port).
    [['simnet', '--grpc-port', '0', '--http-port', '0', '--bogus'], "suigw simnet: Unknown option '--bogus'"],
    [['simnet', '--grpc-port', 'abc'], "suigw simnet: --grpc-port must be a port number (0-65535), not 'abc'"],
    [['simnet', '--http-port=70000'], "suigw simnet: --http-port must be a port number (0-65535), not '70000'"],
    [['simnet', '--grpc-port', '0', '--http-port', '0', '--checkpoint-interval-ms', 'abc'], "suigw simnet: --checkpoint-interval-ms must be a number of milliseconds (1-3600000), not 'abc'"],
    [['simnet', '--checkpoint-interval-ms', '0'], "suigw simnet: --checkpoint-interval-ms must be a number of milliseconds (1-3600000), not '0'"],
    [['simnet', '--transactions-per-checkpoint=-1'], "suigw simnet: --transactions-per-checkpoint must be a number of transactions (0-10000), not '-1'"],
    [['simnet', '--transactions-per-checkpoint=1.5'], "suigw simnet: --transactions-per-checkpoint must be a number of transactions (0-10000), not '1.5'"],
  ])('%j → one line, exit 2, nothing run', async (args, message) => {
    const result = await runCli(args, env());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(await readdir(dir)).toEqual([]);
  }, CLI_TIMEOUT_MS);
});
