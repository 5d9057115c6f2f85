import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import {
  ChainInfo, Checkpoint, CoinMetadata, NameAvailability, NameBatchResult, NameResolution, NetworkStats, ObjectMetadata,
  ObjectResponse, Package, ReverseResolution, StakingParameters, SuiObject, Validator, ValidatorApy,
} from '../../services/rest/schemas.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema }).strict();
const FULL = (short: string) => short.replace(/^0x([0-9a-f]+)/, (_, hex: string) => `0x${hex.padStart(64, '0')}`);

describe('REST chain, objects, coins, packages and names against simnet', () => {
  let e2e: RestE2E;
  beforeAll(async () => {
    e2e = await startRestE2E();
    for (let i = 0; i < 12; i += 1) e2e.simnet.seal();
  });
  afterAll(async () => { await e2e.stop(); });

  it('checkpoints: latest, by sequence number, by digest, unknown → 404', async () => {
    const latest = data(Checkpoint.strict()).parse((await e2e.get('/checkpoints/latest')).body).data;
    const held = e2e.simnet.ledger.getCheckpoint(BigInt(latest.sequenceNumber))!;
    expect(latest.digest).toBe(held.digest);
    const bySeq = data(Checkpoint.strict()).parse((await e2e.get('/checkpoints/1')).body).data;
    const record = e2e.simnet.ledger.getCheckpoint(1n)!;
    expect(bySeq).toMatchObject({ sequenceNumber: 1, digest: record.digest, prevDigest: e2e.simnet.ledger.getCheckpoint(0n)!.digest, timestampMs: Number(record.timestampMs), epoch: Number(record.epoch) });
    expect((await e2e.get(`/checkpoints/${record.digest}`)).body.data).toEqual(bySeq);
    expect((await e2e.get('/checkpoints/99999999')).body.code).toBe('CHECKPOINT_NOT_FOUND');
  });

  it('GET /chain: chain id, protocol version, tip and TPS', async () => {
    const chain = data(ChainInfo.strict()).parse((await e2e.get('/chain')).body).data;
    expect(chain.chainId).toBe(e2e.simnet.chainId);
    expect(chain.version).toBe(e2e.simnet.ledger.systemState().protocolVersion.toString());
    expect(BigInt(chain.latestCheckpoint)).toBeGreaterThanOrEqual(12n);
    expect(chain.networkTps).toBeGreaterThanOrEqual(0);
  });

  it('GET /staking/parameters and /network/stats match the system state', async () => {
    const state = e2e.simnet.ledger.systemState();
    expect(data(StakingParameters.strict()).parse((await e2e.get('/staking/parameters')).body).data).toEqual({
      epochLength: state.epochDurationMs.toString(),
      minValidatorStake: state.minValidatorJoiningStake.toString(),
      maxValidatorCount: Number(state.maxValidatorCount),
      minValidatorJoiningStake: state.minValidatorJoiningStake.toString(),
      validatorLowStakeThreshold: state.validatorLowStakeThreshold.toString(),
      validatorVeryLowStakeThreshold: state.validatorVeryLowStakeThreshold.toString(),
      validatorLowStakeGracePeriod: state.validatorLowStakeGracePeriod.toString(),
    });
    const stats = data(NetworkStats.strict()).parse((await e2e.get('/network/stats')).body).data;
    expect(stats).toMatchObject({ totalValidators: state.validators.length, totalStake: state.totalStake.toString(), epoch: state.epoch.toString(), epochStartTimestamp: state.epochStartTimestampMs.toString(), epochDurationMs: state.epochDurationMs.toString() });
  });

  it('GET /validators and /validators/apy (computed from exchange rates)', async () => {
    const state = e2e.simnet.ledger.systemState();
    const validators = data(z.array(Validator.strict())).parse((await e2e.get('/validators')).body).data;
    expect(validators.map((v) => v.suiAddress)).toEqual(state.validators.map((v) => v.address));
    expect(validators[0]!.commissionRate).toBe((Number(state.validators[0]!.commissionRate) / 10_000).toString());
    const apys = data(z.array(ValidatorApy.strict())).parse((await e2e.get('/validators/apy')).body).data;
    expect(apys).toHaveLength(state.validators.length);
    for (const apy of apys) {
      // simnet grows each pool by 2.5–4.5 % a year, compounded daily
      expect(apy.apy).toBeGreaterThan(0.024);
      expect(apy.apy).toBeLessThan(0.047);
      expect(apy.epoch).toBe(state.epoch.toString());
    }
  });

  it('objects: by id, batch with a missing one, display metadata, unknown → 404', async () => {
    const alice = e2e.address('alice');
    const owned = e2e.simnet.ledger.listOwnedObjects(alice, {}, { limit: 1000 }).items;
    const nft = owned.find((o) => o.display)!;
    const object = data(SuiObject.strict()).parse((await e2e.get(`/objects/${nft.objectId}`)).body).data;
    expect(object).toMatchObject({ objectId: nft.objectId, version: nft.version.toString(), digest: nft.digest, type: nft.type, owner: alice, storageRebate: nft.storageRebate.toString() });
    const missing = `0x${'e'.repeat(64)}`;
    const batch = data(z.array(ObjectResponse.strict())).parse((await e2e.post('/objects/batch', { ids: [nft.objectId, missing] })).body).data;
    expect(batch[0]!.data!.objectId).toBe(nft.objectId);
    expect(batch[1]).toEqual({ error: expect.stringContaining(missing) });
    const metadata = data(ObjectMetadata.strict()).parse((await e2e.get(`/objects/${nft.objectId}/metadata`)).body).data;
    expect(metadata).toMatchObject({ objectId: nft.objectId, type: nft.type, name: nft.display!.name, image: nft.display!.image_url, projectName: nft.display!.project_name });
    expect((await e2e.get(`/objects/${missing}`)).body.code).toBe('OBJECT_NOT_FOUND');
  });

  it('coins: metadata with verification and market data; a coin without metadata → 404', async () => {
    const sui = data(CoinMetadata.strict()).parse((await e2e.get(`/coins/${encodeURIComponent('0x2::sui::SUI')}/metadata`)).body).data;
    expect(sui).toMatchObject({ type: FULL('0x2::sui::SUI'), symbol: 'SUI', decimals: 9, verified: true, usdValue: 2, totalSupply: '10000000000000000000' });
    expect(sui.marketCap).toBeCloseTo(2 * 10_000_000_000, 0);
    const usdc = e2e.simnet.ledger.listCoinTypes().find((c) => c.coinType.endsWith('::usdc::USDC'))!;
    const usdcMeta = data(CoinMetadata.strict()).parse((await e2e.get(`/coins/${encodeURIComponent(usdc.coinType)}/metadata`)).body).data;
    expect(usdcMeta).toMatchObject({ symbol: 'USDC', decimals: 6, verified: false, iconUrl: usdc.metadata!.iconUrl, totalSupply: usdc.totalSupply.toString() });
    expect(usdcMeta).not.toHaveProperty('marketCap');
    const meme = e2e.simnet.ledger.listCoinTypes().find((c) => !c.metadata)!;
    expect((await e2e.get(`/coins/${encodeURIComponent(meme.coinType)}/metadata`)).body.code).toBe('COIN_NOT_FOUND');
  });

  it('GET /packages/{id}: modules of the framework', async () => {
    const pkg = data(Package.strict()).parse((await e2e.get(`/packages/${FULL('0x2')}`)).body).data;
    expect(pkg.packageId).toBe(FULL('0x2'));
    expect(pkg.modules?.map((m) => m.name)).toContain('coin');
    expect((await e2e.get(`/packages/0x${'e'.repeat(64)}`)).body.code).toBe('PACKAGE_NOT_FOUND');
  });

  it('names: resolve, reverse, batch, availability', async () => {
    const alice = e2e.address('alice');
    const resolved = data(NameResolution.strict()).parse((await e2e.get('/names/alice')).body).data;
    const record = e2e.simnet.ledger.lookupName('alice.sui')!;
    expect(resolved).toMatchObject({ name: 'alice', address: alice, expiration: new Date(Number(record.expirationTimestampMs)).toISOString() });
    expect((await e2e.get('/names/alice.sui')).body.data.address).toBe(alice);
    expect((await e2e.get('/names/expired')).body.code).toBe('NAME_NOT_FOUND');
    expect((await e2e.get('/names/nobody-has-this')).body.code).toBe('NAME_NOT_FOUND');
    expect(data(ReverseResolution.strict()).parse((await e2e.get(`/names/reverse/${alice}`)).body).data).toEqual({ address: alice, name: 'alice' });
    const stranger = Ed25519Keypair.generate().toSuiAddress();
    expect((await e2e.get(`/names/reverse/${stranger}`)).body.data).toEqual({ address: stranger, name: null });
    const batch = data(z.object({ results: z.array(NameBatchResult.strict()) }).strict()).parse((await e2e.post('/names/batch', { names: ['alice', 'shop.alice', 'nobody-has-this'] })).body).data;
    expect(batch.results).toEqual([
      { name: 'alice', address: alice },
      { name: 'shop.alice', address: alice },
      { name: 'nobody-has-this', address: null, error: 'not found' },
    ]);
    const Availability = data(NameAvailability.strict());
    expect(Availability.parse((await e2e.get('/names/alice/availability')).body).data).toMatchObject({ name: 'alice', registered: true, available: false });
    expect(Availability.parse((await e2e.get('/names/expired/availability')).body).data).toMatchObject({ registered: true, available: true });
    expect(Availability.parse((await e2e.get('/names/nobody-has-this/availability')).body).data).toEqual({ name: 'nobody-has-this', registered: false, available: true });
  });

  it('names: the name `reverse` answers its availability like any name, not the reverse route\'s INVALID_ADDRESS', async () => {
    const reverse = await e2e.get('/names/reverse/availability');
    expect(reverse).toEqual({ status: 200, body: { data: { name: 'reverse', registered: false, available: true } } });
    expect(await e2e.get('/names/reverse.sui/availability')).toEqual(reverse);
    expect((await e2e.get('/names/batch/availability')).body).toEqual({ data: { name: 'batch', registered: false, available: true } });
    // The reverse route itself is unchanged: an address that is not one is still 400 INVALID_ADDRESS.
    expect([(await e2e.get('/names/reverse/availabilit')).status, (await e2e.get('/names/reverse/availabilit')).body.code]).toEqual([400, 'INVALID_ADDRESS']);
    expect((await e2e.get('/names/reverse/availability/x')).body.code).toBe('NOT_FOUND');
  });
});

