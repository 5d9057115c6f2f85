import { Counter, Gauge, type Registry } from 'prom-client';
import { RESOURCE_KINDS } from './type-urls.js';

/** The ADS server's instruments, on the process's registry (services/core/metrics.ts keeps the rest). */
export class XdsMetrics {
  readonly responses: Counter<'type'>;
  readonly acks: Counter<'type'>;
  readonly nacks: Counter<'type'>;
  readonly streams: Gauge;
  readonly snapshotVersion: Gauge<'version'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.responses = new Counter({ name: 'suigw_xds_responses_total', help: 'DiscoveryResponses sent, by resource type.', labelNames: ['type'], registers });
    this.acks = new Counter({ name: 'suigw_xds_acks_total', help: 'DiscoveryResponses acknowledged by clients, by resource type.', labelNames: ['type'], registers });
    this.nacks = new Counter({
      name: 'suigw_xds_nacks_total',
      help: 'DiscoveryResponses rejected by clients (error_detail set), by resource type.',
      labelNames: ['type'],
      registers,
    });
    this.streams = new Gauge({ name: 'suigw_xds_streams', help: 'Open ADS streams (connected Envoys and proxyless clients).', registers });
    this.snapshotVersion = new Gauge({
      name: 'suigw_xds_snapshot_info',
      help: 'The snapshot being served: 1 for its version label.',
      labelNames: ['version'],
      registers,
    });
    // Every resource kind's series exist at 0 from the start: a rate of NACKs is 0, not absent, until the first.
    for (const type of RESOURCE_KINDS) for (const counter of [this.responses, this.acks, this.nacks]) counter.inc({ type }, 0);
  }
}
