/**
 * What fastify's own layers cost a small answer (issue 23: where `/auth/me` / bare hello's gap
 * is). One process per combination of bench/lib/fastify-layers-server.ts's layers (each as the
 * gateway sets it up, none of the gateway's per-request work behind it): none (the bare hello),
 * all of them, and all but one for each layer, loaded with `GET /hello` at BENCH_AUTH_CONCURRENCY
 * in interleaved rounds. A layer's marginal cost is CPU µs/request of "all" minus "all but it",
 * per round (median, min..max): what taking that layer out of the gateway would save.
 * Prints numbers only; not a pass/fail test.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAYERS, type Layer } from './lib/fastify-layers.js';
import { printSubjects, printTable, warnOnFailures } from './lib/report.js';
import { interleavedRounds, spread, type Subject } from './lib/rounds.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { describeSettings, readSettings } from './lib/settings.js';

const ALL = Object.keys(LAYERS) as Layer[];

export default async function benchFastifyLayers(): Promise<void> {
  const settings = readSettings();
  console.log(`fastify layers: GET /hello with auth/me's body, concurrency ${settings.authConcurrency}; ${describeSettings(settings)}`);
  const combinations: { name: string; layers: Layer[] }[] = [
    { name: 'none (bare hello)', layers: [] },
    { name: 'all', layers: ALL },
    ...ALL.map((left) => ({ name: `all but ${left}`, layers: ALL.filter((layer) => layer !== left) })),
  ];
  const servers: ServiceProcess<{ url: string }>[] = [];
  try {
    for (const combination of combinations) {
      servers.push(await startServiceProcess<{ url: string }>({
        name: combination.name,
        script: 'bench/lib/fastify-layers-server.ts',
        env: { ...process.env, FASTIFY_LAYERS: combination.layers.join(',') },
        stdout: 'ignore',
      }));
    }
    const subjects: Subject[] = servers.map((server) => ({
      name: server.name,
      target: { url: `${server.ready.url}/hello`, http1: true },
      shape: (concurrency) => ({ connections: concurrency, streamsPerConnection: 1 }),
      server,
    }));
    const results = await interleavedRounds(subjects, {
      concurrency: settings.authConcurrency, rounds: settings.rounds, durationSeconds: settings.roundSeconds, warmupSeconds: settings.warmupSeconds,
    });
    printSubjects(results);
    const [bare, all, ...allBut] = results;
    const perRound = (pick: (round: number) => number) => spread(all!.samples.map((_, round) => pick(round)));
    const µs = (value: number) => value.toFixed(1);
    console.log('');
    const rows = ALL.map((layer, index) => {
      const cost = perRound((round) => all!.samples[round]!.serverCpu - allBut[index]!.samples[round]!.serverCpu);
      return [LAYERS[layer], µs(cost.median), `${µs(cost.min)}..${µs(cost.max)}`];
    });
    const total = perRound((round) => all!.samples[round]!.serverCpu - bare!.samples[round]!.serverCpu);
    const throughput = perRound((round) => all!.samples[round]!.rps / bare!.samples[round]!.rps);
    printTable(['layer', 'marginal CPU µs/req (median)', 'min..max'], [
      ...rows,
      ['all layers against none', µs(total.median), `${µs(total.min)}..${µs(total.max)}`],
    ]);
    console.log(`all layers / none, req/s per round: median ${throughput.median.toFixed(3)} (${throughput.min.toFixed(3)}..${throughput.max.toFixed(3)})`);
    warnOnFailures(results);
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

// `node bin/run-ts.js bench/fastify-layers.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchFastifyLayers();
