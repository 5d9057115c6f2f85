import { describe, expect, it } from 'vitest';
import type { BreakerState } from './circuit-breaker.js';
import { UpstreamMonitor } from './monitor.js';
import type { Upstream, UpstreamHealth, UpstreamSet } from './types.js';

/**
 * The report's one view of probe and breakers. The two inputs are what an Upstream says of
 * itself (`health()`, `breakers()`); the rest of the interface is not read by the monitor.
 */
async function monitorOf(probe: { grpc: 'up' | 'down'; graphql: 'up' | 'down' } | undefined, breakers: Record<string, BreakerState>): Promise<UpstreamMonitor> {
  const health: UpstreamHealth | undefined = probe && {
    network: 'mainnet',
    status: probe.grpc === 'up' && probe.graphql === 'up' ? 'up' : probe.grpc === 'down' && probe.graphql === 'down' ? 'down' : 'degraded',
    grpc: { status: probe.grpc, breaker: 'closed', latencyMs: 3 },
    graphql: { status: probe.graphql, breaker: 'closed', latencyMs: 4 },
  };
  const upstream = { network: 'mainnet', health: async () => health, breakers: () => breakers } as unknown as Upstream;
  const monitor = new UpstreamMonitor(new Map([['mainnet', upstream]]) as UpstreamSet, { intervalMs: 60_000, now: () => Date.UTC(2026, 11, 7) });
  if (health) await monitor.probe();
  return monitor;
}

describe('UpstreamMonitor.report: the probe and the breakers in one view', () => {
  it.each([
    // probe, breakers, network status, grpc status, graphql status
    [{ grpc: 'up', graphql: 'up' }, {}, 'up', 'up', 'up'],
    [{ grpc: 'up', graphql: 'up' }, { grpc: 'open' }, 'degraded', 'down', 'up'],
    [{ grpc: 'up', graphql: 'up' }, { grpc: 'open', graphql: 'open' }, 'down', 'down', 'down'],
    [{ grpc: 'up', graphql: 'up' }, { grpc: 'half_open' }, 'up', 'up', 'up'],
    [{ grpc: 'up', graphql: 'up' }, { 'grpc:heavy': 'open' }, 'degraded', 'up', 'up'],
    [{ grpc: 'down', graphql: 'up' }, { grpc: 'closed' }, 'degraded', 'down', 'up'],
    [{ grpc: 'down', graphql: 'down' }, {}, 'down', 'down', 'down'],
  ] as const)('probe %j, breakers %j: %s (grpc %s, graphql %s)', async (probe, breakers, status, grpc, graphql) => {
    const monitor = await monitorOf(probe, breakers as Record<string, BreakerState>);
    const report = monitor.report('mainnet')!;
    expect({ status: report.status, grpc: report.grpc?.status, graphql: report.graphql?.status }).toEqual({ status, grpc, graphql });
    expect(report.grpc).toEqual({ status: grpc, probe: probe.grpc, breaker: (breakers as Record<string, BreakerState>).grpc ?? 'closed', latencyMs: 3 });
    expect(monitor.healthy('mainnet')).toBe(status === 'up');
  });

  it('before the first probe: unknown, unless a breaker is already open', async () => {
    expect((await monitorOf(undefined, {})).report('mainnet')).toMatchObject({ status: 'unknown', grpc: null, graphql: null, checkedAt: null });
    expect((await monitorOf(undefined, { grpc: 'open' })).report('mainnet')).toMatchObject({ status: 'degraded', grpc: null });
    expect((await monitorOf(undefined, { grpc: 'open', graphql: 'open' })).report('mainnet')?.status).toBe('down');
  });
});
