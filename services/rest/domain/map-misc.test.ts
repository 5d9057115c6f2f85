import { describe, expect, it } from 'vitest';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Balance, Checkpoint, ObjectMetadata, SuiObject, Validator } from '../schemas.js';
import { formatUnits, toBalance } from './map-balance.js';
import { networkTps, toCheckpoint, toValidator } from './map-chain.js';
import { toObjectMetadata, toSuiObject } from './map-object.js';

const FULL_SUI = `0x${'0'.repeat(63)}2::sui::SUI`;

describe('toBalance', () => {
  const balance = GrpcTypes.Balance.create({ coinType: '0x2::sui::SUI', balance: 1_500_000_000n, coinBalance: 1_000_000_000n, addressBalance: 500_000_000n });
  it('with metadata: base units plus decimals, symbol and a formatted value', () => {
    const b = toBalance(balance, { decimals: 9, symbol: 'SUI' });
    expect(Balance.parse(b)).toEqual({ coinType: FULL_SUI, balance: '1500000000', totalBalance: '1500000000', coinBalance: '1000000000', addressBalance: '500000000', decimals: 9, symbol: 'SUI', formattedBalance: '1.5' });
  });
  it('without metadata: raw base units and decimals 0', () => {
    const b = toBalance(balance, undefined);
    expect(b).toMatchObject({ balance: '1500000000', decimals: 0 });
    expect(b).not.toHaveProperty('formattedBalance');
  });
  it('formatUnits', () => {
    expect(formatUnits(1n, 6)).toBe('0.000001');
    expect(formatUnits(42_000_000n, 6)).toBe('42');
    expect(formatUnits(-15n, 1)).toBe('-1.5');
  });
});

describe('objects', () => {
  it('toSuiObject renders owner strings and full types', () => {
    const o = toSuiObject(GrpcTypes.Object.create({ objectId: '0x5', version: 3n, digest: 'abc', owner: { kind: 1, address: '0x1' }, objectType: '0x2::coin::Coin<0x2::sui::SUI>', storageRebate: 988n }), false);
    expect(SuiObject.parse(o)).toMatchObject({ objectId: `0x${'0'.repeat(63)}5`, version: '3', owner: `0x${'0'.repeat(63)}1`, ownerKind: 'address', type: `0x${'0'.repeat(63)}2::coin::Coin<${FULL_SUI}>`, storageRebate: '988' });
    expect(toSuiObject(GrpcTypes.Object.create({ objectId: '0x6', owner: { kind: 3 } }), false).owner).toBe('Shared');
    expect(toSuiObject(GrpcTypes.Object.create({ objectId: '0x6', owner: { kind: 4 } }), false).owner).toBe('Immutable');
  });

  it('toObjectMetadata reads the Display standard keys', () => {
    const str = (s: string) => ({ kind: { oneofKind: 'stringValue' as const, stringValue: s } });
    const o = GrpcTypes.Object.create({
      objectId: '0x5', objectType: '0xabc::nft::Nft',
      display: { output: { kind: { oneofKind: 'structValue', structValue: { fields: { name: str('Nft #1'), image_url: str('https://img.example/1.png'), project_name: str('Example'), description: str('one') } } } } },
    });
    expect(ObjectMetadata.parse(toObjectMetadata(o))).toEqual({ objectId: `0x${'0'.repeat(63)}5`, type: `0x${'0'.repeat(61)}abc::nft::Nft`, name: 'Nft #1', image: 'https://img.example/1.png', projectName: 'Example', description: 'one' });
  });

  it('toObjectMetadata leaves out image URLs an app cannot safely put in <img src> (anyone can publish a Display)', () => {
    const str = (s: string) => ({ kind: { oneofKind: 'stringValue' as const, stringValue: s } });
    const o = GrpcTypes.Object.create({
      objectId: '0x5', objectType: '0xabc::nft::Nft',
      display: { output: { kind: { oneofKind: 'structValue', structValue: { fields: { name: str('Nft'), image_url: str('javascript:alert(1)'), project_image_url: str('data:text/html,<script>alert(1)</script>') } } } } },
    });
    expect(ObjectMetadata.parse(toObjectMetadata(o))).toEqual({ objectId: `0x${'0'.repeat(63)}5`, type: `0x${'0'.repeat(61)}abc::nft::Nft`, name: 'Nft' });
  });
});

describe('chain', () => {
  const cp = (seq: bigint, ms: bigint, total: bigint) => toCheckpoint(GrpcTypes.Checkpoint.create({
    sequenceNumber: seq, digest: `d${seq}`, summary: { epoch: 1n, totalNetworkTransactions: total, previousDigest: 'p', timestamp: { seconds: ms / 1000n, nanos: Number(ms % 1000n) * 1e6 } },
    contents: { transactions: [{}, {}] as never },
  }));
  it('toCheckpoint and networkTps', () => {
    const newer = cp(10n, 20_000n, 1000n);
    expect(Checkpoint.parse(newer)).toEqual({ sequenceNumber: 10, digest: 'd10', prevDigest: 'p', timestampMs: 20000, epoch: 1, networkTxCount: 1000, transactionBlockCount: 2 });
    expect(networkTps(newer, cp(5n, 10_000n, 500n))).toBe(50);
  });
  it('toValidator renders commission as a 0..1 rate', () => {
    const v = toValidator(GrpcTypes.Validator.create({ address: '0x1', name: 'v', description: '', commissionRate: 200n, votingPower: 2500n, stakingPool: { suiBalance: 10n }, nextEpochStake: 11n, projectUrl: 'https://v.example' }));
    expect(Validator.parse(v)).toMatchObject({ commissionRate: '0.02', votingPower: '2500', stakeAmount: '10', nextEpochStake: '11', projectUrl: 'https://v.example/' });
  });
  it('toValidator keeps only http(s) project links and inert image URLs (a validator names its own)', () => {
    const v = toValidator(GrpcTypes.Validator.create({ address: '0x1', name: 'v', description: '', projectUrl: 'javascript:alert(1)', imageUrl: 'javascript:alert(2)' }));
    expect(v.projectUrl).toBeUndefined();
    expect(v.imageUrl).toBeUndefined();
  });
});
