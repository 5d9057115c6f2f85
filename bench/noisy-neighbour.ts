/**
 * Noisy neighbour (issue 19): a victim organization's latency or delivery rate alone and beside an
 * attacker organization holding the most its plan allows, surface by surface
 * (BENCH_NOISY_SURFACES, comma-separated, default all: rest, jsonrpc, graphql, grpc, warp,
 * webhooks). Each attacker is a process of its own (bench/lib/noisy-*.ts, protocol in
 * bench/lib/attacker-process.ts) with its own organization on NOISY_TIER (default growth:
 * 100 requests/s, 20 streams, 20 webhooks); what it holds and every refusal of its own plan are
 * printed.
 *
 * The victim per surface (bench/lib/noisy-victims.ts): h2load on the gateway's
 * `GET /mainnet/v1/auth/me` (BENCH_AUTH_CONCURRENCY connections) for the surfaces the gateway
 * serves (REST, JSON-RPC WebSocket filters, GraphQL); h2load `GetObject` through the gRPC proxy
 * for gRPC; its own Warp stream's events/s and lag for Warp; its own webhook's deliveries/s and
 * lag (a local receiver answering at once) for webhooks. Processes: simnet (4 transactions with
 * events per checkpoint), one gateway (first BENCH_METERING variant), the gRPC proxy, `suigw
 * streams` on a private redis-server (bench/lib/noisy-stack.ts).
 *
 * Rounds interleave "alone" and "attacked" in rotated order; the ratio attacked ÷ alone is taken
 * within a round. With BENCH_COMPARE_TREE, another checkout's gateway gets the same attack in the
 * same rounds (the gateway's surfaces only). BENCH_NOISY_BASELINE=1: the JSON-RPC attacker keeps
 * one small subscription while "alone". Goal: victim ratio ≥ 0.8 on every surface. Prints numbers;
 * not a pass/fail test.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AttackerReport } from './lib/attacker-process.js';
import { describeReport, startAttacker, type Attacker } from './lib/noisy-attackers.js';
import { readSurfaces, startNoisyStack, type NoisyStack, type Surface } from './lib/noisy-stack.js';
import { authMeVictim, grpcVictim, warpVictim, webhookVictim, type Victim, type VictimWindow } from './lib/noisy-victims.js';
import { printTable } from './lib/report.js';
import { processCpuMicros } from './lib/service-process.js';
import { describeSettings, readSettings, type BenchSettings } from './lib/settings.js';
import { median } from './lib/stats.js';

/** A window with the CPU (% of one core) of the process serving the surface, simnet and the attacker in it. */
interface Window extends VictimWindow {
  cpu: { server: number; simnet: number; attacker: number };
}

interface Target {
  label: string;
  /** The process serving the surface: the gateway, the gRPC proxy or `suigw streams`. */
  serverPid: number;
  victim: Victim;
  attacker: Attacker;
  held: AttackerReport;
  /** Requests and refusals summed over the attacked windows. */
  requests: number;
  refusals: Record<string, number>;
  runs: { alone: Window; attacked: Window }[];
  /** The attacker's last note at stop (e.g. what its silent receiver held). */
  note: string | undefined;
}

export interface SurfaceSummary {
  surface: Surface;
  label: string;
  victim: string;
  ratios: number[];
  p99Ratios: number[];
  held: number;
  refusals: Record<string, number>;
}

/** The gateway's surfaces: another checkout's gateway (BENCH_COMPARE_TREE) can be attacked the same way. */
const GATEWAY_SURFACES: readonly Surface[] = ['rest', 'jsonrpc', 'graphql'];

async function victimOf(stack: NoisyStack, surface: Surface, settings: BenchSettings, gatewayUrl: string): Promise<Victim> {
  switch (surface) {
    case 'grpc':
      return grpcVictim(stack, { concurrency: settings.authConcurrency });
    case 'warp':
      return warpVictim(stack);
    case 'webhooks':
      return webhookVictim(stack);
    default:
      return authMeVictim(stack, { concurrency: settings.authConcurrency }, gatewayUrl);
  }
}

function addRefusals(into: Record<string, number>, from: Record<string, number>): void {
  for (const [code, count] of Object.entries(from)) into[code] = (into[code] ?? 0) + count;
}

/** The victim's window, with each process's CPU over it (warm-up included). */
async function measured(stack: NoisyStack, target: Target, measure: () => Promise<VictimWindow>): Promise<Window> {
  const pids = { server: target.serverPid, simnet: stack.base.simnet.pid, attacker: target.attacker.process.pid };
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMicros(pid)]));
  const t0 = performance.now();
  const window = await measure();
  const elapsedMicros = (performance.now() - t0) * 1000;
  const percent = (name: keyof typeof pids) => ((processCpuMicros(pids[name]) - before[name]!) / elapsedMicros) * 100;
  return { ...window, cpu: { server: percent('server'), simnet: percent('simnet'), attacker: percent('attacker') } };
}

async function attacked(stack: NoisyStack, target: Target, measure: () => Promise<VictimWindow>): Promise<Window> {
  const started = await target.attacker.start();
  addRefusals(target.refusals, started.refusals);
  const window = await measured(stack, target, measure);
  const stopped = await target.attacker.stop();
  target.requests += stopped.requests;
  target.note = stopped.note;
  addRefusals(target.refusals, stopped.refusals);
  return window;
}

