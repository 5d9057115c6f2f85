import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Transaction } from '@mysten/sui/transactions';
import { fromBase58 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

/**
 * The official SDK's JSON-RPC client (`SuiJsonRpcClient`, what legacy users run) through the
 * gateway on simnet: a keypair funded by simnet's faucet signs a transfer with the SDK, the
 * client executes it and reads it back, and queries transactions and events.
 */
describe('SuiJsonRpcClient through the gateway: transactions and events', () => {
  let e: JsonRpcE2E;
  let client: SuiJsonRpcClient;
  let transport: JsonRpcHTTPTransport;
  const keypair = Ed25519Keypair.generate();
  const owner = keypair.toSuiAddress();
  const recipient = Ed25519Keypair.generate().toSuiAddress();

  beforeAll(async () => {
    e = await startJsonRpcE2E({ simnet: { transactionsPerCheckpoint: 1 } });
    transport = new JsonRpcHTTPTransport({ url: e.url, rpc: { headers: { 'x-api-key': e.gateway.adminKey } } });
    client = new SuiJsonRpcClient({ network: 'localnet', transport });
    await requestSuiFromFaucetV2({ host: e.simnet.faucetHost, recipient: owner });
    e.simnet.seal();
  }, 60_000);
  afterAll(async () => e.stop());

  it('executes a transfer signed with the SDK, then reads it back', async () => {
    const coins = await client.getCoins({ owner });
    expect(coins.data.length).toBeGreaterThan(0);
    // The SDK has no typed unsafe_* helpers left: its transport calls them as any method.
    const { txBytes } = await transport.request<{ txBytes: string }>({ method: 'unsafe_paySui', params: [owner, [coins.data[0]!.coinObjectId], [recipient], ['1234'], '10000000'] });
    const { signature } = await keypair.signTransaction(Uint8Array.from(Buffer.from(txBytes, 'base64')));
    const result = await client.executeTransactionBlock({
      transactionBlock: txBytes, signature, requestType: 'WaitForLocalExecution',
      options: { showEffects: true, showBalanceChanges: true, showObjectChanges: true, showEvents: true, showInput: true },
    });
    expect(result.effects?.status.status).toBe('success');
    expect(result.balanceChanges).toContainEqual({ owner: { AddressOwner: recipient }, coinType: '0x2::sui::SUI', amount: '1234' });
    e.simnet.seal();

    const read = await client.waitForTransaction({ digest: result.digest, options: { showEffects: true, showInput: true }, pollInterval: 50 });
    expect(read.digest).toBe(result.digest);
    expect(read.transaction?.data.sender).toBe(owner);
    expect(read.effects?.created?.[0]?.owner).toEqual({ AddressOwner: recipient });
    expect((await client.getBalance({ owner: recipient })).totalBalance).toBe('1234');

    const sent = await client.queryTransactionBlocks({ filter: { FromAddress: owner }, options: { showEffects: true } });
    expect(sent.data.map((tx) => tx.digest)).toContain(result.digest);
    const many = await client.multiGetTransactionBlocks({ digests: [result.digest], options: { showBalanceChanges: true } });
    expect(many[0]!.balanceChanges).toContainEqual({ owner: { AddressOwner: recipient }, coinType: '0x2::sui::SUI', amount: '1234' });
  });

  it('runs the SDK\'s default transfer flow: a Transaction built with splitCoins(tx.gas) and signAndExecuteTransaction', async () => {
    // The builder dry-runs the transaction with an empty gas payment to find its budget (a full
    // node simulates that with a mock gas coin), then picks the owner's coins as gas.
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [4321]);
    tx.transferObjects([coin!], recipient);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: keypair, options: { showEffects: true, showBalanceChanges: true, showInput: true } });
    expect(result.effects?.status.status).toBe('success');
    expect(result.balanceChanges).toContainEqual({ owner: { AddressOwner: recipient }, coinType: '0x2::sui::SUI', amount: '4321' });
    const gasData = (result.transaction?.data as { gasData: { payment: unknown[]; budget: string } }).gasData;
    expect(gasData.payment).toHaveLength(1);
    expect(BigInt(gasData.budget)).toBeLessThan(50_000_000_000n);
    e.simnet.seal();
    await client.waitForTransaction({ digest: result.digest, pollInterval: 50 });
  });

  it('runs the default transfer flow for an account holding an address balance: the SDK pays gas with a coin reservation, as a node accepts', async () => {
    // With SUI at the address, the builder puts a coin reservation first in the gas payment (an
    // object ref naming the address balance: id masked with the chain id, digest = amount, epoch,
    // magic) and the account's coins after it. A node pays gas from the address balance, gives
    // `tx.gas` a coin of the reservation less the budget, returns what is left of that coin to the
    // address balance and smashes the coins listed after the reservation into it.
    const bob = e.simnet.accounts.find((account) => account.label === 'bob')!;
    const sender = bob.address;
    const receiver = Ed25519Keypair.generate().toSuiAddress();
    const before = await client.core.getBalance({ owner: sender });
    expect(BigInt(before.balance.addressBalance)).toBeGreaterThan(0n);
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [1000]);
    tx.transferObjects([coin!], receiver);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: bob.keypair, options: { showEffects: true, showBalanceChanges: true, showInput: true } });
    expect(result.effects?.status.status).toBe('success');
    const gasData = (result.transaction?.data as { gasData: { payment: { digest: string }[] } }).gasData;
    expect(fromBase58(gasData.payment[0]!.digest).slice(12).every((byte) => byte === 0xac)).toBe(true);
    e.simnet.seal();
    await client.waitForTransaction({ digest: result.digest, pollInterval: 50 });
    expect((await client.getBalance({ owner: receiver })).totalBalance).toBe('1000');
    const used = result.effects!.gasUsed;
    const gas = BigInt(used.computationCost) + BigInt(used.storageCost) - BigInt(used.storageRebate);
    const after = await client.core.getBalance({ owner: sender });
    // Gas and the transfer left the sender; the coins named after the reservation are now at the address.
    expect(BigInt(after.balance.balance)).toBe(BigInt(before.balance.balance) - 1000n - gas);
    expect(after.balance.coinBalance).toBe('0');
    expect(after.balance.addressBalance).toBe(after.balance.balance);
    expect(result.balanceChanges).toEqual(expect.arrayContaining([
      { owner: { AddressOwner: receiver }, coinType: '0x2::sui::SUI', amount: '1000' },
      { owner: { AddressOwner: sender }, coinType: '0x2::sui::SUI', amount: String(-1000n - gas) },
    ]));
    // A new rate window for the tests after this one's calls.
    e.gateway.clock.advance(1_000);
  });

  it('lists coins largest first, as a node does, so the builder finds the gas coin among more than a page of coins', async () => {
    // A node's owner index orders one type's coins from greatest balance to least; the SDK's gas
    // selection reads the first page of the owner's SUI coins only. Ordered by id, the one large
    // coin among 61 fell off that page about one time in six and every transaction then failed.
    const holder = Ed25519Keypair.generate();
    await requestSuiFromFaucetV2({ host: e.simnet.faucetHost, recipient: holder.toSuiAddress() });
    e.simnet.seal();
    const amounts = Array.from({ length: 60 }, (_, i) => 1000 + ((i * 37) % 60));
    const split = new Transaction();
    const parts = split.splitCoins(split.gas, amounts);
    split.transferObjects(amounts.map((_, i) => parts[i]!), holder.toSuiAddress());
    const created = await client.signAndExecuteTransaction({ transaction: split, signer: holder, options: { showEffects: true } });
    expect(created.effects?.status.status).toBe('success');
    e.simnet.seal();
    await client.waitForTransaction({ digest: created.digest, pollInterval: 50 });

    const pages = [];
    let cursor: string | null | undefined = null;
    do {
      const page = await client.getCoins({ owner: holder.toSuiAddress(), cursor });
      pages.push(page.data);
      cursor = page.hasNextPage ? page.nextCursor : null;
    } while (cursor);
    const balances = pages.flat().map((coin) => BigInt(coin.balance));
    expect(balances).toHaveLength(61);
    expect(pages[0]).toHaveLength(50);
    expect(balances).toEqual([...balances].sort((a, b) => (a === b ? 0 : a > b ? -1 : 1)));

    // The default flow: merge the first page's small coins, the SDK picks the gas coin itself.
    const small = pages[0]!.slice(1);
    const merge = new Transaction();
    merge.mergeCoins(merge.object(small[0]!.coinObjectId), small.slice(1).map((coin) => merge.object(coin.coinObjectId)));
    const merged = await client.signAndExecuteTransaction({ transaction: merge, signer: holder, options: { showEffects: true, showInput: true } });
    expect(merged.effects?.status.status).toBe('success');
    const payment = (merged.transaction?.data as { gasData: { payment: { objectId: string }[] } }).gasData.payment;
    expect(payment.map((ref) => ref.objectId)).toEqual([pages[0]![0]!.coinObjectId]);
    e.simnet.seal();
    await client.waitForTransaction({ digest: merged.digest, pollInterval: 50 });
  });

  it('queries events (newest first, the SDK\'s default) and pages with the cursors it is given', async () => {
    // simnet's producer emits the events; page only once there are enough for two pages and more
    // (a fresh chain may have none yet: how many depends on how long the tests before took).
    const until = Date.now() + 30_000;
    while ((await client.queryEvents({ query: { All: [] }, limit: 5 })).data.length < 5) {
      if (Date.now() > until) throw new Error('simnet emitted fewer than 5 events in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A still chain while paging, so that pages can be compared with one read.
    e.simnet.pause();
    const first = await client.queryEvents({ query: { All: [] }, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.hasNextPage).toBe(true);
    const second = await client.queryEvents({ query: { All: [] }, limit: 2, cursor: first.nextCursor });
    const both = [...first.data, ...second.data];
    // Read in one page: the same events in the same order (later traffic only appends).
    const whole = await client.queryEvents({ query: { All: [] }, limit: both.length });
    expect(both.map((event) => event.id)).toEqual(whole.data.map((event) => event.id));
    const ofTx = await transport.request<{ id: unknown }[]>({ method: 'sui_getEvents', params: [first.data[0]!.id.txDigest] });
    expect(ofTx.map((event) => event.id)).toContainEqual(first.data[0]!.id);
    const byType = await client.queryEvents({ query: { MoveEventType: first.data[0]!.type }, limit: 3 });
    expect(byType.data.every((event) => event.type === first.data[0]!.type)).toBe(true);
    e.simnet.resume();
  });

  it('past the last page the answer is an empty page whose nextCursor is the cursor given, as on a node: a client polling with it sees only what is new', async () => {
    // A node answers `next_cursor = data.last().map_or(cursor, ...)`: a poller that keeps
    // `nextCursor` stays where it was, where a null would send it back to the first page.
    const filter = { FromAddress: owner };
    const all = await client.queryTransactionBlocks({ filter, order: 'ascending' });
    expect(all.hasNextPage).toBe(false);
    expect(all.nextCursor).toEqual(expect.any(String));
    const end = await client.queryTransactionBlocks({ filter, order: 'ascending', cursor: all.nextCursor });
    expect(end).toEqual({ data: [], nextCursor: all.nextCursor, hasNextPage: false });
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [7]);
    tx.transferObjects([coin!], recipient);
    const sent = await client.signAndExecuteTransaction({ transaction: tx, signer: keypair });
    e.simnet.seal();
    await client.waitForTransaction({ digest: sent.digest, pollInterval: 50 });
    const next = await client.queryTransactionBlocks({ filter, order: 'ascending', cursor: end.nextCursor });
    expect(next.data.map((block) => block.digest)).toEqual([sent.digest]);

    // Events, the same: the oldest end of a newest-first walk stays put while the chain grows.
    e.simnet.pause();
    let page = await client.queryEvents({ query: { All: [] }, limit: 50 });
    while (page.hasNextPage) {
      // The test clock moves only when told: these pages stay inside the plan's rate.
      e.gateway.clock.advance(25);
      page = await client.queryEvents({ query: { All: [] }, limit: 50, cursor: page.nextCursor });
    }
    e.simnet.resume();
    expect(page.nextCursor).not.toBeNull();
    const after = await client.queryEvents({ query: { All: [] }, limit: 50, cursor: page.nextCursor });
    expect(after).toEqual({ data: [], nextCursor: page.nextCursor, hasNextPage: false });
    // A new rate window for the tests after this one's calls.
    e.gateway.clock.advance(1_000);
  });

  it('a Transaction event filter pages one transaction\'s events; its cursor is tied to its order (the other is -32602 INVALID_CURSOR)', async () => {
    const [emitted] = (await client.queryEvents({ query: { All: [] }, limit: 1 })).data;
    const query = { Transaction: emitted!.id.txDigest };
    const first = await client.queryEvents({ query, limit: 1, order: 'ascending' });
    expect(first.data.map((event) => event.id)).toEqual([{ txDigest: emitted!.id.txDigest, eventSeq: '0' }]);
    const other = await e.send({ jsonrpc: '2.0', id: 1, method: 'suix_queryEvents', params: [query, first.nextCursor, 1, true] });
    expect(other.body).toEqual({
      jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: the cursor was made for another query or order', data: { code: 'INVALID_CURSOR' } },
    });
  });

  it('a transaction that aborts in Move carries the node\'s abortError, so the SDK reports a MoveAbort with its code', async () => {
    // balance::destroy_zero of a balance that is not zero aborts with code 0.
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [1000]);
    const balance = tx.moveCall({ target: '0x2::coin::into_balance', typeArguments: ['0x2::sui::SUI'], arguments: [coin!] });
    tx.moveCall({ target: '0x2::balance::destroy_zero', typeArguments: ['0x2::sui::SUI'], arguments: [balance] });
    // A set budget skips the builder's dry run, which would refuse to build what fails.
    tx.setGasBudget(10_000_000);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: keypair, options: { showEffects: true } });
    expect(result.effects?.status.status).toBe('failure');
    expect(result.effects?.abortError).toEqual({ module_id: `${'0x'.padEnd(65, '0')}2::balance`, function: 'destroy_zero', error_code: 0 });
    e.simnet.seal();
    await client.waitForTransaction({ digest: result.digest, pollInterval: 50 });
    const read = await client.core.getTransaction({ digest: result.digest, include: { effects: true } });
    const failed = read.FailedTransaction ?? read.Transaction;
    expect(failed?.status.error).toMatchObject({ $kind: 'MoveAbort', MoveAbort: { abortCode: '0', location: { module: 'balance', functionName: 'destroy_zero' } } });
  });

  it('dry-runs what the gateway builds', async () => {
    const coins = await client.getCoins({ owner });
    const { txBytes } = await transport.request<{ txBytes: string }>({ method: 'unsafe_transferSui', params: [owner, coins.data[0]!.coinObjectId, '10000000', recipient, '5'] });
    const dry = await client.dryRunTransactionBlock({ transactionBlock: txBytes });
    expect(dry.effects.status.status).toBe('success');
    expect(dry.balanceChanges).toContainEqual({ owner: { AddressOwner: recipient }, coinType: '0x2::sui::SUI', amount: '5' });
  });
});
