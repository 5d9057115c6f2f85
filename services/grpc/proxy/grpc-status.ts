import { encodeGrpcMessage, GrpcStatus, isApiError, type ApiError } from '../../core/index.js';
import { databaseUnavailableError } from '../../db/index.js';
import type { ChargeOutcome } from '../../metering/index.js';
import { upstreamApiError, UpstreamError } from '../../upstream/index.js';

/** A call's end as gRPC sees it: status and message (percent-encoded on the wire). */
export interface CallStatus {
  code: number;
  message: string;
  /**
   * The HTTP status the call is charged and counted as, where its code alone says otherwise: the
   * caller's REQUEST_TIMEOUT is DEADLINE_EXCEEDED on the wire, but a 408, not a 504.
   */
  chargedAs?: number;
  /** The client went away (RST_STREAM, connection lost) before the call's end: not charged (`chargeOf`). */
  abandoned?: true;
}

/** The end of a call whose client cancelled it. */
export const CLIENT_CANCELLED: CallStatus = Object.freeze({ code: GrpcStatus.CANCELLED, message: 'cancelled by the client', abandoned: true });

/**
 * An ApiError as a gRPC status, with the spec's code in the message ("CU_QUOTA_EXCEEDED:
 * Monthly credits spent") so clients branch on it as REST clients branch on `code`. Codes the
 * spec answers without one (a missing or invalid key) say only what went wrong.
 */
export function statusOfApiError(error: ApiError): CallStatus {
  const detail = error.detail ?? error.definition.title;
  return { code: error.definition.grpc, message: error.definition.wire === false ? detail : `${error.code}: ${detail}` };
}

/** Whatever a stage threw, as a status: API errors by the table, upstream failures by their code (the caller's own by its error), the database unreachable UNAVAILABLE, the rest INTERNAL. */
export function statusOf(error: unknown): CallStatus {
  const mapped = upstreamApiError(error);
  // The caller's own failure an attempt was given up for (upstreamApiError) is charged and
  // counted by its HTTP status.
  if (error instanceof UpstreamError && isApiError(mapped) && mapped === error.cause) {
    return { ...statusOfApiError(mapped), chargedAs: mapped.status };
  }
  if (isApiError(mapped)) return statusOfApiError(mapped);
  const unavailable = databaseUnavailableError(error);
  if (unavailable) return statusOfApiError(unavailable);
  return { code: GrpcStatus.INTERNAL, message: 'INTERNAL_ERROR: Internal error' };
}

export function trailerFields(status: CallStatus): Record<string, string> {
  return { 'grpc-status': String(status.code), 'grpc-message': encodeGrpcMessage(status.message) };
}

const CLIENT_ERRORS = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND, GrpcStatus.ALREADY_EXISTS, GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.FAILED_PRECONDITION, GrpcStatus.OUT_OF_RANGE, GrpcStatus.UNAUTHENTICATED, GrpcStatus.ABORTED,
]);

/**
 * What a call that ended with `status` is charged as, having delivered `messages` response
 * messages. Delivered messages are paid whatever ends the call (the call's own credit pays for
 * the first, as a 200); a call its client abandoned before any answer is not charged, as an HTTP
 * request whose client leaves (docs/metering.md, "Costs"); otherwise the status's HTTP twin.
 */
export function chargeOf(status: CallStatus, messages: number): ChargeOutcome {
  if (messages > 0) return { kind: 'answered', status: 200 };
  if (status.abandoned) return { kind: 'abandoned' };
  return { kind: 'answered', status: chargeStatusOf(status) };
}

/**
 * The HTTP status a call's gRPC status stands for, for the charging rules of the spec (written
 * for HTTP) and the request metrics: OK and the caller's mistakes are charged like a 200 or a 4xx;
 * RESOURCE_EXHAUSTED like a 429 and server-side failures like a 5xx are not; CANCELLED is 499
 * (nginx's "client closed request": counted so; a client's own cancel is charged by `chargeOf`).
 * A status that names its HTTP status (`chargedAs`, the caller's REQUEST_TIMEOUT) is that one.
 */
export function chargeStatusOf({ code, chargedAs }: CallStatus): number {
  if (chargedAs !== undefined) return chargedAs;
  if (code === GrpcStatus.OK) return 200;
  if (code === GrpcStatus.CANCELLED) return 499;
  if (code === GrpcStatus.RESOURCE_EXHAUSTED) return 429;
  if (CLIENT_ERRORS.has(code)) return 400;
  if (code === GrpcStatus.DEADLINE_EXCEEDED) return 504;
  if (code === GrpcStatus.UNAVAILABLE) return 503;
  return 500;
}
