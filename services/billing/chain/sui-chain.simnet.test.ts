import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_TREASURY, CATALOG, COIN_TYPES, startSimnet, type RunningSimnet } from '../../simnet/index.js';
import type { Network } from '../../core/index.js';
import { SuiChain } from './sui-chain.js';

const USDC = 1_000_000n;

const yearMonth = (ms: number) => new Date(ms).getUTCFullYear() * 100 + new Date(ms).getUTCMonth() + 1;

describe('SuiChain on simnet: the billing app through the official SDK over gRPC-Web', () => {
  let simnet: RunningSimnet;
  let chain: SuiChain;
  let client: SuiGrpcClient;
  const network: Network = 'testnet';

  beforeAll(async () => {
    simnet = await startSimnet({ seed: 'billing-chain', autoStart: false });
    client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
    const deployer = simnet.accounts.find((account) => account.label === 'deployer')!;
    chain = new SuiChain({
      clients: new Map([[network, client]]),
      settings: new Map([[network, { packageId: CATALOG.billingPackage, configId: CATALOG.billingConfig, usdcType: COIN_TYPES.USDC, treasury: BILLING_TREASURY }]]),
      sponsor: deployer.keypair,
    });
  });
  afterAll(async () => simnet.stop());

  async function prepareAndSign(funderLabel: string, limit: bigint, prefund: bigint) {
    const funder = simnet.accounts.find((account) => account.label === funderLabel)!;
    const bytes = await chain.buildPrepare(network, {
      funder: funder.address, organization: 'org_acme', periodLimit: limit, windowMonths: 1, prefund, startMs: 0, expirationMs: null,
    });
    const { signature } = await funder.keypair.signTransaction(bytes);
    const result = await client.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true, objectTypes: true } });
    const tx = result.Transaction!;
    expect(tx.status.success).toBe(true);
    const allowanceId = Object.entries(tx.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    const capId = Object.entries(tx.objectTypes!).find(([, type]) => type.includes('::allowance::AllowanceCap<'))![0];
    return { funder, allowanceId, capId };
  }

  it('prepare → funder signs → the allowance reads back as proposed, issued by the billing app', async () => {
    const { funder, allowanceId } = await prepareAndSign('carol', 49n * USDC, 98n * USDC);
    const allowance = await chain.allowance(network, allowanceId);
    expect(allowance).toEqual({
      objectId: allowanceId, coinType: COIN_TYPES.USDC, funder: funder.address, spender: chain.spender,
      app: `${CATALOG.billingPackage}::billing::BillingApp`, name: 'org_acme', periodLimit: 49n * USDC, windowMonths: 1, startMs: 0, expirationMs: null,
      // Nothing spent yet: the window is the month it was issued in.
      windowStartMs: 0, month: yearMonth(Number(simnet.ledger.nowMs())), periodSpent: 0n,
    });
    expect(await chain.addressBalance(network, funder.address, COIN_TYPES.USDC)).toBeGreaterThanOrEqual(98n * USDC);
  });

  it('charges once per period under the limit; the same signed bytes never run twice; a second charge in the month is refused', async () => {
    const { funder, allowanceId } = await prepareAndSign('grace', 49n * USDC, 200n * USDC);
    const before = await chain.addressBalance(network, funder.address, COIN_TYPES.USDC);
    const treasuryBefore = await chain.addressBalance(network, BILLING_TREASURY, COIN_TYPES.USDC);
    const signed = await chain.signCharge(network, { allowanceId, funder: funder.address, amount: 49n * USDC, period: 1 });
    expect(await chain.lookup(network, signed.digest)).toBeNull();
    expect(await chain.submit(network, signed)).toEqual({ kind: 'succeeded', digest: signed.digest });
    expect(await chain.submit(network, signed)).toEqual({ kind: 'succeeded', digest: signed.digest });
    expect(await chain.lookup(network, signed.digest)).toEqual({ kind: 'succeeded', digest: signed.digest });
    expect(await chain.addressBalance(network, funder.address, COIN_TYPES.USDC)).toBe(before - 49n * USDC);
    expect(await chain.addressBalance(network, BILLING_TREASURY, COIN_TYPES.USDC)).toBe(treasuryBefore + 49n * USDC);
    await expect(chain.signCharge(network, { allowanceId, funder: funder.address, amount: 49n * USDC, period: 2 }))
      .rejects.toMatchObject({ name: 'ChargeDeclined', reason: 'allowance_refused', message: expect.stringContaining('abort code: 4') });
    expect(await chain.addressBalance(network, funder.address, COIN_TYPES.USDC)).toBe(before - 49n * USDC);
  });

  it('a signed charge whose gas coin moved on is spent; one still pending is not', async () => {
    const { funder, allowanceId } = await prepareAndSign('erin', 49n * USDC, 100n * USDC);
    const first = await chain.signCharge(network, { allowanceId, funder: funder.address, amount: 1n, period: 10 });
    expect(await chain.isSpent(network, first)).toBe(false);
    const second = await chain.signCharge(network, { allowanceId, funder: funder.address, amount: 1n, period: 11 });
    await chain.submit(network, second);
    expect(await chain.isSpent(network, first)).toBe(true);
  });

  it('a revoked allowance is gone: null, and a charge against it never executes', async () => {
    const { funder, allowanceId, capId } = await prepareAndSign('ivan', 49n * USDC, 60n * USDC);
    const { Transaction } = await import('@mysten/sui/transactions');
    const tx = new Transaction();
    tx.setSender(funder.address);
    tx.moveCall({ target: '0x2::allowance::revoke', typeArguments: [COIN_TYPES.USDC], arguments: [tx.object(capId), tx.object(allowanceId)] });
    const bytes = await tx.build({ client });
    const { signature } = await funder.keypair.signTransaction(bytes);
    const revoked = await client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
    expect(revoked.Transaction?.status.success).toBe(true);
    expect(await chain.allowance(network, allowanceId)).toBeNull();
  });

  it('an annual allowance: one price per 12-month window on a grid from the first spend (Feb 29 → Feb 28), refused inside a window', async () => {
    const funder = simnet.accounts.find((account) => account.label === 'olivia')!;
    const bytes = await chain.buildPrepare(network, { funder: funder.address, organization: 'org_year', periodLimit: 490n * USDC, windowMonths: 12, prefund: 1_470n * USDC, startMs: 0, expirationMs: null });
    const result = await client.core.executeTransaction({ transaction: bytes, signatures: [(await funder.keypair.signTransaction(bytes)).signature], include: { objectTypes: true } });
    const allowanceId = Object.entries(result.Transaction!.objectTypes!).find(([, type]) => type.includes('::allowance::Allowance<'))![0];
    const charge = (period: number) => chain.signCharge(network, { allowanceId, funder: funder.address, amount: 490n * USDC, period }).then((signed) => chain.submit(network, signed));
    simnet.advanceClockTo(Date.UTC(2028, 1, 29, 10));
    expect(await charge(1)).toMatchObject({ kind: 'succeeded' });
    simnet.advanceClockTo(Date.UTC(2028, 7, 31, 10));
    await expect(charge(2)).rejects.toMatchObject({ name: 'ChargeDeclined', reason: 'allowance_refused' });
    simnet.advanceClockTo(Date.UTC(2029, 1, 28, 10));
    expect(await charge(3)).toMatchObject({ kind: 'succeeded' });
    simnet.advanceClockTo(Date.UTC(2030, 1, 28, 10, 0, 5));
    expect(await charge(4)).toMatchObject({ kind: 'succeeded' });
    expect(simnet.ledger.getAllowance(allowanceId)!.lifetimeSpent).toBe(3n * 490n * USDC);
  });

  it('a funder without the USDC to prefund gets TransactionBuildFailed', async () => {
    const poor = simnet.accounts.find((account) => account.label === 'mallory')!;
    await expect(chain.buildPrepare(network, { funder: poor.address, organization: 'o', periodLimit: 1n, windowMonths: 1, prefund: 10n ** 15n, startMs: 0, expirationMs: null }))
      .rejects.toMatchObject({ name: 'TransactionBuildFailed' });
  });
});
