/**
 * A gateway in a process of its own for load benchmarks, so the load generator does not share
 * its event loop: `node bin/run-ts.js bench/lib/gateway-server.ts` with DATABASE_URL set.
 * Prints one JSON line `{url}` once listening; stops on SIGTERM.
 *
 * Besides the real routes it serves `GET /bench/noop`: no key, no database, a small JSON body.
 * It is the baseline that isolates what authentication adds (see bench/auth.ts).
 */
import { createLogger, loadConfig, systemClock } from '../../services/core/index.js';
import { openDatabase } from '../../services/db/index.js';
import { buildApp } from '../../services/http/index.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1' });
const database = await openDatabase({ url: config.databaseUrl, poolSize: 10 });
const app = await buildApp({ config, database, clock: systemClock, logger: createLogger('silent') });
app.get('/bench/noop', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ data: { ok: true } }));
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
