import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { XdsMetrics } from './xds-metrics.js';

describe('XdsMetrics', () => {
  it('exports responses, ACKs and NACKs of every resource kind at 0 before any client connects', async () => {
    const registry = new Registry();
    new XdsMetrics(registry);
    const lines = (await registry.metrics()).split('\n').filter((line) => /^suigw_xds_(responses|acks|nacks)_total\{/.test(line));
    expect(lines).toEqual(['responses', 'acks', 'nacks'].flatMap((counter) =>
      ['listener', 'route', 'cluster', 'endpoint'].map((type) => `suigw_xds_${counter}_total{type="${type}"} 0`)));
  });
});
