import { bcs } from '@mysten/sui/bcs';
import type { GenesisAccount, Ledger, ObjectRecord } from '../ledger/index.js';
import { CATALOG, COIN_TYPES, OBJECT_TYPES } from '../ledger/catalog.js';
import type { SeededRandom } from '../ledger/hashing.js';

type CallArgInput = Parameters<typeof bcs.CallArg.serialize>[0];
type CommandInput = Parameters<typeof bcs.Command.serialize>[0];

/** One generated programmable transaction, not yet signed. */
export interface PlannedTransaction {
  readonly kind: string;
  readonly sender: GenesisAccount;
  readonly bytes: Uint8Array;
}

const GAS_BUDGET = 50_000_000n;
const GAS_COINS_SMASHED = 8;
const USDC_COINS_MERGED = 4;

/** Gas coins of one transaction, largest first. */
type GasPayment = readonly ObjectRecord[];

const pure = {
  u64: (value: bigint): CallArgInput => ({ Pure: { bytes: bcs.u64().serialize(value).toBytes() } }),
  address: (value: string): CallArgInput => ({ Pure: { bytes: bcs.Address.serialize(value).toBytes() } }),
};

function owned(object: ObjectRecord): CallArgInput {
  return { Object: { ImmOrOwnedObject: { objectId: object.objectId, version: object.version, digest: object.digest } } };
}

function shared(objectId: string): CallArgInput {
  return { Object: { SharedObject: { objectId, initialSharedVersion: 1n, mutable: true } } };
}

/** Finds genesis objects of a type (pools, markets) from the genesis transaction's effects. */
export function genesisObjectOfType(ledger: Ledger, type: string): string | undefined {
  const genesis = ledger.checkpointTransactions(0n)[0];
  return genesis?.effects.changedObjects.find((change) => change.objectType === type)?.objectId;
}

/**
 * Plans activity of the kinds a real network shows: SUI and USDC transfers, address-balance
 * deposits, NFT ownership changes, DEX swaps (generic SwapEvent) and lending deposits (plain and
 * envelope-wrapped events). Choices come from the seeded random source, so the same seed and
 * the same submitted transactions give the same chain.
 */
export class ActivityPlanner {
  readonly #ledger: Ledger;
  readonly #random: SeededRandom;
  readonly #senders: readonly GenesisAccount[];
  readonly #recipients: readonly GenesisAccount[];
  readonly #pool?: string;
  readonly #market?: string;

  constructor(ledger: Ledger, random: SeededRandom, senders: readonly GenesisAccount[], recipients: readonly GenesisAccount[]) {
    this.#ledger = ledger;
    this.#random = random;
    this.#senders = senders;
    this.#recipients = recipients;
    this.#pool = genesisObjectOfType(ledger, OBJECT_TYPES.pool(COIN_TYPES.SUI, COIN_TYPES.USDC));
    this.#market = genesisObjectOfType(ledger, `${CATALOG.lendingPackage}::lending::Market`);
  }

