import { Transaction } from '@mysten/sui/transactions';
import { fromBase58, fromBase64, normalizeSuiAddress } from '@mysten/sui/utils';
import { SUI_COIN_TYPE, coinObjectType } from '../ledger/constants.js';
import { buildEffects } from '../ledger/effects-encoding.js';
import { blake2b256 } from '../ledger/hashing.js';
import type { Ledger, ObjectRecord, TransactionRecord } from '../ledger/index.js';
import { coinContents, encodeMoveObject, rewriteObject } from '../ledger/object-encoding.js';

/** Sui's `HashingIntentScope::RegularObjectId`, the domain of ids derived from a transaction. */
const REGULAR_OBJECT_ID_SCOPE = 0xf1;
/** What one new coin object costs in storage, and the fixed computation units of a transfer. */
const COIN_STORAGE_COST = 988_000n;
const TRANSFER_COMPUTATION_UNITS = 1_000n;
const GAS_BUDGET = 50_000_000n;

export class FaucetError extends Error {}

export interface FaucetTransfer {
  readonly transaction: TransactionRecord;
  readonly coinId: string;
}

/** `ObjectID::derive_id(tx_digest, creation_num)`. */
function deriveObjectId(txDigest: Uint8Array, creationNumber: bigint): string {
  const input = new Uint8Array(1 + 32 + 8);
  input[0] = REGULAR_OBJECT_ID_SCOPE;
  input.set(txDigest, 1);
  new DataView(input.buffer).setBigUint64(33, creationNumber, true);
  return normalizeSuiAddress(Buffer.from(blake2b256(input)).toString('hex'));
}

function coinJson(objectId: string, balance: bigint) {
  return { id: objectId, balance: balance.toString() };
}

/**
 * Sends `amount` MIST from the faucet account to `recipient` as Sui would: the faucet signs the
 * programmable transaction `SplitCoins(Gas, [amount]); TransferObjects([r0], recipient)` paying
 * gas with its largest SUI coin; the ledger gets the new coin, the mutated gas coin and the
 * transaction (effects in BCS with real digests). It is sealed with the next checkpoint.
 */
export async function sendFromFaucet(ledger: Ledger, recipient: string, amount: bigint): Promise<FaucetTransfer> {
  const faucet = ledger.accounts.find((account) => account.label === 'faucet');
  if (!faucet) throw new FaucetError('this ledger has no faucet account');
  const [gasCoin] = ledger.listCoins(faucet.address, SUI_COIN_TYPE, { limit: 1 }).items;
  const gasPrice = ledger.referenceGasPrice();
  const computationCost = TRANSFER_COMPUTATION_UNITS * gasPrice;
  if (!gasCoin?.coin || gasCoin.coin.balance < amount + GAS_BUDGET) throw new FaucetError('the faucet is out of SUI');

  const tx = new Transaction();
  tx.setSender(faucet.address);
  tx.setGasPrice(gasPrice);
  tx.setGasBudget(GAS_BUDGET);
  tx.setGasPayment([{ objectId: gasCoin.objectId, version: gasCoin.version.toString(), digest: gasCoin.digest }]);
  const [coin] = tx.splitCoins(tx.gas, [amount]);
  tx.transferObjects([coin!], recipient);
  const bytes = await tx.build();
  const { signature } = await faucet.keypair.signTransaction(bytes);
  const digest = await tx.getDigest();

  const lamportVersion = gasCoin.version + 1n;
  const coinId = deriveObjectId(fromBase58(digest), 0n);
  const storageRebate = (COIN_STORAGE_COST * 99n) / 100n;
  const gasUsed = { computationCost, storageCost: 2n * COIN_STORAGE_COST, storageRebate: gasCoin.storageRebate, nonRefundableStorageFee: gasCoin.storageRebate / 99n };
  const netGas = gasUsed.computationCost + gasUsed.storageCost - gasUsed.storageRebate;
  const gasBalance = gasCoin.coin.balance - amount - netGas;

  const newGasCoin = rewriteObject(gasCoin, {
    version: lamportVersion,
    previousTransaction: digest,
    contents: coinContents(gasCoin.objectId, gasBalance),
    json: coinJson(gasCoin.objectId, gasBalance),
    coin: { coinType: SUI_COIN_TYPE, balance: gasBalance },
  });
  const newCoin: ObjectRecord = encodeMoveObject({
    objectId: coinId,
    version: lamportVersion,
    type: coinObjectType(SUI_COIN_TYPE),
    owner: { kind: 'address', address: normalizeSuiAddress(recipient) },
    previousTransaction: digest,
    storageRebate,
    hasPublicTransfer: true,
    contents: coinContents(coinId, amount),
    json: coinJson(coinId, amount),
    coin: { coinType: SUI_COIN_TYPE, balance: amount },
  });

  const effects = buildEffects({
    status: { success: true },
    epoch: ledger.currentEpoch().epoch,
    gasUsed,
    transactionDigest: digest,
    gasObjectId: gasCoin.objectId,
    dependencies: [gasCoin.previousTransaction],
    lamportVersion,
    changedObjects: [
      {
        objectId: gasCoin.objectId,
        objectType: gasCoin.type,
        input: { version: gasCoin.version, digest: gasCoin.digest, owner: gasCoin.owner },
        output: { version: lamportVersion, digest: newGasCoin.digest, owner: newGasCoin.owner },
        idOperation: 'none',
      },
      {
        objectId: coinId,
        objectType: newCoin.type,
        output: { version: lamportVersion, digest: newCoin.digest, owner: newCoin.owner },
        idOperation: 'created',
      },
    ],
  });

  const to = normalizeSuiAddress(recipient);
  const transaction: TransactionRecord = {
    digest,
    bcs: bytes,
    sender: faucet.address,
    gasOwner: faucet.address,
    gasPayment: [{ objectId: gasCoin.objectId, version: gasCoin.version, digest: gasCoin.digest }],
    gasPrice,
    gasBudget: GAS_BUDGET,
    kind: 'programmable',
    signatures: [{ bytes: fromBase64(signature), scheme: 'ed25519' }],
    effects,
    events: [],
    balanceChanges: [
      { address: faucet.address, coinType: SUI_COIN_TYPE, amount: -(amount + netGas) },
      { address: to, coinType: SUI_COIN_TYPE, amount },
    ],
    affectedAddresses: [...new Set([faucet.address, to])],
    affectedObjects: [gasCoin.objectId, coinId],
  };
  ledger.putObject(newGasCoin);
  ledger.putObject(newCoin);
  ledger.addTransaction(transaction);
  return { transaction, coinId };
}
