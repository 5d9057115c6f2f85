import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTypes } from '@mysten/sui/grpc';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { PostgresTransactionCache } from './transaction-cache.js';

describe('PostgresTransactionCache', () => {
  let env: TestDatabase;
  let cache: PostgresTransactionCache;
  beforeAll(async () => {
    env = await createTestDatabase();
    cache = new PostgresTransactionCache(env.database.db);
  });
  afterAll(async () => { await env.drop(); });

  const tx = (digest: string, checkpoint?: bigint) => GrpcTypes.ExecutedTransaction.create({
    digest, checkpoint, balanceChanges: [{ address: '0x1', coinType: '0x2::sui::SUI', amount: '-5' }], signatures: [],
  });

  it('stores finalized transactions per network and returns them intact', async () => {
    await cache.putMany('testnet', [tx('D1', 10n), tx('D2', 11n)]);
    const found = await cache.getMany('testnet', ['D1', 'D2', 'D3']);
    expect([...found.keys()].sort()).toEqual(['D1', 'D2']);
    expect(found.get('D1')?.balanceChanges[0]?.amount).toBe('-5');
    expect((await cache.getMany('mainnet', ['D1'])).size).toBe(0);
  });

  it('skips transactions not yet in a checkpoint and ignores duplicates', async () => {
    await cache.putMany('testnet', [tx('P1'), tx('D1', 10n)]);
    expect((await cache.getMany('testnet', ['P1'])).size).toBe(0);
    expect(await cache.count('testnet')).toBe(2);
  });
});
