import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GrpcTypes } from '@mysten/sui/grpc';
import { createGrpcWebMux } from '../../services/grpc/web-mux/index.js';
import { createFaucetHandler } from '../simnet/faucet/index.js';
import { serveGraphql } from '../simnet/graphql/test-server.js';
import { createGrpcServer } from '../simnet/grpc/server.js';
import { LedgerServiceImpl } from '../simnet/grpc/ledger-service.js';
import { MovePackageServiceImpl } from '../simnet/grpc/move-package-service.js';
import { NameServiceImpl } from '../simnet/grpc/name-service.js';
import { StateServiceImpl } from '../simnet/grpc/state-service.js';
import { createLedger } from '../simnet/ledger/index.js';

/**
 * simnet assembled from its committed parts (ledger, gRPC services on the gRPC/gRPC-Web mux,
 * GraphQL, faucet) with a checkpoint timer, until `test/simnet/index.ts` exports `startSimnet`.
 */
export async function startTestSimnet(options: { seed?: string; checkpointIntervalMs?: number } = {}) {
  const ledger = createLedger({ seed: options.seed ?? 'suigw-rest-e2e' });
  const grpcServer = createGrpcServer([
    { service: GrpcTypes.LedgerService, implementation: new LedgerServiceImpl(ledger) },
    { service: GrpcTypes.StateService, implementation: new StateServiceImpl(ledger) },
    { service: GrpcTypes.NameService, implementation: new NameServiceImpl(ledger) },
    { service: GrpcTypes.MovePackageService, implementation: new MovePackageServiceImpl(ledger) },
  ]);
  const mux = createGrpcWebMux({ grpcServer });
  const grpcAddress = await mux.listen(0, '127.0.0.1');
  const graphql = await serveGraphql(ledger);
  const faucet = http.createServer(createFaucetHandler(ledger));
  await new Promise<void>((resolve) => faucet.listen(0, '127.0.0.1', resolve));
  const timer = setInterval(() => ledger.sealCheckpoint(), options.checkpointIntervalMs ?? 100);
  return {
    ledger,
    accounts: ledger.accounts,
    chainId: ledger.chainId,
    grpcUrl: `http://127.0.0.1:${grpcAddress.port}`,
    graphqlUrl: graphql.url,
    faucetUrl: `http://127.0.0.1:${(faucet.address() as AddressInfo).port}`,
    /** Seals pending transactions now, so they are finalized and indexed. */
    seal: () => ledger.sealCheckpoint(),
    async stop() {
      clearInterval(timer);
      await mux.close();
      grpcServer.forceShutdown();
      await graphql.close();
      faucet.closeAllConnections();
      await new Promise<void>((resolve) => faucet.close(() => resolve()));
    },
  };
}

export type TestSimnet = Awaited<ReturnType<typeof startTestSimnet>>;
