import { ApiError, type ErrorCode } from '../core/errors.js';
import { UpstreamError, type UpstreamErrorKind } from './errors.js';

const CODE: Partial<Record<UpstreamErrorKind, ErrorCode>> = {
  unavailable: 'UPSTREAM_UNAVAILABLE',
  throttled: 'UPSTREAM_UNAVAILABLE',
  overloaded: 'UPSTREAM_UNAVAILABLE',
  circuit_open: 'UPSTREAM_UNAVAILABLE',
  cancelled: 'UPSTREAM_UNAVAILABLE',
  timeout: 'UPSTREAM_TIMEOUT',
  bad_response: 'UPSTREAM_BAD_RESPONSE',
};

/** A 503's Retry-After when nobody said how long: long enough that a retry storm does not follow at once. */
const DEFAULT_RETRY_AFTER_S = 1;

/**
 * An upstream failure as the API error the caller sees; `notFound` names the domain's 404. A
 * value the node rejects is the caller's 400 (VALIDATION_FAILED), never a 502; 503s carry a
 * Retry-After.
 */
export function upstreamApiError(error: unknown, notFound?: ErrorCode): unknown {
  if (!(error instanceof UpstreamError)) return error;
  // An attempt given up for the caller's own failure (its request incomplete when the time was
  // up) is the caller's error, not the upstream's.
  if (error.kind === 'cancelled' && error.cause instanceof ApiError) return error.cause;
  if (error.kind === 'not_found') {
    return new ApiError(notFound ?? 'UPSTREAM_BAD_RESPONSE', notFound ? {} : { message: error.message });
  }
  if (error.kind === 'invalid_argument' || error.kind === 'rejected') {
    return new ApiError('VALIDATION_FAILED', { message: error.message.replace(/^[^:]*: [A-Z_]+: /, '') });
  }
  const code = CODE[error.kind] ?? 'UPSTREAM_BAD_RESPONSE';
  const headers = code === 'UPSTREAM_UNAVAILABLE'
    ? { 'retry-after': String(Math.max(1, Math.ceil((error.retryAfterMs ?? DEFAULT_RETRY_AFTER_S * 1000) / 1000))) }
    : undefined;
  return new ApiError(code, { message: `${error.upstream}: ${error.message}`, cause: error, ...(headers ? { headers } : {}) });
}
