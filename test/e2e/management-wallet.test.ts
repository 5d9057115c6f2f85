import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createKey, grantPrepaidCredit, MAX_ENABLED_KEYS_PER_ORGANIZATION } from '../../services/identity/index.js';
import { call, type CallOptions } from '../support/management-calls.js';

const DAY = 86_400_000;

describe('wallet registration (GET /v1/wallet/challenge, POST /v1/wallet/register)', () => {
  let t: TestApp;
  const wallet = Ed25519Keypair.generate();
  const address = wallet.toSuiAddress();

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  /**
   * An anonymous wallet call, each from an address of its own: these tests are about the routes'
   * answers, not the per-address allowance (wallet.allowance.security.test.ts), which the dozens
   * of calls here from one address, on the test's clock that stands still, would spend.
   */
  let visitors = 0;
  const anonymous = (method: string, path: string, options: CallOptions = {}) => {
    visitors += 1;
    return call(t, method, path, { ...options, remoteAddress: `198.51.${Math.floor(visitors / 250)}.${(visitors % 250) + 1}` });
  };

  async function challenge(forAddress = address) {
    const response = await anonymous('GET', `/v1/wallet/challenge?address=${forAddress}`);
    expect(response.status).toBe(200);
    return response.body.data as { challengeId: string; address: string; message: string; expiresAt: string };
  }

  async function sign(message: string, signer = wallet): Promise<string> {
    return (await signer.signPersonalMessage(new TextEncoder().encode(message))).signature;
  }

  async function register(options: { signer?: Ed25519Keypair; reuse?: { challengeId: string; message: string } } = {}) {
    const c = options.reuse ?? (await challenge());
    return anonymous('POST', '/v1/wallet/register', {
      body: { address, challengeId: c.challengeId, signature: await sign(c.message, options.signer) },
    });
  }

  /** A registration by another wallet, which has an organization of its own. */
  async function registerOther(other: Ed25519Keypair) {
    const c = await challenge(other.toSuiAddress());
    return anonymous('POST', '/v1/wallet/register', { body: { address: other.toSuiAddress(), challengeId: c.challengeId, signature: await sign(c.message, other) } });
  }

  let organizationId: string;
  let firstWalletKey: { id: string; apiKey: string };
  let standardKey: { id: string; apiKey: string };

  it('a register body with an unknown field is 400 VALIDATION_FAILED', async () => {
    const c = await challenge();
    const response = await anonymous('POST', '/v1/wallet/register', {
      body: { address, challengeId: c.challengeId, signature: await sign(c.message), referrer: 'x' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  it('a challenge names the address and lives five minutes', async () => {
    const c = await challenge();
    expect(c.address).toBe(address);
    expect(c.message).toContain(address);
    expect(c.message).toContain(c.challengeId);
    expect(c.expiresAt).toBe(new Date(t.clock.now() + 5 * 60_000).toISOString());
  });

  it('first registration without balance: 402 INSUFFICIENT_PREPAID_BALANCE whose body carries organizationId', async () => {
    const response = await register();
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({ code: 'INSUFFICIENT_PREPAID_BALANCE', error: expect.any(String), organizationId: expect.stringMatching(/^org_/) });
    organizationId = response.body['organizationId'] as string;
    const keys = await t.db.database.db.selectFrom('api_keys').select('id').where('organization_id', '=', organizationId).execute();
    expect(keys).toEqual([]);
  });

  it('after a $5 grant: 201 with a 30-day key, scopes data/streams/manage', async () => {
    await grantPrepaidCredit(t.db.database.db, t.clock, organizationId, 5_000_000n, 'test');
    const response = await register();
    expect(response.status).toBe(201);
    const data = response.body.data as Record<string, unknown>;
    expect(data).toMatchObject({
      organizationId,
      revokedKeys: 0,
      scopes: ['data', 'streams', 'manage'],
      expiresAt: new Date(t.clock.now() + 30 * DAY).toISOString(),
      apiKey: expect.stringMatching(/^svc_pat_/),
    });
    firstWalletKey = { id: data['id'] as string, apiKey: data['apiKey'] as string };
    const me = await call(t, 'GET', '/v1/auth/me', { key: firstWalletKey.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ organization: { id: organizationId }, network: 'mainnet' });
  });

  it('the account shows the wallet, tier wallet and the balance {credits, usd}', async () => {
    const response = await call(t, 'GET', '/v1/account', { key: firstWalletKey.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      organization: { id: organizationId, walletAddress: address },
      tier: 'wallet',
      key: { id: firstWalletKey.id, scopes: ['data', 'streams', 'manage'] },
      balance: { credits: '500000', usd: '5.00' },
    });
  });

  it('management calls work at zero balance (they are not metered)', async () => {
    const db = t.db.database.db;
    const { prepaid_micro_usd: saved } = await db.selectFrom('organizations').select('prepaid_micro_usd').where('id', '=', organizationId).executeTakeFirstOrThrow();
    await db.updateTable('organizations').set({ prepaid_micro_usd: 0 }).where('id', '=', organizationId).execute();
    try {
      const account = await call(t, 'GET', '/v1/account', { key: firstWalletKey.apiKey });
      expect(account.status).toBe(200);
      expect((account.body.data as { balance: unknown }).balance).toEqual({ credits: '0', usd: '0.00' });
      expect((await call(t, 'GET', '/v1/keys', { key: firstWalletKey.apiKey })).status).toBe(200);
      expect((await call(t, 'GET', '/v1/projects', { key: firstWalletKey.apiKey })).status).toBe(200);
      expect((await call(t, 'GET', '/v1/auth/me', { key: firstWalletKey.apiKey })).status).toBe(200);
    } finally {
      await db.updateTable('organizations').set({ prepaid_micro_usd: saved }).where('id', '=', organizationId).execute();
    }
  });

  it('the wallet organization has one mainnet project; another is 403 PROJECT_LIMIT_REACHED', async () => {
    const list = await call(t, 'GET', '/v1/projects', { key: firstWalletKey.apiKey });
    expect(list.body.data).toEqual([expect.objectContaining({ network: 'mainnet' })]);
    for (const network of ['mainnet', 'testnet']) {
      const response = await call(t, 'POST', '/v1/projects', { key: firstWalletKey.apiKey, body: { name: `more ${network}`, network } });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('PROJECT_LIMIT_REACHED');
    }
  });

  it('a second registration revokes the first wallet key but not keys made with /v1/keys', async () => {
    const projectId = ((await call(t, 'GET', '/v1/projects', { key: firstWalletKey.apiKey })).body.data as { id: string }[])[0]!.id;
    const created = await call(t, 'POST', '/v1/keys', { key: firstWalletKey.apiKey, body: { name: 'app', projectId } });
    expect(created.status).toBe(201);
    standardKey = created.body.data as { id: string; apiKey: string };

    const response = await register();
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ organizationId, revokedKeys: 1 });
    const second = response.body.data as { apiKey: string };
    expect((await call(t, 'GET', '/v1/auth/me', { key: firstWalletKey.apiKey })).status).toBe(401);
    expect((await call(t, 'GET', '/v1/auth/me', { key: second.apiKey })).status).toBe(200);
    expect((await call(t, 'GET', '/v1/auth/me', { key: standardKey.apiKey })).status).toBe(200);
  });

  it('concurrent registrations leave exactly one enabled wallet key', async () => {
    const enabledWalletKeys = async () =>
      (
        await t.db.database.db
          .selectFrom('api_keys')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('kind', '=', 'wallet')
          .where('enabled', '=', true)
          .execute()
      ).length;
    for (let round = 0; round < 3; round++) {
      const responses = await Promise.all([register(), register(), register()]);
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201]);
      expect(await enabledWalletKeys()).toBe(1);
    }
    expect((await call(t, 'GET', '/v1/auth/me', { key: standardKey.apiKey })).status).toBe(200);
  });

  it('a challenge writes nothing: anonymous callers cannot fill a table', async () => {
    const anyone = Ed25519Keypair.generate().toSuiAddress();
    for (let i = 0; i < 20; i++) expect((await anonymous('GET', `/v1/wallet/challenge?address=${anyone}`)).status).toBe(200);
    const rows = await t.db.database.db.selectFrom('wallet_challenges').select('id').where('address', '=', anyone).execute();
    expect(rows).toEqual([]);
  });

  it('a challenge id altered to live longer is 400 WALLET_CHALLENGE_INVALID', async () => {
    const c = await challenge();
    // Flip a bit of the signed expiry: the HMAC no longer matches.
    const body = Buffer.from(c.challengeId.slice(5, 29), 'base64url');
    body[0]! ^= 0x01;
    const forged = `chal_${body.toString('base64url')}${c.challengeId.slice(29)}`;
    expect(forged).not.toBe(c.challengeId);
    const message = c.message.replace(c.challengeId, forged);
    const response = await register({ reuse: { challengeId: forged, message } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('WALLET_CHALLENGE_INVALID');
  });

  it('a used challenge is recorded until it expires, then deleted by a later registration', async () => {
    const start = t.clock.now();
    try {
      const used = await challenge();
      expect((await register({ reuse: used })).status).toBe(201);
      const recorded = () => t.db.database.db.selectFrom('wallet_challenges').select('id').where('id', '=', used.challengeId).execute();
      expect(await recorded()).toHaveLength(1);
      t.clock.advance(5 * 60_000);
      expect((await register()).status).toBe(201);
      expect(await recorded()).toEqual([]);
      // Deleted, and still refused: its own expiry says so.
      expect((await register({ reuse: used })).body.code).toBe('WALLET_CHALLENGE_INVALID');
    } finally {
      t.clock.set(start);
    }
  });

  it('a reused challenge is 400 WALLET_CHALLENGE_INVALID', async () => {
    const c = await challenge();
    expect((await register({ reuse: c })).status).toBe(201);
    const again = await register({ reuse: c });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('WALLET_CHALLENGE_INVALID');
  });

  it('an expired challenge is 400 WALLET_CHALLENGE_INVALID', async () => {
    const c = await challenge();
    const start = t.clock.now();
    t.clock.advance(5 * 60_000);
    try {
      const response = await register({ reuse: c });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('WALLET_CHALLENGE_INVALID');
    } finally {
      t.clock.set(start);
    }
  });

  it("a challenge of another address or an unknown id is 400 WALLET_CHALLENGE_INVALID", async () => {
    const other = Ed25519Keypair.generate();
    const c = await challenge(other.toSuiAddress());
    expect((await register({ reuse: c })).body.code).toBe('WALLET_CHALLENGE_INVALID');
    expect((await register({ reuse: { challengeId: 'chal_nope', message: 'x' } })).body.code).toBe('WALLET_CHALLENGE_INVALID');
  });

  it('a signature by another key is 401 WALLET_SIGNATURE_INVALID, and issues nothing', async () => {
    const before = await t.db.database.db.selectFrom('api_keys').select('id').where('organization_id', '=', organizationId).execute();
    const response = await register({ signer: Ed25519Keypair.generate() });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID' });
    const garbage = await anonymous('POST', '/v1/wallet/register', {
      body: { address, challengeId: (await challenge()).challengeId, signature: 'AAAA' },
    });
    expect(garbage.status).toBe(401);
    expect(garbage.body.code).toBe('WALLET_SIGNATURE_INVALID');
    const after = await t.db.database.db.selectFrom('api_keys').select('id').where('organization_id', '=', organizationId).execute();
    expect(after.length).toBe(before.length);
  });

  it('a wallet whose organization was deleted gets 404 ORGANIZATION_NOT_FOUND, not 500', async () => {
    const gone = Ed25519Keypair.generate();
    const attempt = () => registerOther(gone);
    const first = await attempt();
    expect(first.status).toBe(402);
    await t.db.database.db.updateTable('organizations').set({ deleted_at: new Date(t.clock.now()) }).where('id', '=', first.body['organizationId'] as string).execute();
    const again = await attempt();
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('ORGANIZATION_NOT_FOUND');
  });

  it('50 enabled keys besides the wallet key it replaces: 403 KEY_LIMIT_REACHED, and nothing issued', async () => {
    const full = Ed25519Keypair.generate();
    const attempt = () => registerOther(full);
    const { db } = t.db.database;
    const fullOrganization = (await attempt()).body['organizationId'] as string;
    await grantPrepaidCredit(db, t.clock, fullOrganization, 5_000_000n, 'test');
    const { id: projectId } = await db.selectFrom('projects').select('id').where('organization_id', '=', fullOrganization).executeTakeFirstOrThrow();
    const fill = async (count: number) => {
      for (let i = 0; i < count; i += 1) await createKey(t.db.database, t.clock, { kind: 'operator' }, { organizationId: fullOrganization, projectId, name: `app ${i}` });
    };
    const enabled = async () =>
      db.selectFrom('api_keys').select(['kind']).where('organization_id', '=', fullOrganization).where('enabled', '=', true).execute();

    // 49 keys and the wallet key make 50: a new registration replaces the wallet key, so it fits.
    await fill(MAX_ENABLED_KEYS_PER_ORGANIZATION - 1);
    expect((await attempt()).status).toBe(201);
    const replaced = await attempt();
    expect(replaced.status).toBe(201);
    expect(replaced.body.data).toMatchObject({ revokedKeys: 1 });
    // Without an enabled wallet key, 50 other keys leave no place.
    await db.updateTable('api_keys').set({ enabled: false }).where('organization_id', '=', fullOrganization).where('kind', '=', 'wallet').execute();
    await fill(1);
    const refused = await attempt();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'KEY_LIMIT_REACHED', error: 'Key limit reached' });
    expect(await enabled()).toEqual(Array(MAX_ENABLED_KEYS_PER_ORGANIZATION).fill({ kind: 'standard' }));
  });

  it('a malformed address is 400 VALIDATION_FAILED; testnet is 403 NETWORK_MISMATCH', async () => {
    expect((await anonymous('GET', '/v1/wallet/challenge?address=0x12')).body.code).toBe('VALIDATION_FAILED');
    const testnet = await anonymous('GET', `/v1/wallet/challenge?address=${address}`, { network: 'testnet' });
    expect(testnet.status).toBe(403);
    expect(testnet.body.code).toBe('NETWORK_MISMATCH');
  });
});
