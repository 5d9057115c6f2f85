import { UpstreamError } from './errors.js';
import type { GraphQLVariables } from './types.js';

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/**
 * One GraphQL POST with an abortable deadline. Node's fetch (undici) keeps connections alive per
 * origin, so consecutive calls reuse sockets. A response with `errors` and no `data` is a bad
 * response; so is any error next to data (GraphQL nulls the failed fields, which would read as
 * "nothing found"). BAD_USER_INPUT errors are the caller's mistake: invalid_argument.
 */
export async function postGraphQL<T>(
  url: string,
  upstream: string,
  operation: string,
  query: string,
  variables: GraphQLVariables | undefined,
  timeoutMs: number,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables: variables ?? {} }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new UpstreamError(timedOut ? 'timeout' : 'unavailable', upstream, operation,
      `${operation}: ${timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message}`, { cause: error });
  }
  if (response.status === 502 || response.status === 503 || response.status === 504 || response.status === 429) {
    await response.body?.cancel();
    throw new UpstreamError(response.status === 504 ? 'timeout' : 'unavailable', upstream, operation, `${operation}: HTTP ${response.status}`);
  }
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new UpstreamError(timedOut ? 'timeout' : 'bad_response', upstream, operation, `${operation}: unreadable body (HTTP ${response.status})`, { cause: error });
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
