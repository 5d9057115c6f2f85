import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { RawTransaction, TransactionBlock, TransactionStats } from '../../services/rest/schemas.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

const PageInfo = z.object({ limit: z.number(), cursor: z.string().optional(), hasNextPage: z.boolean() }).strict();
const BlockPage = z.object({ data: z.array(TransactionBlock.strict()), pagination: PageInfo }).strict();
const Batch = z.object({
  data: z.array(TransactionBlock.strict()),
  summary: z.object({ total: z.number(), found: z.number(), fromDatabase: z.number(), fromRpc: z.number() }).strict(),
}).strict();

describe('REST transactions against simnet, cache on PostgreSQL', () => {
  let e2e: RestE2E;
  const recipients = [0, 1, 2].map(() => Ed25519Keypair.generate().toSuiAddress());
  const digests: string[] = [];

  beforeAll(async () => {
    e2e = await startRestE2E();
    for (const r of recipients) await e2e.faucet(r);
    for (const r of recipients) digests.push(e2e.simnet.ledger.listTransactions({ affectedAddress: r }).items[0]!.digest);
  });
  afterAll(async () => { await e2e.stop(); });

  it('GET /transactions/latest: newest first, hasNextPage, limit max 50', async () => {
    const { status, body } = await e2e.get('/transactions/latest?limit=2');
    expect(status).toBe(200);
    const page = BlockPage.parse(body);
    expect(page.data.map((t) => t.digest)).toEqual([digests[2], digests[1]]);
    expect(page.pagination).toMatchObject({ limit: 2, hasNextPage: true, cursor: expect.any(String) });
    const next = BlockPage.parse((await e2e.get(`/transactions/latest?limit=2&cursor=${encodeURIComponent(page.pagination.cursor!)}`)).body);
    expect(next.data[0]!.digest).toBe(digests[0]);
    expect((await e2e.get('/transactions/latest?limit=51')).status).toBe(400);
  });

  it('GET /transactions: sender filter, orderBy, include flags', async () => {
    const faucet = e2e.address('faucet');
    const desc = BlockPage.parse((await e2e.get(`/transactions?sender=${faucet}&limit=3`)).body);
    expect(desc.data.map((t) => t.digest)).toEqual([...digests].reverse());
    for (const t of desc.data) {
      expect(t.events).toBeNull();
      expect(t.balanceChanges).toBeNull();
      expect((t.transaction as { transactionJson: object }).transactionJson).not.toHaveProperty('kind');
    }
    const asc = BlockPage.parse((await e2e.get(`/transactions?sender=${faucet}&orderBy=asc&limit=100&includeBalanceChanges=true&includeCommands=true&includeMetadata=true&includeEvents=true`)).body);
    expect(asc.data.slice(-3).map((t) => t.digest)).toEqual(digests);
    const last = asc.data.at(-1)!;
    expect(last.balanceChanges).toContainEqual({ owner: { AddressOwner: recipients[2] }, coinType: `0x${'0'.repeat(63)}2::sui::SUI`, amount: '10000000000' });
    expect(last.transaction).toMatchObject({ sender: faucet, signatures: expect.any(Array), transactionJson: { kind: expect.any(Object), gasPayment: expect.any(Object) } });
    expect(Array.isArray(last.events)).toBe(true);
    expect(asc.pagination.hasNextPage).toBe(false);
  });

  it('a cursor continues the same query whatever the case of the address (the spec allows A-F)', async () => {
    const faucet = e2e.address('faucet');
    const upper = `0x${faucet.slice(2).toUpperCase()}`;
    for (const [first, next] of [
      [`/transactions?sender=${faucet}&limit=1`, `/transactions?sender=${upper}&limit=1`],
      [`/accounts/${upper}/transactions?limit=1`, `/accounts/${faucet}/transactions?limit=1`],
      [`/accounts/${faucet}/transactions?format=activity&limit=1`, `/accounts/${upper}/transactions?format=activity&limit=1`],
    ] as const) {
      const page = await e2e.get(first);
      expect(page.status).toBe(200);
      const continued = await e2e.get(`${next}&cursor=${encodeURIComponent(page.body.pagination.cursor as string)}`);
      expect(continued.status, JSON.stringify(continued.body)).toBe(200);
      const digestOf = (item: { digest?: string; transactionDigest?: string }) => item.digest ?? item.transactionDigest;
      expect(continued.body.data.map(digestOf)).toEqual([digests[1]]);
    }
  });

  it('GET /transactions?status=Error returns only failed transactions; Success only successful ones', async () => {
    const failed = BlockPage.parse((await e2e.get('/transactions?status=Error&limit=10')).body);
    for (const t of failed.data) expect(t.effects).toMatchObject({ status: 'FAILURE' });
    const ok = BlockPage.parse((await e2e.get('/transactions?status=Success&limit=10')).body);
    expect(ok.data.length).toBeGreaterThan(0);
    for (const t of ok.data) expect(t.effects).toMatchObject({ status: 'SUCCESS' });
  });

  it('POST /transactions/batch: summary counts, then the same digests served from PostgreSQL', async () => {
    const missing = '11111111111111111111111111111111';
    const digests: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const recipient = Ed25519Keypair.generate().toSuiAddress();
      await e2e.faucet(recipient);
      digests.push(e2e.simnet.ledger.listTransactions({ affectedAddress: recipient }).items[0]!.digest);
    }
    const first = Batch.parse((await e2e.post('/transactions/batch?includeBalanceChanges=true', { digests: [...digests, missing] })).body);
    expect(first.summary).toEqual({ total: 4, found: 3, fromDatabase: 0, fromRpc: 3 });
    expect(first.data.map((t) => t.digest)).toEqual(digests);
    const rows = await e2e.gateway.db.database.db.selectFrom('rest_transaction_cache').select('digest').where('digest', 'in', digests).execute();
    expect(rows).toHaveLength(3);
    const second = Batch.parse((await e2e.post('/transactions/batch?includeBalanceChanges=true', { digests: [...digests, missing] })).body);
    expect(second.summary).toEqual({ total: 4, found: 3, fromDatabase: 3, fromRpc: 0 });
    expect(second.data).toEqual(first.data);
    // lists read through the same cache: what /transactions/latest read is a database hit here
    const recent = BlockPage.parse((await e2e.get('/transactions/latest?limit=1')).body).data[0]!.digest;
    const mixed = Batch.parse((await e2e.post('/transactions/batch', { digests: [recent, recent] })).body);
    expect(mixed.summary).toEqual({ total: 1, found: 1, fromDatabase: 1, fromRpc: 0 });
  });

  it('GET /transactions/{digest}/raw: BCS that decodes to the transaction', async () => {
    const { status, body } = await e2e.get(`/transactions/${digests[0]}/raw`);
    expect(status).toBe(200);
    const raw = z.object({ data: RawTransaction.strict() }).strict().parse(body).data;
    const record = e2e.simnet.ledger.getTransaction(digests[0]!)!;
    expect(raw.digest).toBe(digests[0]);
    expect(raw.signatures).toHaveLength(1);
    expect(raw.transactionBcs.length).toBeGreaterThan(0);
    expect(raw.checkpoint).toBe(record.checkpoint?.toString());
    expect((await e2e.get('/transactions/11111111111111111111111111111111/raw')).body.code).toBe('TRANSACTION_NOT_FOUND');
  });

  it('GET /transactions/{digest}: one block with include flags; its checkpoint counts it', async () => {
    const { status, body } = await e2e.get(`/transactions/${digests[1]}?includeBalanceChanges=true`);
    expect(status).toBe(200);
    const block = z.object({ data: TransactionBlock.strict() }).strict().parse(body).data;
    expect(block.digest).toBe(digests[1]);
    expect(block.balanceChanges).toContainEqual(expect.objectContaining({ owner: { AddressOwner: recipients[1] }, amount: '10000000000' }));
    expect(block.events).toBeNull();
    expect((await e2e.get('/transactions/11111111111111111111111111111111')).body.code).toBe('TRANSACTION_NOT_FOUND');
    const checkpoint = (await e2e.get(`/checkpoints/${block.checkpoint}`)).body.data;
    expect(checkpoint.transactionBlockCount).toBe(e2e.simnet.ledger.checkpointTransactions(BigInt(block.checkpoint!)).length);
    expect(checkpoint.transactionBlockCount).toBeGreaterThanOrEqual(1);
  });

  it('GET /transactions/stats counts recent checkpoints by status', async () => {
    const stats = z.object({ data: TransactionStats.strict() }).strict().parse((await e2e.get('/transactions/stats')).body).data;
    expect(stats.total).toBe(stats.success + stats.error);
  });
});
