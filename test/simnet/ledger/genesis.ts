import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID } from '@mysten/sui/utils';
import { deriveAccounts } from './accounts.js';
import { CATALOG, COIN_TYPES, FRAMEWORK_MODULES, OBJECT_TYPES, SYSTEM_MODULES, protocolPackages } from './catalog.js';
import { CLOCK_ID, SUI_FRAMEWORK, SUI_SYSTEM, ZERO_ADDRESS, coinObjectType, MIST_PER_SUI } from './constants.js';
import { buildEffects } from './effects-encoding.js';
import { SeededRandom, suiDigest } from './hashing.js';
import { Ledger } from './ledger.js';
import type { GenesisAccount, LedgerOptions } from './ledger.js';
import { MoveStructs } from './move-values.js';
import { encodeMoveObject, encodePackage, moveObjectData, ownerToBcs, packageData } from './object-encoding.js';
import type { MoveObjectInput, PackageInput } from './object-encoding.js';
import type {
  BalanceChangeRecord,
  EpochRecord,
  ExchangeRateRecord,
  MovePackageRecord,
  ObjectOwner,
  ProtocolConfigRecord,
  SystemStateRecord,
  ValidatorRecord,
} from './types.js';

type GenesisMoveObject = Omit<MoveObjectInput, 'version' | 'previousTransaction' | 'storageRebate'>;
type GenesisPackage = Omit<PackageInput, 'previousTransaction' | 'storageRebate'>;

const DAY_MS = 86_400_000n;
/** 2026-01-01T00:00:00Z; the seed adds up to a year. */
const BASE_TIMESTAMP_MS = 1_767_225_600_000n;
const REFERENCE_GAS_PRICE = 1000n;
const PROTOCOL_VERSION = 104n;
const STORAGE_REBATE_PER_OBJECT = 988_000n;

const VALIDATOR_NAMES = ['Mysticeti Labs', 'Blue Whale Staking', 'Narwhal Node', 'Coral Reef Validators', 'Abyssal Infra', 'Tidepool Capital'];

function addressOwner(address: string): ObjectOwner {
  return { kind: 'address', address };
}

function moduleBytes(packageId: string) {
  return (moduleName: string) => new TextEncoder().encode(`simnet-module:${packageId}::${moduleName}`);
}

/** Collects genesis objects, then writes them once the genesis digest is known. */
class GenesisBuilder {
  readonly objects: GenesisMoveObject[] = [];
  readonly packages: GenesisPackage[] = [];
  readonly balanceChanges = new Map<string, bigint>();
  readonly #ids: SeededRandom;

  constructor(rng: SeededRandom) {
    this.#ids = rng.fork('object-ids');
  }

  newId(): string {
    return this.#ids.address();
  }

  add(object: GenesisMoveObject): string {
    this.objects.push(object);
    return object.objectId;
  }

  coin(owner: string, coinType: string, balance: bigint): string {
    const id = this.newId();
    const key = `${owner}|${coinType}`;
    this.balanceChanges.set(key, (this.balanceChanges.get(key) ?? 0n) + balance);
    return this.add({
      objectId: id,
      type: coinObjectType(coinType),
      owner: addressOwner(owner),
      hasPublicTransfer: true,
      contents: MoveStructs.Coin.serialize({ id, balance }).toBytes(),
      json: { id, balance: balance.toString() },
      coin: { coinType, balance },
    });
  }

  package(packageId: string, modules: MovePackageRecord['modules']): void {
    const pkg: MovePackageRecord = { packageId, version: 1n, originalId: packageId, modules };
    this.packages.push({
      package: pkg,
      moduleBytes: moduleBytes(packageId),
      typeOrigins: modules.flatMap((module) => module.datatypes.map((datatype) => ({ moduleName: module.name, datatypeName: datatype.name, package: packageId }))),
    });
  }
}

function buildProtocolConfig(): ProtocolConfigRecord {
  return {
    protocolVersion: PROTOCOL_VERSION,
    featureFlags: {
      enable_accumulators: true,
      enable_address_balance_gas_payments: true,
      zklogin_auth: true,
      passkey_auth: true,
      enable_effects_v2: true,
    },
    attributes: {
      max_tx_gas: '50000000000',
      max_gas_price: '100000',
      max_gas_payment_objects: '256',
      max_input_objects: '2048',
      max_programmable_tx_commands: '1024',
      max_pure_argument_size: '16384',
      max_tx_size_bytes: '131072',
      max_arguments: '512',
      max_type_arguments: '16',
      storage_gas_price: '76',
      obj_data_cost_refundable: '100',
      obj_metadata_cost_non_refundable: '50',
      storage_rebate_rate: '9900',
      base_tx_cost_fixed: '1000',
      reward_slashing_rate: '10000',
    },
  };
}

