/**
 * simnet under sustained load (issue 3): checkpoints sealed with 50 transactions each for 60 s
 * (SIMNET_BENCH_SECONDS), checkpoints/s against the configured rate, p50/p99 delivery lag of a
 * native-gRPC SubscribeCheckpoints stream (seal → client receipt), then GetObject reads/s as a
 * ratio against GetServiceInfo (the cheapest RPC) measured on the same server in the same run.
 * BENCH_QUICK=1 shortens both phases to a smoke run.
 */
import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { performance } from 'node:perf_hooks';
import { startSimnet } from '../services/simnet/index.js';
import { percentile, runLoad, summarize } from './lib/stats.js';

const QUICK = process.env['BENCH_QUICK'] === '1';
const SECONDS = Number(process.env['SIMNET_BENCH_SECONDS'] ?? (QUICK ? 5 : 60));
const READ_SECONDS = Number(process.env['SIMNET_BENCH_READ_SECONDS'] ?? (QUICK ? 2 : 8));
const INTERVAL_MS = 250;
const TX_PER_CHECKPOINT = 50;
const CONCURRENCY = 16;

function printTable(title: string, rows: [string, string, string][]): void {
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`\n${title}`);
  for (const [name, value, note] of rows) console.log(`  ${name.padEnd(width)}  ${value.padStart(12)}  ${note}`);
}

async function closedLoop(seconds: number, call: () => Promise<unknown>) {
  return summarize([await runLoad(call, CONCURRENCY, seconds * 1000)]);
}

export default async function run(): Promise<void> {
  console.log(`simnet: ${TX_PER_CHECKPOINT} transactions per checkpoint every ${INTERVAL_MS} ms for ${SECONDS} s`);
  const simnet = await startSimnet({ seed: 'bench', checkpointIntervalMs: INTERVAL_MS, transactionsPerCheckpoint: TX_PER_CHECKPOINT });
  const client = new SuiGrpcClient({
    network: 'localnet',
    transport: new GrpcTransport({ host: simnet.grpcHost, channelCredentials: credentials.createInsecure() }),
  });
  try {
    const sealedAt = new Map<bigint, number>();
    const unsubscribe = simnet.ledger.onCheckpoint((checkpoint) => sealedAt.set(checkpoint.sequenceNumber, performance.now()));
    const lags: number[] = [];
    let received = 0;
    let gaps = 0;
    let previous: bigint | undefined;
    const abort = new AbortController();
    const stream = client.subscriptionService.subscribeCheckpoints(
      { readMask: { paths: ['sequence_number', 'summary.timestamp'] } },
      { abort: abort.signal },
    );
    const reading = (async () => {
      try {
        for await (const message of stream.responses) {
          const now = performance.now();
          const sequence = message.cursor ?? message.checkpoint?.sequenceNumber;
          if (sequence === undefined) continue;
          if (previous !== undefined && sequence !== previous + 1n) gaps += 1;
          previous = sequence;
          received += 1;
          const sealed = sealedAt.get(sequence);
          if (sealed !== undefined) lags.push(now - sealed);
        }
      } catch {
        // aborted at the end of the run
      }
    })();

    const first = simnet.ledger.latestCheckpoint();
    const startedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const elapsed = (performance.now() - startedAt) / 1000;
    const last = simnet.ledger.latestCheckpoint();
    const sealed = Number(last.sequenceNumber - first.sequenceNumber);
    const transactions = Number(BigInt(last.networkTotalTransactions) - BigInt(first.networkTotalTransactions));
    abort.abort();
    await reading;
    unsubscribe();
    lags.sort((a, b) => a - b);
    const target = 1000 / INTERVAL_MS;
    printTable('checkpoint production', [
      ['checkpoints/s', (sealed / elapsed).toFixed(2), `target ${target.toFixed(2)}; ratio ${(sealed / elapsed / target).toFixed(3)}`],
      ['transactions/s', (transactions / elapsed).toFixed(0), `${(transactions / Math.max(sealed, 1)).toFixed(1)} per checkpoint`],
      ['subscription received', String(received), `gaps ${gaps}`],
      ['delivery lag p50', `${percentile(lags, 50).toFixed(2)} ms`, 'seal → client receipt'],
      ['delivery lag p99', `${percentile(lags, 99).toFixed(2)} ms`, `as a share of the interval: ${(percentile(lags, 99) / INTERVAL_MS).toFixed(3)}`],
    ]);

    const owned = await client.core.listOwnedObjects({ owner: simnet.accounts[0]!.address, limit: 50 });
    const ids = owned.objects.map((object) => object.objectId);
    let next = 0;
    const baseline = await closedLoop(READ_SECONDS, () => client.ledgerService.getServiceInfo({}).response);
    const reads = await closedLoop(READ_SECONDS, () =>
      client.ledgerService.getObject({ objectId: ids[next++ % ids.length]!, readMask: { paths: ['object_id', 'version', 'digest', 'owner', 'object_type', 'bcs'] } }).response,
    );
    printTable(`reads (native gRPC, concurrency ${CONCURRENCY}, producer still running)`, [
      ['GetServiceInfo/s (baseline)', baseline.rps.toFixed(0), `p50 ${baseline.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} ms, errors ${baseline.errors}`],
      ['GetObject/s', reads.rps.toFixed(0), `p50 ${reads.p50.toFixed(2)} ms, p99 ${reads.p99.toFixed(2)} ms, errors ${reads.errors}`],
      ['GetObject / GetServiceInfo', (reads.rps / baseline.rps).toFixed(3), 'throughput ratio'],
    ]);
  } finally {
    await simnet.stop();
  }
}
