import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('over gRPC-Web (the SDK default fetch transport)', async () => {
    const client = e2e.web(e2e.gateway.adminKey);
    expect((await client.core.getChainIdentifier()).chainIdentifier).toBe(e2e.simnet!.chainId);
  });
});
