/**
 * simnet: a deterministic simulated Sui network for tests, benchmarks and `make dev`.
 *
 * One gRPC port serves Sui's v2 services over native gRPC and gRPC-Web (plus server
 * reflection); one HTTP port serves GraphQL at `/graphql` and the faucet at `/v2/gas` (and `/v2/usdc`).
 * See README.md for what is simulated and what is real.
 */
import { randomInt } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { GrpcTypes } from '@mysten/sui/grpc';
import { bindPort } from '../core/index.js';
import { createGrpcWebMux } from '../grpc/web-mux/index.js';
import { addReflectionService } from '../grpc/reflection/index.js';
import { Executor } from './execution/index.js';
import { createLedger } from './ledger/index.js';
import type { GenesisAccount, Ledger } from './ledger/index.js';
import { createGrpcServer } from './grpc/server.js';
import { LedgerServiceImpl } from './grpc/ledger-service.js';
import { MovePackageServiceImpl } from './grpc/move-package-service.js';
import { NameServiceImpl } from './grpc/name-service.js';
import { SignatureVerificationServiceImpl } from './grpc/signature-verification-service.js';
import { StateServiceImpl } from './grpc/state-service.js';
import { SubscriptionServiceImpl } from './grpc/subscription-service.js';
import { TransactionExecutionServiceImpl } from './grpc/transaction-execution-service.js';
import { CheckpointProducer } from './producer/index.js';
import { createGraphqlHandler } from './graphql/index.js';
import { createLedgerRunner } from './graphql/ledger-runner.js';
import { createFaucetHandler, FAUCET_PATHS } from './faucet/index.js';

export { BILLING_TREASURY, CATALOG, COIN_TYPES, EVENT_TYPES, OBJECT_TYPES } from './ledger/catalog.js';
export type { Ledger, GenesisAccount } from './ledger/index.js';

export interface SimnetOptions {
  /** Seed for every derived value (default `simnet`). */
  seed?: string;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** gRPC + gRPC-Web port; 0 (default) picks a free one. */
  grpcPort?: number;
  /** GraphQL + faucet port; 0 (default) picks a free one. */
  httpPort?: number;
  /** Checkpoint interval, wall clock and simulated (default 250 ms). */
  checkpointIntervalMs?: number;
  /** Generated transactions per checkpoint (default 4). */
  transactionsPerCheckpoint?: number;
  /** Start sealing checkpoints at once (default true). */
  autoStart?: boolean;
  /**
   * A chain of its own (default false: a seed always makes the same chain id). Each start is
   * then another chain, as a wiped devnet is, rather than the same chain id counting its
   * checkpoints from 0 again: what already follows a chain (Warp streams, webhooks) sees the new
   * one at once instead of waiting for the old checkpoint numbers (docs/streams.md, Ingest).
   */
  newChain?: boolean;
}

export interface RunningSimnet {
  /** `http://host:port`: for `SuiGrpcClient({ baseUrl })` (gRPC-Web) and, without the scheme, native gRPC. */
  readonly grpcUrl: string;
  /** `host:port` for `GrpcTransport({ host })`. */
  readonly grpcHost: string;
  readonly graphqlUrl: string;
  /** Faucet host for `requestSuiFromFaucetV2({ host })` (it posts to `/v2/gas`). */
  readonly faucetUrl: string;
  readonly chainId: string;
  readonly ledger: Ledger;
  /** Funded genesis accounts with their keys (`alice` … `mallory` are never used by the producer). */
  readonly accounts: readonly GenesisAccount[];
  /** Stops sealing checkpoints (executed transactions wait for the next seal). */
  pause(): void;
  resume(): void;
  /** Seals pending transactions into a checkpoint now. */
  sealNow(): void;
  /** Generates one checkpoint of activity and seals it (works while paused). */
  produceCheckpoint(): Promise<void>;
  /** Moves the chain's clock forward to `ms` (never back): billing periods in a test. */
  advanceClockTo(ms: number): void;
  /** Closes every socket and timer. */
  stop(): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSimnet(options: SimnetOptions = {}): Promise<RunningSimnet> {
  const host = options.host ?? '127.0.0.1';
  // Up to a day later: the genesis time is a seeded day of a year anyway.
  const genesisShiftMs = options.newChain ? randomInt(1, 86_400_000) : 0;
  const ledger = createLedger({ seed: options.seed, checkpointIntervalMs: options.checkpointIntervalMs ?? 250, genesisShiftMs });
  const executor = new Executor(ledger);
  const grpcServer = createGrpcServer([
    { service: GrpcTypes.LedgerService, implementation: new LedgerServiceImpl(ledger) },
    { service: GrpcTypes.StateService, implementation: new StateServiceImpl(ledger) },
    { service: GrpcTypes.MovePackageService, implementation: new MovePackageServiceImpl(ledger) },
    { service: GrpcTypes.NameService, implementation: new NameServiceImpl(ledger) },
    { service: GrpcTypes.SubscriptionService, implementation: new SubscriptionServiceImpl(ledger) },
    { service: GrpcTypes.TransactionExecutionService, implementation: new TransactionExecutionServiceImpl(ledger, executor) },
    { service: GrpcTypes.SignatureVerificationService, implementation: new SignatureVerificationServiceImpl(ledger) },
  ]);
  addReflectionService(grpcServer, [
    GrpcTypes.LedgerService,
    GrpcTypes.StateService,
    GrpcTypes.MovePackageService,
    GrpcTypes.NameService,
    GrpcTypes.SubscriptionService,
    GrpcTypes.TransactionExecutionService,
    GrpcTypes.SignatureVerificationService,
  ]);
  const mux = createGrpcWebMux({ grpcServer });

  const graphql = createGraphqlHandler(ledger, { runner: createLedgerRunner(ledger, executor) });
  const faucet = createFaucetHandler(ledger, { executor });
  const httpServer = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://simnet.invalid').pathname.replace(/\/+$/, '');
    if (path === '/graphql') return graphql(req, res);
    if (FAUCET_PATHS.has(path)) return faucet(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });

