import { allowanceObjectState, monthOf } from './allowance-state.js';
import { BILLING_TREASURY, CATALOG, COIN_TYPES, OBJECT_TYPES } from './catalog.js';
import { CLOCK_ID, MIST_PER_SUI, SUI_FRAMEWORK } from './constants.js';
import { DAY_MS, addressOwner } from './genesis-builder.js';
import type { GenesisBuilder } from './genesis-builder.js';
import type { SeededRandom } from './hashing.js';
import type { GenesisAccount, Ledger } from './ledger.js';
import { MoveStructs } from './move-values.js';
import type { AllowanceRecord, ValidatorRecord } from './types.js';
import { bcs } from '@mysten/sui/bcs';

/** Coins, coin types, stakes, NFTs, names, allowances and protocol objects of genesis. */
export function genesisCoins(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], ledger: Ledger): void {
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

export function genesisCoinTypes(builder: GenesisBuilder, ledger: Ledger, deployer: string): void {
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

export function genesisStakes(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], validators: readonly ValidatorRecord[], currentEpoch: bigint): void {
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

export function genesisCollectibles(rng: SeededRandom, builder: GenesisBuilder, accounts: readonly GenesisAccount[], deployer: string): void {
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

export function genesisNames(builder: GenesisBuilder, ledger: Ledger, accounts: readonly GenesisAccount[], nowMs: bigint): void {
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

export function genesisAllowances(builder: GenesisBuilder, ledger: Ledger, accounts: readonly GenesisAccount[], nowMs: bigint): void {
  const specs = [
    { funder: 0, spender: 1, coinType: COIN_TYPES.USDC, lifetimeCap: 1_000n * 1_000_000n, monthlyLimit: 100n * 1_000_000n, expires: nowMs + 90n * DAY_MS, app: undefined },
    { funder: 0, spender: 2, coinType: COIN_TYPES.USDC, lifetimeCap: 50n * 1_000_000n, monthlyLimit: 0n, expires: undefined, app: `${CATALOG.lendingPackage}::lending::Market` },
    { funder: 2, spender: 3, coinType: COIN_TYPES.SUI, lifetimeCap: 20n * MIST_PER_SUI, monthlyLimit: 5n * MIST_PER_SUI, expires: nowMs - DAY_MS, app: undefined },
  ];
  for (const spec of specs) {
    const id = builder.newId();
    const record: AllowanceRecord = {
      objectId: id, coinType: spec.coinType, funder: accounts[spec.funder]!.address, spender: accounts[spec.spender]!.address, app: spec.app,
      lifetimeCap: spec.lifetimeCap, lifetimeSpent: 0n, monthlyLimit: spec.monthlyLimit, month: monthOf(nowMs), monthSpent: 0n, expirationTimestampMs: spec.expires,
      name: '', startMs: 0n, windowMonths: 1, windowStartMs: 0n,
    };
    builder.add({ objectId: id, type: OBJECT_TYPES.allowance(spec.coinType), owner: { kind: 'shared', initialSharedVersion: 1n }, hasPublicTransfer: false, ...allowanceObjectState(record) });
    ledger.putAllowance(record);
  }
}

/**
 * The billing app's shared config (move/suigw_billing): `deployer` is the spender (the service's
 * sponsor key in `suigw dev` and the tests), the treasury an address nobody holds a key to.
 */
export function genesisBillingConfig(builder: GenesisBuilder, deployer: string): void {
  const id = CATALOG.billingConfig;
  const treasury = BILLING_TREASURY;
  builder.add({
    objectId: id,
    type: OBJECT_TYPES.billingConfig,
    owner: { kind: 'shared', initialSharedVersion: 1n },
    hasPublicTransfer: false,
    contents: MoveStructs.BillingConfig.serialize({ id, spender: deployer, treasury }).toBytes(),
    json: { id, spender: deployer, treasury },
  });
}

export function genesisProtocolObjects(builder: GenesisBuilder, genesisMs: bigint): void {
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
