import { bcs } from '@mysten/sui/bcs';
import { deriveAccounts } from './accounts.js';
import { FRAMEWORK_MODULES, SYSTEM_MODULES, protocolPackages } from './catalog.js';
import { MIST_PER_SUI, SUI_FRAMEWORK, SUI_SYSTEM, ZERO_ADDRESS } from './constants.js';
import { buildEffects } from './effects-encoding.js';
import { genesisAllowances, genesisBillingConfig, genesisCoinTypes, genesisCoins, genesisCollectibles, genesisNames, genesisProtocolObjects, genesisStakes } from './genesis-assets.js';
import { BASE_TIMESTAMP_MS, DAY_MS, GenesisBuilder, PROTOCOL_VERSION, REFERENCE_GAS_PRICE, STORAGE_REBATE_PER_OBJECT } from './genesis-builder.js';
import { buildValidators, withVotingPower } from './genesis-validators.js';
import { SeededRandom, suiDigest } from './hashing.js';
import { Ledger } from './ledger.js';
import type { LedgerOptions } from './ledger.js';
import { encodeMoveObject, encodePackage, moveObjectData, ownerToBcs, packageData } from './object-encoding.js';
import type { BalanceChangeRecord, EpochRecord, ProtocolConfigRecord, SystemStateRecord, ValidatorRecord } from './types.js';

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
  const genesisMs = BASE_TIMESTAMP_MS + BigInt(clock.int(365)) * DAY_MS + BigInt(clock.int(86_400)) * 1000n + BigInt(options.genesisShiftMs ?? 0);
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
  genesisBillingConfig(builder, deployer);

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
