/**
 * A gateway in a process of its own for load benchmarks, so the load generator does not share
 * its event loop: `node bin/run-ts.js bench/lib/gateway-server.ts` with DATABASE_URL set.
 * Prints one JSON line `{url}` once listening; stops on SIGTERM.
 *
 * Besides the real routes it serves `GET /bench/noop`: no key, no database, and the same body
 * and zod response schema as `GET /v1/auth/me`, so that the only difference between the two is
 * authentication (the baseline of bench/auth.ts).
 */
import { z } from 'zod';
import { createLogger, loadConfig, systemClock } from '../../services/core/index.js';
import { openDatabase } from '../../services/db/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1' });
const database = await openDatabase({ url: config.databaseUrl, poolSize: 10 });
const app = await buildGatewayApp({ config, database, clock: systemClock, logger: createLogger('silent') });
const named = z.object({ id: z.string(), name: z.string().nullable() });
const meLike = z.object({
  data: z.object({
    apiKey: named,
    organization: named.nullable(),
    project: named.nullable(),
    network: z.enum(['mainnet', 'testnet', 'devnet']).nullable(),
    tier: z.string(),
    subscription: z.object({ plan: z.string().nullable(), status: z.string().nullable() }).nullable(),
  }),
});
const body = {
  data: {
    apiKey: { id: 'key_0000000000000000', name: 'bench' },
    organization: { id: 'org_0000000000000000', name: 'Bench' },
    project: { id: 'proj_000000000000000', name: 'Default' },
    network: 'mainnet' as const,
    tier: 'enterprise',
    subscription: null,
  },
};
app.get('/bench/noop', { config: { auth: 'none' }, schema: { hide: true, response: { 200: meLike } } }, async () => body);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }));

process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => database.close())
    .finally(() => process.exit(0));
});
