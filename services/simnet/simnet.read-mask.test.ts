import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN_TYPES, startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;
let client: SuiGrpcClient;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'read-mask', autoStart: false });
  client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
});

afterAll(async () => {
  await simnet.stop();
});

describe('read masks', () => {
  it('return Sui\'s default fields when no mask is given', async () => {
    const coin = simnet.ledger.listCoins(simnet.accounts[0]!.address, COIN_TYPES.SUI).items[0]!;
    const { object } = (await client.ledgerService.getObject({ objectId: coin.objectId })).response;
    expect(object).toEqual({ objectId: coin.objectId, version: coin.version, digest: coin.digest });
    const { checkpoint } = (await client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: 0n } })).response;
    expect(checkpoint).toEqual({ sequenceNumber: 0n, digest: simnet.chainId, transactions: [] });
    const { epoch } = (await client.ledgerService.getEpoch({})).response;
    expect(epoch).toEqual({ epoch: simnet.ledger.currentEpoch().epoch });
  });

  it('return only the requested fields, nested paths included', async () => {
    const coin = simnet.ledger.listCoins(simnet.accounts[0]!.address, COIN_TYPES.SUI).items[0]!;
    const { object } = (await client.ledgerService.getObject({ objectId: coin.objectId, readMask: { paths: ['owner', 'balance'] } })).response;
    expect(object).toEqual({ owner: { kind: 1, address: simnet.accounts[0]!.address }, balance: coin.coin!.balance });
    const digest = simnet.ledger.getCheckpoint(0n)!.transactionDigests[0]!;
    const { transaction } = (await client.ledgerService.getTransaction({ digest, readMask: { paths: ['effects.status', 'effects.gas_used.computation_cost'] } })).response;
    expect(transaction).toEqual({ signatures: [], balanceChanges: [], effects: { status: { success: true }, gasUsed: { computationCost: 0n }, dependencies: [], changedObjects: [], unchangedConsensusObjects: [], unchangedLoadedRuntimeObjects: [] } });
  });

  it('serve a checkpoint\'s objects when asked for them', async () => {
    const { checkpoint } = (await client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: 0n }, readMask: { paths: ['objects.objects.object_id'] } })).response;
    expect(checkpoint?.objects?.objects.length).toBeGreaterThan(100);
    expect(checkpoint?.objects?.objects[0]).toEqual({ objectId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });
});
