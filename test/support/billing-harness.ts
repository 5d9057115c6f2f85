import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Transaction, coinWithBalance } from '@mysten/sui/transactions';
import { fromBase64 } from '@mysten/sui/utils';
import { ManualClock, createLogger, loadConfig, type Config } from '../../services/core/index.js';
import { createKey, createOrganization } from '../../services/identity/index.js';
import type { Tier } from '../../services/plans/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { billingParts, type BillingParts } from '../../services/cli/billing-parts.js';
import { closeUpstreamSet, upstreamSetFromConfig, type UpstreamSet } from '../../services/upstream/index.js';
import { BILLING_TREASURY, CATALOG, COIN_TYPES, type GenesisAccount } from '../../services/simnet/index.js';
import type { App } from '../../services/route-contract/index.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { startTestSimnet, type TestSimnet } from './simnet-harness.js';
import { call, type CallResult } from './management-calls.js';
import { ChargingLock, SuiChain, type Chain, type Mailer } from '../../services/billing/index.js';
import { MemoryStreamLog } from '../../services/streams/log/stream-log.memory.js';
import { MemoryStreamLease } from '../../services/streams/delivery/stream-lease.js';

/** simnet's billing app as SUIGW_BILLING_NETWORKS names it. */
export const SIMNET_BILLING = { packageId: CATALOG.billingPackage, configId: CATALOG.billingConfig, usdcType: COIN_TYPES.USDC, treasury: BILLING_TREASURY };

export interface BillingHarness {
  app: App;
  clock: ManualClock;
  config: Readonly<Config>;
  db: TestDatabase;
  simnet: TestSimnet;
  sui: SuiGrpcClient;
  billing: BillingParts;
  upstreams: UpstreamSet;
  organizationId: string;
  adminKey: string;
  /** HTTP through the gateway (testnet prefix by default). */
  call(method: string, path: string, body?: unknown, network?: string): Promise<CallResult>;
  account(label: string): GenesisAccount;
  /** prepare → the funder signs and executes → the created allowance (and cap) ids. */
  setUp(input: { funder: string; tier: string; interval?: 'month' | 'year'; prefundPeriods?: number }): Promise<{ allowanceId: string; capId: string }>;
  /** The injected clock and the chain's clock move together. */
  moveTo(ms: number): void;
  usdcBalance(address: string): Promise<bigint>;
  close(): Promise<void>;
}

/**
 * The gateway on real PostgreSQL, its upstream simnet (testnet and mainnet), simnet's billing app
 * configured with simnet's `deployer` as the sponsor key, one organization on `tier` with an
 * admin key. Billing goes through the real gRPC path: SuiChain → SuiGrpcClient → simnet.
 */
export async function startBillingHarness(options: { tier?: Tier; mailer?: Mailer; seed?: string; start?: number } = {}): Promise<BillingHarness> {
  const simnet = await startTestSimnet({ seed: options.seed ?? 'suigw-billing' });
  const deployer = simnet.accounts.find((account) => account.label === 'deployer')!;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    SUI_MAINNET_GRPC_URL: simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.graphqlUrl,
    SUI_TESTNET_GRPC_URL: simnet.grpcUrl, SUI_TESTNET_GRAPHQL_URL: simnet.graphqlUrl,
    SUIGW_BILLING_NETWORKS: JSON.stringify({ testnet: SIMNET_BILLING, mainnet: SIMNET_BILLING }),
    SUIGW_BILLING_SPONSOR_KEY: deployer.keypair.getSecretKey(),
  });
  // The billing clock and the chain's start together, so calendar months agree on both sides.
  const start = Math.max(Number(simnet.ledger.nowMs()), options.start ?? 0);
  simnet.advanceClockTo(start);
  const clock = new ManualClock(start);
  const db = await createTestDatabase();
  const upstreams = upstreamSetFromConfig(config, createLogger('silent'));
  const seeded = await createOrganization(db.database.db, clock, { name: 'Acme', tier: options.tier ?? 'free', projects: [{ name: 'Default', network: 'mainnet' }, { name: 'Staging', network: 'testnet' }] });
  const admin = await createKey(db.database, clock, { kind: 'operator' }, {
    organizationId: seeded.organization.id, projectId: seeded.projects[1]!.id, name: 'admin', scopes: ['data', 'streams', 'manage', 'zkLogin'], expiresInDays: 365,
  });
  const billing = billingParts({ config, database: db.database, clock, upstreams, ...(options.mailer ? { mailer: options.mailer } : {}) });
  // Warp is served too (in-memory log and lease), so a plan's end can be seen on a stream socket.
  const warp = { log: new MemoryStreamLog(clock), lease: new MemoryStreamLease(clock) };
  const app = await buildGatewayApp({ config, database: db.database, clock, logger: createLogger('silent'), upstreams, billing, warp });
  await app.ready();
  const sui = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
  const harness: BillingHarness = {
    app, clock, config, db, simnet, sui, billing, upstreams,
    organizationId: seeded.organization.id,
    adminKey: admin.apiKey,
    call: (method, path, body, network = 'testnet') => call({ app } as never, method, path, { key: admin.apiKey, body, network }),
    account: (label) => simnet.accounts.find((account) => account.label === label)!,
    async setUp(input) {
      const funder = harness.account(input.funder);
      const prepared = await harness.call('POST', '/v1/billing/onchain/prepare', { network: 'testnet', tier: input.tier, interval: input.interval ?? 'month', funderAddress: funder.address, prefundPeriods: input.prefundPeriods ?? 1 });
      if (prepared.status !== 200) throw new Error(`prepare: ${prepared.status} ${JSON.stringify(prepared.body)}`);
      const bytes = fromBase64((prepared.body.data as { txBytes: string }).txBytes);
      const { signature } = await funder.keypair.signTransaction(bytes);
      const result = await sui.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { objectTypes: true } });
      if (!result.Transaction?.status.success) throw new Error(`prepare transaction failed: ${JSON.stringify(result.FailedTransaction?.status)}`);
      const types = Object.entries(result.Transaction.objectTypes!);
      simnet.seal();
      return { allowanceId: types.find(([, type]) => type.includes('::allowance::Allowance<'))![0], capId: types.find(([, type]) => type.includes('::allowance::AllowanceCap<'))![0] };
    },
    moveTo(ms) {
      clock.set(ms);
      simnet.advanceClockTo(ms);
      simnet.seal();
    },
    async usdcBalance(address) {
      const { balance } = await sui.core.getBalance({ owner: address, coinType: COIN_TYPES.USDC });
      return BigInt(balance.addressBalance);
    },
    async close() {
      await app.close();
      await closeUpstreamSet(upstreams);
      await simnet.stop();
      await db.drop();
    },
  };
  return harness;
}

