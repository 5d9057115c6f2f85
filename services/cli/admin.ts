import { parseArgs } from 'node:util';
import { isApiError, parseBoolean } from '../core/index.js';
import { createKey, createOrganization, grantPrepaidCredit, setCardSubscription, type Scope } from '../identity/index.js';
import { isTier, TIERS } from '../plans/index.js';
import { openRuntime, readConfig } from './runtime.js';

/** The largest single grant: an operator's typo (an extra digit or ten) is refused, not booked. */
const MAX_GRANT_USD = 1_000_000n;

const USAGE = `usage:
  suigw admin create-org --name NAME [--tier ${TIERS.join('|')}] [--network mainnet|testnet] [--key-days N]
      creates an organization with a default project and prints its first manage key (shown once);
      a wallet organization's one project is on mainnet
  suigw admin grant --org ORG_ID --usd AMOUNT [--note TEXT]
      adds prepaid pay-per-request credit to an organization (AMOUNT: more than 0, at most
      ${MAX_GRANT_USD.toLocaleString('en-US')}, at most 6 decimals); refused while an on-chain plan is live
  suigw admin card-subscription --org ORG_ID --active true|false
      records that the organization pays by card (on-chain plans then answer STRIPE_SUBSCRIPTION_ACTIVE);
      true is refused while an on-chain plan is live`;

/** `suigw admin`: operator tasks that have no API (there is no dashboard). */
export async function runAdmin(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command !== 'create-org' && command !== 'grant' && command !== 'card-subscription') {
    console.error(USAGE);
    process.exit(2);
  }
  const fail = (message: string): never => {
    console.error(`${message}\n${USAGE}`);
    process.exit(2);
  };
  // A malformed command line (`--usd -5`, an unknown option) is a usage error, not a crash.
  const { values } = (() => {
    try {
      return parseArgs({
        args: rest,
        options: {
          name: { type: 'string' },
          tier: { type: 'string', default: 'free' },
          network: { type: 'string', default: 'mainnet' },
          'key-days': { type: 'string', default: '90' },
          org: { type: 'string' },
          usd: { type: 'string' },
          note: { type: 'string', default: '' },
          active: { type: 'string' },
        },
      });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  })();
  const config = readConfig();
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  try {
    if (command === 'create-org') {
      const name = values.name?.trim() || fail('--name is required');
      const tier = values.tier ?? 'free';
      if (!isTier(tier)) fail(`unknown tier ${tier}`);
      const network = values.network === 'testnet' ? 'testnet' : values.network === 'mainnet' ? 'mainnet' : fail('--network is mainnet or testnet');
      // Spec (Management API rules, Limits): a wallet organization has one mainnet project.
      if (tier === 'wallet' && network !== 'mainnet') fail('a wallet organization has one mainnet project: --network is mainnet for --tier wallet');
      const days = Number(values['key-days']);
      if (!Number.isInteger(days) || days < 1 || days > 365) fail('--key-days is 1 to 365');
      const { organization, projects } = await createOrganization(runtime.database.db, runtime.clock, {
        name,
        tier: tier as Parameters<typeof createOrganization>[2]['tier'],
        projects: [{ name: 'Default', network }],
      });
      const scopes: Scope[] = ['data', 'streams', 'manage', 'zkLogin'];
      const key = await createKey(runtime.database, runtime.clock, { kind: 'operator' }, {
        organizationId: organization.id,
        projectId: projects[0]!.id,
        name: 'admin',
        scopes,
        expiresInDays: days,
      });
      console.log(JSON.stringify({ organizationId: organization.id, projectId: projects[0]!.id, network, keyId: key.id, apiKey: key.apiKey, scopes, expiresAt: key.expiresAt }, null, 2));
      console.error('The apiKey is shown once; it is an administrator credential for the whole organization.');
    } else if (command === 'card-subscription') {
      const org = values.org ?? fail('--org is required');
      const active = parseBoolean(values.active ?? '') ?? fail('--active is true or false (or yes/no, 1/0)');
      try {
        await setCardSubscription(runtime.database.db, org, active);
      } catch (error) {
        if (isApiError(error) && error.code === 'ORGANIZATION_NOT_FOUND') fail(`no organization ${org} (or it is deleted)`);
        if (isApiError(error) && error.code === 'ONCHAIN_SUBSCRIPTION_EXISTS') fail(`organization ${org} is on an on-chain plan: one payment method at a time (billing rule 1)`);
        throw error;
      }
      console.log(JSON.stringify({ organizationId: org, cardSubscriptionActive: active }));
    } else {
      const org = values.org ?? fail('--org is required');
      const usd = values.usd ?? fail('--usd is required');
      if (!/^\d+(\.\d{1,6})?$/.test(usd)) fail('--usd is a positive amount with at most 6 decimals');
      const [whole, fraction = ''] = usd.split('.');
      const microUsd = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
      if (microUsd <= 0n || microUsd > MAX_GRANT_USD * 1_000_000n) fail(`--usd must be more than 0 and at most ${MAX_GRANT_USD.toLocaleString('en-US')}`);
      try {
        const balance = await grantPrepaidCredit(runtime.database.db, runtime.clock, org, microUsd, values.note);
        console.log(JSON.stringify({ organizationId: org, grantedMicroUsd: microUsd.toString(), balanceMicroUsd: balance.toString() }));
      } catch (error) {
        if (isApiError(error) && error.code === 'ORGANIZATION_NOT_FOUND') fail(`no organization ${org} (or it is deleted)`);
        if (isApiError(error) && error.code === 'ONCHAIN_SUBSCRIPTION_EXISTS') fail(`organization ${org} is on an on-chain plan: no pay-per-request deposits (billing rule 8)`);
        throw error;
      }
    }
  } finally {
    await runtime.database.close();
  }
}
