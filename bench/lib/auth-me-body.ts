import { z } from 'zod';

/**
 * A body shaped like `GET /v1/auth/me`'s for an enterprise key: what the baselines of the
 * auth/me benchmark return, so that only the work behind the body differs.
 */
export const AUTH_ME_LIKE_BODY = {
  data: {
    apiKey: { id: 'key_0000000000000000', name: 'bench' },
    organization: { id: 'org_0000000000000000', name: 'Bench' },
    project: { id: 'proj_000000000000000', name: 'Default' },
    network: 'mainnet' as const,
    tier: 'enterprise',
    subscription: null,
  },
};

const named = z.object({ id: z.string(), name: z.string().nullable() });
/** auth/me's response schema, as the management route declares it. */
export const AUTH_ME_LIKE_SCHEMA = z.object({
  data: z.object({
    apiKey: named,
    organization: named.nullable(),
    project: named.nullable(),
    network: z.enum(['mainnet', 'testnet', 'devnet']).nullable(),
    tier: z.string(),
    subscription: z.object({ plan: z.string().nullable(), status: z.string().nullable() }).nullable(),
  }),
});