describe('REST when simnet stops', () => {
  it('answers 503 UPSTREAM_UNAVAILABLE, and /health reports the upstream down', async () => {
    const e2e = await startRestE2E({ policy: { deadlineMs: 1_500, attemptTimeoutMs: 500 }, env: { SUIGW_UPSTREAM_PROBE_INTERVAL_MS: '200' } });
    try {
      expect((await e2e.get('/chain')).status).toBe(200);
      await e2e.simnet.stop();
      const { status, body } = await e2e.get('/checkpoints/latest');
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
      await expect.poll(async () => (await e2e.gateway.app.inject({ url: '/health' })).json().status, { timeout: 5_000 }).toBe('degraded');
      // The probe reads gRPC and GraphQL one after the other: the first probe to see one down
      // already makes /health degraded, the next one sees both.
      const readDetails = async () => (await e2e.gateway.app.inject({ url: '/mainnet/v1/health/details', headers: { 'x-api-key': e2e.gateway.adminKey } })).json().data;
      await expect.poll(async () => (await readDetails()).status, { timeout: 5_000 }).toBe('down');
      const details = await readDetails();
      expect(details).toMatchObject({ network: 'mainnet', status: 'down', grpc: { status: 'down' }, graphql: { status: 'down' } });
    } finally {
      await e2e.stop();
    }
  });
});
