import { toBase64 } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJsonRpcE2E, type JsonRpcE2E } from '../support/jsonrpc-e2e.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON-RPC bodies, compared whole

const UNKNOWN_DIGEST = '11111111111111111111111111111111';

/** Every error path of the transaction, event, execution and builder methods: exact JSON-RPC bodies, HTTP 200, never a 500. */
describe('JSON-RPC transactions: errors', () => {
  let e: JsonRpcE2E;
  let alice: string;
  let bob: string;
  let id = 0;
  const fails = async (method: string, params: unknown): Promise<Body> => {
    const requestId = ++id;
    const { status, body } = await e.send({ jsonrpc: '2.0', id: requestId, method, params });
    expect(status).toBe(200);
    expect(body.id).toBe(requestId);
    expect(body.result).toBeUndefined();
    return body.error;
  };

  beforeAll(async () => {
    e = await startJsonRpcE2E();
    alice = e.address('alice');
    bob = e.address('bob');
  }, 60_000);
  afterAll(async () => e.stop());

  it('an unknown digest is the node\'s -32602 "Could not find the referenced transaction"', async () => {
    const expected = { code: -32602, message: `Could not find the referenced transaction [TransactionDigest(${UNKNOWN_DIGEST})].`, data: { code: 'NOT_FOUND' } };
    expect(await fails('sui_getTransactionBlock', [UNKNOWN_DIGEST, { showEffects: true }])).toEqual(expected);
    expect(await fails('sui_getEvents', [UNKNOWN_DIGEST])).toEqual(expected);
    expect(await fails('sui_multiGetTransactionBlocks', [[UNKNOWN_DIGEST]])).toEqual(expected);
    expect(await fails('suix_queryEvents', [{ Transaction: UNKNOWN_DIGEST }])).toEqual(expected);
  });

  it('params nested past 32 levels are -32602 PARAMS_TOO_DEEP before anything recursive reads them (they overflowed the schema validator: -32603)', async () => {
    const deep = `${'{"Any":['.repeat(20_000)}{"Sender":"${alice}"}${']}'.repeat(20_000)}`;
    const { status, body } = await e.send(`{"jsonrpc":"2.0","id":1,"method":"suix_queryEvents","params":[${deep},null,1,false]}`, { raw: true });
    expect(status).toBe(200);
    expect(body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params: params nest deeper than 32 levels', data: { code: 'PARAMS_TOO_DEEP', max: 32 } } });
  });

  it('addresses, ids and digests that are not hex or base58 are -32602, not the zero address or an upstream failure', async () => {
    expect(await fails('suix_getCoins', [''])).toEqual({ code: -32602, message: 'Invalid params: param \'owner\' must match format "sui-address"' });
    expect(await fails('suix_queryEvents', [{ Sender: 'zz' }, null, 1, false])).toEqual({
      code: -32602, message: 'Invalid params: param \'query\' must match format "sui-address" at /Sender',
    });
    expect(await fails('sui_devInspectTransactionBlock', ['zz', 'AAAA'])).toEqual({ code: -32602, message: 'Invalid params: param \'sender_address\' must match format "sui-address"' });
    expect(await fails('sui_devInspectTransactionBlock', [alice, 'AAAA', null, null, { gasSponsor: 'zz' }])).toEqual({
      code: -32602, message: 'Invalid params: param \'additional_args\' must match format "sui-address" at /gasSponsor',
    });
    expect(await fails('sui_getTransactionBlock', ['not-a-digest'])).toEqual({ code: -32602, message: 'Invalid params: param \'digest\' must match format "base58-digest"' });
  });

  it('multi-get: over 50 digests, or duplicates, is -32602', async () => {
    const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    const many = Array.from({ length: 51 }, (_, i) => `${UNKNOWN_DIGEST.slice(0, 31)}${base58[i]}`);
    expect(await fails('sui_multiGetTransactionBlocks', [many])).toEqual({
      code: -32602, message: 'Invalid params: 51 digests exceed the limit of 50', data: { code: 'BATCH_TOO_LARGE' },
    });
    expect(await fails('sui_multiGetTransactionBlocks', [[UNKNOWN_DIGEST, UNKNOWN_DIGEST]])).toEqual({
      code: -32602, message: 'Invalid params: the list of digests contains duplicates',
    });
  });

  it.each([
    ['InputObject', { InputObject: '0x5' }, 'v2 indexes the objects a transaction affected, not its inputs or changes alone; use AffectedObject'],
    ['ChangedObject', { ChangedObject: '0x5' }, 'v2 indexes the objects a transaction affected, not its inputs or changes alone; use AffectedObject'],
    ['TransactionKind', { TransactionKind: 'ProgrammableTransaction' }, 'v2 does not index transactions by kind'],
    ['TransactionKindIn', { TransactionKindIn: ['ProgrammableTransaction'] }, 'v2 does not index transactions by kind'],
  ])('a transaction filter v2 cannot serve (%s) is -32602 UNSUPPORTED_FILTER', async (variant, filter, why) => {
    expect(await fails('suix_queryTransactionBlocks', [{ filter }])).toEqual({
      code: -32602, message: `Invalid params: filter ${variant} is not supported by this gateway: ${why}`, data: { code: 'UNSUPPORTED_FILTER', filter: variant },
    });
  });

  it('a MoveFunction filter naming a function without its module is the node\'s -32602, not every call into the package', async () => {
    expect(await fails('suix_queryTransactionBlocks', [{ filter: { MoveFunction: { package: '0x2', function: 'split' } } }])).toEqual({
      code: -32602, message: 'Invalid params: Cannot supply function without supplying module',
    });
    expect(await fails('suix_queryTransactionBlocks', [{ filter: { MoveFunction: { package: '0x2', module: null, function: 'split' } } }, null, 5, true])).toEqual({
      code: -32602, message: 'Invalid params: Cannot supply function without supplying module',
    });
  });

  it('an event filter v2 cannot serve (TimeRange) is -32602 UNSUPPORTED_FILTER', async () => {
    expect(await fails('suix_queryEvents', [{ TimeRange: { startTime: '0', endTime: '1' } }])).toEqual({
      code: -32602,
      message: 'Invalid params: filter TimeRange is not supported by this gateway: v2 indexes events by checkpoint, not by time',
      data: { code: 'UNSUPPORTED_FILTER', filter: 'TimeRange' },
    });
  });

  it('cursors: not ours, a bare legacy EventID, or one made for another query are -32602 INVALID_CURSOR', async () => {
    const notOurs = await fails('suix_queryTransactionBlocks', [{ filter: null }, UNKNOWN_DIGEST, 2, false]);
    expect(notOurs).toMatchObject({ code: -32602, data: { code: 'INVALID_CURSOR' } });
    expect(await fails('suix_queryEvents', [{ All: [] }, { txDigest: UNKNOWN_DIGEST, eventSeq: '0' }, 2, false])).toEqual({
      code: -32602,
      message: 'Invalid params: legacy event cursors cannot be resumed upstream; pass the nextCursor this gateway returned',
      data: { code: 'INVALID_CURSOR' },
    });
    const page = await e.call('suix_queryTransactionBlocks', [{ filter: null }, null, 1, false]);
    expect(await fails('suix_queryTransactionBlocks', [{ filter: { FromAddress: alice } }, page.nextCursor, 1, false])).toEqual({
      code: -32602, message: 'Invalid params: the cursor was made for another query or order', data: { code: 'INVALID_CURSOR' },
    });
    expect(await fails('suix_queryTransactionBlocks', [{ filter: null }, page.nextCursor, 1, true])).toEqual({
      code: -32602, message: 'Invalid params: the cursor was made for another query or order', data: { code: 'INVALID_CURSOR' },
    });
  });

  it('execution: bytes that are not TransactionData, or a wrong signature, are -32602', async () => {
    expect(await fails('sui_executeTransactionBlock', [toBase64(new Uint8Array([1, 2, 3])), [toBase64(new Uint8Array(97))]])).toEqual({
      code: -32602, message: 'Invalid params: tx_bytes is not a BCS TransactionData',
    });
    expect(await fails('sui_dryRunTransactionBlock', [toBase64(new Uint8Array([9]))])).toEqual({
      code: -32602, message: 'Invalid params: tx_bytes is not a BCS TransactionData',
    });
    expect(await fails('sui_devInspectTransactionBlock', [alice, toBase64(new Uint8Array([9]))])).toEqual({
      code: -32602, message: 'Invalid params: tx_bytes is not a BCS TransactionKind',
    });
    const coins = (await e.call('suix_getCoins', [alice])).data;
    const built = await e.call('unsafe_paySui', [alice, [coins[0].coinObjectId], [bob], ['1'], '10000000']);
    // Signed by bob, sent as alice's: the upstream refuses it; the caller's fault, not a server error.
    const bobKey = e.simnet.accounts.find((a) => a.label === 'bob')!.keypair;
    const { signature } = await bobKey.signTransaction(Buffer.from(built.txBytes, 'base64'));
    const error = await fails('sui_executeTransactionBlock', [built.txBytes, [signature]]);
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ code: 'VALIDATION_FAILED' });
  });

  it('builders: no gas coin covers the budget, gas among the inputs, mismatched lists, unknown objects', async () => {
    const coins = (await e.call('suix_getCoins', [alice])).data;
    const huge = '18000000000000000000';
    expect(await fails('unsafe_transferObject', [alice, coins[0].coinObjectId, null, huge, bob])).toEqual({
      code: -32602,
      message: `Cannot find gas coin for signer address [${alice}] with amount sufficient for the required gas budget [${huge}]. If you are using the pay or transfer SUI API, please use the sui-coins as gas`,
      data: { code: 'INSUFFICIENT_GAS' },
    });
    expect(await fails('unsafe_pay', [alice, [coins[0].coinObjectId], [bob], ['1'], coins[0].coinObjectId, '10000000'])).toEqual({
      code: -32602, message: 'Invalid params: the gas object cannot be one of input_coins',
    });
    expect(await fails('unsafe_paySui', [alice, [coins[0].coinObjectId], [bob, alice], ['1'], '10000000'])).toEqual({
      code: -32602, message: 'Invalid params: recipients and amounts must have the same length',
    });
    const missing = `0x${'ab'.repeat(32)}`;
    expect(await fails('unsafe_payAllSui', [alice, [missing], bob, '10000000'])).toEqual({
      code: -32602, message: `Invalid params: object ${missing} does not exist`, data: { code: 'NOT_FOUND' },
    });
    expect(await fails('unsafe_splitCoinEqual', [alice, coins[0].coinObjectId, '1', null, '10000000'])).toEqual({
      code: -32602, message: 'Invalid params: split_count must be between 2 and 512',
    });
  });
});
