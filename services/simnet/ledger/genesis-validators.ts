import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID } from '@mysten/sui/utils';
import { MIST_PER_SUI, SUI_FRAMEWORK, SUI_SYSTEM } from './constants.js';
import { REFERENCE_GAS_PRICE } from './genesis-builder.js';
import type { GenesisBuilder } from './genesis-builder.js';
import type { SeededRandom } from './hashing.js';
import { MoveStructs } from './move-values.js';
import type { ExchangeRateRecord, ValidatorRecord } from './types.js';

const VALIDATOR_NAMES = ['Mysticeti Labs', 'Blue Whale Staking', 'Narwhal Node', 'Coral Reef Validators', 'Abyssal Infra', 'Tidepool Capital'];

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

export function buildValidators(rng: SeededRandom, builder: GenesisBuilder, currentEpoch: bigint): ValidatorRecord[] {
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

export function withVotingPower(validators: ValidatorRecord[]): ValidatorRecord[] {
  const total = validators.reduce((sum, v) => sum + v.stakingPoolSuiBalance, 0n);
  let assigned = 0n;
  return validators.map((validator, index) => {
    const power = index === validators.length - 1 ? 10_000n - assigned : (validator.stakingPoolSuiBalance * 10_000n) / total;
    assigned += power;
    return { ...validator, votingPower: power };
  });
}
