import { Counter, type Registry } from 'prom-client';

const RECONCILE_RESULTS = ['ok', 'error'] as const;

/** The reconcile loop's instruments, on the process's registry (beside XdsMetrics). */
export class OperatorMetrics {
  /**
   * Full rebuilds, by result: `error` is a rebuild that threw (the database or the API server
   * failed; it is retried a second later). A resource refused by the identity rules is not an
   * error of the loop: its status says why.
   */
  readonly reconciles: Counter<'result'>;

  constructor(registry: Registry) {
    this.reconciles = new Counter({
      name: 'suigw_operator_reconciles_total',
      help: 'Full operator rebuilds (informers to statuses), by result: ok or error.',
      labelNames: ['result'],
      registers: [registry],
    });
    // Both series exist from the start, so rate() of errors is 0, not absent, while all is well.
    for (const result of RECONCILE_RESULTS) this.reconciles.inc({ result }, 0);
  }
}