function exchangeRates(rng: SeededRandom, activationEpoch: bigint, currentEpoch: bigint): ExchangeRateRecord[] {
  // Rates grow by a per-validator APY of 2.5–4.5% compounded per epoch (daily).
  const apyBps = 250n + BigInt(rng.int(200));
  const rates: ExchangeRateRecord[] = [];
  let sui = 1_000_000_000_000n;
  const tokens = 1_000_000_000_000n;
  for (let epoch = activationEpoch; epoch <= currentEpoch; epoch++) {
    rates.push({ epoch, suiAmount: sui, poolTokenAmount: tokens });
    sui += (sui * apyBps) / 10_000n / 365n;
  }
  return rates;
}

function buildValidators(rng: SeededRandom, builder: GenesisBuilder, currentEpoch: bigint): ValidatorRecord[] {
  return VALIDATOR_NAMES.map((name, index) => {
    const v = rng.fork(`validator/${index}`);
    const stake = v.bigintBetween(30_000_000n, 90_000_000n) * MIST_PER_SUI;
    const activationEpoch = BigInt(index % 3);
    const rates = exchangeRates(v, activationEpoch, currentEpoch);
    const latest = rates[rates.length - 1]!;
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
    const record: ValidatorRecord = {
      address: v.address(),
      name,
      description: `${name} runs a simulated Sui validator in simnet.`,
      imageUrl: `https://simnet.invalid/validators/${slug}.png`,
      projectUrl: `https://${slug}.simnet.invalid`,
      networkAddress: `/dns/${slug}.simnet.invalid/tcp/8080/http`,
      protocolPublicKey: v.bytes(96),
      networkPublicKey: v.bytes(32),
      workerPublicKey: v.bytes(32),
      proofOfPossession: v.bytes(48),
      votingPower: 0n,
      gasPrice: REFERENCE_GAS_PRICE - 100n + BigInt(v.int(5)) * 50n,
      commissionRate: BigInt([200, 500, 800, 1000, 300, 0][index]!),
      stakingPoolId: builder.newId(),
      operationCapId: builder.newId(),
      exchangeRatesId: builder.newId(),
      stakingPoolSuiBalance: stake,
      rewardsPool: stake / 200n,
      poolTokenBalance: (stake * latest.poolTokenAmount) / latest.suiAmount,
      activationEpoch,
      exchangeRates: rates,
    };
    for (const rate of rates) {
      const fieldId = deriveDynamicFieldID(record.exchangeRatesId, 'u64', bcs.u64().serialize(rate.epoch).toBytes());
      builder.add({
        objectId: fieldId,
        type: `${SUI_FRAMEWORK}::dynamic_field::Field<u64, ${SUI_SYSTEM}::staking_pool::PoolTokenExchangeRate>`,
        owner: { kind: 'object', address: record.exchangeRatesId },
        hasPublicTransfer: false,
        contents: MoveStructs.ExchangeRateField.serialize({ id: fieldId, name: rate.epoch, suiAmount: rate.suiAmount, poolTokenAmount: rate.poolTokenAmount }).toBytes(),
        json: { id: fieldId, name: rate.epoch.toString(), value: { sui_amount: rate.suiAmount.toString(), pool_token_amount: rate.poolTokenAmount.toString() } },
        dynamicField: {
          parent: record.exchangeRatesId,
          nameType: 'u64',
          nameBcs: bcs.u64().serialize(rate.epoch).toBytes(),
          nameJson: rate.epoch.toString(),
          valueType: `${SUI_SYSTEM}::staking_pool::PoolTokenExchangeRate`,
          kind: 'field',
        },
      });
    }
    return record;
  });
}

