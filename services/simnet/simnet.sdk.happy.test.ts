import { credentials } from '@grpc/grpc-js';
import { bcs } from '@mysten/sui/bcs';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction, coinWithBalance } from '@mysten/sui/transactions';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN_TYPES, startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;
let nativeTransport: GrpcTransport;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'sdk-happy', checkpointIntervalMs: 50 });
  nativeTransport = new GrpcTransport({ host: simnet.grpcHost, channelCredentials: credentials.createInsecure() });
});

afterAll(async () => {
  nativeTransport.close();
  await simnet.stop();
});

const transports = {
  'gRPC-Web (SDK default)': () => new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl }),
  'native gRPC': () => new SuiGrpcClient({ network: 'localnet', transport: nativeTransport }),
};

describe.each(Object.entries(transports))('SuiGrpcClient over %s', (_name, makeClient) => {
  it('reads the chain id, system state and reference gas price', async () => {
    const client = makeClient();
    expect((await client.core.getChainIdentifier()).chainIdentifier).toBe(simnet.chainId);
    const { systemState } = await client.core.getCurrentSystemState();
    expect(BigInt(systemState.epoch)).toBeGreaterThan(0n);
    expect(systemState.referenceGasPrice).toBe('1000');
    expect((await client.core.getReferenceGasPrice()).referenceGasPrice).toBe('1000');
    const epoch = await client.ledgerService.getEpoch({ readMask: { paths: ['system_state.validators'] } });
    expect(epoch.response.epoch?.systemState?.validators?.activeValidators.length).toBeGreaterThanOrEqual(4);
  });

  it('reads balances (coins and address balances), coins and owned objects', async () => {
    const client = makeClient();
    const alice = simnet.accounts[0]!.address;
    const bob = simnet.accounts[1]!.address;
    const sui = await client.core.getBalance({ owner: alice });
    expect(BigInt(sui.balance.balance)).toBeGreaterThan(0n);
    const balances = await client.core.listBalances({ owner: bob });
    const usdc = balances.balances.find((balance) => balance.coinType === COIN_TYPES.USDC);
    expect(usdc?.addressBalance).not.toBe('0');
    const coins = await client.core.listCoins({ owner: alice, limit: 2 });
    expect(coins.objects).toHaveLength(2);
    expect(coins.hasNextPage).toBe(true);
    const next = await client.core.listCoins({ owner: alice, cursor: coins.cursor });
    expect(next.objects.map((coin) => coin.objectId)).not.toContain(coins.objects[0]!.objectId);
    const owned = await client.core.listOwnedObjects({ owner: alice, include: { display: true, json: true } });
    const collectible = owned.objects.find((object) => object.type.endsWith('::collectible::Collectible'));
    expect(collectible?.display?.output).toMatchObject({ project_name: 'Simnet Sea Creatures' });
    const [object] = (await client.core.getObjects({ objectIds: [coins.objects[0]!.objectId], include: { content: true, previousTransaction: true } })).objects;
    expect(object).not.toBeInstanceOf(Error);
  });

  it('reads validators\' exchange rates as dynamic fields (for APY)', async () => {
    const client = makeClient();
    const validator = simnet.ledger.systemState().validators[0]!;
    const fields = await client.core.listDynamicFields({ parentId: validator.exchangeRatesId, limit: 1000 });
    expect(fields.dynamicFields).toHaveLength(validator.exchangeRates.length);
    const latest = validator.exchangeRates.at(-1)!;
    const { dynamicField } = await client.core.getDynamicField({ parentId: validator.exchangeRatesId, name: { type: 'u64', bcs: bcs.u64().serialize(latest.epoch).toBytes() } });
    const rate = bcs.struct('PoolTokenExchangeRate', { suiAmount: bcs.u64(), poolTokenAmount: bcs.u64() }).parse(dynamicField.value.bcs);
    expect(BigInt(rate.suiAmount)).toBe(latest.suiAmount);
    expect(latest.suiAmount).toBeGreaterThan(validator.exchangeRates[0]!.suiAmount);
  });

  it('reads coin metadata, and none for a coin type registered without it', async () => {
    const client = makeClient();
    expect((await client.core.getCoinMetadata({ coinType: COIN_TYPES.USDC })).coinMetadata?.decimals).toBe(6);
    expect((await client.core.getCoinMetadata({ coinType: COIN_TYPES.MEME })).coinMetadata).toBeNull();
  });

  it('resolves names both ways', async () => {
    const client = makeClient();
    const alice = simnet.accounts[0]!.address;
    expect((await client.core.resolveNameServiceAddress({ name: 'alice.sui' })).address).toBe(alice);
    expect((await client.core.defaultNameServiceName({ address: alice })).data.name).toBe('alice.sui');
    expect((await client.core.resolveNameServiceAddress({ name: 'expired.sui' })).address).toBeNull();
  });

  it('reads checkpoints and the genesis transaction', async () => {
    const client = makeClient();
    const genesis = await client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: 0n }, readMask: { paths: ['digest', 'summary', 'contents'] } });
    expect(genesis.response.checkpoint?.digest).toBe(simnet.chainId);
    const digest = genesis.response.checkpoint!.contents!.transactions[0]!.transaction!;
    const tx = await client.core.getTransaction({ digest, include: { effects: true } });
    expect(tx.Transaction?.effects?.changedObjects.length).toBeGreaterThan(100);
    const latest = await client.ledgerService.getCheckpoint({ checkpointId: { oneofKind: undefined } });
    expect(latest.response.checkpoint?.sequenceNumber).toBeGreaterThanOrEqual(0n);
  });

  it('builds, signs and executes a SUI transfer with gas resolved by simulation', async () => {
    const client = makeClient();
    const alice = simnet.accounts[0]!;
    const carol = simnet.accounts[2]!.address;
    const before = BigInt((await client.core.getBalance({ owner: carol })).balance.balance);
    const tx = new Transaction();
    tx.setSender(alice.address);
    const [coin] = tx.splitCoins(tx.gas, [1_000_000_000]);
    tx.transferObjects([coin!], carol);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: alice.keypair, include: { effects: true, balanceChanges: true } });
    expect(result.$kind).toBe('Transaction');
    expect(result.Transaction?.balanceChanges).toContainEqual({ coinType: COIN_TYPES.SUI, address: carol, amount: '1000000000' });
    expect(BigInt((await client.core.getBalance({ owner: carol })).balance.balance)).toBe(before + 1_000_000_000n);
    const sealed = await client.core.waitForTransaction({ digest: result.Transaction!.digest, include: { effects: true } });
    expect(sealed.Transaction?.digest).toBe(result.Transaction!.digest);
  });

  it('transfers USDC with coinWithBalance', async () => {
    const client = makeClient();
    const alice = simnet.accounts[0]!;
    const dave = simnet.accounts[3]!.address;
    const tx = new Transaction();
    tx.setSender(alice.address);
    tx.transferObjects([coinWithBalance({ balance: 2_500_000n, type: COIN_TYPES.USDC })], dave);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: alice.keypair, include: { balanceChanges: true } });
    expect(result.Transaction?.balanceChanges).toContainEqual({ coinType: COIN_TYPES.USDC, address: dave, amount: '2500000' });
  });
});

describe('SubscribeCheckpoints', () => {
  it('streams checkpoints from the tip in order without gaps, including an executed transfer', async () => {
    const client = new SuiGrpcClient({ network: 'localnet', transport: nativeTransport });
    const abort = new AbortController();
    const call = client.subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number', 'transactions.digest'] } }, { abort: abort.signal });
    const erin = simnet.accounts[4]!;
    const tx = new Transaction();
    tx.setSender(erin.address);
    tx.transferObjects([tx.splitCoins(tx.gas, [123])[0]!], simnet.accounts[5]!.address);
    const sent = client.signAndExecuteTransaction({ transaction: tx, signer: erin.keypair });
    const sequence: bigint[] = [];
    let found = false;
    try {
      for await (const message of call.responses) {
        sequence.push(message.cursor!);
        const digest = (await sent).Transaction?.digest;
        if (message.checkpoint?.transactions.some((executed) => executed.digest === digest)) found = true;
        if (found && sequence.length >= 5) break;
      }
    } finally {
      abort.abort();
    }
    expect(found).toBe(true);
    for (let i = 1; i < sequence.length; i++) expect(sequence[i]).toBe(sequence[i - 1]! + 1n);
  });
});
