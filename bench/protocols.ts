/**
 * One account's balance three ways (issue 9), at concurrency 1 and 16 (BENCH_CONCURRENCY
 * overrides), in interleaved rounds against the same gateway process (issue 23's target:
 * JSON-RPC / REST ≥ 0.85 at concurrency 16, printed beside the ratio):
 * - JSON-RPC: `POST /mainnet/v1/jsonrpc` with `suix_getBalance` (the body posted by h2load from a
 *   file), which the gateway translates to gRPC `StateService.GetBalance` plus `ListOwnedObjects`
 *   (for `coinObjectCount`);
 * - REST: `GET /mainnet/v1/accounts/{address}/balance` (gRPC `ListBalances`);
 * - direct gRPC: `StateService/GetBalance` sent by h2load straight to simnet (h2c, one connection
 *   with c concurrent streams), what the upstream alone serves.
 * One gateway process (the first BENCH_METERING variant, at production settings as in
 * bench/balance.ts), simnet and h2load each in a process of their own; see docs/benchmarks.md.
 * With BENCH_COMPARE_TREE, another checkout's gateway serves REST and JSON-RPC in the same rounds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GrpcTypes } from '@mysten/sui/grpc';
import { assertGrpcCallSucceeds, GRPC_HEADERS } from './lib/grpc-frame.js';
import { printComparisons, printSubjects, warnOnFailures } from './lib/report.js';
import { compare, interleavedRounds, type Subject } from './lib/rounds.js';
import { describeSettings, readSettings } from './lib/settings.js';
import { startBenchStack, type BenchStack, type GatewayProcess } from './lib/stack.js';

const GET_BALANCE_PATH = '/sui.rpc.v2.StateService/GetBalance';
/** Issue 23: JSON-RPC suix_getBalance at this share of REST balance's throughput. */
const TARGET = { ratio: 0.85, concurrency: 16 };
const SUI = '0x2::sui::SUI';
const overHttp1 = (concurrency: number) => ({ connections: concurrency, streamsPerConnection: 1 });
const overOneHttp2Connection = (concurrency: number) => ({ connections: 1, streamsPerConnection: concurrency });

