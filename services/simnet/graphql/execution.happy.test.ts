import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeStructTag } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, COIN_TYPES, EVENT_TYPES, OBJECT_TYPES } from '../ledger/catalog.js';
import { EventBcs } from '../ledger/effects-encoding.js';
import { createLedger } from '../ledger/index.js';
import type { GenesisAccount, Ledger } from '../ledger/index.js';
import { createLedgerRunner } from './ledger-runner.js';
import { serveGraphql } from './test-server.js';

interface EventPage {
  events: { nodes: { contents: { type: { repr: string }; json: Record<string, unknown> }; sender: { address: string } }[] };
}

const EVENTS = `query($filter: EventFilter) { events(filter: $filter) { nodes { contents { type { repr } json } sender { address } } } }`;

describe('executing through GraphQL: SuiGraphQLClient builds, signs and executes on simnet', () => {
  let ledger: Ledger;
  let server: Awaited<ReturnType<typeof serveGraphql>>;
  let client: SuiGraphQLClient;
  let alice: GenesisAccount;
  let bob: GenesisAccount;

  const genesisObject = (type: string) => {
    const [genesis] = ledger.listTransactions().items;
    return genesis!.effects.changedObjects.find((change) => change.objectType === normalizeStructTag(type))!.objectId;
  };

  const execute = async (tx: Transaction, signer: GenesisAccount) => {
    tx.setSender(signer.address);
    const result = await client.signAndExecuteTransaction({ transaction: tx, signer: signer.keypair, include: { effects: true, events: true, balanceChanges: true } });
    ledger.sealCheckpoint();
    return result;
  };

  const events = async (filter: Record<string, unknown>) => {
    const { data, errors } = await client.query({ query: EVENTS, variables: { filter } });
    expect(errors).toBeUndefined();
    return (data as unknown as EventPage).events.nodes;
  };

  beforeAll(async () => {
    ledger = createLedger();
    server = await serveGraphql(ledger, { runner: createLedgerRunner(ledger) });
    client = new SuiGraphQLClient({ url: server.url, network: 'localnet' });
    [alice, bob] = ledger.accounts as [GenesisAccount, GenesisAccount];

    const swap = new Transaction();
    const [sui] = swap.splitCoins(swap.gas, [1_000_000_000n]);
    const [usdc] = swap.moveCall({
      target: `${CATALOG.dexPackage}::pool::swap_a_to_b`,
      typeArguments: [COIN_TYPES.SUI, COIN_TYPES.USDC],
      arguments: [swap.object(genesisObject(OBJECT_TYPES.pool(COIN_TYPES.SUI, COIN_TYPES.USDC))), sui!, swap.pure.u64(0)],
    });
    swap.transferObjects([usdc!], alice.address);
    await execute(swap, alice);

    const deposit = new Transaction();
    const [coin] = deposit.splitCoins(deposit.gas, [500_000_000n]);
    deposit.moveCall({
      target: `${CATALOG.lendingPackage}::lending::deposit`,
      typeArguments: [COIN_TYPES.SUI],
      arguments: [deposit.object(genesisObject(`${CATALOG.lendingPackage}::lending::Market`)), coin!],
    });
    await execute(deposit, bob);
  });

  afterAll(() => server.close());

  it('signAndExecuteTransaction transfers SUI, and waitForTransaction sees it after the checkpoint', async () => {
    const before = ledger.getBalance(bob.address, COIN_TYPES.SUI).balance;
    const tx = new Transaction();
    const [coin] = tx.splitCoins(tx.gas, [123n]);
    tx.transferObjects([coin!], bob.address);
    const result = await execute(tx, alice);
    const executed = result.Transaction!;
    expect(executed.status.success).toBe(true);
    expect(executed.balanceChanges).toContainEqual({ address: bob.address, coinType: normalizeStructTag(COIN_TYPES.SUI), amount: '123' });
    const seen = await client.waitForTransaction({ digest: executed.digest });
    expect(seen.Transaction!.checkpoint).toBe(ledger.latestCheckpoint().sequenceNumber.toString());
    expect(ledger.getBalance(bob.address, COIN_TYPES.SUI).balance).toBe(before + 123n);
  });

  it('filters events by a full generic instantiation, its base type and its module', async () => {
    const swapType = normalizeStructTag(EVENT_TYPES.swap(COIN_TYPES.SUI, COIN_TYPES.USDC));
    const exact = await events({ type: swapType });
    expect(exact.map((e) => e.contents.type.repr)).toEqual([swapType]);
    expect(exact[0]!.sender.address).toBe(alice.address);
    expect(await events({ type: `${CATALOG.dexPackage}::pool::SwapEvent` })).toHaveLength(1);
    expect(await events({ type: EVENT_TYPES.swap(COIN_TYPES.USDC, COIN_TYPES.SUI) })).toHaveLength(0);
    expect(await events({ module: `${CATALOG.dexPackage}::pool` })).toHaveLength(1);
  });

  it('filters transactions by the function they call', async () => {
    const { data } = await client.query({
      query: 'query($f: String) { transactions(filter: { function: $f }) { nodes { sender { address } } } }',
      variables: { f: `${CATALOG.dexPackage}::pool::swap_a_to_b` },
    });
    expect((data as { transactions: { nodes: unknown[] } }).transactions.nodes).toEqual([{ sender: { address: alice.address } }]);
    const byModule = await client.query({ query: 'query($f: String) { transactions(filter: { function: $f }) { nodes { digest } } }', variables: { f: `${CATALOG.lendingPackage}::lending` } });
    expect((byModule.data as { transactions: { nodes: unknown[] } }).transactions.nodes).toHaveLength(1);
  });

  it('answers eventBcs as the BCS of Sui\'s Event struct', async () => {
    const { data } = await client.query({ query: '{ events(first: 1) { nodes { eventBcs contents { bcs } } } }', variables: {} });
    const [node] = (data as { events: { nodes: { eventBcs: string; contents: { bcs: string } }[] } }).events.nodes;
    const event = EventBcs.parse(Buffer.from(node!.eventBcs, 'base64'));
    expect(event.sender).toBe(alice.address);
    expect(Buffer.from(event.contents).toString('base64')).toBe(node!.contents.bcs);
  });

  it('filters events by a wrapped type without matching the inner type, and by sender', async () => {
    const wrapped = await events({ type: EVENT_TYPES.wrappedDeposit });
    expect(wrapped.map((e) => e.contents.type.repr)).toEqual([normalizeStructTag(EVENT_TYPES.wrappedDeposit)]);
    expect(wrapped[0]!.contents.json).toMatchObject({ inner: { depositor: bob.address } });
    expect((await events({ type: EVENT_TYPES.deposit })).map((e) => e.contents.type.repr)).toEqual([normalizeStructTag(EVENT_TYPES.deposit)]);
    expect(await events({ sender: bob.address })).toHaveLength(2);
  });

  it('SDK listEvents pages the same events forwards and backwards', async () => {
    const first = await client.core.listEvents({ filter: { sender: bob.address }, limit: 1 });
    expect(first.events.map((e) => e.eventType)).toEqual([normalizeStructTag(EVENT_TYPES.deposit)]);
    expect(first.hasNextPage).toBe(true);
    const second = await client.core.listEvents({ filter: { sender: bob.address }, limit: 1, after: first.endCursor });
    expect(second.events.map((e) => e.eventType)).toEqual([normalizeStructTag(EVENT_TYPES.wrappedDeposit)]);
    expect(second.hasNextPage).toBe(false);
    const latest = await client.core.listEvents({ filter: { sender: bob.address }, limit: 1, order: 'descending' });
    expect(latest.events.map((e) => e.eventType)).toEqual([normalizeStructTag(EVENT_TYPES.wrappedDeposit)]);
    expect(latest.events[0]!.checkpoint).toBe('2');
  });

  it('reports a Move abort as an execution error with its code and location', async () => {
    const tx = new Transaction();
    const [sui] = tx.splitCoins(tx.gas, [1_000n]);
    const [usdc] = tx.moveCall({
      target: `${CATALOG.dexPackage}::pool::swap_a_to_b`,
      typeArguments: [COIN_TYPES.SUI, COIN_TYPES.USDC],
      arguments: [tx.object(genesisObject(OBJECT_TYPES.pool(COIN_TYPES.SUI, COIN_TYPES.USDC))), sui!, tx.pure.u64(10n ** 18n)],
    });
    tx.transferObjects([usdc!], alice.address);
    tx.setSender(alice.address);
    await expect(tx.build({ client })).rejects.toThrow(/abort code: 1/);
  });

  it('executes a transaction that aborts, reporting the abort in effects', async () => {
    const [gas] = ledger.listCoins(alice.address, COIN_TYPES.SUI, { limit: 1 }).items;
    const tx = new Transaction();
    tx.setSender(alice.address);
    tx.setGasPrice(ledger.referenceGasPrice());
    tx.setGasBudget(50_000_000n);
    tx.setGasPayment([{ objectId: gas!.objectId, version: gas!.version.toString(), digest: gas!.digest }]);
    const [sui] = tx.splitCoins(tx.gas, [1_000n]);
    const pool = tx.sharedObjectRef({ objectId: genesisObject(OBJECT_TYPES.pool(COIN_TYPES.SUI, COIN_TYPES.USDC)), initialSharedVersion: 1, mutable: true });
    const [usdc] = tx.moveCall({ target: `${CATALOG.dexPackage}::pool::swap_a_to_b`, typeArguments: [COIN_TYPES.SUI, COIN_TYPES.USDC], arguments: [pool, sui!, tx.pure.u64(10n ** 18n)] });
    tx.transferObjects([usdc!], alice.address);
    const bytes = await tx.build();
    const { signature } = await alice.keypair.signTransaction(bytes);
    const result = await client.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true } });
    const failed = result.FailedTransaction!;
    expect(failed.status.error).toMatchObject({ $kind: 'MoveAbort', MoveAbort: { abortCode: '1', location: { module: 'pool', functionName: 'swap_a_to_b' } } });
    ledger.sealCheckpoint();
    const { data } = await client.query({
      query: 'query($d: String!) { transaction(digest: $d) { effects { status executionError { message abortCode module { name } function { name } } } } }',
      variables: { d: failed.digest },
    });
    expect((data as { transaction: { effects: unknown } }).transaction.effects).toEqual({
      status: 'FAILURE',
      executionError: { message: expect.stringContaining('in 2nd command'), abortCode: '1', module: { name: 'pool' }, function: { name: 'swap_a_to_b' } },
    });
  });

  it('rejects a bad signature with BAD_USER_INPUT', async () => {
    const tx = new Transaction();
    tx.setSender(alice.address);
    tx.transferObjects([tx.splitCoins(tx.gas, [1n])[0]!], bob.address);
    const bytes = await tx.build({ client });
    const { signature } = await bob.keypair.signTransaction(bytes);
    const { errors } = await client.query({
      query: 'mutation($t: Base64!, $s: [Base64!]!) { executeTransaction(transactionDataBcs: $t, signatures: $s) { effects { digest } } }',
      variables: { t: Buffer.from(bytes).toString('base64'), s: [signature] },
    });
    expect(errors![0]).toMatchObject({ message: expect.stringMatching(/missing signature/i), extensions: { code: 'BAD_USER_INPUT' } });
  });
});
