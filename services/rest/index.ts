import { randomBytes } from 'node:crypto';
import type { App, Capability } from '../route-contract/index.js';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import {
  AccountService, ChainedPriceSource, ChainService, CoinService, CursorCodec, HttpPriceFeed, MemoryTransactionCache,
  NameService, ObjectService, PostgresTransactionCache, StaticPriceSource, TransactionService,
  type PriceSource, } from './domain/index.js';
import { registerGetAccountBalance } from './routes/accounts.balance.js';
import { registerGetAccountDelegations } from './routes/accounts.delegations.js';
import { registerGetAccount } from './routes/accounts.get.js';
import { registerGetAccountObjects } from './routes/accounts.objects.js';
import { registerGetAccountTransactions } from './routes/accounts.transactions.js';
import { registerGetChain } from './routes/chain.get.js';
import { registerGetCheckpoint } from './routes/checkpoints.get.js';
import { registerGetLatestCheckpoint } from './routes/checkpoints.latest.js';
import { registerGetCoinMetadata } from './routes/coins.metadata.js';
import { watchRequest, type RestDeps, type RestServices } from './routes/kit.js';
import { registerGetNameAvailability } from './routes/names.availability.js';
import { registerBatchResolveNames } from './routes/names.batch.js';
import { registerResolveName } from './routes/names.resolve.js';
import { registerReverseResolveName } from './routes/names.reverse.js';
import { registerGetHealthDetails } from './routes/health.details.js';
import { registerGetNetworkStats } from './routes/network.stats.js';
import { registerBatchObjects } from './routes/objects.batch.js';
import { registerGetObject } from './routes/objects.get.js';
import { registerGetObjectMetadata } from './routes/objects.metadata.js';
import { registerGetPackage } from './routes/packages.get.js';
import { registerGetStakingParameters } from './routes/staking.parameters.js';
import { registerBatchTransactions } from './routes/transactions.batch.js';
import { registerGetTransaction } from './routes/transactions.get.js';
import { registerGetLatestTransactions } from './routes/transactions.latest.js';
import { registerListTransactions } from './routes/transactions.list.js';
import { registerGetRawTransaction } from './routes/transactions.raw.js';
import { registerGetTransactionStats } from './routes/transactions.stats.js';
import { registerGetValidatorApys } from './routes/validators.apy.js';
import { registerListValidators } from './routes/validators.list.js';

export type { RestDeps, RestServices } from './routes/kit.js';
export * as RestSchemas from './schemas.js';

export interface RestConfig {
  /** HMAC secret of pagination cursors (SUIGW_CURSOR_SECRET). */
  cursorSecret: string;
  cursorMaxAgeSeconds: number;
  /** Coin types reported `verified` besides SUI (SUIGW_VERIFIED_COIN_TYPES). */
  verifiedCoinTypes: string[];
  /** Fixed USD prices per coin type on mainnet (SUIGW_PRICES). */
  prices: Record<string, number>;
  /** URL of a JSON price feed `{prices: {coinType: usd}}` (SUIGW_PRICE_FEED_URL). */
  priceFeedUrl?: string | undefined;
  statsCheckpoints: number;
}

/** The data plane's services; `db` absent means an in-memory transaction cache. */
export function createRestServices(config: RestConfig, deps: { db?: Kysely<DatabaseSchema>; now: () => number; prices?: PriceSource }): RestServices {
  const cursors = new CursorCodec({ secret: config.cursorSecret, maxAgeSeconds: config.cursorMaxAgeSeconds, now: deps.now });
  const sources: PriceSource[] = [new StaticPriceSource(config.prices)];
  if (config.priceFeedUrl) sources.push(new HttpPriceFeed({ url: config.priceFeedUrl, ttlMs: 60_000, timeoutMs: 2_000, now: deps.now }));
  const prices = deps.prices ?? new ChainedPriceSource(sources);
  const coins = new CoinService({ prices, verifiedCoinTypes: config.verifiedCoinTypes, now: deps.now });
  const chain = new ChainService();
  const cache = deps.db ? new PostgresTransactionCache(deps.db) : new MemoryTransactionCache();
  return {
    accounts: new AccountService({ coins, chain, cursors }),
    transactions: new TransactionService({ cache, cursors, statsCheckpoints: config.statsCheckpoints, now: deps.now }),
    objects: new ObjectService(),
    coins,
    chain,
    names: new NameService({ now: deps.now }),
  };
}

const ROUTES = [
  registerGetAccount, registerGetAccountBalance, registerGetAccountObjects, registerGetAccountTransactions, registerGetAccountDelegations,
  registerGetLatestTransactions, registerGetTransactionStats, registerListTransactions, registerBatchTransactions, registerGetTransaction, registerGetRawTransaction,
  registerGetObject, registerBatchObjects, registerGetObjectMetadata, registerGetCoinMetadata, registerGetPackage,
  registerGetLatestCheckpoint, registerGetCheckpoint, registerGetChain, registerGetStakingParameters, registerGetNetworkStats,
  registerListValidators, registerGetValidatorApys,
  registerResolveName, registerReverseResolveName, registerBatchResolveNames, registerGetNameAvailability,
  registerGetHealthDetails,
];

/** The `/v1` REST data plane, registered once per network (inside the `/{network}` scope). */
export function restCapability(deps: RestDeps): Capability {
  return async (app: App) => {
    await app.register(async (scope: App) => {
      scope.addHook('onRequest', watchRequest);
      for (const register of ROUTES) register(scope, deps);
    }, { prefix: '/v1' });
  };
}

/** `createRestServices` options from the one config. */
export function restConfigFrom(config: { secret: string | undefined; rest: Omit<RestConfig, 'cursorSecret'> }): RestConfig {
  // Without a configured secret, cursors are signed with a per-process key: they then stop
  // working across restarts and replicas, which is why production sets SUIGW_SECRET.
  return { ...config.rest, cursorSecret: config.secret ?? randomBytes(32).toString('hex') };
}