/** The funder revokes an allowance with its cap (a transaction they sign and pay for). */
export async function revokeAllowance(h: BillingHarness, funderLabel: string, allowanceId: string, capId: string): Promise<void> {
  const funder = h.account(funderLabel);
  const tx = new Transaction();
  tx.setSender(funder.address);
  tx.moveCall({ target: '0x2::allowance::revoke', typeArguments: [COIN_TYPES.USDC], arguments: [tx.object(capId), tx.object(allowanceId)] });
  const bytes = await tx.build({ client: h.sui });
  const { signature } = await funder.keypair.signTransaction(bytes);
  const result = await h.sui.core.executeTransaction({ transaction: bytes, signatures: [signature] });
  if (!result.Transaction?.status.success) throw new Error('revoke failed');
  h.simnet.seal();
}

/** The funder moves `amount` of their USDC coins into their address balance (a top-up, which they sign and pay for). */
export async function fundAddressBalance(h: BillingHarness, label: string, amount: bigint): Promise<void> {
  const funder = h.account(label);
  const tx = new Transaction();
  tx.setSender(funder.address);
  tx.moveCall({ target: '0x2::coin::send_funds', typeArguments: [COIN_TYPES.USDC], arguments: [tx.add(coinWithBalance({ type: COIN_TYPES.USDC, balance: amount, useGasCoin: false })), tx.pure.address(funder.address)] });
  const bytes = await tx.build({ client: h.sui });
  const { signature } = await funder.keypair.signTransaction(bytes);
  await h.sui.core.executeTransaction({ transaction: bytes, signatures: [signature] });
  h.simnet.seal();
}

/** A second Chain on the harness's simnet, as another billing process (same sponsor) would have. */
export function simnetChain(h: BillingHarness): SuiChain {
  return new SuiChain({
    clients: new Map([['testnet', new SuiGrpcClient({ network: 'localnet', baseUrl: h.simnet.grpcUrl })]]),
    settings: new Map([['testnet', SIMNET_BILLING]]),
    sponsor: h.account('deployer').keypair,
  });
}

/** `inner` with some of its methods replaced (a read held or failing), every other one its own. */
export function chainWith(inner: Chain, replaced: Partial<Chain>): Chain {
  return new Proxy(inner, {
    get: (target, property, receiver) => {
      const replacement = (replaced as Record<PropertyKey, unknown>)[property];
      if (replacement !== undefined) return replacement;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A Chain whose first `read` (its allowance read unless told) waits for `release` (`waiting`: that read has begun). */
export function gatedChain(inner: Chain, read: 'allowance' | 'addressBalance' = 'allowance'): { chain: Chain; waiting: Promise<void>; release(): void } {
  let release!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((resolve) => { release = resolve; });
  const waiting = new Promise<void>((resolve) => { reached = resolve; });
  let gated = false;
  const held = async (...args: unknown[]): Promise<unknown> => {
    if (!gated) {
      gated = true;
      reached();
      await opened;
    }
    return (inner[read] as (...args: unknown[]) => Promise<unknown>).apply(inner, args);
  };
  const chain = chainWith(inner, { [read]: held });
  return { chain, waiting, release };
}

/**
 * Another billing process holding the deployment's charging lock (a pass of another
 * organization) until `release`; resolves once it holds it. `held` ends when it lets go.
 */
export async function holdChargingLock(h: BillingHarness): Promise<{ release: () => void; held: Promise<unknown> }> {
  let release!: () => void;
  let acquired!: () => void;
  const holding = new Promise<void>((resolve) => { acquired = resolve; });
  const held = new ChargingLock(h.db.database).tryRun(() => {
    acquired();
    return new Promise<void>((resolve) => { release = resolve; });
  });
  await holding;
  return { release, held };
}
