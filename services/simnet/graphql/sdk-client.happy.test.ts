import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../ledger/index.js';
import type { Ledger } from '../ledger/index.js';
import { serveGraphql } from './test-server.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

describe('SuiGraphQLClient against simnet GraphQL', () => {
  let ledger: Ledger;
  let server: Awaited<ReturnType<typeof serveGraphql>>;
  let client: SuiGraphQLClient;
  let alice: string;

  beforeAll(async () => {
    ledger = createLedger();
    server = await serveGraphql(ledger);
    client = new SuiGraphQLClient({ url: server.url, network: 'localnet' });
    alice = ledger.accounts[0]!.address;
  });

  afterAll(() => server.close());

  it('getChainIdentifier returns the genesis checkpoint digest', async () => {
    const { chainIdentifier } = await client.core.getChainIdentifier();
    expect(chainIdentifier).toBe(ledger.chainId);
  });

  it('getBalance matches the ledger', async () => {
    const { balance } = await client.core.getBalance({ owner: alice });
    const expected = ledger.getBalance(alice, SUI);
    expect(balance).toEqual({
      coinType: SUI,
      balance: expected.balance.toString(),
      coinBalance: expected.coinBalance.toString(),
      addressBalance: expected.addressBalance.toString(),
    });
  });

  it('listBalances lists every coin type the address holds', async () => {
    const { balances, hasNextPage } = await client.core.listBalances({ owner: alice });
    expect(hasNextPage).toBe(false);
    expect(balances.map((b) => b.coinType)).toEqual(ledger.listBalances(alice).items.map((b) => b.coinType));
  });

  it('listCoins returns SUI coins with balances that add up', async () => {
    const { objects } = await client.core.listCoins({ owner: alice });
    expect(objects.length).toBeGreaterThan(0);
    const total = objects.reduce((sum, coin) => sum + BigInt(coin.balance), 0n);
    expect(total).toBe(ledger.getBalance(alice, SUI).coinBalance);
  });

  it('listOwnedObjects pages without overlap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof client.core.listOwnedObjects>> = await client.core.listOwnedObjects({ owner: alice, limit: 2, cursor });
      seen.push(...page.objects.map((o) => o.objectId));
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor);
    const all = ledger.listOwnedObjects(alice, {}, { limit: 1000 }).items.map((o) => o.objectId);
    expect(seen).toEqual(all);
  });

  it('getObjects returns BCS and JSON, and notFound for unknown ids', async () => {
    const [first] = ledger.listOwnedObjects(alice).items;
    const unknown = '0x' + 'ab'.repeat(32);
    const { objects } = await client.core.getObjects({ objectIds: [first!.objectId, unknown], include: { objectBcs: true, json: true, content: true } });
    const [found, missing] = objects;
    if (found instanceof Error) throw found;
    expect(found!.digest).toBe(first!.digest);
    expect(found!.objectBcs).toEqual(first!.bcs);
    expect(found!.content).toEqual(first!.contents);
    expect(found!.json).toEqual(first!.json);
    expect(missing).toBeInstanceOf(Error);
  });

  it('getTransaction decodes effects, balance changes and object types', async () => {
    const [genesis] = ledger.listTransactions().items;
    const result = await client.core.getTransaction({
      digest: genesis!.digest,
      include: { effects: true, events: true, balanceChanges: true, objectTypes: true, bcs: true },
    });
    const tx = result.Transaction!;
    expect(tx.digest).toBe(genesis!.digest);
    expect(tx.status.success).toBe(true);
    expect(tx.checkpoint).toBe('0');
    expect(tx.effects.transactionDigest).toBe(genesis!.digest);
    expect(tx.bcs).toEqual(genesis!.bcs);
    expect(Object.keys(tx.objectTypes).length).toBe(genesis!.effects.changedObjects.length);
  });

  it('getCoinMetadata answers SUI metadata and null for an unknown coin', async () => {
    const { coinMetadata } = await client.core.getCoinMetadata({ coinType: '0x2::sui::SUI' });
    expect(coinMetadata).toMatchObject({ decimals: 9, symbol: 'SUI' });
    const missing = await client.core.getCoinMetadata({ coinType: '0x2::nope::NOPE' });
    expect(missing.coinMetadata).toBeNull();
  });

  it('getCurrentSystemState and getReferenceGasPrice agree with the ledger', async () => {
    const { systemState } = await client.core.getCurrentSystemState();
    const state = ledger.systemState();
    expect(systemState.epoch).toBe(state.epoch.toString());
    expect(systemState.referenceGasPrice).toBe(state.referenceGasPrice.toString());
    expect(systemState.parameters.epochDurationMs).toBe(state.epochDurationMs.toString());
    const { referenceGasPrice } = await client.core.getReferenceGasPrice();
    expect(referenceGasPrice).toBe(ledger.referenceGasPrice().toString());
  });

  it('getProtocolConfig returns flags and attributes', async () => {
    const { protocolConfig } = await client.core.getProtocolConfig();
    expect(protocolConfig.protocolVersion).toBe(ledger.protocolConfig().protocolVersion.toString());
    expect(protocolConfig.featureFlags).toEqual(ledger.protocolConfig().featureFlags);
  });

  it('lists dynamic fields and finds one by name', async () => {
    const table = ledger.systemState().validators[0]!.exchangeRatesId;
    const fields = ledger.listDynamicFields(table, { limit: 1000 }).items;
    const { dynamicFields, hasNextPage } = await client.listDynamicFields({ parentId: table, limit: 50, include: { value: true } });
    expect(fields.length).toBeLessThanOrEqual(50);
    expect(hasNextPage).toBe(false);
    // The SDK derives `fieldId` from parent, name type and name BCS, as Sui derives the ids.
    expect(dynamicFields.map((f) => f.fieldId)).toEqual(fields.map((f) => f.objectId));
    const wanted = fields[1]!.dynamicField!;
    const { data } = await client.query({
      query: 'query($p: SuiAddress!, $n: DynamicFieldName!) { address(address: $p) { dynamicField(name: $n) { address value { ... on MoveValue { json } } } } }',
      variables: { p: table, n: { type: wanted.nameType, bcs: Buffer.from(wanted.nameBcs).toString('base64') } },
    });
    expect((data as { address: { dynamicField: { address: string } } }).address.dynamicField.address).toBe(fields[1]!.objectId);
  });

  it('verifies personal message signatures against their author', async () => {
    const message = new TextEncoder().encode('hello simnet');
    const { signature } = await ledger.accounts[0]!.keypair.signPersonalMessage(message);
    const VERIFY = 'query($m: Base64!, $s: Base64!, $a: SuiAddress!) { verifySignature(message: $m, signature: $s, intentScope: PERSONAL_MESSAGE, author: $a) { success } }';
    const variables = { m: Buffer.from(message).toString('base64'), s: signature };
    expect((await client.query({ query: VERIFY, variables: { ...variables, a: alice } })).data).toEqual({ verifySignature: { success: true } });
    const wrongAuthor = await client.query({ query: VERIFY, variables: { ...variables, a: ledger.accounts[1]!.address } });
    expect(wrongAuthor.errors![0]!.message).toContain('Signature is for');
    const zk = await client.core.verifyZkLoginSignature({ bytes: variables.m, signature, intentScope: 'PersonalMessage', address: alice });
    expect(zk.success).toBe(false);
  });

  it('resolves names both ways', async () => {
    const name = ledger.reverseLookupName(alice)!.name;
    expect((await client.core.defaultNameServiceName({ address: alice })).data.name).toBe(name);
    expect((await client.core.resolveNameServiceAddress({ name })).address).toBe(alice);
    expect((await client.core.resolveNameServiceAddress({ name: 'nobody-here.sui' })).address).toBeNull();
  });
});
