import { z } from 'zod';
import { nameSchema, PLAIN_TEXT_MESSAGE, PLAIN_TEXT_PATTERN } from '../core/index.js';

/** Response shapes of the management API (spec: "API key", "Project", "Management account"). */

const rateLimitSchema = z
  .object({
    perKeyRps: z.number().int().nullable().meta({ description: 'Requests per second for this key; null: no cap.' }),
    perIpRps: z.number().int().nullable().meta({ description: 'Requests per second per visitor IP; null: no cap.' }),
  })
  .meta({ id: 'KeyRateLimit' });

export const keyListItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    start: z.string().meta({ description: 'The first characters of the key; the secret is never listed.' }),
    prefix: z.string(),
    projectId: z.string().nullable(),
    scopes: z.array(z.string()),
    allowedOrigins: z.array(z.string()),
    rateLimit: rateLimitSchema,
    enabled: z.boolean(),
    expiresAt: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKeyListItem' });

export const createdKeySchema = z
  .object({
    id: z.string(),
    apiKey: z.string().meta({ description: 'The key value. Shown once, in this response only.' }),
    name: z.string(),
    projectId: z.string(),
    scopes: z.array(z.string()),
    allowedOrigins: z.array(z.string()),
    rateLimit: rateLimitSchema,
    expiresAt: z.string(),
  })
  .meta({ id: 'CreatedApiKey' });

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    network: z.enum(['mainnet', 'testnet', 'devnet']),
    createdAt: z.string(),
  })
  .meta({ id: 'Project' });

export const accountSchema = z
  .object({
    organization: z.object({ id: z.string(), name: z.string(), walletAddress: z.string().nullable() }),
    tier: z.string().meta({ description: 'The tier in force: a paid plan’s while it is in force, else the organization’s (e.g. wallet).' }),
    subscription: z.object({
      plan: z.string().nullable(),
      status: z.string().nullable().meta({
        description: 'active, canceled, past_due, incomplete or trialing (on-chain plan states mapped as in GET /v1/auth/me).',
      }),
      periodEnd: z.string().nullable(),
    }),
    key: z.object({
      id: z.string(),
      name: z.string(),
      scopes: z.array(z.string()),
      projectId: z.string().nullable(),
      expiresAt: z.string(),
    }),
    balance: z.object({ credits: z.string(), usd: z.string() }).optional(),
  })
  .meta({ id: 'ManagementAccount' });

/**
 * PostgreSQL text cannot hold U+0000 (it fails with 22021, which surfaced as a 500): any request
 * string that reaches the database refuses it at validation instead.
 */
// eslint-disable-next-line no-control-regex -- matching NUL is the point.
const NO_NUL = /^[^\u0000]*$/;
const NO_NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** An id in a path or body (`key_…`, `proj_…`, `chal_…`). */
export const idSchema = z.string().min(1).max(64).regex(NO_NUL, NO_NUL_MESSAGE);

/** Request fields shared by key creation and key edits. */
export const keyNameSchema = nameSchema;
export const projectNameSchema = z.string().max(100).regex(PLAIN_TEXT_PATTERN, PLAIN_TEXT_MESSAGE);
// No length on a name: any string that is not a scope is the spec's 400 INVALID_SCOPES ("unknown
// scope name"), however long; the 16 entries and the body limit bound the request.
export const scopesInputSchema = z
  .array(z.string())
  .max(16)
  .meta({ description: 'Any of data, streams, manage, zkLogin; only scopes the calling key holds.' });
export const allowedOriginsInputSchema = z
  .array(z.string().max(300))
  .max(50)
  .meta({ description: 'Entries `[scheme://][*.]host[:port]`; empty: any origin.' });
export const rateLimitInputSchema = z.strictObject({
  perKeyRps: z.number().int().min(1).max(1_000_000).nullable().optional(),
  perIpRps: z.number().int().min(1).max(1_000_000).nullable().optional(),
});
