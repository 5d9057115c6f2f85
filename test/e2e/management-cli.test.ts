import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadConfig, systemClock } from '../../services/core/index.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');
const children = new Set<ChildProcess>();

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  children.delete(child);
}

afterAll(async () => {
  await Promise.all([...children].map(stop));
});

describe('suigw admin', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => test.drop());

  it('create-org prints a working manage key once; grant adds prepaid credit', async () => {
    const created = await run(['admin', 'create-org', '--name', 'Cli Co', '--tier', 'growth', '--network', 'testnet'], { DATABASE_URL: test.url });
    expect(created.code, created.stderr).toBe(0);
    const org = JSON.parse(created.stdout) as { organizationId: string; projectId: string; network: string; apiKey: string; scopes: string[] };
    expect(org).toMatchObject({ network: 'testnet', scopes: ['data', 'streams', 'manage', 'zkLogin'], apiKey: expect.stringMatching(/^svc_pat_/) });
    expect(created.stderr).toContain('shown once');

    const app = await buildGatewayApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database: test.database, clock: systemClock, logger: createLogger('silent') });
    try {
      const me = await app.inject({ method: 'GET', url: '/testnet/v1/auth/me', headers: { 'x-api-key': org.apiKey } });
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ data: { organization: { id: org.organizationId, name: 'Cli Co' }, tier: 'growth', network: 'testnet' } });

      const granted = await run(['admin', 'grant', '--org', org.organizationId, '--usd', '5.25', '--note', 'test'], { DATABASE_URL: test.url });
      expect(granted.code, granted.stderr).toBe(0);
      expect(JSON.parse(granted.stdout)).toEqual({ organizationId: org.organizationId, grantedMicroUsd: '5250000', balanceMicroUsd: '5250000' });
      const row = await test.database.db.selectFrom('organizations').select('prepaid_micro_usd').where('id', '=', org.organizationId).executeTakeFirstOrThrow();
      expect(row.prepaid_micro_usd).toBe('5250000');
    } finally {
      await app.close();
    }
  });

  it.each([
    [['admin'], 'usage'],
    [['admin', 'create-org'], '--name is required'],
    [['admin', 'create-org', '--name', 'X', '--tier', 'platinum'], 'unknown tier'],
    [['admin', 'create-org', '--name', 'X', '--key-days', '0'], '--key-days'],
    [['admin', 'grant', '--org', 'org_x', '--usd', '-5'], '--usd'],
    [['admin', 'grant', '--usd', '5'], '--org is required'],
  ])('%j exits 2 with %j', async (args, message) => {
    const result = await run(args, { DATABASE_URL: test.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('grant to an unknown organization fails without a stack trace in stdout', async () => {
    const result = await run(['admin', 'grant', '--org', 'org_nope', '--usd', '5'], { DATABASE_URL: test.url });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
  });
});

describe('suigw dev', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suigw-dev-'));
  });
  afterAll(async () => {
    await Promise.all([...children].map(stop));
    await rm(dir, { recursive: true, force: true });
  });

  interface DevState {
    gatewayUrl: string;
    adminKey: string;
    organizationId: string;
    networks: Record<string, { baseUrl: string }>;
  }

  /** Starts `suigw dev`, waits for its state file, and returns the state and the child. */
  async function startDev(name: string, env: Record<string, string> = {}): Promise<{ state: DevState; child: ChildProcess }> {
    const stateFile = join(dir, name, 'dev.json');
    const child = spawn(process.execPath, [BIN, 'dev', '--state-file', stateFile], {
      env: { ...process.env, PORT: '0', SUIGW_METRICS_PORT: '0', LOG_LEVEL: 'silent', SUIGW_DATA_DIR: join(dir, name, 'data'), DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The welcome text ends with "state written to …" once the file is complete. Generous, as in
    // test/support/dev-process.ts: a first start migrates the embedded database and seeds simnet,
    // which took more than 45 s with the suite and other work sharing the 2 cores.
    const deadline = Date.now() + 150_000;
    while (!output.includes('state written to')) {
      if (child.exitCode !== null) throw new Error(`suigw dev exited ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`suigw dev wrote no state within 150 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { state: JSON.parse(await readFile(stateFile, 'utf8')) as DevState, child };
  }

  async function me(state: DevState): Promise<number> {
    const response = await fetch(`${state.networks['mainnet']!.baseUrl}/v1/auth/me`, { headers: { 'x-api-key': state.adminKey } });
    return response.status;
  }

  it('writes {gatewayUrl, adminKey, networks}; the key works; a restart reuses it', async () => {
    const first = await startDev('plain');
    expect(first.state).toMatchObject({
      gatewayUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      adminKey: expect.stringMatching(/^svc_pat_/),
      networks: {
        mainnet: { baseUrl: `${first.state.gatewayUrl}/mainnet` },
        testnet: { baseUrl: `${first.state.gatewayUrl}/testnet` },
      },
    });
    expect(first.state.gatewayUrl).not.toMatch(/:0$/);
    expect(await me(first.state)).toBe(200);
    await stop(first.child);

    const second = await startDev('plain');
    expect(second.state.adminKey).toBe(first.state.adminKey);
    expect(second.state.organizationId).toBe(first.state.organizationId);
    expect(await me(second.state)).toBe(200);
    await stop(second.child);
  }, 360_000);

  it('SUIGW_DEV_ADMIN_KEY fixes the admin key', async () => {
    const fixed = `svc_pat_${'3'.repeat(44)}`;
    const { state, child } = await startDev('fixed', { SUIGW_DEV_ADMIN_KEY: fixed });
    expect(state.adminKey).toBe(fixed);
    expect(await me(state)).toBe(200);
    await stop(child);
  }, 180_000);
});
