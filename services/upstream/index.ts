export { CircuitBreaker, type BreakerState, type CircuitBreakerOptions } from './circuit-breaker.js';
export { UpstreamError, isUpstreamError, fromGrpcError, type StatusClassifier, type UpstreamErrorKind } from './errors.js';
export { upstreamApiError } from './api-errors.js';
export { Bulkhead, BulkheadRefusal, type BulkheadOptions } from './bulkhead.js';
export { withRetries, backoffDelay, realRetryEnv, type RetryPolicy, type RetryEnv } from './retry.js';
export { SuiUpstream, type SuiUpstreamOptions } from './sui-upstream.js';
export { createUpstreamSet, closeUpstreamSet, upstreamSetFromConfig, type UpstreamSetConfig } from './upstream-set.js';
export { UpstreamMonitor, type UpstreamMonitorOptions, type UpstreamReport } from './monitor.js';
export {
  defaultUpstreamPolicy,
  type CallOptions, type Network, type ProbeResult, type RequestBudget, type Upstream, type UpstreamEndpoints, type UpstreamHealth,
  type UpstreamPolicy, type UpstreamGrpcTransport, type UpstreamSet, type GraphQLVariables, type RawGrpcAttempt,
} from './types.js';
export * from './proto-values.js';
export { changeKind, isPackageWrite, type ChangeKind } from './changed-object.js';
export * from './apy.js';
export { validatorApys, exchangeRateFromBcs, exchangeRateFromField } from './validator-apy.js';
export type { GraphQLPassThroughResponse } from './graphql-pass-through.js';
export { RawGrpcChannel } from './grpc-raw-channel.js';
export { RequestCancellation, type CallCancel } from './request-cancellation.js';
export { sharedUpstream } from './shared-work.js';
