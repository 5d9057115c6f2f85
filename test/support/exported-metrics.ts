import { OperatorMetrics } from '../../operator/index.js';
import { XdsMetrics } from '../../operator/xds/xds-metrics.js';
import { createLogger, Metrics, systemClock } from '../../services/core/index.js';
import type { Database } from '../../services/db/index.js';
import { WebhookMetrics } from '../../services/webhooks/delivery/webhook-metrics.js';

/**
 * Every series the roles register, with its label names: the services' Metrics, the operator's
 * xDS and reconcile instruments, webhook delivery's. Checked against what the dashboard and the
 * alerting rules query.
 */
export function exportedSeries(): Map<string, readonly string[]> {
  const registry = new Metrics().registry;
  new XdsMetrics(registry);
  new OperatorMetrics(registry);
  // Only the instruments' names and labels are read, nothing is collected: no database is reached.
  new WebhookMetrics({ registry, database: undefined as unknown as Database, clock: systemClock, logger: createLogger('silent') });
  return new Map(registry.getMetricsAsArray().map((metric) => {
    const instrument = metric as unknown as { name: string; labelNames?: readonly string[] };
    return [instrument.name, instrument.labelNames ?? []];
  }));
}
