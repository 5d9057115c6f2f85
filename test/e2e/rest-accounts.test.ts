import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction } from '@mysten/sui/transactions';
import { createGrpcTransport } from '../../services/upstream/grpc-channel.js';
import { Account, ActivityItem, Balance, Delegation, DelegationSummary, ObjectResponse, TransactionBlock } from '../../services/rest/schemas.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

const SUI = `0x${'0'.repeat(63)}2::sui::SUI`;
const FAUCET_MIST = 10_000_000_000n;
const Pagination = z.object({ limit: z.number(), cursor: z.string().optional(), hasNext: z.boolean() }).strict();

describe('REST accounts against simnet', () => {
  let e2e: RestE2E;
  const fresh = Ed25519Keypair.generate().toSuiAddress();
  beforeAll(async () => {
    e2e = await startRestE2E();
    await e2e.faucet(fresh);
  });
  afterAll(async () => { await e2e.stop(); });

  it('GET /accounts/{a} after a faucet call: balance and activity from the chain', async () => {
    const { status, body } = await e2e.get(`/accounts/${fresh}`);
    expect(status).toBe(200);
    const account = z.object({ data: Account.strict() }).strict().parse(body).data;
    expect(account).toMatchObject({ address: fresh, balance: FAUCET_MIST.toString(), transactionCount: 1, objectCount: 1 });
    expect(account.usdValue).toBeCloseTo(20, 6); // 10 SUI at the configured test price of 2 USD
    expect(account.firstActivity).toBe(account.lastActivity);
  });

  it('GET /accounts/{a} of an address the chain never saw → 404 ACCOUNT_NOT_FOUND', async () => {
    const { status, body } = await e2e.get(`/accounts/${Ed25519Keypair.generate().toSuiAddress()}`);
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: 'ACCOUNT_NOT_FOUND', error: expect.any(String) });
    expect((await e2e.get(`/accounts/${Ed25519Keypair.generate().toSuiAddress()}/balance`)).body.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('GET /balance equals what simnet holds, with metadata decimals and the decimals-0 fallback', async () => {
    const alice = e2e.address('alice');
    const { status, body } = await e2e.get(`/accounts/${alice}/balance`);
    expect(status).toBe(200);
    const balances = z.object({ data: z.array(Balance.strict()) }).strict().parse(body).data;
    const held = e2e.simnet.ledger.listBalances(alice, { limit: 1000 }).items;
    expect(balances.map((b) => [b.coinType, b.balance])).toEqual(held.map((h) => [h.coinType, h.balance.toString()]));
    expect(balances.find((b) => b.coinType === SUI)).toMatchObject({ decimals: 9, symbol: 'SUI' });
    const meme = balances.find((b) => b.coinType.endsWith('::meme::MEME'));
    expect(meme).toBeDefined();
    expect(meme).toMatchObject({ decimals: 0 });
    expect(meme).not.toHaveProperty('formattedBalance');
    expect((await e2e.get(`/accounts/${fresh}/balance`)).body.data).toEqual([
      expect.objectContaining({ coinType: SUI, balance: '10000000000', totalBalance: '10000000000', decimals: 9, formattedBalance: '10' }),
    ]);
  });

  it('GET /objects pages through every owned object with signed cursors', async () => {
    const alice = e2e.address('alice');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await e2e.get(`/accounts/${alice}/objects?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      const page = z.object({ data: z.array(ObjectResponse.strict()), pagination: Pagination }).strict().parse(body);
      expect(page.data.length).toBeLessThanOrEqual(4);
      expect(page.pagination.limit).toBe(4);
      seen.push(...page.data.map((o) => o.data!.objectId));
      cursor = page.pagination.cursor;
      expect(page.pagination.hasNext).toBe(cursor !== undefined);
      pages += 1;
    } while (cursor && pages < 50);
    const held = e2e.simnet.ledger.listOwnedObjects(alice, {}, { limit: 1000 }).items.map((o) => o.objectId);
    expect(seen).toEqual(held);
    expect(pages).toBeGreaterThan(1);
  });

  it('a cursor is bound to its query and tamper-proof', async () => {
    const alice = e2e.address('alice');
    const { body } = await e2e.get(`/accounts/${alice}/objects?limit=1`);
    const cursor = body.pagination.cursor as string;
    expect((await e2e.get(`/accounts/${e2e.address('bob')}/objects?cursor=${encodeURIComponent(cursor)}`)).body.code).toBe('INVALID_CURSOR');
    expect((await e2e.get(`/accounts/${alice}/objects?cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`)).body.code).toBe('INVALID_CURSOR');
    expect((await e2e.get(`/accounts/${alice}/transactions?cursor=${encodeURIComponent(cursor)}`)).body.code).toBe('INVALID_CURSOR');
  });

  it('GET /transactions (raw): includeReceived defaults to false, so a faucet recipient has sent nothing', async () => {
    const sent = await e2e.get(`/accounts/${fresh}/transactions`);
    expect(z.object({ data: z.array(TransactionBlock), pagination: Pagination }).strict().parse(sent.body)).toEqual({ data: [], pagination: { limit: 50, hasNext: false } });
    const all = await e2e.get(`/accounts/${fresh}/transactions?includeReceived=true`);
    const blocks = z.array(TransactionBlock.strict()).parse(all.body.data);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.balanceChanges).toContainEqual({ owner: { AddressOwner: fresh }, coinType: SUI, amount: FAUCET_MIST.toString() });
  });

  it('GET /transactions?format=activity: received by the recipient, sent by the faucet, amounts from balance changes', async () => {
    const faucet = e2e.address('faucet');
    const received = await e2e.get(`/accounts/${fresh}/transactions?format=activity`);
    const items = z.object({ data: z.array(ActivityItem.strict()), pagination: Pagination }).strict().parse(received.body).data;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: 'received', amount: FAUCET_MIST.toString(), coinType: SUI, counterparty: faucet, timestamp: expect.stringMatching(/Z$/) });
    const sent = await e2e.get(`/accounts/${faucet}/transactions?format=activity&limit=1`);
    const [latest] = z.array(ActivityItem).parse(sent.body.data);
    expect(latest).toMatchObject({ type: 'sent', amount: FAUCET_MIST.toString(), coinType: SUI, counterparty: fresh, transactionDigest: items[0]!.transactionDigest });
    // includeReceived=false for activity keeps only what the account sent
    expect((await e2e.get(`/accounts/${fresh}/transactions?format=activity&includeReceived=false`)).body.data).toEqual([]);
  });

  it('a transfer between two accounts: balances and activity direction on both sides', async () => {
    const sender = Ed25519Keypair.generate();
    const receiver = Ed25519Keypair.generate().toSuiAddress();
    await e2e.faucet(sender.toSuiAddress());
    const transport = createGrpcTransport(e2e.simnet.grpcUrl);
    const client = new SuiGrpcClient({ network: 'mainnet', transport });
    try {
      const tx = new Transaction();
      const [coin] = tx.splitCoins(tx.gas, [1_234_567_890n]);
      tx.transferObjects([coin!], receiver);
      const result = await client.signAndExecuteTransaction({ transaction: tx, signer: sender, include: { effects: true } });
      expect(result.Transaction?.status.success).toBe(true);
    } finally {
      transport.close();
    }
    e2e.simnet.seal();
    const senderHeld = e2e.simnet.ledger.getBalance(sender.toSuiAddress(), SUI).balance;
    expect((await e2e.get(`/accounts/${receiver}/balance`)).body.data).toEqual([expect.objectContaining({ coinType: SUI, balance: '1234567890' })]);
    expect((await e2e.get(`/accounts/${sender.toSuiAddress()}`)).body.data).toMatchObject({ balance: senderHeld.toString(), transactionCount: 2 });
    expect(senderHeld).toBeLessThan(FAUCET_MIST - 1_234_567_890n); // gas was paid
    const [sent] = z.array(ActivityItem).parse((await e2e.get(`/accounts/${sender.toSuiAddress()}/transactions?format=activity&limit=1`)).body.data);
    expect(sent).toMatchObject({ type: 'sent', amount: '1234567890', coinType: SUI, counterparty: receiver });
    const [received] = z.array(ActivityItem).parse((await e2e.get(`/accounts/${receiver}/transactions?format=activity`)).body.data);
    expect(received).toMatchObject({ type: 'received', amount: '1234567890', coinType: SUI, counterparty: sender.toSuiAddress(), transactionDigest: sent!.transactionDigest });
    const raw = z.array(TransactionBlock).parse((await e2e.get(`/accounts/${sender.toSuiAddress()}/transactions`)).body.data);
    expect(raw.map((t) => t.digest)).toEqual([sent!.transactionDigest]);
  });

  it('GET /delegations lists StakedSui with the summary', async () => {
    const alice = e2e.address('alice');
    const { status, body } = await e2e.get(`/accounts/${alice}/delegations`);
    expect(status).toBe(200);
    const parsed = z.object({ data: z.array(Delegation.strict()), summary: DelegationSummary.strict() }).strict().parse(body);
    const staked = e2e.simnet.ledger.listOwnedObjects(alice, { type: '0x3::staking_pool::StakedSui' }, { limit: 1000 }).items;
    expect(parsed.summary.totalStakes).toBe(staked.length);
    expect(parsed.summary.totalStakes).toBeGreaterThan(0);
    expect(parsed.summary.totalStaked).toBe(parsed.data.reduce((sum, d) => sum + BigInt(d.principal), 0n).toString());
    for (const d of parsed.data) expect(d.validatorAddress).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await e2e.get(`/accounts/${fresh}/delegations`)).body).toEqual({ data: [], summary: { totalStakes: 0, totalStaked: '0' } });
  });
});