function withVotingPower(validators: ValidatorRecord[]): ValidatorRecord[] {
  const total = validators.reduce((sum, v) => sum + v.stakingPoolSuiBalance, 0n);
  let assigned = 0n;
  return validators.map((validator, index) => {
    const power = index === validators.length - 1 ? 10_000n - assigned : (validator.stakingPoolSuiBalance * 10_000n) / total;
    assigned += power;
    return { ...validator, votingPower: power };
  });
}

function genesisCoins(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], ledger: Ledger): void {
  const r = rng.fork('coins');
  for (const [index, account] of accounts.entries()) {
    const isFaucet = account.label === 'faucet';
    builder.coin(account.address, COIN_TYPES.SUI, (isFaucet ? 1_000_000n : 1_000n) * MIST_PER_SUI);
    builder.coin(account.address, COIN_TYPES.SUI, (isFaucet ? 1_000_000n : 250n) * MIST_PER_SUI);
    builder.coin(account.address, COIN_TYPES.SUI, r.bigintBetween(1n, 100n) * MIST_PER_SUI + r.bigintBetween(0n, MIST_PER_SUI));
    if (index % 2 === 0 || isFaucet) {
      builder.coin(account.address, COIN_TYPES.USDC, r.bigintBetween(100n, 50_000n) * 1_000_000n);
      builder.coin(account.address, COIN_TYPES.USDC, r.bigintBetween(1n, 100n) * 1_000_000n);
    }
    if (index % 3 === 0) builder.coin(account.address, COIN_TYPES.WAL, r.bigintBetween(10n, 10_000n) * MIST_PER_SUI);
    if (index % 4 === 0) builder.coin(account.address, COIN_TYPES.DEEP, r.bigintBetween(10n, 10_000n) * 1_000_000n);
    if (index % 5 === 0) builder.coin(account.address, COIN_TYPES.MEME, r.bigintBetween(1n, 1_000_000n));
    // Address balances (funds held at the address, outside coin objects); alice and carol
    // fund the genesis allowances from theirs.
    if (index % 3 === 1 || index === 0 || index === 2) {
      ledger.adjustAddressBalance(account.address, COIN_TYPES.SUI, 50n * MIST_PER_SUI);
      ledger.adjustAddressBalance(account.address, COIN_TYPES.USDC, 2_500n * 1_000_000n);
    }
  }
}

function genesisCoinTypes(builder: GenesisBuilder, ledger: Ledger, deployer: string): void {
  const metadata: Record<string, { decimals: number; name: string; symbol: string; description: string; iconUrl?: string } | undefined> = {
    [COIN_TYPES.SUI]: { decimals: 9, name: 'Sui', symbol: 'SUI', description: '', iconUrl: undefined },
    [COIN_TYPES.USDC]: { decimals: 6, name: 'USDC', symbol: 'USDC', description: 'USDC is a US dollar-backed stablecoin (simnet stand-in).', iconUrl: 'https://simnet.invalid/coins/usdc.png' },
    [COIN_TYPES.WAL]: { decimals: 9, name: 'WAL Token', symbol: 'WAL', description: 'Storage token (simnet stand-in).', iconUrl: 'https://simnet.invalid/coins/wal.png' },
    [COIN_TYPES.DEEP]: { decimals: 6, name: 'DeepBook Token', symbol: 'DEEP', description: 'Order book token (simnet stand-in).', iconUrl: 'https://simnet.invalid/coins/deep.png' },
    [COIN_TYPES.MEME]: undefined,
  };
  const supply = new Map<string, bigint>();
  for (const object of builder.objects) if (object.coin) supply.set(object.coin.coinType, (supply.get(object.coin.coinType) ?? 0n) + object.coin.balance);
  for (const [coinType, meta] of Object.entries(metadata)) {
    let metadataRecord;
    if (meta) {
      const id = builder.newId();
      builder.add({
        objectId: id,
        type: `${SUI_FRAMEWORK}::coin::CoinMetadata<${coinType}>`,
        owner: { kind: 'immutable' },
        hasPublicTransfer: true,
        contents: MoveStructs.CoinMetadata.serialize({ id, decimals: meta.decimals, name: meta.name, symbol: meta.symbol, description: meta.description, iconUrl: meta.iconUrl ?? null }).toBytes(),
        json: { id, decimals: meta.decimals, name: meta.name, symbol: meta.symbol, description: meta.description, icon_url: meta.iconUrl ?? null },
      });
      metadataRecord = { objectId: id, ...meta };
    }
    const isSui = coinType === COIN_TYPES.SUI;
    const total = isSui ? 10_000_000_000n * MIST_PER_SUI : (supply.get(coinType) ?? 0n) + 1_000_000_000_000n;
    let treasuryCapId: string | undefined;
    if (!isSui) {
      treasuryCapId = builder.newId();
      builder.add({
        objectId: treasuryCapId,
        type: `${SUI_FRAMEWORK}::coin::TreasuryCap<${coinType}>`,
        owner: addressOwner(deployer),
        hasPublicTransfer: true,
        contents: MoveStructs.TreasuryCap.serialize({ id: treasuryCapId, totalSupply: total }).toBytes(),
        json: { id: treasuryCapId, total_supply: { value: total.toString() } },
      });
    }
    ledger.registerCoinType({ coinType, metadata: metadataRecord, treasuryCapId, totalSupply: total });
  }
}

