import { credentials } from '@grpc/grpc-js';
import { GrpcTypes, SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction } from '@mysten/sui/transactions';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;
let transport: GrpcTransport;
let native: SuiGrpcClient;
let web: SuiGrpcClient;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'errors', autoStart: false });
  transport = new GrpcTransport({ host: simnet.grpcHost, channelCredentials: credentials.createInsecure() });
  native = new SuiGrpcClient({ network: 'localnet', transport });
  web = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
});

afterAll(async () => {
  transport.close();
  await simnet.stop();
});

async function statusOf(call: PromiseLike<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe.each([
  ['native gRPC', () => native],
  ['gRPC-Web', () => web],
])('malformed requests over %s', (_name, client) => {
  it('answers INVALID_ARGUMENT for bad ids, digests, masks, types and page tokens', async () => {
    const c = client();
    expect(await statusOf(c.ledgerService.getObject({ objectId: 'not-an-id' }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.ledgerService.getObject({}))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.ledgerService.getTransaction({ digest: 'xyz' }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.ledgerService.getObject({ objectId: '0x2', readMask: { paths: ['no_such_field'] } }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.stateService.getBalance({ owner: simnet.accounts[0]!.address, coinType: 'not a type' }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.stateService.listOwnedObjects({ owner: simnet.accounts[0]!.address, pageToken: new TextEncoder().encode('garbage') }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(c.nameService.lookupName({ name: 'not a name!' }))).toBe('INVALID_ARGUMENT');
  });

  it('answers NOT_FOUND for missing objects, transactions, checkpoints and packages', async () => {
    const c = client();
    expect(await statusOf(c.ledgerService.getObject({ objectId: '0x1234' }))).toBe('NOT_FOUND');
    expect(await statusOf(c.ledgerService.getTransaction({ digest: '11111111111111111111111111111111' }))).toBe('NOT_FOUND');
    expect(await statusOf(c.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: 1_000_000n } }))).toBe('NOT_FOUND');
    expect(await statusOf(c.movePackageService.getPackage({ packageId: '0x1234' }))).toBe('NOT_FOUND');
    expect(await statusOf(c.nameService.lookupName({ name: 'nobody.sui' }))).toBe('NOT_FOUND');
  });

  it('keeps serving after errors', async () => {
    expect((await client().core.getChainIdentifier()).chainIdentifier).toBe(simnet.chainId);
  });
});

describe('execution failures', () => {
  it('rejects a transaction with a wrong signature as INVALID_ARGUMENT', async () => {
    const [alice, bob] = simnet.accounts;
    const tx = new Transaction();
    tx.setSender(alice!.address);
    tx.transferObjects([tx.splitCoins(tx.gas, [1])[0]!], bob!.address);
    const bytes = await tx.build({ client: native });
    const { signature } = await bob!.keypair.signTransaction(bytes);
    expect(await statusOf(native.core.executeTransaction({ transaction: bytes, signatures: [signature] }))).toBe('INVALID_ARGUMENT');
  });

  it('fails an unsupported Move call in effects (abort), without a crash', async () => {
    // The SDK's builder simulates first (and would refuse to build); build offline instead,
    // with every input resolved, as a wallet with cached references would.
    const alice = simnet.accounts[0]!;
    const gas = simnet.ledger.listCoins(alice.address, '0x2::sui::SUI', { limit: 1 }).items[0]!;
    const tx = new Transaction();
    tx.setSender(alice.address);
    tx.setGasBudget(10_000_000);
    tx.setGasPrice(1000);
    tx.setGasPayment([{ objectId: gas.objectId, version: gas.version.toString(), digest: gas.digest }]);
    tx.moveCall({ target: '0x2::coin::value', typeArguments: ['0x2::sui::SUI'], arguments: [tx.gas] });
    tx.moveCall({ target: '0x2::clock::timestamp_ms', arguments: [tx.object.clock()] });
    const bytes = await tx.build();
    const { signature } = await alice.keypair.signTransaction(bytes);
    const result = await native.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true } });
    expect(result.$kind).toBe('FailedTransaction');
    expect(result.FailedTransaction?.status.error?.$kind).toBe('MoveAbort');
    expect(BigInt(result.FailedTransaction!.effects!.gasUsed.computationCost)).toBeGreaterThan(0n);
  });

  it('reports a simulation failure through the SDK builder as a SimulationError', async () => {
    const alice = simnet.accounts[0]!;
    const tx = new Transaction();
    tx.setSender(alice.address);
    tx.moveCall({ target: '0x2::coin::no_such_function', typeArguments: ['0x2::sui::SUI'], arguments: [tx.gas] });
    await expect(tx.build({ client: native })).rejects.toThrow(/resolution failed|not found/i);
  });

  it('rejects an empty ExecuteTransaction request', async () => {
    expect(await statusOf(native.transactionExecutionService.executeTransaction({ signatures: [] }))).toBe('INVALID_ARGUMENT');
    expect(await statusOf(native.transactionExecutionService.executeTransaction(GrpcTypes.ExecuteTransactionRequest.create({ transaction: { bcs: { value: new Uint8Array([1, 2, 3]) } }, signatures: [{ bcs: { value: new Uint8Array([0]) }, signature: { oneofKind: undefined } }] })))).toBe('INVALID_ARGUMENT');
  });
});

describe('streaming errors', () => {
  it.each([
    ['native gRPC', () => native],
    ['gRPC-Web', () => web],
  ])('end a failed server stream with its status over %s instead of hanging', async (_name, client) => {
    const drain = async (responses: AsyncIterable<unknown>) => {
      for await (const _ of responses) {
        // Nothing is expected before the status.
      }
    };
    await expect(drain(client().ledgerService.listTransactions({ options: { after: new Uint8Array([1, 2]) } }).responses)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(drain(client().subscriptionService.subscribeCheckpoints({ readMask: { paths: ['bogus'] } }).responses)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
