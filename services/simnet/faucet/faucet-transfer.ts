import { Transaction } from '@mysten/sui/transactions';
import { fromBase64 } from '@mysten/sui/utils';
import { Executor, TransactionRejected, submitTransaction } from '../execution/index.js';
import { SUI_COIN_TYPE } from '../ledger/constants.js';
import type { Ledger, TransactionRecord } from '../ledger/index.js';

const GAS_BUDGET = 50_000_000n;

export class FaucetError extends Error {}

export interface FaucetTransfer {
  readonly transaction: TransactionRecord;
  readonly coinId: string;
}

/**
 * Sends `amount` MIST from the ledger's `faucet` account to `recipient` as Sui's faucet does: it
 * signs `SplitCoins(Gas, [amount]); TransferObjects([r0], recipient)`, paying gas with its
 * largest SUI coin, and submits it the way every API does (`execution/`'s submitTransaction). The transfer is sealed with the next
 * checkpoint.
 */
export async function sendFromFaucet(ledger: Ledger, recipient: string, amount: bigint, executor: Executor = new Executor(ledger), coinType: string = SUI_COIN_TYPE): Promise<FaucetTransfer> {
  const faucet = ledger.accounts.find((account) => account.label === 'faucet');
  if (!faucet) throw new FaucetError('this ledger has no faucet account');
  const [gasCoin] = ledger.listCoins(faucet.address, SUI_COIN_TYPE, { limit: 1 }).items;
  const sui = coinType === SUI_COIN_TYPE;
  if (!gasCoin?.coin || gasCoin.coin.balance < (sui ? amount : 0n) + GAS_BUDGET) throw new FaucetError('the faucet is out of SUI');
  // Another coin (USDC, for trying on-chain billing): split from the faucet's largest coin of it.
  const [source] = sui ? [] : ledger.listCoins(faucet.address, coinType, { limit: 1 }).items;
  if (!sui && (!source?.coin || source.coin.balance < amount)) throw new FaucetError(`the faucet is out of ${coinType}`);

  const tx = new Transaction();
  tx.setSender(faucet.address);
  tx.setGasPrice(ledger.referenceGasPrice());
  tx.setGasBudget(GAS_BUDGET);
  tx.setGasPayment([{ objectId: gasCoin.objectId, version: gasCoin.version.toString(), digest: gasCoin.digest }]);
  const [coin] = tx.splitCoins(source ? tx.objectRef({ objectId: source.objectId, version: source.version.toString(), digest: source.digest }) : tx.gas, [amount]);
  tx.transferObjects([coin!], recipient);
  const bytes = await tx.build();
  const { signature } = await faucet.keypair.signTransaction(bytes);

  let transaction: TransactionRecord;
  try {
    transaction = await submitTransaction(ledger, executor, bytes, [fromBase64(signature)]);
  } catch (error) {
    if (error instanceof TransactionRejected) throw new FaucetError(`the faucet transfer was rejected: ${error.message}`);
    throw error;
  }
  const effects = transaction.effects;
  if (!effects.status.success) throw new FaucetError(`the faucet transfer failed: ${effects.status.failure.description}`);
  const created = effects.changedObjects.find((change) => change.idOperation === 'created');
  if (!created) throw new Error('faucet transfer created no coin');
  return { transaction, coinId: created.objectId };
}
