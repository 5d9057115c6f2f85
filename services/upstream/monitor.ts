import type { BreakerState } from './circuit-breaker.js';
import type { Network, UpstreamHealth, UpstreamSet } from './types.js';

/** One network's upstream as last probed, with its breaker groups as they are now. */
export interface UpstreamReport {
  network: Network;
  /** `unknown` until the first probe has answered. */
  status: UpstreamHealth['status'] | 'unknown';
  checkedAt: string | null;
  grpc: UpstreamHealth['grpc'] | null;
  graphql: UpstreamHealth['graphql'] | null;
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

  /** Healthy: its last probe found both protocols up and no breaker group is open now. */
  healthy(network: Network): boolean {
    const report = this.report(network);
    return report !== undefined && report.status === 'up' && Object.values(report.breakers).every((state) => state !== 'open');
  }

  report(network: Network): UpstreamReport | undefined {
    const upstream = this.#upstreams.get(network);
    if (!upstream) return undefined;
    const last = this.#last.get(network);
    return {
      network,
      status: last?.health.status ?? 'unknown',
      checkedAt: last ? new Date(last.at).toISOString() : null,
      grpc: last?.health.grpc ?? null,
      graphql: last?.health.graphql ?? null,
      breakers: upstream.breakers(),
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
