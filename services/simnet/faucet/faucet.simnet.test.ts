import { credentials } from '@grpc/grpc-js';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from '../index.js';
import type { RunningSimnet } from '../index.js';
import { FAUCET_AMOUNT_MIST } from './index.js';

describe('faucet on a started simnet', () => {
  let simnet: RunningSimnet;

  beforeAll(async () => {
    simnet = await startSimnet({ checkpointIntervalMs: 50, transactionsPerCheckpoint: 1 });
  });

  afterAll(() => simnet.stop());

  it('funds a fresh address, visible through GraphQL and gRPC once checkpointed', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const { coins_sent } = await requestSuiFromFaucetV2({ host: simnet.faucetUrl, recipient });
    const digest = coins_sent![0]!.transferTxDigest;

    const graphql = new SuiGraphQLClient({ url: simnet.graphqlUrl, network: 'localnet' });
    const seen = await graphql.waitForTransaction({ digest, timeout: 10_000 });
    expect(seen.Transaction!.checkpoint).not.toBeNull();
    expect((await graphql.core.getBalance({ owner: recipient })).balance.balance).toBe(FAUCET_AMOUNT_MIST.toString());

    const grpc = new SuiGrpcClient({
      network: 'localnet',
      transport: new GrpcTransport({ host: simnet.grpcHost, channelCredentials: credentials.createInsecure() }),
    });
    expect((await grpc.core.getBalance({ owner: recipient })).balance.balance).toBe(FAUCET_AMOUNT_MIST.toString());
    const viaGrpc = await grpc.core.getTransaction({ digest });
    expect(viaGrpc.Transaction!.checkpoint).toBe(seen.Transaction!.checkpoint);
  });
});
