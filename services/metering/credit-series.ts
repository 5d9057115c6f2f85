import type { CounterSeries, GaugeSeries, Metrics } from '../core/index.js';

/** The Prometheus instruments the meter records on (services/core/metrics.ts). */
export type MeterInstruments = Pick<Metrics, 'creditsConsumed' | 'creditsRemaining' | 'rateLimitRejections'>;

/**
 * The credit instruments' series per organization (and plan), looked up by id: a settled
 * request records on them without building a label object or a key string.
 */
export class CreditSeries {
  readonly #instruments: MeterInstruments;
  readonly #consumed = new Map<string, Map<string, CounterSeries>>();
  readonly #remaining = new Map<string, GaugeSeries>();

  constructor(instruments: MeterInstruments) {
    this.#instruments = instruments;
  }

  consumed(organization: string, plan: string): CounterSeries {
    let byPlan = this.#consumed.get(organization);
    if (byPlan === undefined) this.#consumed.set(organization, (byPlan = new Map()));
    let series = byPlan.get(plan);
    if (series === undefined) byPlan.set(plan, (series = this.#instruments.creditsConsumed.series({ organization, plan })));
    return series;
  }

  remaining(organization: string): GaugeSeries {
    let series = this.#remaining.get(organization);
    if (series === undefined) this.#remaining.set(organization, (series = this.#instruments.creditsRemaining.series({ organization })));
    return series;
  }
}