function genesisStakes(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], validators: readonly ValidatorRecord[], currentEpoch: bigint): void {
  const r = rng.fork('stakes');
  for (const account of accounts.slice(0, 8)) {
    for (let i = 0; i < 1 + (account.label.length % 2); i++) {
      const validator = r.pick(validators);
      const id = builder.newId();
      const principal = r.bigintBetween(1n, 500n) * MIST_PER_SUI;
      const activation = currentEpoch - BigInt(1 + r.int(Number(currentEpoch) - 1));
      builder.add({
        objectId: id,
        type: OBJECT_TYPES.stakedSui,
        owner: addressOwner(account.address),
        hasPublicTransfer: true,
        contents: MoveStructs.StakedSui.serialize({ id, poolId: validator.stakingPoolId, stakeActivationEpoch: activation, principal }).toBytes(),
        json: { id, pool_id: validator.stakingPoolId, stake_activation_epoch: activation.toString(), principal: { value: principal.toString() } },
      });
    }
  }
}

function genesisCollectibles(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], deployer: string): void {
  const r = rng.fork('nfts');
  const displayId = builder.newId();
  const template = {
    name: '{name}',
    description: '{description}',
    image_url: '{image_url}',
    project_name: 'Simnet Sea Creatures',
    project_image_url: 'https://simnet.invalid/nft/collection.png',
    project_url: 'https://nft.simnet.invalid',
  };
  builder.add({
    objectId: displayId,
    type: `${SUI_FRAMEWORK}::display::Display<${OBJECT_TYPES.collectible}>`,
    owner: addressOwner(deployer),
    hasPublicTransfer: true,
    contents: MoveStructs.Display.serialize({ id: displayId, fields: Object.entries(template).map(([key, value]) => ({ key, value })), version: 1 }).toBytes(),
    json: { id: displayId, fields: { contents: Object.entries(template).map(([key, value]) => ({ key, value })) }, version: 1 },
  });
  const creatures = ['Octopus', 'Narwhal', 'Seahorse', 'Manta', 'Nautilus', 'Jellyfish', 'Orca', 'Axolotl'];
  let edition = 1n;
  for (const account of accounts.slice(0, 12)) {
    for (let i = 0; i < 1 + r.int(3); i++) {
      const id = builder.newId();
      const name = `${r.pick(creatures)} #${edition}`;
      const description = `A simulated sea creature, edition ${edition}.`;
      const imageUrl = `https://simnet.invalid/nft/${edition}.png`;
      builder.add({
        objectId: id,
        type: OBJECT_TYPES.collectible,
        owner: addressOwner(account.address),
        hasPublicTransfer: true,
        contents: MoveStructs.Collectible.serialize({ id, name, description, imageUrl, edition }).toBytes(),
        json: { id, name, description, image_url: imageUrl, edition: edition.toString() },
        display: { name, description, image_url: imageUrl, project_name: template.project_name, project_image_url: template.project_image_url, project_url: template.project_url },
      });
      edition++;
    }
  }
}

