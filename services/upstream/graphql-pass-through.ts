import { UpstreamError } from './errors.js';

/** The upstream GraphQL service's answer, untouched: the gateway returns it as is. */
export interface GraphQLPassThroughResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

function aborted(error: unknown): 'timeout' | 'cancelled' | undefined {
  if (!(error instanceof DOMException)) return undefined;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.name === 'AbortError' ? 'cancelled' : undefined;
}

/**
 * One GraphQL POST of a caller's own body, answered as the node answered it. Unlike
 * `postGraphQL` (the REST layer's typed reads), errors in the body are the caller's answer, not
 * a failure: only what says the node cannot be reached is thrown, so only that can count toward
 * a circuit breaker: network errors and our attempt timeout (transport failures), HTTP
 * 502/503/504 (the node or its proxy is down or overloaded) and 429 (throttled, never counted).
 */
export async function passGraphQL(url: string, upstream: string, body: string, timeoutMs: number, signal?: AbortSignal): Promise<GraphQLPassThroughResponse> {
  const ended = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal: ended,
    });
    if (response.status === 502 || response.status === 503 || response.status === 504 || response.status === 429) {
      await response.body?.cancel();
      const kind = response.status === 504 ? 'timeout' : response.status === 429 ? 'throttled' : 'unavailable';
      const wait = response.headers.get('retry-after');
      throw new UpstreamError(kind, upstream, 'graphql', `graphql: HTTP ${response.status}`, wait && /^\d+$/.test(wait) ? { retryAfterMs: Number(wait) * 1000 } : {});
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/json',
      body: Buffer.from(await response.arrayBuffer()),
    };
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    const why = aborted(error);
    throw new UpstreamError(why ?? 'unavailable', upstream, 'graphql',
      `graphql: ${why === 'timeout' ? `no answer within ${timeoutMs} ms` : why === 'cancelled' ? 'cancelled by the caller' : (error as Error).message}`, { cause: error });
  }
}
