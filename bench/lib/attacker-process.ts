/**
 * What every noisy-neighbour attacker (bench/lib/noisy-*.ts) shares: its own organization on a
 * plan it names (NOISY_TIER, `growth` by default: 100 requests/s, 20 streams, 20 webhooks), and
 * the signal protocol the benchmark drives it with. SIGUSR1 starts the attack and replies once the
 * attacker holds what it holds (sockets, streams, webhooks; continuous load keeps going); SIGUSR2
 * stops it and replies with what it did since SIGUSR1: requests sent and refusals by code. The
 * refusals are the plan saying no: printed, so that a reader sees the attacker stayed in its plan.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../services/core/index.js';
import { openDatabase } from '../../services/db/index.js';
import { createKey, createOrganization, type Scope } from '../../services/identity/index.js';
import { PLANS, type Plan, type PlanId } from '../../services/plans/index.js';
import { serveUntilStopped } from './service-process.js';

export interface AttackerReady {
  organizationId: string;
  tier: PlanId;
}

export interface AttackerReport {
  /** What the attacker holds open (subscriptions, streams, webhooks, gRPC streams); 0 once stopped. */
  held: number;
  /** Requests or messages sent since SIGUSR1. */
  requests: number;
  /** Refusals since SIGUSR1 by code (an HTTP status, a `code`, a grpc-status), e.g. `429 RATE_LIMITED`. */
  refusals: Record<string, number>;
  /** Anything else worth printing (e.g. deliveries the slow receiver holds open). */
  note?: string;
}

export interface Attack {
  /** Starts the attack; resolves once everything it holds is open. */
  start(): Promise<AttackerReport>;
  /** Stops it and tells what it did. */
  stop(): Promise<AttackerReport>;
}

export interface AttackerOrganization extends AttackerReady {
  apiKey: string;
  /** The plan's numbers (orgRps, streams, webhooks). */
  plan: Plan;
}

/** NOISY_TIER (default growth): the attacker's plan, created in DATABASE_URL with a mainnet key of `scopes`. */
export async function createAttackerOrganization(scopes: Scope[]): Promise<AttackerOrganization> {
  const tier = (process.env['NOISY_TIER'] ?? 'growth') as PlanId;
  if (!(tier in PLANS)) throw new Error(`NOISY_TIER: ${tier} is not a plan`);
  const database = await openDatabase({ url: process.env['DATABASE_URL']!, poolSize: 1 });
  try {
    const { organization, projects } = await createOrganization(database.db, systemClock, { name: `Noisy ${tier}`, tier });
    const { apiKey } = await createKey(database, systemClock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'noisy', scopes, expiresInDays: 1,
    });
    return { organizationId: organization.id, tier, apiKey, plan: PLANS[tier] };
  } finally {
    await database.close();
  }
}

/** Counts refusals by code. */
export class Refusals {
  counts: Record<string, number> = {};
  add(code: string): void {
    this.counts[code] = (this.counts[code] ?? 0) + 1;
  }
  take(): Record<string, number> {
    const counts = this.counts;
    this.counts = {};
    return counts;
  }
}

/**
 * Calls `send` `perSecond` times a second (open loop, as an attacker that does not wait for
 * answers), with at most `inFlight` outstanding, until `signal` aborts. A missed tick is skipped,
 * not made up: the rate never exceeds `perSecond`.
 */
export async function atRate(perSecond: number, inFlight: number, signal: AbortSignal, send: () => Promise<void>): Promise<void> {
  const interval = 1_000 / perSecond;
  let outstanding = 0;
  let next = performance.now();
  while (!signal.aborted) {
    if (outstanding < inFlight) {
      outstanding += 1;
      void send().finally(() => (outstanding -= 1));
    }
    next += interval;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    else next = performance.now();
  }
  while (outstanding > 0) await sleep(10);
}

/** Runs the attacker: announces `ready`, answers SIGUSR1/SIGUSR2 with an AttackerReport over IPC. */
export function serveAttacker(name: string, ready: AttackerReady, attack: Attack): void {
  const reply = (report: AttackerReport) => (process.send ? process.send(report) : console.log(JSON.stringify(report)));
  const failed = (error: unknown) => {
    console.error(`${name}:`, error);
    reply({ held: -1, requests: 0, refusals: { error: 1 } });
  };
  process.on('SIGUSR1', () => void attack.start().then(reply, failed));
  process.on('SIGUSR2', () => void attack.stop().then(reply, failed));
  // Only these two: the attacker's key stays in its process.
  serveUntilStopped({ organizationId: ready.organizationId, tier: ready.tier }, async () => {
    await attack.stop();
  });
}

/**
 * An attacker that sends one HTTP request `rate` times a second (at most 64 in flight) while it
 * attacks: `request(n)` makes the n-th (1-based); every non-200 answer is a refusal, counted by
 * status and code, and so is a request that did not reach the gateway.
 */
export function serveHttpRateAttacker(name: string, attacker: AttackerReady, options: { rate: number; note: string; request(n: number): Promise<Response> }): void {
  const refusals = new Refusals();
  let requests = 0;
  let running: { abort: AbortController; done: Promise<void> } | undefined;
  const send = async () => {
    requests += 1;
    try {
      const response = await options.request(requests);
      const text = await response.text();
      if (response.status !== 200) refusals.add(`${response.status} ${(/"code":"(\w+)"/.exec(text) ?? [])[1] ?? ''}`.trim());
    } catch (error) {
      refusals.add(`network ${(error as Error).message}`);
    }
  };
  serveAttacker(name, attacker, {
    async start(): Promise<AttackerReport> {
      requests = 0;
      refusals.take();
      const abort = new AbortController();
      running = { abort, done: atRate(options.rate, 64, abort.signal, send) };
      return { held: 0, requests: 0, refusals: {}, note: options.note };
    },
    async stop(): Promise<AttackerReport> {
      if (running) {
        running.abort.abort();
        await running.done;
        running = undefined;
      }
      return { held: 0, requests, refusals: refusals.take() };
    },
  });
}
