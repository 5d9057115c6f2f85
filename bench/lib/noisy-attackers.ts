import type { AttackerReady, AttackerReport } from './attacker-process.js';
import type { NoisyStack, Surface } from './noisy-stack.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';

/** Each surface's attacker: its script (a process of its own) and what it is pointed at. */
const ATTACKERS: Record<Surface, { script: string; env(stack: NoisyStack, gatewayUrl: string): NodeJS.ProcessEnv }> = {
  rest: { script: 'bench/lib/noisy-rest.ts', env: (stack, gatewayUrl) => ({ GATEWAY_URL: gatewayUrl, OBJECT_IDS: stack.objectIds.join(',') }) },
  jsonrpc: {
    script: 'bench/lib/noisy-subscriber.ts',
    env: (_stack, gatewayUrl) => ({ GATEWAY_URL: gatewayUrl, NOISY_BASELINE: process.env['BENCH_NOISY_BASELINE'] ?? '0' }),
  },
  graphql: { script: 'bench/lib/noisy-graphql.ts', env: (_stack, gatewayUrl) => ({ GATEWAY_URL: gatewayUrl }) },
  grpc: { script: 'bench/lib/noisy-grpc.ts', env: (stack) => ({ GRPC_URL: stack.grpcProxy!.ready.url, OBJECT_ID: stack.objectIds[0]! }) },
  warp: { script: 'bench/lib/noisy-warp.ts', env: (stack, gatewayUrl) => ({ GATEWAY_URL: gatewayUrl, STREAMS_URL: stack.streams!.address }) },
  webhooks: { script: 'bench/lib/noisy-webhooks.ts', env: (_stack, gatewayUrl) => ({ GATEWAY_URL: gatewayUrl }) },
};

export interface Attacker {
  surface: Surface;
  process: ServiceProcess<AttackerReady>;
  /** SIGUSR1: attacks; resolves once it holds what it holds. */
  start(): Promise<AttackerReport>;
  /** SIGUSR2: stops; what it did since `start`. */
  stop(): Promise<AttackerReport>;
}

/** Starts `surface`'s attacker process (its own organization, on NOISY_TIER), idle until `start`. */
export async function startAttacker(stack: NoisyStack, surface: Surface, gatewayUrl = stack.gateway.ready.url): Promise<Attacker> {
  const { script, env } = ATTACKERS[surface];
  const process_ = await startServiceProcess<AttackerReady>({
    name: `${surface} attacker`, script, env: { ...stack.attackerEnv, ...env(stack, gatewayUrl) }, stdout: 'ignore',
  });
  return {
    surface,
    process: process_,
    // Generous: subscribing until refused, or creating streams, waits out the plan's rate.
    start: () => process_.signalForReply<AttackerReport>('SIGUSR1', 180_000),
    stop: () => process_.signalForReply<AttackerReport>('SIGUSR2', 120_000),
  };
}

/**
 * `held 160; 1234 requests; not served {"429 ORG_RATE_LIMITED":12}; note`: "not served" holds the
 * plan's refusals and the limits' (what shows the attacker stayed within its own plan) and any
 * other failure it met (an upstream timeout under its own load), by code.
 */
export function describeReport(report: AttackerReport): string {
  const refused = Object.keys(report.refusals).length === 0 ? 'all served' : `not served ${JSON.stringify(report.refusals)}`;
  return `held ${report.held}; ${report.requests} requests; ${refused}${report.note ? `; ${report.note}` : ''}`;
}
