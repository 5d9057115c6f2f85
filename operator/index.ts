export type * from './ir.js';
export { Operator, type OperatorOptions } from './runtime/operator.js';
export { OperatorMetrics } from './runtime/operator-metrics.js';
export { LeaseElector, DEFAULT_LEASE, type LeaseSettings } from './runtime/leader.js';
export { translate } from './translate/translate.js';
export type * from './translate/types.js';
export { streamWorkerReplicas, billingSchedule } from './translate/workloads.js';
export { operatorSettings, BACKEND_PORTS, type NetworkHosts, type OperatorSettingsOptions } from './settings.js';
export type { EnvoyReport } from './translate/conditions.js';
