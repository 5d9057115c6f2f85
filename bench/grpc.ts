/**
 * Unary `GetObject` through the gRPC proxy against the same call sent straight to simnet, at
 * several concurrencies (BENCH_CONCURRENCY, default 1,16,64), both over one h2c connection with
 * as many concurrent streams as the concurrency: h2load posts one prebuilt gRPC frame. The proxy
 * runs at production settings (PostgreSQL, in-memory or Redis metering per BENCH_METERING, an
 * enterprise key) in a process of its own; simnet and h2load in theirs. Targets (issue 9): at
 * c=16 ≥ 0.8 of direct throughput; at c=1 added p50 ≤ 0.3 ms. docs/benchmarks.md has results.
 * A bare node:http2 forwarding proxy (bench/lib/bare-grpc-proxy.ts) runs in the same rounds: the
 * floor of any Node proxy on the machine, so that what the proxy adds beyond it is told apart.
 *
 * To compare another protocol later (JSON-RPC `suix_getBalance`, REST balance, direct gRPC),
 * add a Subject to `grpcSubjects` (a server process and a LoadTarget) and a `compare` line.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { GrpcTypes, SuiGrpcClient } from '@mysten/sui/grpc';
import { createBenchTenant, type BenchTenant } from './lib/bench-tenant.js';
import { cleanEnvironment, startGrpcProxies } from './lib/stack.js';
import { assertGrpcCallSucceeds, GRPC_HEADERS } from './lib/grpc-frame.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Subject } from './lib/rounds.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings } from './lib/settings.js';
import type { SimnetReady } from './lib/simnet-process.js';
import type { GrpcProxyRefusals } from './lib/grpc-proxy-server.js';
import type { BareGrpcProxyReady } from './lib/bare-grpc-proxy.js';

const GET_OBJECT_PATH = '/sui.rpc.v2.LedgerService/GetObject';
const overOneHttp2Connection = (concurrency: number) => ({ connections: 1, streamsPerConnection: concurrency });

function frameOf(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** An object simnet holds: the first coin of the bench account. */
async function someObjectId(grpcUrl: string, owner: string): Promise<string> {
  const transport = new GrpcTransport({ host: new URL(grpcUrl).host, channelCredentials: credentials.createInsecure() });
  try {
    const client = new SuiGrpcClient({ network: 'mainnet', transport });
    const { objects } = await client.core.listCoins({ owner });
    if (!objects[0]) throw new Error(`simnet account ${owner} holds no coin`);
    return objects[0].objectId;
  } finally {
    transport.close();
  }
}

export default async function benchGrpc(): Promise<void> {
  const settings = readSettings();
  console.log(`gRPC proxy: ${describeSettings(settings)}`);
  const started: ServiceProcess<unknown>[] = [];
  let tenant: BenchTenant | undefined;
  const directory = await mkdtemp(join(tmpdir(), 'suigw-bench-grpc-'));
  try {
    tenant = await createBenchTenant();
    const simnet = await startServiceProcess<SimnetReady>({ name: 'simnet', script: 'bench/lib/simnet-process.ts', env: process.env, stdout: 'ignore' });
    started.push(simnet);
    const proxies = await startGrpcProxies(tenant, simnet.ready, settings, started);
    // The floor of any Node proxy: the same hop with nothing but node:http2 (bare-grpc-proxy.ts).
    const bare = await startServiceProcess<BareGrpcProxyReady>({
      name: 'bare node:http2 proxy', script: 'bench/lib/bare-grpc-proxy.ts', env: { ...cleanEnvironment(), SUI_GRPC_URL: simnet.ready.grpcUrl, BARE_LEAN_BIND: settings.bareLeanBind ? '1' : '' }, stdout: 'ignore',
    });
    started.push(bare);
    const objectId = await someObjectId(simnet.ready.grpcUrl, simnet.ready.owner);
    const frame = frameOf(GrpcTypes.GetObjectRequest.toBinary({ objectId }));
    const frameFile = join(directory, 'get-object.grpc');
    await writeFile(frameFile, frame);
    await assertGrpcCallSucceeds(simnet.ready.grpcUrl, GET_OBJECT_PATH, frame);
    const subjects: Subject[] = [
      {
        name: 'direct gRPC to simnet',
        target: { url: `${simnet.ready.grpcUrl}${GET_OBJECT_PATH}`, http1: false, headers: GRPC_HEADERS, bodyFile: frameFile },
        shape: overOneHttp2Connection,
        server: simnet,
      },
      {
        name: bare.name,
        target: { url: `${bare.ready.url}${GET_OBJECT_PATH}`, http1: false, headers: GRPC_HEADERS, bodyFile: frameFile },
        shape: overOneHttp2Connection,
        server: bare,
        upstream: simnet,
      },
      ...proxies.map(({ name, process, reportsRefusals }) => ({
        name,
        target: { url: `${process.ready.url}${GET_OBJECT_PATH}`, http1: false, headers: { ...GRPC_HEADERS, 'x-api-key': tenant!.apiKey }, bodyFile: frameFile },
        shape: overOneHttp2Connection,
        server: process,
        upstream: simnet,
        ...(reportsRefusals ? { refusals: async () => (await process.signalForReply<GrpcProxyRefusals>('SIGUSR2')).refused } : {}),
      })),
    ];
    for (const concurrency of settings.concurrencies) {
      const results = await interleavedRounds(subjects, {
        concurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds,
      });
      console.log(`\nGetObject, concurrency ${concurrency} (medians over ${settings.rounds} rounds)`);
      printSubjects(results);
      console.log('');
      const [direct, bareProxy, ...through] = results;
      printComparisons([
        ...[bareProxy!, ...through].map((result) => compare(`${result.subject.name} / direct`, result, direct!)),
        ...through.map((result) => compare(`${result.subject.name} / bare proxy`, result, bareProxy!)),
      ]);
      warnOnFailures(results);
    }
  } finally {
    for (const child of started.reverse()) await child.stop();
    await tenant?.drop();
    await rm(directory, { recursive: true, force: true });
  }
}

// `node bin/run-ts.js bench/grpc.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchGrpc();