function serverPidOf(stack: NoisyStack, surface: Surface, gatewayPid: number): number {
  if (surface === 'grpc') return stack.grpcProxy!.pid;
  if (surface === 'warp' || surface === 'webhooks') return stack.streams!.child.pid!;
  return gatewayPid;
}

async function runSurface(stack: NoisyStack, surface: Surface, settings: BenchSettings): Promise<SurfaceSummary[]> {
  const gateways = [stack.gateway, ...(stack.base.compareGateway && GATEWAY_SURFACES.includes(surface) ? [stack.base.compareGateway] : [])];
  const targets: Target[] = [];
  try {
    for (const gateway of gateways) {
      const attacker = await startAttacker(stack, surface, gateway.ready.url);
      const victim = await victimOf(stack, surface, settings, gateway.ready.url).catch(async (error: unknown) => {
        await attacker.process.stop();
        throw error;
      });
      targets.push({ label: gateway.label, serverPid: serverPidOf(stack, surface, gateway.pid), victim, attacker, note: undefined, held: { held: 0, requests: 0, refusals: {} }, requests: 0, refusals: {}, runs: [] });
    }
    // Unmeasured: the attack once (what it holds), then the victim alone once.
    for (const target of targets) {
      target.held = await target.attacker.start();
      addRefusals(target.refusals, target.held.refusals);
      console.log(`${surface}, ${target.label}: the attacker (${target.attacker.process.ready.tier}) ${describeReport(target.held)}`);
      const stopped = await target.attacker.stop();
      addRefusals(target.refusals, stopped.refusals);
      await target.victim.measure(settings.warmupSeconds, 0);
    }
    for (let round = 0; round < settings.rounds; round += 1) {
      const order: ('alone' | 'attacked')[] = round % 2 === 0 ? ['alone', 'attacked'] : ['attacked', 'alone'];
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const measure = () => target.victim.measure(settings.roundSeconds, settings.warmupSeconds);
        const result: Partial<Target['runs'][number]> = {};
        for (const condition of order) result[condition] = condition === 'attacked' ? await attacked(stack, target, measure) : await measured(stack, target, measure);
        target.runs.push(result as Target['runs'][number]);
      }
    }
    return targets.map((target) => report(surface, target));
  } finally {
    for (const target of targets) {
      await target.attacker.process.stop();
      await target.victim.close();
    }
  }
}

function report(surface: Surface, target: Target): SurfaceSummary {
  const { runs, victim } = target;
  const ratios = runs.map((r) => r.attacked.rate / r.alone.rate);
  const p99Ratios = runs.map((r) => r.attacked.p99Ms / r.alone.p99Ms);
  console.log(`\n${surface}: ${victim.name} on ${target.label}`);
  const cpu = (w: Window) => `${w.cpu.server.toFixed(0)}/${w.cpu.simnet.toFixed(0)}/${w.cpu.attacker.toFixed(0)}`;
  printTable(['round', `alone ${victim.rateUnit}`, `attacked ${victim.rateUnit}`, 'ratio', `alone ${victim.p99Unit}`, `attacked ${victim.p99Unit}`, 'failures',
    'CPU % alone (server/simnet/attacker)', 'CPU % attacked'], runs.map((r, i) => [
    String(i + 1), r.alone.rate.toFixed(1), r.attacked.rate.toFixed(1), ratios[i]!.toFixed(3),
    r.alone.p99Ms.toFixed(1), r.attacked.p99Ms.toFixed(1), String(r.alone.failures + r.attacked.failures), cpu(r.alone), cpu(r.attacked),
  ]));
  console.log(`victim ${victim.rateUnit} attacked/alone: median ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}); ` +
    `${victim.p99Unit} attacked/alone median ${median(p99Ratios).toFixed(2)}; goal ≥ 0.8`);
  console.log(`attacker: held ${target.held.held}, ${target.requests} requests in the attacked windows; not served (refusals and failures, summed over every start) ${JSON.stringify(target.refusals)}${target.note ? `; ${target.note}` : ''}`);
  return { surface, label: target.label, victim: victim.name, ratios, p99Ratios, held: target.held.held, refusals: target.refusals };
}

export default async function benchNoisyNeighbour(): Promise<void> {
  const settings = readSettings();
  const surfaces = readSurfaces();
  console.log(`noisy neighbour (${surfaces.join(', ')}): ${describeSettings(settings)}; attacker plan ${process.env['NOISY_TIER'] ?? 'growth'}`);
  const stack = await startNoisyStack(settings, surfaces);
  const summaries: SurfaceSummary[] = [];
  try {
    for (const surface of surfaces) summaries.push(...(await runSurface(stack, surface, settings)));
  } finally {
    await stack.stop();
  }
  console.log('\nsummary (victim rate attacked/alone per round; goal ≥ 0.8)');
  printTable(['surface', 'gateway', 'victim', 'median', 'min..max', 'p99 ratio median', 'attacker held', 'attacker not served'], summaries.map((s) => [
    s.surface, s.label, s.victim, median(s.ratios).toFixed(3), `${Math.min(...s.ratios).toFixed(3)}..${Math.max(...s.ratios).toFixed(3)}`,
    median(s.p99Ratios).toFixed(2), String(s.held), JSON.stringify(s.refusals),
  ]));
}

// `node bin/run-ts.js bench/noisy-neighbour.ts` runs this benchmark alone.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await benchNoisyNeighbour();
