import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { MultiSigPublicKey } from '@mysten/sui/multisig';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { Transaction } from '@mysten/sui/transactions';
import { deriveDynamicFieldID, fromBase58, fromHex, toBase58, toHex } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, COIN_TYPES, EVENT_TYPES, startSimnet } from './index.js';
import { suiDigest } from './ledger/hashing.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;
let client: SuiGrpcClient;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'execution', checkpointIntervalMs: 100 });
  client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
});

afterAll(async () => {
  await simnet.stop();
});

const account = (label: string) => simnet.accounts.find((candidate) => candidate.label === label)!;

/**
 * A coin reservation ref, as the SDK's gas selection builds one for an address balance: the id of
 * the owner's SUI accumulator field XOR the chain id; the digest holds amount, epoch and magic.
 */
function reservation(owner: string, amount: bigint, epochOffset = 0n): { objectId: string; version: string; digest: string } {
  const key = TypeTagSerializer.parseFromStr('0x2::accumulator::Key<0x2::balance::Balance<0x2::sui::SUI>>');
  const field = fromHex(deriveDynamicFieldID('0xacc', key, bcs.Address.serialize(owner).toBytes()));
  const chain = fromBase58(simnet.chainId);
  const digest = new Uint8Array(32).fill(0xac);
  const view = new DataView(digest.buffer);
  view.setBigUint64(0, amount, true);
  view.setUint32(8, Number(simnet.ledger.currentEpoch().epoch + epochOffset), true);
  return { objectId: toHex(field.map((byte, i) => byte ^ chain[i]!)), version: '0', digest: toBase58(digest) };
}

