import { bcs } from '@mysten/sui/bcs';

/** A value flowing between PTB commands. Objects stay in the working set and are referenced by id. */
export type Value =
  | { readonly kind: 'object'; readonly id: string }
  | { readonly kind: 'balance'; readonly coinType: string; amount: bigint }
  | { readonly kind: 'pure'; readonly bytes: Uint8Array }
  | { readonly kind: 'withdrawal'; readonly coinType: string; readonly amount: bigint; readonly owner: string; readonly allowanceId?: string }
  | { readonly kind: 'vector'; readonly items: Value[] }
  | { readonly kind: 'u64'; readonly value: bigint }
  | { readonly kind: 'moved' };

export function decodeU64(value: Value): bigint {
  if (value.kind === 'u64') return value.value;
  if (value.kind !== 'pure' || value.bytes.length !== 8) throw new TypeError('expected u64');
  return BigInt(bcs.u64().parse(value.bytes));
}

export function decodeAddress(value: Value): string {
  if (value.kind !== 'pure' || value.bytes.length !== 32) throw new TypeError('expected address');
  return bcs.Address.parse(value.bytes);
}

export function decodeU64Vector(value: Value): bigint[] {
  if (value.kind === 'vector') return value.items.map(decodeU64);
  if (value.kind !== 'pure') throw new TypeError('expected vector<u64>');
  return bcs.vector(bcs.u64()).parse(value.bytes).map((item) => BigInt(item));
}

export function decodeString(value: Value): string {
  if (value.kind !== 'pure') throw new TypeError('expected string');
  return bcs.string().parse(value.bytes);
}
