import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, runCli, STACK_FRAME } from '../support/cli.js';
import { systemClock } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { PLANS } from '../../services/plans/index.js';
import { startGatewayProcess, type OwnedProcess } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/** No upstream is configured: a data request is 404 NETWORK_NOT_CONFIGURED, rate-limited (not charged: the deployment's own refusal). */
const DATA_PATH = `/mainnet/v1/objects/0x${'5'.repeat(64)}`;

/** The built-in plans with the team plan's organization rate replaced. */
function plansWithTeamRate(orgRps: number) {
  const plans = Object.fromEntries(Object.entries(PLANS).map(([id, { id: _id, ...numbers }]) => [id, numbers]));
  return { version: 1, plans: { ...plans, team: { ...plans['team'], orgRps } } };
}

describe('SUIGW_PLANS_FILE: a deployment\'s own plans', () => {
  let dir: string;
  let db: TestDatabase;
  const processes: OwnedProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suigw-plans-'));
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['not JSON', '{"version": 1,', /^ {2}not JSON: /m],
    ['a plan missing', JSON.stringify({ version: 1, plans: { free: PLANS.free } }), /^ {2}plans\.team: /m],
    ['a number out of range', JSON.stringify(plansWithTeamRate(0)), /^ {2}plans\.team\.orgRps: /m],
    ['another version', JSON.stringify({ ...plansWithTeamRate(50), version: 2 }), /^ {2}version: /m],
  ])('%s: the process stops with exit 2 and says what is wrong, without a stack trace', async (_, text, issue) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, text);
    const result = await runCli(['migrate'], { DATABASE_URL: db.url, SUIGW_PLANS_FILE: file });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`plans file ${file} is not valid:`);
    expect(result.stderr).toMatch(issue);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, CLI_TIMEOUT_MS);

  it('a missing file stops the process too', async () => {
    const file = join(dir, 'absent.json');
    const result = await runCli(['migrate'], { DATABASE_URL: db.url, SUIGW_PLANS_FILE: file });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^plans file ${file} is not valid:\\n {2}cannot be read: `));
  }, CLI_TIMEOUT_MS);

  it('the file\'s numbers are enforced: the rate-limit headers and the organization-wide 429 follow it', async () => {
    // One request a second, burst one: twenty requests sent at once cannot all pass unless the
    // gateway took twenty seconds to answer them, whereas the built-in team rate (50, burst 50)
    // passes them all. Outcomes are counted, not timed: a loaded machine refills the bucket a few
    // times at most, and the assertions allow for it.
    const file = join(dir, 'team-1.json');
    await writeFile(file, JSON.stringify(plansWithTeamRate(1)));
    const { organization, projects } = await createOrganization(db.database.db, systemClock, {
      name: 'Plans', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }],
    });
    const { apiKey } = await createKey(db.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'], expiresInDays: 1,
    });
    const gateway = await startGatewayProcess({ DATABASE_URL: db.url, SUIGW_NETWORKS: 'mainnet', SUIGW_PLANS_FILE: file });
    processes.push(gateway);
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetch(gateway.url + DATA_PATH, { headers: { 'x-api-key': apiKey } })));
    expect(responses.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(Array(20).fill('1'));
    const passed = responses.filter((r) => r.status === 404);
    const refused = responses.filter((r) => r.status === 429);
    expect(passed.length + refused.length).toBe(20);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const response of refused) {
      // The organization-wide limit: 429 without a code, with retryAfter.
      const body = (await response.json()) as Record<string, unknown>;
      expect(body['code']).toBeUndefined();
      expect(typeof body['retryAfter']).toBe('number');
    }
  }, CLI_TIMEOUT_MS);
});
