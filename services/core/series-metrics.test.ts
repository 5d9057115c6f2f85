import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesGauge, SeriesHistogram } from './series-metrics.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LABELS = ['protocol', 'route', 'method'] as const;

/** Values on, between, below and above the bounds, for two series recorded interleaved. */
const OBSERVATIONS: [Record<(typeof LABELS)[number], string>, number][] = [
  [{ protocol: 'rest', route: '/mainnet/v1/chain', method: 'GET' }, 0],
  [{ protocol: 'management', route: '/mainnet/v1/auth/me', method: 'GET' }, 0.0005],
  [{ protocol: 'rest', route: '/mainnet/v1/chain', method: 'GET' }, 0.00051],
  [{ protocol: 'rest', route: '/mainnet/v1/chain', method: 'GET' }, 2.5],
  [{ protocol: 'management', route: '/mainnet/v1/auth/me', method: 'GET' }, 10],
  [{ protocol: 'management', route: '/mainnet/v1/auth/me', method: 'GET' }, 12.75],
  [{ protocol: 'rest', route: '/mainnet/v1/chain', method: 'GET' }, 0.3],
];

/** The series instruments are exported exactly as prom-client's own, which they replace on the request path. */
describe('series metrics', () => {
  it('a histogram writes what prom-client writes for the same observations, text and JSON', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new SeriesHistogram('d_seconds', 'Durations "quoted" \\ help.', LABELS, BUCKETS, ours);
    const reference = new Histogram({ name: 'd_seconds', help: 'Durations "quoted" \\ help.', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
    for (const [labels, value] of OBSERVATIONS) {
      histogram.series(labels).observe(value);
      reference.observe(labels, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('a counter writes what prom-client writes, including increments by more than one', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const counter = new SeriesCounter('r_total', 'Requests.', [...LABELS, 'status'], ours);
    const reference = new Counter({ name: 'r_total', help: 'Requests.', labelNames: [...LABELS, 'status'], registers: [theirs] });
    for (const [labels, value] of OBSERVATIONS) {
      const withStatus = { ...labels, status: value > 1 ? '500' : '200' };
      counter.series(withStatus).inc();
      reference.inc(withStatus);
    }
    counter.series({ ...OBSERVATIONS[0]![0], status: '200' }).inc(3);
    reference.inc({ ...OBSERVATIONS[0]![0], status: '200' }, 3);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('a gauge writes what prom-client writes: the last value set per label set, and its cluster aggregator', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const gauge = new SeriesGauge('g_left', 'Left.', ['organization'], ours, 'min');
    const reference = new Gauge({ name: 'g_left', help: 'Left.', labelNames: ['organization'], registers: [theirs], aggregator: 'min' });
    for (const [organization, value] of [['b', 5], ['a', 7], ['b', 3], ['a', -1.5], ['c', 0]] as const) {
      gauge.series({ organization }).set(value);
      reference.set({ organization }, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('one series per label set, whatever the key order; a label set with a missing or extra name is refused', () => {
    const histogram = new SeriesHistogram('x_seconds', 'x', LABELS, BUCKETS, new Registry());
    const a = histogram.series({ protocol: 'rest', route: '/r', method: 'GET' });
    expect(histogram.series({ method: 'GET', route: '/r', protocol: 'rest' })).toBe(a);
    expect(histogram.series({ protocol: 'rest', route: '/r', method: 'POST' })).not.toBe(a);
    expect(() => histogram.series({ protocol: 'rest', route: '/r' })).toThrow(/labels must be exactly/);
    expect(() => histogram.series({ protocol: 'rest', route: '/r', method: 'GET', status: '200' })).toThrow(/labels must be exactly/);
    expect(() => a.observe(Number.NaN)).toThrow(TypeError);
  });

  it('reset forgets every series, as prom-client does', async () => {
    const registry = new Registry();
    const counter = new SeriesCounter('c_total', 'c', ['kind'], registry);
    counter.series({ kind: 'a' }).inc();
    registry.resetMetrics();
    expect(await registry.metrics()).toBe('# HELP c_total c\n# TYPE c_total counter\n');
  });
});
