/** Example values of the REST resources, shown in the OpenAPI document (and checked against their schemas in tests). */
const ALICE = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const BOB = '0x2b6f5e1c7f3ef0a9bd9c4c1d5e0f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f';
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';
const DIGEST = 'DJjb3zMU7AqzjqW4Ds3B1pcJ4RqFSu4vW4EyTGn3eEWR';

export const examples = {
  Account: { address: ALICE, balance: '1350965960765', usdValue: 2701.93, transactionCount: 12, objectCount: 15, firstActivity: '2026-04-19T06:48:52.000Z', lastActivity: '2026-11-21T09:12:04.250Z' },
  Balance: { coinType: SUI, balance: '1500000000', totalBalance: '1500000000', coinBalance: '1000000000', addressBalance: '500000000', decimals: 9, symbol: 'SUI', formattedBalance: '1.5' },
  Object: {
    objectId: '0x340adfef6b1b5fab920fddad72ad90901f33cbe0f83a6cf6dca7980716793660', version: '42', digest: 'Fg5bXbi8A6ozSaF7Gys43XYBz4HiDBu8VEQRZFD8iLDz',
    type: `0x0000000000000000000000000000000000000000000000000000000000000002::coin::Coin<${SUI}>`, owner: ALICE, ownerKind: 'address', storageRebate: '988000',
    previousTransaction: DIGEST, content: { id: '0x340adfef6b1b5fab920fddad72ad90901f33cbe0f83a6cf6dca7980716793660', balance: '1000000000' },
  },
  TransactionBlock: {
    digest: DIGEST, checkpoint: '1234567', timestampMs: '1763802724250',
    transaction: { digest: DIGEST, sender: ALICE, transactionJson: { digest: DIGEST, version: 1, sender: ALICE } },
    effects: { digest: '48kocNA3VK56xRBsHFVPP8uggsFDX5FD82QA8HhLki7K', status: 'SUCCESS', effectsJson: { status: { success: true }, epoch: '29' } },
    events: null,
    objectChanges: [],
    balanceChanges: [{ owner: { AddressOwner: ALICE }, coinType: SUI, amount: '-1001988000' }, { owner: { AddressOwner: BOB }, coinType: SUI, amount: '1000000000' }],
    confirmedLocalExecution: null,
  },
  TransactionStats: { success: 912, error: 7, total: 919 },
  CoinMetadata: { type: SUI, name: 'Sui', symbol: 'SUI', description: '', decimals: 9, totalSupply: '10000000000000000000', verified: true, usdValue: 2, marketCap: 20000000000 },
  ObjectMetadata: { objectId: '0x9c6f26ad0ee160958b94e08bf0c8cad1e97b042e7d245745dc646eb801740605', type: '0x8a1fd4b6b2e0b2c87fa11a4f1b8b6d7f7f0c2c3b8a9d8e7f6a5b4c3d2e1f0a9b::collectible::Collectible', name: 'Octopus #7', image: 'https://example.com/nft/7.png', projectName: 'Sea Creatures', description: 'A sea creature, edition 7.' },
  Package: { packageId: '0x0000000000000000000000000000000000000000000000000000000000000002', version: '1', digest: '4GxtVvP2CF2tF4PbR7RWwD3XLa4irYYKCcsUHxiHpA4J', modules: [{ name: 'coin' }, { name: 'sui' }] },
  ChainInfo: { chainId: '4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S', version: '104', latestCheckpoint: '1234567', totalTransactions: '4021337788', networkTps: 182.5 },
  StakingParameters: { epochLength: '86400000', minValidatorStake: '30000000000000000', maxValidatorCount: 150, minValidatorJoiningStake: '30000000000000000', validatorLowStakeThreshold: '20000000000000000', validatorVeryLowStakeThreshold: '15000000000000000', validatorLowStakeGracePeriod: '7' },
  NetworkStats: { totalValidators: 112, totalStake: '7540000000000000000', totalCheckpoints: '1234568', totalTransactions: '4021337788', epoch: '912', epochStartTimestamp: '1763769600000', epochDurationMs: '86400000' },
  ValidatorApy: { validatorAddress: ALICE, apy: 0.0341, epoch: '912' },
  Validator: { suiAddress: ALICE, name: 'Mysticeti Labs', description: 'A Sui validator.', votingPower: '1416', stakeAmount: '41146182000000000', commissionRate: '0.02', nextEpochStake: '41146182000000000', imageUrl: 'https://example.com/logo.png', projectUrl: 'https://example.com/' },
  Checkpoint: { sequenceNumber: 1234567, digest: '4GxtVvP2CF2tF4PbR7RWwD3XLa4irYYKCcsUHxiHpA4J', prevDigest: '9Y8gbYaEwWx34fzuCouMXUP3VktHUGw8yWBhoBjgpcMU', timestampMs: 1763802724250, epoch: 912, networkTxCount: 4021337788, transactionBlockCount: 5 },
  Delegation: { stakedSuiId: '0x9c6f26ad0ee160958b94e08bf0c8cad1e97b042e7d245745dc646eb801740605', validatorAddress: BOB, poolId: '0x9cb7ed125a85f40bb32565df80d320652d4cc95634a4c6154c84b236a06cb3ea', principal: '8000000000', stakeActivationEpoch: '5', status: 'Active' },
  NameResolution: { name: 'alice', address: ALICE, expiration: '2027-04-19T06:48:52.000Z', avatar: 'https://example.com/avatars/alice.png' },
  ReverseResolution: { address: ALICE, name: 'alice' },
  NameAvailability: { name: 'alice', available: false, registered: true, expiration: '2027-04-19T06:48:52.000Z' },
  RawTransaction: { digest: DIGEST, transactionBcs: 'AAACAAgA4fUFAAAAAA…', effectsBcs: 'AQAAAAAAAAAA…', signatures: ['AKD4XdltkCyBi1Heb4EJJ3lzuV3F4u7+CYeaE+Fd7qXp…'], checkpoint: '1234567', timestampMs: '1763802724250' },
} as const;
