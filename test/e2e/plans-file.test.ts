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

/** No upstream is configured: a data request is 404 NETWORK_NOT_CONFIGURED, charged and rate-limited. */
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
    const file = join(dir, 'team-7.json');
    await writeFile(file, JSON.stringify(plansWithTeamRate(7)));
    const { organization, projects } = await createOrganization(db.database.db, systemClock, {
      name: 'Plans', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }],
    });
    const { apiKey } = await createKey(db.database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'], expiresInDays: 1,
    });
    const gateway = await startGatewayProcess({ DATABASE_URL: db.url, SUIGW_NETWORKS: 'mainnet', SUIGW_PLANS_FILE: file });
    processes.push(gateway);
    // The burst is one second's worth (7): sent at once, the first 7 pass and the 8th is refused
    // by the organization-wide limit (429 without a code), whatever the built-in rate (50) says.
    const responses = [];
    for (let i = 0; i < 8; i += 1) responses.push(await fetch(gateway.url + DATA_PATH, { headers: { 'x-api-key': apiKey } }));
    expect(responses.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(Array(8).fill('7'));
    expect(responses.slice(0, 7).map((r) => r.status)).toEqual(Array(7).fill(404));
    const refused = responses[7]!;
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body['code']).toBeUndefined();
    expect(typeof body['retryAfter']).toBe('number');
  }, CLI_TIMEOUT_MS);
});
