import { ApiError, retryAfter } from '../core/index.js';

/** Seconds a client is told to wait (Retry-After) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_S = 2;

/**
 * SQLSTATE classes and codes that say the database could not serve the query, not that the query
 * was wrong: 08 connection exception, 53 insufficient resources (too many connections, out of
 * memory, disk full), 57P01-57P03 the server shutting down or not accepting connections yet.
 */
const UNAVAILABLE_CLASSES = ['08', '53'];
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03']);

/** Node's socket failures on the way to the server (refused, reset, unresolvable, timed out). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** node-postgres's own words for a connection that ended or never came (they carry no code). */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Connection closed',
];

/** Whether `error` is the database being unreachable or shutting down (the query may well succeed later). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_CODES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  return typeof message === 'string' && CONNECTION_MESSAGES.some((words) => message.startsWith(words));
}

/**
 * The answer to a request the database could not serve: 503 DATABASE_UNAVAILABLE with
 * Retry-After, never a 500 (nothing is wrong with the request, and it is not charged as 5xx);
 * undefined for any other failure.
 */
export function databaseUnavailableError(error: unknown): ApiError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return new ApiError('DATABASE_UNAVAILABLE', {
    message: 'The database cannot be reached right now; nothing was changed by this request. Try again.',
    ...retryAfter(DATABASE_RETRY_AFTER_S),
    cause: error,
  });
}
