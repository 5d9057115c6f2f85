import * as grpc from '@grpc/grpc-js';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reflectionTypes } from '../reflection/index.js';
import type { ServerReflectionResponse } from '../reflection/reflection-types.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

describe('gRPC proxy: the official SuiGrpcClient through it', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
    e2e.simnet!.seal();
  });
  afterAll(async () => { await e2e.stop(); });

  it('over native gRPC (GrpcTransport)', async () => {
    const client = e2e.native(e2e.gateway.adminKey);
    expect((await client.core.getChainIdentifier()).chainIdentifier).toBe(e2e.simnet!.chainId);
    const alice = e2e.simnet!.accounts[0]!.address;
    const { balance } = await client.core.getBalance({ owner: alice });
    expect(balance.balance).toBe(e2e.simnet!.ledger.getBalance(alice, '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI').balance.toString());
  });

  it("runs the SDK's default transfer flow for an account that also holds an address balance", async () => {
    // This client leaves gas to the server (SimulateTransaction with do_gas_selection), which picks
    // the account's coins; the JSON-RPC and GraphQL clients pick gas themselves and lead with a
    // coin reservation (test/jsonrpc/sdk-client.tx.test.ts).
    const client = e2e.native(e2e.gateway.adminKey);
    const carol = e2e.simnet!.accounts.find((account) => account.label === 'carol')!;
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const before = (await client.core.getBalance({ owner: carol.address })).balance;
    expect(BigInt(before.addressBalance)).toBeGreaterThan(0n);
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [1000]);
    tx.transferObjects([coin!], recipient);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: carol.keypair, include: { effects: true, transaction: true } });
    expect(result.$kind).toBe('Transaction');
    e2e.simnet!.seal();
    await client.core.waitForTransaction({ digest: result.Transaction!.digest });
    expect((await client.core.getBalance({ owner: recipient })).balance.balance).toBe('1000');
    const used = result.Transaction!.effects!.gasUsed;
    const gas = BigInt(used.computationCost) + BigInt(used.storageCost) - BigInt(used.storageRebate);
    const after = (await client.core.getBalance({ owner: carol.address })).balance;
    expect(BigInt(after.balance)).toBe(BigInt(before.balance) - 1000n - gas);
  });

  it('carries any number of calls one after another on one connection without piling up idle-timeout listeners', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const client = e2e.native(e2e.gateway.adminKey);
      // Each call ends before the next starts: its connection goes back to no call open each time.
      for (let i = 0; i < 15; i++) await client.ledgerService.getServiceInfo({}).response;
      // Node emits warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it.each(['grpc.reflection.v1', 'grpc.reflection.v1alpha'] as const)('server reflection (%s) lists the services through the proxy, with a key, for 1 credit like every call', async (pkg) => {
    const types = reflectionTypes(pkg);
    await e2e.native(e2e.gateway.adminKey).ledgerService.getServiceInfo({}).response;
    const balance = async () => (await e2e.metering.ledger.balance(e2e.gateway.organizationId)).remaining;
    const before = await balance();
    const client = new grpc.Client(e2e.host, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', e2e.gateway.adminKey);
    const call = client.makeBidiStreamRequest(`/${pkg}.ServerReflection/ServerReflectionInfo`,
      (request: Parameters<typeof types.Request.toBinary>[0]) => Buffer.from(types.Request.toBinary(request)),
      (bytes: Buffer) => types.Response.fromBinary(bytes), metadata);
    const responses: ServerReflectionResponse[] = [];
    const done = new Promise<void>((resolve, reject) => {
      call.on('data', (response: ServerReflectionResponse) => responses.push(response));
      call.on('end', resolve);
      call.on('error', reject);
    });
    call.write({ host: '', messageRequest: { oneofKind: 'listServices', listServices: '' } });
    call.end();
    await done;
    client.close();
    const message = responses[0]!.messageResponse;
    expect(message.oneofKind).toBe('listServicesResponse');
    const names = message.oneofKind === 'listServicesResponse' ? message.listServicesResponse.service.map((service) => service.name) : [];
    // The call is settled when its stream closes, just after the client saw the end.
    await vi.waitFor(async () => expect(await balance()).toBe(before - 1));
    expect(names).toEqual(expect.arrayContaining(['sui.rpc.v2.LedgerService', 'sui.rpc.v2.StateService', 'sui.rpc.v2.SubscriptionService', 'sui.rpc.v2.TransactionExecutionService']));
  });

  it('over gRPC-Web (the SDK default fetch transport)', async () => {
    const client = e2e.web(e2e.gateway.adminKey);
    expect((await client.core.getChainIdentifier()).chainIdentifier).toBe(e2e.simnet!.chainId);
  });
});
