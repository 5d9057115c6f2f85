import { randomBytes } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { systemClock } from '../../services/core/index.js';
import { openDatabase } from '../../services/db/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import { startRedis } from '../../test/support/processes.js';
import { startCheckpointClock, type CheckpointClock } from './checkpoint-clock.js';
import type { GrpcProxyReady } from './grpc-proxy-server.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import type { BenchSettings } from './settings.js';
import { cleanEnvironment, startBenchStack, subjectEnvironment, type BenchStack, type GatewayProcess } from './stack.js';
import { startStreamsRole, type StreamsRole } from './streams-role.js';

/** The surfaces issue 19 names, each with an attacker of its own (bench/lib/noisy-*.ts). */
export const SURFACES = ['rest', 'jsonrpc', 'graphql', 'grpc', 'warp', 'webhooks'] as const;
export type Surface = (typeof SURFACES)[number];

/** BENCH_NOISY_SURFACES (comma-separated, default all): the surfaces to run. */
export function readSurfaces(env: NodeJS.ProcessEnv = process.env): Surface[] {
  const named = (env['BENCH_NOISY_SURFACES'] ?? SURFACES.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  for (const surface of named) {
    if (!(SURFACES as readonly string[]).includes(surface)) throw new Error(`BENCH_NOISY_SURFACES: ${surface} is not one of ${SURFACES.join(', ')}`);
  }
  if (named.length === 0) throw new Error('BENCH_NOISY_SURFACES names no surface');
  return named as Surface[];
}

/** Webhooks to a local receiver: the bench's receivers are on loopback, over http. */
const WEBHOOK_POLICY = { SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' };

/**
 * Everything the noisy-neighbour benchmarks run against, each in a process of its own: the bench
 * stack (simnet sealing transactions with events, one gateway for the first BENCH_METERING
 * variant, started with `--expose-gc` so that its heap can be read after a collection), plus what
 * the surfaces need: the gRPC proxy (`suigw grpc`'s build) for `grpc`, and `suigw streams` (Warp
 * and webhook delivery, on a private redis-server) for `warp` and `webhooks`. One secret for the
 * gateway and the streams process (webhook secrets are sealed with it). The victim is an
 * enterprise organization of its own (the bench plans file's 50,000 requests/s: its own plan is
 * never what slows it) with a mainnet key of every scope.
 */
export interface NoisyStack {
  base: BenchStack;
  gateway: GatewayProcess;
  grpcProxy: ServiceProcess<GrpcProxyReady> | undefined;
  streams: StreamsRole | undefined;
  victim: { organizationId: string; apiKey: string };
  /** Objects simnet holds (the richest account's coins), for the REST and gRPC calls. */
  objectIds: string[];
  /** When each checkpoint reached a bare client of simnet: the reference of delivery lags. */
  checkpoints: CheckpointClock;
  /** The environment every attacker process starts from. */
  attackerEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function ownedObjectIds(grpcUrl: string, owner: string): Promise<string[]> {
  const transport = new GrpcTransport({ host: new URL(grpcUrl).host, channelCredentials: credentials.createInsecure() });
  try {
    const client = new SuiGrpcClient({ network: 'mainnet', transport });
    const { objects } = await client.core.listCoins({ owner });
    if (!objects[0]) throw new Error(`simnet account ${owner} holds no coin`);
    return objects.map((object) => object.objectId);
  } finally {
    transport.close();
  }
}

async function createVictim(databaseUrl: string): Promise<NoisyStack['victim']> {
  const database = await openDatabase({ url: databaseUrl, poolSize: 1 });
  try {
    const { organization, projects } = await createOrganization(database.db, systemClock, { name: 'Victim', tier: 'enterprise' });
    const { apiKey } = await createKey(database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'victim', scopes: ['data', 'manage', 'streams'], expiresInDays: 1,
    });
    return { organizationId: organization.id, apiKey };
  } finally {
    await database.close();
  }
}

export async function startNoisyStack(settings: BenchSettings, surfaces: readonly Surface[]): Promise<NoisyStack> {
  process.env['BENCH_SIMNET_TRANSACTIONS_PER_CHECKPOINT'] ??= '4';
  const secret = randomBytes(32).toString('hex');
  const base = await startBenchStack({ ...settings, metering: settings.metering.slice(0, 1) }, { exposeGc: true, gatewayEnv: { SUIGW_SECRET: secret, ...WEBHOOK_POLICY } });
  let grpcProxy: ServiceProcess<GrpcProxyReady> | undefined;
  let streams: StreamsRole | undefined;
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  let checkpoints: CheckpointClock | undefined;
  const stop = async () => {
    checkpoints?.close();
    await streams?.stop();
    await redis?.stop();
    await grpcProxy?.stop();
    await base.stop();
  };
  try {
    const simnet = base.simnet.ready;
    checkpoints = startCheckpointClock(simnet.grpcUrl);
    const tenant = { databaseUrl: base.databaseUrl, plansFile: base.plansFile };
    if (surfaces.includes('grpc')) {
      grpcProxy = await startServiceProcess<GrpcProxyReady>({
        name: 'grpc proxy', script: 'bench/lib/grpc-proxy-server.ts', env: subjectEnvironment(tenant, simnet, base.gateways[0]!.variant, settings), stdout: 'ignore',
      });
    }
    if (surfaces.includes('warp') || surfaces.includes('webhooks')) {
      redis = await startRedis();
      streams = await startStreamsRole({
        ...cleanEnvironment(), ...WEBHOOK_POLICY,
        LOG_LEVEL: settings.logLevel, PORT: '0', HOST: '127.0.0.1', SUIGW_METRICS_PORT: 'off', SUIGW_SECRET: secret,
        DATABASE_URL: base.databaseUrl, SUIGW_PLANS_FILE: base.plansFile, REDIS_URL: redis.url, SUIGW_NETWORKS: 'mainnet',
        SUI_MAINNET_GRPC_URL: simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.graphqlUrl,
      });
    }
    return {
      base,
      gateway: base.gateways[0]!,
      grpcProxy,
      streams,
      victim: await createVictim(base.databaseUrl),
      objectIds: await ownedObjectIds(simnet.grpcUrl, simnet.owner),
      checkpoints,
      attackerEnv: { ...cleanEnvironment(), DATABASE_URL: base.databaseUrl },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
