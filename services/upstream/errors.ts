/**
 * What went wrong talking to an upstream, as a value callers branch on. The HTTP layer maps the
 * transport kinds to UPSTREAM_UNAVAILABLE (503), UPSTREAM_TIMEOUT (504) and UPSTREAM_BAD_RESPONSE
 * (502); `not_found`, `invalid_argument` and `rejected` (a healthy node declining, e.g. Sui's
 * RESOURCE_EXHAUSTED "name has expired") are answers that the domain services turn into their own
 * errors (e.g. OBJECT_NOT_FOUND).
 */
export type UpstreamErrorKind = 'unavailable' | 'timeout' | 'bad_response' | 'not_found' | 'invalid_argument' | 'rejected';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly upstream: string;
  readonly operation: string;

  constructor(kind: UpstreamErrorKind, upstream: string, operation: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamError';
    this.kind = kind;
    this.upstream = upstream;
    this.operation = operation;
  }

  /** Transport failures count against the circuit breaker; answers do not. */
  get isTransportFailure(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout' || this.kind === 'bad_response';
  }

  /** Worth another attempt on an idempotent read. */
  get isRetryable(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout';
  }
}

export function isUpstreamError(value: unknown): value is UpstreamError {
  return value instanceof UpstreamError;
}

/** gRPC status names (as protobuf-ts reports them in `RpcError.code`) to our kinds. */
const GRPC_STATUS_KIND: Record<string, UpstreamErrorKind> = {
  UNAVAILABLE: 'unavailable',
  RESOURCE_EXHAUSTED: 'unavailable',
  ABORTED: 'unavailable',
  CANCELLED: 'unavailable',
  DEADLINE_EXCEEDED: 'timeout',
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
