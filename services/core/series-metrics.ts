import type { Registry } from 'prom-client';

/**
 * A counter, a gauge and a histogram for the instruments recorded on every request, where
 * prom-client's own cost shows: each `inc`/`observe` validates the label object, hashes it into
 * a string key and, in a histogram, reads and writes the bucket under a number-named property,
 * ~2.5 µs a request of the gateway's ~50 (docs/benchmarks.md, "HTTP layer"). Here a caller
 * resolves its label set once into a series and records on that: an assignment or an add, or a
 * bucket search and three adds.
 *
 * All are exported by prom-client's registry like its own instruments (same values, same order:
 * series in the order they were first recorded), so /metrics reads the same.
 */
type Labels = Readonly<Record<string, string>>;

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Labels;
  value: number;
  /** Absent on a counter, as prom-client leaves it: the registry writes the metric's name. */
  metricName?: string;
  /** prom-client's buckets carry an (empty) exemplar. */
  exemplar?: null;
}

/** How prom-client's cluster registry combines a metric across a role's workers (services/cli/workers.ts). */
export type SeriesAggregator = 'sum' | 'min' | 'max';

interface ExportedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: ExportedValue[];
  aggregator: SeriesAggregator;
}

/** What prom-client's registry reads from a metric (`getForPromString` for text, `get` for JSON). */
abstract class SeriesMetric<Series> {
  readonly #series = new Map<string, Series>();
  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    registry: Registry,
    readonly aggregator: SeriesAggregator = 'sum',
  ) {
    // prom-client's registry takes any object with the exporter's shape; its types list only its own classes.
    registry.registerMetric(this as never);
  }

  /** The series of one label set (every label name, nothing else), made on first use. */
  series(labels: Labels): Series {
    const names = Object.keys(labels);
    if (names.length !== this.labelNames.length || this.labelNames.some((name) => typeof labels[name] !== 'string')) {
      throw new Error(`${this.name}: labels must be exactly ${this.labelNames.join(', ')}, not ${names.join(', ')}`);
    }
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.#series.get(key);
    if (series === undefined) {
      series = this.create({ ...labels });
      this.#series.set(key, series);
    }
    return series;
  }

  protected abstract create(labels: Labels): Series;
  protected abstract exported(series: Series): ExportedValue[];

  async getForPromString(): Promise<ExportedMetric> {
    const values = [...this.#series.values()].flatMap((series) => this.exported(series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's `get()` (JSON): the series' labels folded into each value's. */
  async get(): Promise<Omit<ExportedMetric, 'values'> & { values: Omit<ExportedValue, 'sharedLabels'>[] }> {
    const metric = await this.getForPromString();
    return { ...metric, values: metric.values.map(({ labels, sharedLabels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.#series.clear();
  }
}

/** A counter's or a gauge's series as prom-client exports it: one value under its labels. */
function oneValue(series: { value: number; labels: Labels }): ExportedValue[] {
  return [{ value: series.value, labels: { ...series.labels }, sharedLabels: {} }];
}

export class CounterSeries {
  value = 0;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class SeriesCounter extends SeriesMetric<CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  protected exported(series: CounterSeries): ExportedValue[] {
    return oneValue(series);
  }
}

export class GaugeSeries {
  value = 0;

  constructor(readonly labels: Labels) {}

  set(value: number): void {
    this.value = value;
  }
}

/**
 * prom-client's gauge rebuilds its label key and replaces its entry on every `set`; here a
 * series is resolved once and a `set` is an assignment. As with the counter, a series is
 * exported from its first lookup: resolve it where it is first set.
 */
export class SeriesGauge extends SeriesMetric<GaugeSeries> {
  readonly type = 'gauge';

  protected create(labels: Labels): GaugeSeries {
    return new GaugeSeries(labels);
  }

  protected exported(series: GaugeSeries): ExportedValue[] {
    return oneValue(series);
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket += 1;
    this.counts[bucket]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class SeriesHistogram extends SeriesMetric<HistogramSeries> {
  readonly type = 'histogram';
  readonly #bounds: Float64Array;

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
    this.#bounds = Float64Array.from([...buckets].sort((a, b) => a - b));
  }

  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.#bounds);
  }

  /** As prom-client writes a histogram: cumulative buckets by `le`, then `+Inf`, sum and count. */
  protected exported(series: HistogramSeries): ExportedValue[] {
    const bucketName = `${this.name}_bucket`;
    let cumulative = 0;
    const values: ExportedValue[] = [...this.#bounds].map((bound, i) => {
      cumulative += series.counts[i]!;
      return { labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: bucketName, exemplar: null };
    });
    values.push(
      { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName, exemplar: null },
      { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
      { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` },
    );
    return values;
  }
}
