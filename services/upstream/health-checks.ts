import type { UpstreamSet } from './types.js';

/** `/health` checks, one per upstream: ok when both its gRPC and GraphQL answer. */
export function upstreamHealthChecks(upstreams: UpstreamSet) {
  return [...upstreams.values()].map((upstream) => ({
    name: `upstream:${upstream.network}`,
    async check() {
      const health = await upstream.health();
      const part = (name: string, probe: typeof health.grpc) =>
        `${name} ${probe.status}${probe.breaker === 'closed' ? '' : ` (breaker ${probe.breaker})`}${probe.error ? `: ${probe.error}` : ''}`;
      return {
        ok: health.status === 'up',
        detail: `${part('grpc', health.grpc)}; ${part('graphql', health.graphql)}`,
        latencyMs: Math.max(health.grpc.latencyMs, health.graphql.latencyMs),
      };
    },
  }));
}
