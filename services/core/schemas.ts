import { z } from 'zod';

/** The error body every route documents: rendered by the one error handler. */
export const errorResponseSchema = z
  .object({
    error: z.string().meta({ description: 'Short human summary.' }),
    message: z.string().optional().meta({ description: 'Detail for this request.' }),
    code: z.string().optional().meta({ description: 'Stable code to branch on (see the error table).' }),
    requestId: z.string().optional(),
  })
  .passthrough()
  .meta({ id: 'Error' });

/** `{ 400: error, 401: error, ... }` for a route's documented failure statuses. */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof errorResponseSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponseSchema])) as Record<S, typeof errorResponseSchema>;
}

/**
 * A well-formed API key value: `svc_pat_` and 32 to 120 base58 characters (a generated key has
 * about 44). The identity layer checks a presented key with it before any lookup, and the config
 * checks SUIGW_DEV_ADMIN_KEY with it at start-up.
 */
export const KEY_VALUE_PATTERN = /^svc_pat_[1-9A-HJ-NP-Za-km-z]{32,120}$/;

/** Sui addresses and object ids as the spec writes them: `^0x[a-fA-F0-9]{64}$`. */
export const ADDRESS_PATTERN = /^0x[a-fA-F0-9]{64}$/;

/**
 * Free text we store and echo (names of keys, projects, streams) must come back exactly as sent:
 * a lone surrogate (JSON `"\ud800"`) has no UTF-8 form, so PostgreSQL would store something else,
 * and control characters other than ordinary whitespace have no place in a name. Nor have the
 * bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they make a
 * name display as other text than it holds (`key\u202Egnp.exe`) in a dashboard, a log or a
 * terminal. Right-to-left scripts need none of them; the marks U+200E/U+200F stay allowed.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
export const PLAIN_TEXT_PATTERN = /^[^\p{Cs}\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]*$/u;
export const PLAIN_TEXT_MESSAGE = 'must not contain lone surrogates, control characters or bidirectional overrides';

/**
 * A name the management API stores: trimmed, 1 to 100 characters, plain text. JSON Schema cannot
 * say "trimmed first", so the description does: its minLength and maxLength count what remains.
 */
export const nameSchema = z.string().trim().min(1).max(100).regex(PLAIN_TEXT_PATTERN, PLAIN_TEXT_MESSAGE)
  .meta({ description: 'Leading and trailing white space is removed first; 1 to 100 characters must remain.' });

/**
 * The longest path parameter the gateway routes (fastify's and authz's router, `maxParamLength`):
 * a coin type with its type arguments (`/coins/{coinType}/metadata`), the longest parameter a
 * route takes. A longer segment is 414 URI_TOO_LONG; a shorter one reaches the route's own schema.
 */
export const PATH_PARAMETER_MAX_LENGTH = 1024;
