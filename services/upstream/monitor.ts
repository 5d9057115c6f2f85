import type { BreakerState } from './circuit-breaker.js';
import type { Network, ProbeResult, UpstreamHealth, UpstreamSet } from './types.js';

/**
 * One protocol of the upstream: what its last probe saw (`probe`) and what its breaker group
 * does now (`breaker`), and from both what a request meets (`status`): `down` while the breaker
 * is open (requests fail fast, whatever the probe saw), else the probe's result.
 */
export type ProtocolReport<P extends ProbeResult = ProbeResult> = Omit<P, 'status' | 'breaker'> & {
  status: 'up' | 'down';
  probe: ProbeResult['status'];
  breaker: BreakerState;
};

/** One network's upstream: its last probe and its breaker groups as they are now, in one view. */
export interface UpstreamReport {
  network: Network;
  /** From the protocols' `status`: both up `up`, both down `down`, else `degraded`; `unknown` until a probe answered or a breaker opened. */
  status: UpstreamHealth['status'] | 'unknown';
  checkedAt: string | null;
  grpc: ProtocolReport<UpstreamHealth['grpc']> | null;
  graphql: ProtocolReport | null;
  breakers: Record<string, BreakerState>;
}

export interface UpstreamMonitorOptions {
  intervalMs: number;
  now: () => number;
}

/**
 * Probes every upstream on a timer so `/health` reads a result instead of calling the node on
 * each (anonymous) request. The timer is unref'd and stops with `stop()`; probes never overlap.
 */
export class UpstreamMonitor {
  readonly #upstreams: UpstreamSet;
  readonly #options: UpstreamMonitorOptions;
  readonly #last = new Map<Network, { at: number; health: UpstreamHealth }>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(upstreams: UpstreamSet, options: UpstreamMonitorOptions) {
    this.#upstreams = upstreams;
    this.#options = options;
  }

  /** Probes at once, then every interval. */
  start(): void {
    if (this.#timer || this.#upstreams.size === 0) return;
    void this.probe();
    this.#timer = setInterval(() => void this.probe(), this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One round of probes (joins the round in flight, if any). */
  probe(): Promise<void> {
    this.#running ??= Promise.all([...this.#upstreams.values()].map(async (upstream) => {
      const health = await upstream.health();
      this.#last.set(upstream.network, { at: this.#options.now(), health });
    })).then(() => undefined).finally(() => { this.#running = undefined; });
    return this.#running;
  }

  /** Healthy: its last probe found both protocols up and no breaker group is open now (the report's `up`). */
  healthy(network: Network): boolean {
    return this.report(network)?.status === 'up';
  }

  report(network: Network): UpstreamReport | undefined {
    const upstream = this.#upstreams.get(network);
    if (!upstream) return undefined;
    const last = this.#last.get(network);
    const breakers = upstream.breakers();
    const grpc = last ? protocolReport(last.health.grpc, breakers.grpc) : null;
    const graphql = last ? protocolReport(last.health.graphql, breakers.graphql) : null;
    return {
      network,
      status: overallStatus(grpc?.status ?? openOrUnknown(breakers.grpc), graphql?.status ?? openOrUnknown(breakers.graphql), breakers),
      checkedAt: last ? new Date(last.at).toISOString() : null,
      grpc,
      graphql,
      breakers,
    };
  }

  get networks(): Network[] {
    return [...this.#upstreams.keys()];
  }

  /**
   * `/health` checks, one per upstream, from the last probe and the breakers' state: whether it
   * is healthy, and nothing else (details are for the `manage` scope).
   */
  healthChecks(): { name: string; check(): Promise<{ ok: boolean }> }[] {
    return this.networks.map((network) => ({
      name: `upstream:${network}`,
      check: async () => ({ ok: this.healthy(network) }),
    }));
  }
}

/** The probe groups' breakers are the protocols' default groups (sui-upstream.ts: `grpc`, `graphql`). */
const PROTOCOL_GROUPS = new Set(['grpc', 'graphql']);

function protocolReport<P extends ProbeResult>(probe: P, breaker: BreakerState = 'closed'): ProtocolReport<P> {
  const { status, breaker: _atProbeTime, ...rest } = probe;
  return { ...rest, status: breaker === 'open' ? 'down' : status, probe: status, breaker };
}

/** Before the first probe a protocol is `unknown`, unless its breaker is open: then it is down. */
function openOrUnknown(breaker: BreakerState | undefined): 'down' | 'unknown' {
  return breaker === 'open' ? 'down' : 'unknown';
}

function overallStatus(grpc: 'up' | 'down' | 'unknown', graphql: 'up' | 'down' | 'unknown', breakers: Record<string, BreakerState>): UpstreamReport['status'] {
  if (grpc === 'unknown' && graphql === 'unknown') return 'unknown';
  if (grpc === 'down' && graphql === 'down') return 'down';
  // Another group open (a caller-named one) refuses some requests: not all is well.
  const otherOpen = Object.entries(breakers).some(([group, state]) => !PROTOCOL_GROUPS.has(group) && state === 'open');
  return grpc === 'up' && graphql === 'up' && !otherOpen ? 'up' : 'degraded';
}