describe('execution through the SDK', () => {
  it('spends USDC held as an address balance (FundsWithdrawal + redeem)', async () => {
    const bob = account('bob');
    const carol = account('carol').address;
    const before = simnet.ledger.getBalance(bob.address, COIN_TYPES.USDC);
    expect(before.coinBalance).toBe(0n);
    const tx = new Transaction();
    tx.setSender(bob.address);
    tx.transferObjects([tx.coin({ type: COIN_TYPES.USDC, balance: 3_000_000n })], carol);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: bob.keypair, include: { balanceChanges: true } });
    expect(result.$kind).toBe('Transaction');
    expect(simnet.ledger.getBalance(bob.address, COIN_TYPES.USDC).addressBalance).toBe(before.addressBalance - 3_000_000n);
    expect(result.Transaction?.balanceChanges).toContainEqual({ coinType: COIN_TYPES.USDC, address: carol, amount: '3000000' });
  });

  it('lets an allowance spender spend the funder\'s balance within its limits', async () => {
    const bob = account('bob');
    const alice = account('alice');
    const allowance = simnet.ledger.listAllowances({ funder: alice.address, spender: bob.address }).find((candidate) => candidate.app === undefined)!;
    const funderBefore = simnet.ledger.getBalance(alice.address, allowance.coinType).addressBalance;
    const tx = new Transaction();
    tx.setSender(bob.address);
    tx.transferObjects([tx.coin({ type: allowance.coinType, balance: 1_000_000n, allowance: allowance.objectId })], bob.address);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: bob.keypair, include: { effects: true } });
    expect(result.$kind).toBe('Transaction');
    expect(simnet.ledger.getAllowance(allowance.objectId)?.lifetimeSpent).toBe(allowance.lifetimeSpent + 1_000_000n);
    expect(simnet.ledger.getBalance(alice.address, allowance.coinType).addressBalance).toBe(funderBefore - 1_000_000n);
  });

  it('refuses an allowance spend above the monthly limit', async () => {
    const bob = account('bob');
    const alice = account('alice');
    const allowance = simnet.ledger.listAllowances({ funder: alice.address, spender: bob.address }).find((candidate) => candidate.app === undefined)!;
    const tx = new Transaction();
    tx.setSender(bob.address);
    tx.transferObjects([tx.coin({ type: allowance.coinType, balance: allowance.monthlyLimit + 1n, allowance: allowance.objectId })], bob.address);
    await expect(tx.build({ client })).rejects.toThrow(/abort code: 4/);
  });

  it.each([
    ['Secp256k1', () => new Secp256k1Keypair()],
    ['Secp256r1', () => new Secp256r1Keypair()],
  ])('executes transactions signed with %s keys', async (_scheme, makeKeypair) => {
    const keypair = makeKeypair();
    const alice = account('alice');
    const fund = new Transaction();
    fund.setSender(alice.address);
    fund.transferObjects([fund.splitCoins(fund.gas, [2_000_000_000])[0]!], keypair.toSuiAddress());
    await client.signAndExecuteTransaction({ transaction: fund, signer: alice.keypair });
    const back = new Transaction();
    back.setSender(keypair.toSuiAddress());
    back.transferObjects([back.splitCoins(back.gas, [1_000_000])[0]!], alice.address);
    const result = await client.signAndExecuteTransaction({ transaction: back, signer: keypair });
    expect(result.$kind).toBe('Transaction');
  });

  it('executes a transaction from a 2-of-2 multisig address', async () => {
    const alice = account('alice');
    const first = new Ed25519Keypair();
    const second = new Secp256k1Keypair();
    const multisig = MultiSigPublicKey.fromPublicKeys({ threshold: 2, publicKeys: [{ publicKey: first.getPublicKey(), weight: 1 }, { publicKey: second.getPublicKey(), weight: 1 }] });
    const address = multisig.toSuiAddress();
    const fund = new Transaction();
    fund.setSender(alice.address);
    fund.transferObjects([fund.splitCoins(fund.gas, [1_000_000_000])[0]!], address);
    await client.signAndExecuteTransaction({ transaction: fund, signer: alice.keypair });
    const tx = new Transaction();
    tx.setSender(address);
    tx.transferObjects([tx.splitCoins(tx.gas, [10])[0]!], alice.address);
    const bytes = await tx.build({ client });
    const signature = multisig.combinePartialSignatures([(await first.signTransaction(bytes)).signature, (await second.signTransaction(bytes)).signature]);
    const result = await client.core.executeTransaction({ transaction: bytes, signatures: [signature] });
    expect(result.$kind).toBe('Transaction');
    const partial = multisig.combinePartialSignatures([(await first.signTransaction(bytes)).signature]);
    await expect(client.core.executeTransaction({ transaction: bytes, signatures: [partial] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('verifies personal-message signatures', async () => {
    const alice = account('alice');
    const message = new TextEncoder().encode('hello simnet');
    const { signature } = await alice.keypair.signPersonalMessage(message);
    const valid = await client.signatureVerificationService.verifySignature({
      message: { name: 'PersonalMessage', value: bcs.byteVector().serialize(message).toBytes() },
      signature: { bcs: { value: Buffer.from(signature, 'base64') }, signature: { oneofKind: undefined } },
      address: alice.address,
      jwks: [],
    });
    expect(valid.response.isValid).toBe(true);
    const wrong = await client.signatureVerificationService.verifySignature({
      message: { name: 'PersonalMessage', value: bcs.byteVector().serialize(message).toBytes() },
      signature: { bcs: { value: Buffer.from(signature, 'base64') }, signature: { oneofKind: undefined } },
      address: account('bob').address,
      jwks: [],
    });
    expect(wrong.response.isValid).toBe(false);
  });

  it('merges coins and pays with 0x2::pay', async () => {
    const dave = account('dave');
    const coins = simnet.ledger.listCoins(dave.address, COIN_TYPES.SUI).items;
    const tx = new Transaction();
    tx.setSender(dave.address);
    tx.mergeCoins(tx.gas, [tx.object(coins[coins.length - 1]!.objectId)]);
    tx.moveCall({ target: '0x2::pay::split_and_transfer', typeArguments: ['0x2::sui::SUI'], arguments: [tx.gas, tx.pure.u64(5), tx.pure.address(account('erin').address)] });
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: dave.keypair, include: { effects: true } });
    expect(result.$kind).toBe('Transaction');
    expect(simnet.ledger.getObject(coins[coins.length - 1]!.objectId)).toBeUndefined();
  });

  it('smashes several gas coins into the first one', async () => {
    const frank = account('frank');
    const coins = simnet.ledger.listCoins(frank.address, COIN_TYPES.SUI).items;
    const [first, second] = coins;
    const total = first!.coin!.balance + second!.coin!.balance;
    const tx = new Transaction();
    tx.setSender(frank.address);
    tx.setGasPayment([first!, second!].map((coin) => ({ objectId: coin.objectId, version: coin.version.toString(), digest: coin.digest })));
    tx.transferObjects([tx.splitCoins(tx.gas, [7])[0]!], account('grace').address);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: frank.keypair, include: { effects: true } });
    const gasUsed = result.Transaction!.effects!.gasUsed;
    const net = BigInt(gasUsed.computationCost) + BigInt(gasUsed.storageCost) - BigInt(gasUsed.storageRebate);
    expect(simnet.ledger.getObject(second!.objectId)).toBeUndefined();
    expect(simnet.ledger.getObject(first!.objectId)?.coin?.balance).toBe(total - 7n - net);
  });

  it('pays gas with coin reservations as a node does: after a real coin the reserved funds join it; first, gas comes from the address balance', async () => {
    const mallory = account('mallory');
    const recipient = account('dave').address;
    const budget = 10_000_000n;
    const transfer = (build: (tx: Transaction) => void, payment: { objectId: string; version: string; digest: string }[]) => {
      const tx = new Transaction();
      tx.setSender(mallory.address);
      build(tx);
      tx.setGasBudget(budget);
      tx.setGasPrice(simnet.ledger.referenceGasPrice());
      tx.setGasPayment(payment);
      return client.signAndExecuteTransaction({ transaction: tx, signer: mallory.keypair, include: { effects: true } });
    };
    const netGas = (used: { computationCost: string; storageCost: string; storageRebate: string }) => BigInt(used.computationCost) + BigInt(used.storageCost) - BigInt(used.storageRebate);

    // [coin, reservation]: the coin is the gas coin and the reservation's funds move into it.
    const [coin] = simnet.ledger.listCoins(mallory.address, COIN_TYPES.SUI, { limit: 1 }).items;
    const before = simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI);
    const mixed = await transfer((tx) => tx.transferObjects([tx.splitCoins(tx.gas, [1_000])[0]!], recipient), [
      { objectId: coin!.objectId, version: String(coin!.version), digest: coin!.digest }, reservation(mallory.address, 1_000_000_000n),
    ]);
    expect(mixed.$kind).toBe('Transaction');
    expect(mixed.Transaction!.effects!.gasObject?.objectId).toBe(coin!.objectId);
    expect(simnet.ledger.getObject(coin!.objectId)?.coin?.balance).toBe(coin!.coin!.balance + 1_000_000_000n - 1_000n - netGas(mixed.Transaction!.effects!.gasUsed));
    expect(simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI).addressBalance).toBe(before.addressBalance - 1_000_000_000n);

    // [reservation]: gas is charged to the address balance and tx.gas is a coin of the reservation less the budget.
    const middle = simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI);
    const whole = await transfer((tx) => tx.transferObjects([tx.gas], recipient), [reservation(mallory.address, budget + 5_000n)]);
    expect(whole.$kind).toBe('Transaction');
    const created = whole.Transaction!.effects!.changedObjects.filter((change) => change.idOperation === 'Created');
    expect(created).toHaveLength(1);
    expect(simnet.ledger.getObject(created[0]!.objectId)).toMatchObject({ owner: { kind: 'address', address: recipient }, coin: { balance: 5_000n } });
    expect(simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI)).toMatchObject({
      addressBalance: middle.addressBalance - 5_000n - netGas(whole.Transaction!.effects!.gasUsed), coinBalance: middle.coinBalance,
    });
  });

  it('refuses a coin reservation of another epoch, of more than the address balance, or of another account', async () => {
    const mallory = account('mallory');
    const attempt = (payment: ReturnType<typeof reservation>, signer = mallory) => {
      const tx = new Transaction();
      tx.setSender(signer.address);
      tx.setGasBudget(10_000_000n);
      tx.setGasPrice(simnet.ledger.referenceGasPrice());
      tx.setGasPayment([payment]);
      return client.signAndExecuteTransaction({ transaction: tx, signer: signer.keypair });
    };
    const balance = simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI).addressBalance;
    await expect(attempt(reservation(mallory.address, 20_000_000n, 1n))).rejects.toThrow(/transaction expired/);
    await expect(attempt(reservation(mallory.address, balance + 1n))).rejects.toThrow(/insufficient address balance/);
    await expect(attempt(reservation(mallory.address, 20_000_000n), account('bob'))).rejects.toThrow(/does not exist/);
    expect(simnet.ledger.getBalance(mallory.address, COIN_TYPES.SUI).addressBalance).toBe(balance);
  });

  it('deposits into an address balance with 0x2::coin::send_funds', async () => {
    const grace = account('grace');
    const heidi = account('heidi').address;
    const before = simnet.ledger.getBalance(heidi, COIN_TYPES.SUI).addressBalance;
    const tx = new Transaction();
    tx.setSender(grace.address);
    tx.moveCall({ target: '0x2::coin::send_funds', typeArguments: ['0x2::sui::SUI'], arguments: [tx.splitCoins(tx.gas, [5_000])[0]!, tx.pure.address(heidi)] });
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: grace.keypair, include: { balanceChanges: true } });
    expect(result.$kind).toBe('Transaction');
    expect(simnet.ledger.getBalance(heidi, COIN_TYPES.SUI).addressBalance).toBe(before + 5_000n);
    expect(result.Transaction?.balanceChanges).toContainEqual({ coinType: COIN_TYPES.SUI, address: heidi, amount: '5000' });
  });

  it('builds kind-only transactions and executes them sponsored (two signatures)', async () => {
    const ivan = account('ivan');
    const judy = account('judy');
    const kind = new Transaction();
    const collectible = simnet.ledger.listOwnedObjects(ivan.address, { type: `${CATALOG.nftPackage}::collectible::Collectible` }).items[0];
    if (collectible) kind.transferObjects([kind.object(collectible.objectId)], judy.address);
    else kind.transferObjects([kind.object(simnet.ledger.listCoins(ivan.address, COIN_TYPES.SUI).items[0]!.objectId)], judy.address);
    const kindBytes = await kind.build({ client, onlyTransactionKind: true });
    const sponsored = Transaction.fromKind(kindBytes);
    sponsored.setSender(ivan.address);
    sponsored.setGasOwner(judy.address);
    const bytes = await sponsored.build({ client });
    const signatures = [(await ivan.keypair.signTransaction(bytes)).signature, (await judy.keypair.signTransaction(bytes)).signature];
    const result = await client.core.executeTransaction({ transaction: bytes, signatures, include: { effects: true } });
    expect(result.$kind).toBe('Transaction');
    expect(result.Transaction?.effects?.gasObject?.outputOwner).toMatchObject({ AddressOwner: judy.address });
  });

  it('serves generated protocol activity: generic swap events, wrapped deposit events, full transactions', async () => {
    for (let i = 0; i < 3; i++) await simnet.produceCheckpoint();
    const swaps = await client.core.listEvents({ filter: { eventType: `${CATALOG.dexPackage}::pool::SwapEvent` }, limit: 5 } as Parameters<typeof client.core.listEvents>[0]);
    expect(swaps.events.length).toBeGreaterThan(0);
    expect(swaps.events[0]!.eventType).toBe(EVENT_TYPES.swap(COIN_TYPES.SUI, COIN_TYPES.USDC));
    const tx = await client.core.getTransaction({ digest: swaps.events[0]!.transactionDigest, include: { transaction: true, effects: true, events: true, objectTypes: true, bcs: true, balanceChanges: true } });
    const executed = tx.Transaction!;
    expect(suiDigest('TransactionData', executed.bcs!)).toBe(executed.digest);
    expect(executed.transaction?.commands.some((command) => 'MoveCall' in command)).toBe(true);
    expect(executed.events?.[0]?.json).toMatchObject({ a_to_b: true });
    expect(Object.values(executed.objectTypes ?? {})).toContain(OBJECT_TYPE_POOL());
    const wrapped = simnet.ledger.listEvents({ type: EVENT_TYPES.wrappedDeposit }, { limit: 1 }).items;
    if (wrapped.length > 0) expect(wrapped[0]!.json).toMatchObject({ inner: { depositor: wrapped[0]!.sender } });
  });
});

function OBJECT_TYPE_POOL(): string {
  return `${CATALOG.dexPackage}::pool::Pool<${COIN_TYPES.SUI},${COIN_TYPES.USDC}>`;
}
