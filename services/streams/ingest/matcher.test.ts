import { describe, expect, it } from 'vitest';
import { CATALOG, COIN_TYPES, EVENT_TYPES } from '../../simnet/index.js';
import type { StreamDefinition } from '../definitions/store.js';
import type { ChainTransaction } from './chain-activity.js';
import { StreamMatcher } from './matcher.js';

const A = `0x${'a'.repeat(64)}`;
const B = `0x${'b'.repeat(64)}`;
const OBJ = `0x${'c'.repeat(64)}`;
const stream = (id: string, filter: Pick<StreamDefinition, 'type' | 'filters'>): StreamDefinition =>
  ({ id, organizationId: 'org', network: 'mainnet', name: id, createdAt: '', ...filter }) as StreamDefinition;

const tx: ChainTransaction = {
  checkpoint: '7', timestampMs: 1, digest: 'D', sender: A,
  events: [
    { index: 0, type: EVENT_TYPES.swap(COIN_TYPES.SUI, COIN_TYPES.USDC), sender: A, packageId: CATALOG.dexPackage, module: 'pool', json: { amount_in: '5', a_to_b: true } },
    { index: 1, type: EVENT_TYPES.wrappedDeposit, sender: A, packageId: CATALOG.envelopePackage, module: 'envelope', json: { inner: { amount: '9' } } },
  ],
  balanceChanges: [{ address: A, coinType: COIN_TYPES.USDC, amount: '-5' }, { address: B, coinType: COIN_TYPES.USDC, amount: '5' }],
  changedObjects: [{ objectId: OBJ, objectType: 'x', idOperation: 'none', inputOwner: A, outputOwner: B, outputVersion: '3' }],
};

describe('StreamMatcher', () => {
  it('event types: exact instantiation, generic base, wrapped envelope; field filters by string form', () => {
    const matcher = new StreamMatcher([
      stream('exact', { type: 'event', filters: { eventTypes: [EVENT_TYPES.swap(COIN_TYPES.SUI, COIN_TYPES.USDC)] } }),
      stream('other-inst', { type: 'event', filters: { eventTypes: [EVENT_TYPES.swap(COIN_TYPES.USDC, COIN_TYPES.SUI)] } }),
      stream('base', { type: 'event', filters: { eventTypes: [`${CATALOG.dexPackage}::pool::SwapEvent`] } }),
      stream('inner', { type: 'event', filters: { eventTypes: [EVENT_TYPES.deposit] } }),
      stream('fields-hit', { type: 'event', filters: { eventTypes: [`${CATALOG.dexPackage}::pool::SwapEvent`], fields: { amount_in: 5, a_to_b: true } } }),
      stream('fields-miss', { type: 'event', filters: { eventTypes: [`${CATALOG.dexPackage}::pool::SwapEvent`], fields: { amount_in: '6' } } }),
      stream('nested', { type: 'event', filters: { eventTypes: [EVENT_TYPES.wrappedDeposit], fields: { 'inner.amount': '9' } } }),
    ]);
    const matched = matcher.match(tx).map((m) => `${m.streamId}:${(m.event.data as { eventIndex: number }).eventIndex}`);
    expect(matched).toEqual(['exact:0', 'base:0', 'fields-hit:0', 'nested:1', 'inner:1']);
  });

  it('addresses (sender and receivers), coin types, object changes', () => {
    const matcher = new StreamMatcher([
      stream('a', { type: 'address', filters: { addresses: [A] } }),
      stream('b', { type: 'address', filters: { addresses: [B] } }),
      stream('usdc', { type: 'coin', filters: { coinTypes: [COIN_TYPES.USDC] } }),
      stream('sui', { type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } }),
      stream('obj', { type: 'object', filters: { objectIds: [OBJ] } }),
    ]);
    const matches = matcher.match(tx);
    expect(matches.map((m) => [m.streamId, m.event.kind])).toEqual([['a', 'address'], ['b', 'address'], ['usdc', 'coin'], ['usdc', 'coin'], ['obj', 'object']]);
    expect(matches[0]!.event.data).toMatchObject({ role: 'sender', address: A, checkpoint: '7', digest: 'D' });
    expect(matches[1]!.event.data).toMatchObject({ role: 'receiver', address: B, balanceChanges: [{ address: B, amount: '5' }] });
    expect(matches[4]!.event.data).toMatchObject({ objectId: OBJ, change: 'ownerChanged', previousOwner: A, owner: B, version: '3' });
  });
});