function getBalanceFrame(owner: string): Buffer {
  const message = GrpcTypes.GetBalanceRequest.toBinary({ owner, coinType: SUI });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** JSON-RPC answers its errors with HTTP 200: check once that the call has a result. */
async function assertJsonRpcSucceeds(url: string, apiKey: string, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
  const answer = (await response.json()) as { result?: { totalBalance?: string }; error?: unknown };
  if (response.status !== 200 || answer.result?.totalBalance === undefined) throw new Error(`suix_getBalance answered ${response.status} ${JSON.stringify(answer)}`);
}

async function assertRestSucceeds(url: string, apiKey: string): Promise<void> {
  const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
  if (!response.ok) throw new Error(`REST balance answered ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** REST balance and JSON-RPC suix_getBalance on one gateway process. */
function gatewaySubjects(stack: BenchStack, gateway: GatewayProcess, files: { jsonRpc: string }, prefix: string): Subject[] {
  const { owner } = stack.simnet.ready;
  return [
    {
      name: `${prefix}REST balance (${gateway.variant})`,
      target: { url: `${gateway.ready.url}/mainnet/v1/accounts/${owner}/balance`, http1: true, headers: { 'x-api-key': stack.apiKey } },
      shape: overHttp1,
      server: gateway,
      upstream: stack.simnet,
    },
    {
      name: `${prefix}JSON-RPC suix_getBalance (${gateway.variant})`,
      target: {
        url: `${gateway.ready.url}/mainnet/v1/jsonrpc`,
        http1: true,
        headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
        bodyFile: files.jsonRpc,
      },
      shape: overHttp1,
      server: gateway,
      upstream: stack.simnet,
    },
  ];
}

/**
 * Direct gRPC, then the gateway's REST and JSON-RPC; with BENCH_COMPARE_TREE the other checkout's
 * REST and JSON-RPC last, in the same rounds (a change to the JSON-RPC path measured A/B).
 */
function protocolSubjects(stack: BenchStack, files: { jsonRpc: string; grpc: string }): Subject[] {
  const direct: Subject = {
    name: 'direct gRPC GetBalance',
    target: { url: `${stack.simnet.ready.grpcUrl}${GET_BALANCE_PATH}`, http1: false, headers: GRPC_HEADERS, bodyFile: files.grpc },
    shape: overOneHttp2Connection,
    server: stack.simnet,
  };
  const compared = stack.compareGateway;
  return [
    direct,
    ...gatewaySubjects(stack, stack.gateways[0]!, files, ''),
    ...(compared ? gatewaySubjects(stack, compared, files, 'compared ') : []),
  ];
}

export default async function benchProtocols(): Promise<void> {
  const base = readSettings();
  const settings = {
    ...base,
    // One gateway: the comparison is between protocols, not metering variants.
    metering: base.metering.slice(0, 1),
    concurrencies: process.env['BENCH_CONCURRENCY'] ? base.concurrencies : [1, 16],
  };
  console.log(`protocols (JSON-RPC, REST, direct gRPC): ${describeSettings(settings)}; gateway metering ${settings.metering[0]}`);
  const stack = await startBenchStack(settings);
  const directory = await mkdtemp(join(tmpdir(), 'suigw-bench-protocols-'));
  try {
    const { owner, grpcUrl } = stack.simnet.ready;
    const frame = getBalanceFrame(owner);
    const jsonRpcBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'suix_getBalance', params: [owner, SUI] });
    const files = { grpc: join(directory, 'get-balance.grpc'), jsonRpc: join(directory, 'get-balance.json') };
    await writeFile(files.grpc, frame);
    await writeFile(files.jsonRpc, jsonRpcBody);
    const subjects = protocolSubjects(stack, files);
    await assertGrpcCallSucceeds(grpcUrl, GET_BALANCE_PATH, frame);
    await assertRestSucceeds(subjects[1]!.target.url, stack.apiKey);
    await assertJsonRpcSucceeds(subjects[2]!.target.url, stack.apiKey, jsonRpcBody);
    for (const concurrency of settings.concurrencies) {
      const results = await interleavedRounds(subjects, {
        concurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds,
      });
      console.log(`\nbalance by protocol, concurrency ${concurrency} (medians over ${settings.rounds} rounds)`);
      printSubjects(results);
      console.log('');
      const [direct, rest, jsonRpc, comparedRest, comparedJsonRpc] = results as [typeof results[number], typeof results[number], typeof results[number], ...typeof results];
      const jsonRpcOverRest = compare('JSON-RPC / REST', jsonRpc, rest);
      printComparisons([
        jsonRpcOverRest,
        compare('JSON-RPC / direct', jsonRpc, direct),
        compare('REST / direct', rest, direct),
        ...(comparedRest && comparedJsonRpc
          ? [
              compare('compared JSON-RPC / compared REST', comparedJsonRpc, comparedRest),
              compare('REST: this tree / compared', rest, comparedRest),
              compare('JSON-RPC: this tree / compared', jsonRpc, comparedJsonRpc),
            ]
          : []),
      ]);
      if (concurrency === TARGET.concurrency) {
        const { median, min, max } = jsonRpcOverRest.throughput;
        console.log(`target (issue 23): JSON-RPC / REST ≥ ${TARGET.ratio} at c=${TARGET.concurrency}: median ${median.toFixed(3)} (${min.toFixed(3)}..${max.toFixed(3)}), ${median >= TARGET.ratio ? 'met' : 'not met'}`);
      }
      warnOnFailures(results);
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
    await stack.stop();
  }
}

// `node bin/run-ts.js bench/protocols.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchProtocols();
