import { z } from 'zod';
import type { App } from '../../services/route-contract/index.js';
import { AUTH_ME_LIKE_BODY } from './auth-me-body.js';

const named = z.object({ id: z.string(), name: z.string().nullable() });
/** auth/me's response schema, as the management route declares it. */
const authMeLike = z.object({
  data: z.object({
    apiKey: named,
    organization: named.nullable(),
    project: named.nullable(),
    network: z.enum(['mainnet', 'testnet', 'devnet']).nullable(),
    tier: z.string(),
    subscription: z.object({ plan: z.string().nullable(), status: z.string().nullable() }).nullable(),
  }),
});

/** `GET /bench/noop` on the gateway: no key, no database, auth/me's body and response schema. */
export function registerBenchNoop(app: App): void {
  app.get('/bench/noop', { config: { auth: 'none' }, schema: { hide: true, response: { 200: authMeLike } } }, async () => AUTH_ME_LIKE_BODY);
}
