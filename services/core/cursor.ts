import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

/** What a cursor continues: the endpoint, the network and the query it was issued for. */
export interface CursorScope {
  kind: string;
  network: string;
  /** The query's identity (address, filters, order), so a cursor cannot be replayed on another query. */
  query: string;
}

interface CursorBody {
  k: string;
  n: string;
  q: string;
  /** The upstream's own position (GraphQL cursor or gRPC page token, base64). */
  p: string;
  /** Issued at, Unix seconds. */
  t: number;
}

export interface CursorCodecOptions {
  secret: string;
  /** Cursors older than this are stale (upstream page tokens do not live forever). */
  maxAgeSeconds: number;
  now: () => number;
}

/**
 * Opaque pagination cursors: base64url(JSON) + "." + base64url(HMAC-SHA256). The server can
 * tell its own cursors from forged, edited, foreign (another endpoint, query or network) and
 * stale ones, and answers all of those with 400 INVALID_CURSOR before calling upstream.
 */
export class CursorCodec {
  readonly #options: CursorCodecOptions;

  constructor(options: CursorCodecOptions) {
    if (options.secret.length < 16) throw new Error('cursor secret must be at least 16 characters');
    this.#options = options;
  }

  encode(scope: CursorScope, position: string): string {
    const body: CursorBody = { k: scope.kind, n: scope.network, q: scope.query, p: position, t: Math.floor(this.#options.now() / 1000) };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** The upstream position carried by `cursor`, or 400 INVALID_CURSOR. */
  decode(scope: CursorScope, cursor: string): string {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw invalid('malformed cursor');
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('cursor was not issued by this server');
    let body: CursorBody;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw invalid('malformed cursor');
    }
    if (body.k !== scope.kind || body.n !== scope.network || body.q !== scope.query) throw invalid('cursor belongs to another query');
    const age = Math.floor(this.#options.now() / 1000) - body.t;
    if (age > this.#options.maxAgeSeconds || age < -60) throw invalid('cursor has expired; start again without a cursor');
    return body.p;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#options.secret).update(payload).digest('base64url');
  }
}

function invalid(message: string): ApiError {
  return new ApiError('INVALID_CURSOR', { message: `Invalid cursor: ${message}` });
}