function genesisNames(builder: GenesisBuilder, ledger: Ledger, accounts: readonly GenesisAccount[], nowMs: bigint): void {
  const registryId = builder.newId();
  const year = 365n * DAY_MS;
  const entries: { label: string; owner: GenesisAccount; target?: string; expires: bigint; isDefault: boolean; avatar?: string; contentHash?: string }[] = [];
  for (const [index, account] of accounts.slice(0, 10).entries()) {
    entries.push({ label: account.label, owner: account, target: account.address, expires: nowMs + year * BigInt(1 + (index % 3)), isDefault: index < 6, avatar: index % 2 === 0 ? `https://simnet.invalid/avatars/${account.label}.png` : undefined, contentHash: index === 0 ? 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi' : undefined });
  }
  entries.push({ label: 'shop.alice', owner: accounts[0]!, target: accounts[0]!.address, expires: nowMs + year, isDefault: false });
  entries.push({ label: 'expired', owner: accounts[1]!, target: accounts[1]!.address, expires: nowMs - 30n * DAY_MS, isDefault: false });
  entries.push({ label: 'unlinked', owner: accounts[2]!, expires: nowMs + year, isDefault: false });
  for (const entry of entries) {
    const nftId = builder.newId();
    const name = `${entry.label}.sui`;
    const imageUrl = `https://simnet.invalid/suins/${entry.label}.svg`;
    builder.add({
      objectId: nftId,
      type: OBJECT_TYPES.suinsRegistration,
      owner: addressOwner(entry.owner.address),
      hasPublicTransfer: true,
      contents: MoveStructs.SuinsRegistration.serialize({ id: nftId, domainName: name, expirationTimestampMs: entry.expires, imageUrl }).toBytes(),
      json: { id: nftId, domain_name: name, expiration_timestamp_ms: entry.expires.toString(), image_url: imageUrl },
      display: { name, image_url: imageUrl, description: `SuiNS name ${name}`, project_name: 'SuiNS (simnet)', project_image_url: 'https://simnet.invalid/suins/logo.png' },
    });
    ledger.registerName(
      { name, targetAddress: entry.target, expirationTimestampMs: entry.expires, nftId, registryId, avatar: entry.avatar, contentHash: entry.contentHash },
      entry.isDefault ? entry.target : undefined,
    );
  }
}

function monthOf(timestampMs: bigint): number {
  const date = new Date(Number(timestampMs));
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}

function genesisAllowances(builder: GenesisBuilder, ledger: Ledger, accounts: readonly GenesisAccount[], nowMs: bigint): void {
  const specs = [
    { funder: 0, spender: 1, coinType: COIN_TYPES.USDC, lifetimeCap: 1_000n * 1_000_000n, monthlyLimit: 100n * 1_000_000n, expires: nowMs + 90n * DAY_MS, app: undefined },
    { funder: 0, spender: 2, coinType: COIN_TYPES.USDC, lifetimeCap: 50n * 1_000_000n, monthlyLimit: 0n, expires: undefined, app: `${CATALOG.lendingPackage}::lending::Market` },
    { funder: 2, spender: 3, coinType: COIN_TYPES.SUI, lifetimeCap: 20n * MIST_PER_SUI, monthlyLimit: 5n * MIST_PER_SUI, expires: nowMs - DAY_MS, app: undefined },
  ];
  for (const spec of specs) {
    const id = builder.newId();
    const funder = accounts[spec.funder]!.address;
    const spender = accounts[spec.spender]!.address;
    const month = monthOf(nowMs);
    builder.add({
      objectId: id,
      type: OBJECT_TYPES.allowance(spec.coinType),
      owner: { kind: 'shared', initialSharedVersion: 1n },
      hasPublicTransfer: false,
      contents: MoveStructs.Allowance.serialize({ id, funder, spender, app: spec.app ?? null, lifetimeCap: spec.lifetimeCap, lifetimeSpent: 0n, monthlyLimit: spec.monthlyLimit, month, monthSpent: 0n, expirationMs: spec.expires ?? null }).toBytes(),
      json: { id, funder, spender, app: spec.app ?? null, lifetime_cap: spec.lifetimeCap.toString(), lifetime_spent: '0', monthly_limit: spec.monthlyLimit.toString(), month, month_spent: '0', expiration_ms: spec.expires?.toString() ?? null },
    });
    ledger.putAllowance({ objectId: id, coinType: spec.coinType, funder, spender, app: spec.app, lifetimeCap: spec.lifetimeCap, lifetimeSpent: 0n, monthlyLimit: spec.monthlyLimit, month, monthSpent: 0n, expirationTimestampMs: spec.expires });
  }
}

function genesisProtocolObjects(builder: GenesisBuilder, genesisMs: bigint): void {
  // The clock's contents stay at genesis time: executing code reads the simulated clock instead.
  builder.add({
    objectId: CLOCK_ID,
    type: `${SUI_FRAMEWORK}::clock::Clock`,
    owner: { kind: 'shared', initialSharedVersion: 1n },
    hasPublicTransfer: false,
    contents: bcs.struct('Clock', { id: bcs.Address, timestampMs: bcs.u64() }).serialize({ id: CLOCK_ID, timestampMs: genesisMs }).toBytes(),
    json: { id: CLOCK_ID, timestamp_ms: genesisMs.toString() },
  });
  const pools: [string, string, bigint, bigint][] = [
    [COIN_TYPES.SUI, COIN_TYPES.USDC, 5_000_000n * MIST_PER_SUI, 17_500_000n * 1_000_000n],
    [COIN_TYPES.DEEP, COIN_TYPES.USDC, 80_000_000n * 1_000_000n, 3_200_000n * 1_000_000n],
  ];
  for (const [a, b, reserveA, reserveB] of pools) {
    const id = builder.newId();
    builder.add({
      objectId: id,
      type: OBJECT_TYPES.pool(a, b),
      owner: { kind: 'shared', initialSharedVersion: 1n },
      hasPublicTransfer: false,
      contents: MoveStructs.Pool.serialize({ id, reserveA, reserveB, feeBps: 30n }).toBytes(),
      json: { id, reserve_a: reserveA.toString(), reserve_b: reserveB.toString(), fee_bps: '30' },
    });
  }
  const marketId = builder.newId();
  builder.add({
    objectId: marketId,
    type: `${CATALOG.lendingPackage}::lending::Market`,
    owner: { kind: 'shared', initialSharedVersion: 1n },
    hasPublicTransfer: false,
    contents: MoveStructs.Market.serialize({ id: marketId, totalDeposits: 0n }).toBytes(),
    json: { id: marketId, total_deposits: '0' },
  });
}

function buildSystemState(validators: ValidatorRecord[], epoch: bigint, epochStartMs: bigint): SystemStateRecord {
  return {
    version: 2n,
    epoch,
    protocolVersion: PROTOCOL_VERSION,
    referenceGasPrice: REFERENCE_GAS_PRICE,
    epochStartTimestampMs: epochStartMs,
    epochDurationMs: DAY_MS,
    safeMode: false,
    storageFundTotalObjectStorageRebates: 1_200_000n * MIST_PER_SUI,
    storageFundNonRefundableBalance: 40_000n * MIST_PER_SUI,
    stakeSubsidyBalance: 2_500_000_000n * MIST_PER_SUI,
    stakeSubsidyDistributionCounter: epoch,
    stakeSubsidyCurrentDistributionAmount: 1_000_000n * MIST_PER_SUI,
    stakeSubsidyPeriodLength: 10n,
    stakeSubsidyDecreaseRate: 1000,
    stakeSubsidyStartEpoch: 0n,
    maxValidatorCount: 150n,
    minValidatorCount: 4n,
    minValidatorJoiningStake: 30_000_000n * MIST_PER_SUI,
    validatorLowStakeThreshold: 20_000_000n * MIST_PER_SUI,
    validatorVeryLowStakeThreshold: 15_000_000n * MIST_PER_SUI,
    validatorLowStakeGracePeriod: 7n,
    totalStake: validators.reduce((sum, v) => sum + v.stakingPoolSuiBalance, 0n),
    validators,
  };
}

/**
 * Builds a ledger from a seed: genesis objects in one genesis transaction, sealed as
 * checkpoint 0 (whose digest is the chain id).
 */
export function createLedger(options: LedgerOptions = {}): Ledger {
  const ledger = new Ledger(options);
  const rng = new SeededRandom(ledger.seed);
  const clock = rng.fork('clock');
  const currentEpoch = BigInt(20 + clock.int(40));
  const genesisMs = BASE_TIMESTAMP_MS + BigInt(clock.int(365)) * DAY_MS + BigInt(clock.int(86_400)) * 1000n;
  const epochStartMs = genesisMs - BigInt(clock.int(20 * 3600)) * 1000n;
  ledger.genesisTimestampMs = genesisMs;

  const accounts = deriveAccounts(ledger.seed);
  ledger.accounts = accounts;
  const deployer = accounts.find((account) => account.label === 'deployer')!.address;

  const builder = new GenesisBuilder(rng);
  builder.package(SUI_FRAMEWORK, FRAMEWORK_MODULES);
  builder.package(SUI_SYSTEM, SYSTEM_MODULES);
  for (const pkg of protocolPackages()) builder.package(pkg.packageId, pkg.modules);

  const validators = withVotingPower(buildValidators(rng, builder, currentEpoch));
  genesisCoins(rng, builder, accounts, ledger);
  genesisCoinTypes(builder, ledger, deployer);
  genesisStakes(rng, builder, accounts, validators, currentEpoch);
  genesisCollectibles(rng, builder, accounts, deployer);
  genesisNames(builder, ledger, accounts, genesisMs);
  genesisAllowances(builder, ledger, accounts, genesisMs);
  genesisProtocolObjects(builder, genesisMs);

  const epochs: EpochRecord[] = [];
  for (let epoch = 0n; epoch <= currentEpoch; epoch++) {
    const start = epochStartMs - (currentEpoch - epoch) * DAY_MS;
    epochs.push({
      epoch,
      startTimestampMs: start,
      endTimestampMs: epoch === currentEpoch ? undefined : start + DAY_MS,
      firstCheckpoint: epoch === currentEpoch ? 0n : undefined,
      referenceGasPrice: REFERENCE_GAS_PRICE,
      protocolVersion: PROTOCOL_VERSION - (currentEpoch - epoch) / 10n,
    });
  }
  ledger.setSystem(buildSystemState(validators, currentEpoch, epochStartMs), buildProtocolConfig(), epochs);

  writeGenesisTransaction(ledger, builder, currentEpoch);
  ledger.sealCheckpoint();
  return ledger;
}

function writeGenesisTransaction(ledger: Ledger, builder: GenesisBuilder, epoch: bigint): void {
  const rawObjects = [
    ...builder.packages.map((pkg) => ({ RawObject: { data: packageData(pkg), owner: { Immutable: true } } })),
    ...builder.objects.map((object) => ({
      RawObject: { data: moveObjectData({ ...object, version: 1n }), owner: ownerToBcs(object.owner) },
    })),
  ];
  const txBcs = bcs.TransactionData.serialize({
    V1: {
      kind: { Genesis: { objects: rawObjects } },
      sender: ZERO_ADDRESS,
      gasData: { payment: [], owner: ZERO_ADDRESS, price: 1n, budget: 0n },
      expiration: { None: true },
    },
  } as Parameters<typeof bcs.TransactionData.serialize>[0]).toBytes();
  const digest = suiDigest('TransactionData', txBcs);

  const written = [
    ...builder.packages.map((pkg) => encodePackage({ ...pkg, previousTransaction: digest, storageRebate: 0n })),
    ...builder.objects.map((object) => encodeMoveObject({ ...object, version: 1n, previousTransaction: digest, storageRebate: STORAGE_REBATE_PER_OBJECT })),
  ];
  for (const record of written) ledger.putObject(record);

  const effects = buildEffects({
    status: { success: true },
    epoch,
    gasUsed: { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n },
    transactionDigest: digest,
    dependencies: [],
    lamportVersion: 1n,
    changedObjects: written.map((record) => ({
      objectId: record.objectId,
      objectType: record.type,
      output: { version: record.version, digest: record.digest, owner: record.owner },
      idOperation: 'created' as const,
      isPackage: record.type === 'package',
    })),
  });
  const balanceChanges: BalanceChangeRecord[] = [...builder.balanceChanges.entries()].map(([key, amount]) => {
    const [address, coinType] = key.split('|') as [string, string];
    return { address, coinType, amount };
  });
  const affectedAddresses = new Set<string>();
  for (const record of written) if (record.owner.kind === 'address') affectedAddresses.add(record.owner.address);
  ledger.addTransaction({
    digest,
    bcs: txBcs,
    sender: ZERO_ADDRESS,
    gasOwner: ZERO_ADDRESS,
    gasPayment: [],
    gasPrice: 1n,
    gasBudget: 0n,
    kind: 'genesis',
    signatures: [],
    effects,
    events: [],
    balanceChanges,
    affectedAddresses: [...affectedAddresses].sort(),
    affectedObjects: written.map((record) => record.objectId),
  });
}
