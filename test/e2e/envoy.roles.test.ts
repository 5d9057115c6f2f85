import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { credentials, type Client } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResponse, RateLimitResponse } from '../../services/envoy/index.js';
import { authorizationService, rateLimitService } from '../support/envoy-protos.js';
import { ManualClock } from '../../services/core/index.js';
import { createKey, createOrganization, IDENTITY_HEADERS } from '../../services/identity/index.js';
import { freePort, TEST_SECRET } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { unary } from '../support/envoy-stack.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');
const OBJECT = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

interface RoleProcess {
  child: ChildProcess;
  exited: Promise<number | string>;
}

/** `suigw <role> --port N` as shipped (the real entry point); resolves once it logged `listening`. */
async function startRole(role: 'authz' | 'ratelimit', port: number, env: Record<string, string>): Promise<RoleProcess> {
  const child = spawn(process.execPath, [BIN, role, '--port', String(port)], {
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', SUIGW_METRICS_PORT: '0', SUIGW_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening"')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`suigw ${role} exited (${code}) before listening:\n${output}`)));
  });
  return { child, exited };
}

describe('suigw authz and suigw ratelimit as processes, with the shipped defaults', () => {
  let db: TestDatabase;
  let key: string;
  let brokeKey: string;
  const roles: RoleProcess[] = [];
  let authz: Client;
  let rls: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    // The processes read the system clock: the key is created on it too.
    const clock = new ManualClock(Date.now());
    const keyOf = async (tier: 'free' | 'wallet') => {
      const { organization, projects } = await createOrganization(db.database.db, clock, { name: 'Roles', tier, projects: [{ name: 'Default', network: 'mainnet' }] });
      return (await createKey(db.database, clock, { kind: 'operator' }, { organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'] })).apiKey;
    };
    key = await keyOf('free');
    // A wallet organization without prepaid credit: refused by the ratelimit service's ledger.
    brokeKey = await keyOf('wallet');
    const env = { DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379', SUIGW_REDIS_KEY_PREFIX: `roles:${db.url.split('/').at(-1)}:` };
    const [authzPort, rlsPort] = [await freePort(), await freePort()];
    roles.push(...(await Promise.all([startRole('authz', authzPort, env), startRole('ratelimit', rlsPort, env)])));
    authz = new (authorizationService())(`127.0.0.1:${authzPort}`, credentials.createInsecure());
    rls = new (rateLimitService())(`127.0.0.1:${rlsPort}`, credentials.createInsecure());
  }, 120_000);
  afterAll(async () => {
    authz?.close();
    rls?.close();
    for (const role of roles) role.child.kill('SIGTERM');
    expect(await Promise.all(roles.map((role) => role.exited))).toEqual([0, 0]);
    await db?.drop();
  });

  const check = (headers: Record<string, string>) =>
    unary<CheckResponse>(authz, 'Check', { attributes: { request: { http: { method: 'GET', path: OBJECT, host: 'localhost', headers: { host: 'localhost', ...headers } } } } });

  it('authz denies without a key and allows with one; ratelimit admits or refuses on the token authz signed', async () => {
    const denied = await check({ 'x-request-id': 'roles-1' });
    expect(denied.denied_response!.status.code).toBe(401);
    expect(JSON.parse(denied.denied_response!.body)).toEqual({ error: 'Missing API key', requestId: 'roles-1' });
    const tokenOf = async (apiKey: string, requestId: string) => {
      const allowed = await check({ 'x-api-key': apiKey, 'x-request-id': requestId });
      return allowed.ok_response!.headers.find((option) => option.header.key === IDENTITY_HEADERS.token)!.header.value;
    };
    const ask = (token: string) => unary<RateLimitResponse>(rls, 'ShouldRateLimit', {
      domain: 'suigw', descriptors: [{ entries: [{ key: 'identity', value: token }, { key: 'remote_address', value: '10.1.1.1' }] }],
    });
    const admitted = await ask(await tokenOf(key, 'roles-2'));
    expect(admitted.overall_code).toBe(1);
    expect(admitted.statuses[0]).toMatchObject({ code: 1, current_limit: { requests_per_unit: 10, unit: 1 } });
    const refused = await ask(await tokenOf(brokeKey, 'roles-3'));
    expect(refused.overall_code).toBe(2);
    expect(JSON.parse(Buffer.from(refused.raw_body!).toString())).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: 'roles-3' });
  });
});