  const producer = new CheckpointProducer(ledger, executor, {
    intervalMs: options.checkpointIntervalMs ?? 250,
    transactionsPerCheckpoint: options.transactionsPerCheckpoint ?? 4,
  });

  let grpcAddress: AddressInfo;
  let httpAddress: AddressInfo;
  try {
    grpcAddress = await bindPort('--grpc-port', options.grpcPort ?? 0, () => mux.listen(options.grpcPort ?? 0, host));
    httpAddress = await bindPort('--http-port', options.httpPort ?? 0, () => listen(httpServer, options.httpPort ?? 0, host));
  } catch (error) {
    await mux.close();
    grpcServer.forceShutdown();
    httpServer.close();
    throw error;
  }
  if (options.autoStart ?? true) producer.resume();

  const grpcHost = `${urlHost(host)}:${grpcAddress.port}`;
  const httpBase = `http://${urlHost(host)}:${httpAddress.port}`;
  let stopped: Promise<void> | undefined;
  return {
    grpcUrl: `http://${grpcHost}`,
    grpcHost,
    graphqlUrl: `${httpBase}/graphql`,
    faucetUrl: httpBase,
    chainId: ledger.chainId,
    ledger,
    accounts: ledger.accounts,
    pause: () => void producer.pause(),
    resume: () => producer.resume(),
    sealNow: () => void producer.sealNow(),
    produceCheckpoint: async () => void (await producer.produceCheckpoint()),
    advanceClockTo: (ms) => {
      const now = ledger.nowMs();
      if (BigInt(ms) > now) ledger.advanceClock(BigInt(ms) - now);
    },
    stop() {
      stopped ??= (async () => {
        await producer.pause();
        grpcServer.forceShutdown();
        await mux.close();
        httpServer.closeAllConnections();
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      })();
      return stopped;
    },
  };
}

interface SimnetCliOptions {
  grpcPort: number;
  httpPort: number;
  host: string | undefined;
  seed: string | undefined;
  checkpointIntervalMs: number | undefined;
  transactionsPerCheckpoint: number | undefined;
}

/**
 * The command line (`suigw simnet --help`): an option it does not take, a missing value or a value
 * out of range is refused (thrown with the one-line reason) before anything starts.
 */
export function simnetCliOptions(argv: string[]): SimnetCliOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'grpc-port': { type: 'string' },
      'http-port': { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      'checkpoint-interval-ms': { type: 'string' },
      'transactions-per-checkpoint': { type: 'string' },
    },
  });
  const integer = (name: string, min: number, max: number, what: string): number | undefined => {
    const value = values[name as keyof typeof values];
    if (value === undefined) return undefined;
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) throw new Error(`--${name} must be ${what}, not '${value}'`);
    return number;
  };
  return {
    grpcPort: integer('grpc-port', 0, 65_535, 'a port number (0-65535)') ?? 9000,
    httpPort: integer('http-port', 0, 65_535, 'a port number (0-65535)') ?? 9100,
    host: values.host,
    seed: values.seed,
    checkpointIntervalMs: integer('checkpoint-interval-ms', 1, 3_600_000, 'a number of milliseconds (1-3600000)'),
    transactionsPerCheckpoint: integer('transactions-per-checkpoint', 0, 10_000, 'a number of transactions (0-10000)'),
  };
}

/** `simnet --grpc-port 9000 --http-port 9100 --seed dev --checkpoint-interval-ms 250 [--host 0.0.0.0] [--transactions-per-checkpoint 4]` */
export async function runSimnetCli(argv: string[]): Promise<void> {
  let options: SimnetCliOptions;
  try {
    options = simnetCliOptions(argv);
  } catch (error) {
    console.error(`suigw simnet: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  // Listening for SIGINT/SIGTERM before anything else: a supervisor that stops simnet as soon as
  // it printed its addresses (or while it starts) gets a clean stop, not the default signal death.
  const stopRequested = new Promise<void>((resolve) => {
    const shutdown = () => {
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      resolve();
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
  const simnet = await startSimnet(options);
  console.log(`simnet chain id ${simnet.chainId}`);
  console.log(`  gRPC + gRPC-Web  ${simnet.grpcUrl}`);
  console.log(`  GraphQL          ${simnet.graphqlUrl}`);
  console.log(`  faucet           ${simnet.faucetUrl}/v2/gas`);
  await stopRequested;
  await simnet.stop();
}
