import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, runCli, STACK_FRAME } from '../support/cli.js';
import { systemClock } from '../../services/core/index.js';
import { hashKeyValue } from '../../services/identity/index.js';
import { seedDevOrganization } from '../../services/cli/dev-seed.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';


describe('suigw admin grant: usage errors, not stack traces', () => {
  let test: TestDatabase;
  let organizationId: string;
  beforeAll(async () => {
    test = await createTestDatabase();
    organizationId = (await seedDevOrganization(test.database, systemClock, { adminKey: undefined, organizationId: undefined })).organizationId;
  });
  afterAll(async () => test.drop());

  it.each([
    [['--org', 'org_missing', '--usd', '5'], 'no organization org_missing (or it is deleted)'],
    [['--org', 'ORG', '--usd', '1e30'], '--usd is a positive amount with at most 6 decimals'],
    [['--org', 'ORG', '--usd', '99999999999999999999'], '--usd must be more than 0 and at most 1,000,000'],
    [['--org', 'ORG', '--usd', '1000000.000001'], '--usd must be more than 0 and at most 1,000,000'],
    [['--org', 'ORG', '--usd', '0'], '--usd must be more than 0 and at most 1,000,000'],
  ])('grant %j → exit 2: %s', async (args, message) => {
    const result = await runCli(['admin', 'grant', ...args.map((a) => (a === 'ORG' ? organizationId : a))], { DATABASE_URL: test.url });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.stderr).toContain('usage:');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, CLI_TIMEOUT_MS);

  it('the largest grant still works', async () => {
    const result = await runCli(['admin', 'grant', '--org', organizationId, '--usd', '1000000'], { DATABASE_URL: test.url });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ organizationId, grantedMicroUsd: '1000000000000' });
  }, CLI_TIMEOUT_MS);
});

describe('suigw dev with an admin key that was disabled', () => {
  let test: TestDatabase;
  let dir: string;
  const key = `svc_pat_${'4'.repeat(44)}`;
  let organizationId: string;
  beforeAll(async () => {
    test = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), 'suigw-dev-key-'));
    organizationId = (await seedDevOrganization(test.database, systemClock, { adminKey: key, organizationId: undefined })).organizationId;
    await test.database.db.updateTable('api_keys').set({ enabled: false }).where('hash', '=', hashKeyValue(key)).execute();
  });
  afterAll(async () => {
    await test.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const devEnv = () => ({ DATABASE_URL: test.url, PORT: '0', SUIGW_METRICS_PORT: '0', SUIGW_DATA_DIR: join(dir, 'data') });

  it('from SUIGW_DEV_ADMIN_KEY: explains how to fix it and exits 1 without a stack trace', async () => {
    const result = await runCli(['dev', '--state-file', join(dir, 'env.json')], { ...devEnv(), SUIGW_DEV_ADMIN_KEY: key });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('suigw dev: the admin key in SUIGW_DEV_ADMIN_KEY is disabled, so it cannot be reused.');
    expect(result.stderr).toContain('set SUIGW_DEV_ADMIN_KEY to a new value');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).not.toContain('suigw dev is up');
  }, CLI_TIMEOUT_MS);

  it('from the state file: names the file to remove and exits 1 without a stack trace', async () => {
    const stateFile = join(dir, 'stored.json');
    await writeFile(stateFile, JSON.stringify({ adminKey: key, organizationId }));
    const result = await runCli(['dev', '--state-file', stateFile], { ...devEnv(), SUIGW_DEV_ADMIN_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`suigw dev: the admin key stored in ${stateFile} is disabled, so it cannot be reused.`);
    expect(result.stderr).toContain(`remove ${stateFile}`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, CLI_TIMEOUT_MS);
});

describe('suigw admin create-org: a wallet organization has one mainnet project', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => test.drop());

  it('--tier wallet --network testnet → exit 2, nothing created', async () => {
    const result = await runCli(['admin', 'create-org', '--name', 'W', '--tier', 'wallet', '--network', 'testnet'], { DATABASE_URL: test.url });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe('a wallet organization has one mainnet project: --network is mainnet for --tier wallet');
    expect(result.stderr).toContain('usage:');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(await test.database.db.selectFrom('organizations').select('id').execute()).toEqual([]);
  }, CLI_TIMEOUT_MS);

  it('--tier wallet (mainnet by default) makes its one mainnet project', async () => {
    const result = await runCli(['admin', 'create-org', '--name', 'W', '--tier', 'wallet'], { DATABASE_URL: test.url });
    expect(result.code, result.stderr).toBe(0);
    const { organizationId } = JSON.parse(result.stdout) as { organizationId: string };
    const projects = await test.database.db.selectFrom('projects').select('network').where('organization_id', '=', organizationId).execute();
    expect(projects).toEqual([{ network: 'mainnet' }]);
  }, CLI_TIMEOUT_MS);
});
