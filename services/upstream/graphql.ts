import { UpstreamError } from './errors.js';
import type { GraphQLVariables } from './types.js';

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** `Retry-After` in seconds (the only form nodes send) as ms. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  return value && /^\d+$/.test(value) ? Number(value) * 1000 : undefined;
}

function aborted(error: unknown): 'timeout' | 'cancelled' | undefined {
  if (!(error instanceof DOMException)) return undefined;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.name === 'AbortError' ? 'cancelled' : undefined;
}

/**
 * One GraphQL POST, ended by `timeoutMs` (→ timeout) or by `signal` (the caller went away →
 * cancelled). Node's fetch (undici) keeps connections alive per origin, so consecutive calls
 * reuse sockets. Only HTTP 502/503/504 and network errors are transport failures; 429 is
 * throttling. Errors in a body are the node's answer about this query: BAD_USER_INPUT is the
 * caller's mistake (invalid_argument), anything else a bad response (GraphQL nulls the failed
 * fields, which would read as "nothing found", so data beside errors is not used either).
 */
export async function postGraphQL<T>(
  url: string,
  upstream: string,
  operation: string,
  query: string,
  variables: GraphQLVariables | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  const ended = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables: variables ?? {} }),
      signal: ended,
    });
  } catch (error) {
    const why = aborted(error);
    throw new UpstreamError(why ?? 'unavailable', upstream, operation,
      `${operation}: ${why === 'timeout' ? `no answer within ${timeoutMs} ms` : why === 'cancelled' ? 'cancelled by the caller' : (error as Error).message}`, { cause: error });
  }
  if (response.status === 502 || response.status === 503 || response.status === 504 || response.status === 429) {
    await response.body?.cancel();
    const kind = response.status === 504 ? 'timeout' : response.status === 429 ? 'throttled' : 'unavailable';
    const wait = retryAfterMs(response);
    throw new UpstreamError(kind, upstream, operation, `${operation}: HTTP ${response.status}`, wait === undefined ? {} : { retryAfterMs: wait });
  }
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch (error) {
    const why = aborted(error);
    throw new UpstreamError(why ?? 'bad_response', upstream, operation, `${operation}: unreadable body (HTTP ${response.status})`, { cause: error });
  }
  if (!response.ok && !body.data) {
    throw new UpstreamError('bad_response', upstream, operation, `${operation}: HTTP ${response.status}: ${body.errors?.[0]?.message ?? ''}`);
  }
  if (body.data == null || (body.errors && body.errors.length > 0)) {
    const userError = body.errors?.some((e) => e.extensions?.code === 'BAD_USER_INPUT');
    throw new UpstreamError(userError ? 'invalid_argument' : 'bad_response', upstream, operation, `${operation}: ${body.errors?.map((e) => e.message).join('; ') ?? 'no data'}`);
  }
  return body.data;
}
