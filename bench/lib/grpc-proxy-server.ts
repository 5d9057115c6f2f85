/**
 * The gRPC proxy in a process of its own, built as `suigw grpc` builds it (services/cli/grpc.ts):
 * configuration from the environment (production log level, default key cache TTL, the upstream
 * set from SUI_MAINNET_GRPC_URL, REDIS_URL or not), PostgreSQL from DATABASE_URL (migrated).
 * Only the port and interface are forced. Announces `{url}` (see service-process.ts).
 */
import { createLogger, flushLogger, systemClock } from '../../services/core/index.js';
import { readConfig } from '../../services/cli/runtime.js';
import { openDatabase } from '../../services/db/index.js';
import { createGrpcProxy, networkByAuthority } from '../../services/grpc/proxy/index.js';
import { Authenticator } from '../../services/identity/index.js';
import { createMetering } from '../../services/metering/index.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../../services/upstream/index.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface GrpcProxyReady {
  url: string;
}

const config = readConfig({ HOST: '127.0.0.1' });
if (!config.databaseUrl) throw new Error('DATABASE_URL is required (a migrated PostgreSQL database)');
const logger = createLogger(config.logLevel);
const database = await openDatabase({ url: config.databaseUrl });
const upstreams = upstreamSetFromConfig(config);
const authenticator = new Authenticator({ database, clock: systemClock, ttlMs: config.keyCacheTtlMs, logger });
await authenticator.start();
const metering = await createMetering({ config, database, clock: systemClock, logger });
const proxy = createGrpcProxy({ authenticator, meter: metering.meter, upstreams, networkOf: networkByAuthority(config.grpc.hosts) });
const address = await proxy.listen(0, config.host);
const ready: GrpcProxyReady = { url: `http://127.0.0.1:${address.port}` };
serveUntilStopped(ready, async () => {
  await proxy.close();
  await metering.close();
  await authenticator.stop();
  await closeUpstreamSet(upstreams);
  await database.close();
  flushLogger(logger);
});