  plan(): PlannedTransaction | undefined {
    const sender = this.#random.pick(this.#senders);
    // Pay gas with up to GAS_COINS_SMASHED of the sender's SUI coins, as wallets do: gas smashing
    // merges them, so an account's coin count stays bounded however many transfers it receives.
    const gas = this.#ledger.listCoins(sender.address, COIN_TYPES.SUI, { limit: GAS_COINS_SMASHED }).items;
    if (gas.length === 0 || gas[0]!.coin!.balance < GAS_BUDGET * 4n) return undefined;
    const usdcCoins = this.#ledger.listCoins(sender.address, COIN_TYPES.USDC, { limit: USDC_COINS_MERGED }).items;
    const usdc = usdcCoins[0];
    const recipient = this.#random.pick(this.#recipients.filter((account) => account.address !== sender.address));
    const roll = this.#random.int(100);
    if (roll < 30) return this.#suiTransfer(sender, gas, recipient);
    if (roll < 45 && usdc && usdc.coin!.balance > 1_000_000n) return this.#usdcTransfer(sender, gas, usdcCoins, recipient);
    if (roll < 60 && this.#pool) return this.#swap(sender, gas);
    if (roll < 72 && this.#market && usdc && usdc.coin!.balance > 1_000_000n) return this.#deposit(sender, gas, usdc);
    if (roll < 84) return this.#collectible(sender, gas, recipient) ?? this.#suiTransfer(sender, gas, recipient);
    return this.#addressDeposit(sender, gas, recipient);
  }

  #build(kind: string, sender: GenesisAccount, gas: GasPayment, inputs: CallArgInput[], commands: CommandInput[]): PlannedTransaction {
    const bytes = bcs.TransactionData.serialize({
      V1: {
        kind: { ProgrammableTransaction: { inputs, commands } },
        sender: sender.address,
        gasData: { payment: gas.map((coin) => ({ objectId: coin.objectId, version: coin.version, digest: coin.digest })), owner: sender.address, price: this.#ledger.referenceGasPrice(), budget: GAS_BUDGET },
        expiration: { None: true },
      },
    }).toBytes();
    return { kind, sender, bytes };
  }

  #amount(min: bigint, max: bigint): bigint {
    return this.#random.bigintBetween(min, max);
  }

  #suiTransfer(sender: GenesisAccount, gas: GasPayment, recipient: GenesisAccount): PlannedTransaction {
    return this.#build('sui-transfer', sender, gas, [pure.u64(this.#amount(1_000_000n, 2_000_000_000n)), pure.address(recipient.address)], [
      { SplitCoins: { coin: { GasCoin: true }, amounts: [{ Input: 0 }] } },
      { TransferObjects: { objects: [{ NestedResult: [0, 0] }], address: { Input: 1 } } },
    ]);
  }

  /** Merges the sender's other USDC coins into the largest first, as wallets do, then pays from it. */
  #usdcTransfer(sender: GenesisAccount, gas: GasPayment, usdcCoins: readonly ObjectRecord[], recipient: GenesisAccount): PlannedTransaction {
    const [usdc, ...rest] = usdcCoins;
    const amount = this.#amount(1n, usdc!.coin!.balance / 10n + 1n);
    const merge: CommandInput[] = rest.length === 0 ? [] : [{ MergeCoins: { destination: { Input: 0 }, sources: rest.map((_, i) => ({ Input: 3 + i })) } }];
    return this.#build('usdc-transfer', sender, gas, [owned(usdc!), pure.u64(amount), pure.address(recipient.address), ...rest.map(owned)], [
      ...merge,
      { SplitCoins: { coin: { Input: 0 }, amounts: [{ Input: 1 }] } },
      { TransferObjects: { objects: [{ NestedResult: [merge.length, 0] }], address: { Input: 2 } } },
    ]);
  }

  #swap(sender: GenesisAccount, gas: GasPayment): PlannedTransaction {
    return this.#build('dex-swap', sender, gas, [shared(this.#pool!), pure.u64(this.#amount(10_000_000n, 5_000_000_000n)), pure.u64(0n), pure.address(sender.address)], [
      { SplitCoins: { coin: { GasCoin: true }, amounts: [{ Input: 1 }] } },
      { MoveCall: { package: CATALOG.dexPackage, module: 'pool', function: 'swap_a_to_b', typeArguments: [COIN_TYPES.SUI, COIN_TYPES.USDC], arguments: [{ Input: 0 }, { NestedResult: [0, 0] }, { Input: 2 }] } },
      { TransferObjects: { objects: [{ Result: 1 }], address: { Input: 3 } } },
    ]);
  }

  #deposit(sender: GenesisAccount, gas: GasPayment, usdc: ObjectRecord): PlannedTransaction {
    const amount = this.#amount(1n, usdc.coin!.balance / 10n + 1n);
    return this.#build('lending-deposit', sender, gas, [shared(this.#market!), owned(usdc), pure.u64(amount)], [
      { SplitCoins: { coin: { Input: 1 }, amounts: [{ Input: 2 }] } },
      { MoveCall: { package: CATALOG.lendingPackage, module: 'lending', function: 'deposit', typeArguments: [COIN_TYPES.USDC], arguments: [{ Input: 0 }, { NestedResult: [0, 0] }] } },
    ]);
  }

  #collectible(sender: GenesisAccount, gas: GasPayment, recipient: GenesisAccount): PlannedTransaction | undefined {
    const item = this.#ledger.listOwnedObjects(sender.address, { type: OBJECT_TYPES.collectible }, { limit: 1 }).items[0];
    if (!item) return undefined;
    if (this.#random.int(2) === 0) {
      return this.#build('nft-transfer', sender, gas, [owned(item), pure.address(recipient.address)], [{ TransferObjects: { objects: [{ Input: 0 }], address: { Input: 1 } } }]);
    }
    const name = `Renamed #${this.#random.int(1_000_000)}`;
    return this.#build('nft-rename', sender, gas, [owned(item), { Pure: { bytes: bcs.string().serialize(name).toBytes() } }], [
      { MoveCall: { package: CATALOG.nftPackage, module: 'collectible', function: 'rename', typeArguments: [], arguments: [{ Input: 0 }, { Input: 1 }] } },
    ]);
  }

  #addressDeposit(sender: GenesisAccount, gas: GasPayment, recipient: GenesisAccount): PlannedTransaction {
    return this.#build('address-balance-deposit', sender, gas, [pure.u64(this.#amount(1_000_000n, 500_000_000n)), pure.address(recipient.address)], [
      { SplitCoins: { coin: { GasCoin: true }, amounts: [{ Input: 0 }] } },
      { MoveCall: { package: '0x2', module: 'coin', function: 'send_funds', typeArguments: [COIN_TYPES.SUI], arguments: [{ NestedResult: [0, 0] }, { Input: 1 }] } },
    ]);
  }
}
