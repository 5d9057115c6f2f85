/**
 * What went wrong talking to an upstream, as a value callers branch on (`api-errors.ts` maps the
 * kinds to the API's codes).
 *
 * - `unavailable`, `timeout`: the transport failed (connect errors, UNAVAILABLE, DEADLINE_EXCEEDED
 *   including our own attempt timeout, GraphQL HTTP 502/503/504, network errors). Only these
 *   count toward a circuit breaker and only these are retried.
 * - `bad_response`: the node answered, but not usefully (UNIMPLEMENTED, INTERNAL, UNKNOWN, ...).
 *   502, never breaker-counted: a request the node cannot serve says nothing about the node's health.
 * - `invalid_argument`: the node rejected the caller's input (INVALID_ARGUMENT, OUT_OF_RANGE,
 *   FAILED_PRECONDITION, GraphQL BAD_USER_INPUT) → 400.
 * - `not_found`, `rejected`: answers the domain services turn into their own errors.
 * - `throttled`: the node refuses us for now (RESOURCE_EXHAUSTED, ABORTED, GraphQL 429) → 503 with
 *   Retry-After; not retried (retrying makes the throttling worse), not breaker-counted.
 * - `overloaded`: our own bulkhead is full for this upstream → 503 with Retry-After; only the
 *   caller that found it full fails.
 * - `circuit_open`: the group's breaker is open → 503 at once, no attempt, no retry.
 * - `cancelled`: the caller went away (or the node reported CANCELLED), or the attempt was given up
 *   for the caller's own failure, its API error the cause (a gRPC caller that had not sent its
 *   whole request in time: REQUEST_TIMEOUT); never counted.
 */
export type UpstreamErrorKind =
  | 'unavailable' | 'timeout' | 'bad_response' | 'not_found' | 'invalid_argument' | 'rejected'
  | 'throttled' | 'overloaded' | 'circuit_open' | 'cancelled';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly upstream: string;
  readonly operation: string;
  /** How long the caller should wait before trying again, when the upstream or our breaker says so. */
  readonly retryAfterMs: number | undefined;
  /**
   * Raised by the gateway itself without the node being at fault: a wait for a slot that ran out,
   * an attempt cut short by the request's own budget, a cancelled caller. Never breaker-counted.
   */
  readonly local: boolean;

  constructor(kind: UpstreamErrorKind, upstream: string, operation: string, message: string, options?: { cause?: unknown; retryAfterMs?: number; local?: boolean }) {
    super(message, options);
    this.name = 'UpstreamError';
    this.kind = kind;
    this.upstream = upstream;
    this.operation = operation;
    this.retryAfterMs = options?.retryAfterMs;
    this.local = options?.local ?? false;
  }

  /** Only transport failures count against the circuit breaker; answers, caller input and our own limits do not. */
  get isTransportFailure(): boolean {
    return !this.local && (this.kind === 'unavailable' || this.kind === 'timeout');
  }

  /** Worth another attempt on an idempotent read: the transport failed, nothing else. */
  get isRetryable(): boolean {
    return this.isTransportFailure;
  }
}

export function isUpstreamError(value: unknown): value is UpstreamError {
  return value instanceof UpstreamError;
}

/** gRPC status names (as protobuf-ts reports them in `RpcError.code`) to our kinds; the rest are bad responses. */
const GRPC_STATUS_KIND: Record<string, UpstreamErrorKind> = {
  UNAVAILABLE: 'unavailable',
  DEADLINE_EXCEEDED: 'timeout',
  RESOURCE_EXHAUSTED: 'throttled',
  ABORTED: 'throttled',
  CANCELLED: 'cancelled',
  NOT_FOUND: 'not_found',
  INVALID_ARGUMENT: 'invalid_argument',
  OUT_OF_RANGE: 'invalid_argument',
  FAILED_PRECONDITION: 'invalid_argument',
};

export function grpcStatusKind(code: string | undefined): UpstreamErrorKind {
  return (code && GRPC_STATUS_KIND[code]) || 'bad_response';
}

/** Per-call reading of a status, for methods where a node uses a status in its own way. */
export type StatusClassifier = (code: string | undefined, message: string) => UpstreamErrorKind | undefined;

/** Turns whatever a gRPC call threw into an UpstreamError. */
export function fromGrpcError(upstream: string, operation: string, error: unknown, classify?: StatusClassifier): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  const kind = classify?.(code, detail) ?? grpcStatusKind(code);
  return new UpstreamError(kind, upstream, operation, `${operation}: ${code ?? 'error'}: ${detail}`, { cause: error });
}
