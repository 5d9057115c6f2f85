import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, fromBase58, normalizeSuiAddress } from '@mysten/sui/utils';

/** Last 20 bytes of a coin reservation's digest (sui-types `coin_reservation::COIN_RESERVATION_MAGIC`). */
const MAGIC = 0xac;
const ACCUMULATOR_ROOT = normalizeSuiAddress('0xacc');
const SUI_ACCUMULATOR_KEY = TypeTagSerializer.parseFromStr('0x2::accumulator::Key<0x2::balance::Balance<0x2::sui::SUI>>');

/** A coin reservation: an object ref that stands for funds withdrawn from an address balance. */
export interface CoinReservation {
  /** The accumulator object id (the ref's id unmasked with the chain identifier). */
  readonly accumulatorId: string;
  readonly epoch: bigint;
  readonly amount: bigint;
}

/**
 * Parses a coin reservation ref as a node does (sui-types `ParsedObjectRefWithdrawal::parse`): its
 * digest holds the amount (u64 LE), the epoch it is valid in (u32 LE) and 20 magic bytes; its id is
 * the accumulator object of the (owner, coin type) balance, XORed with the chain identifier.
 * Undefined for a ref to a real object.
 */
export function parseCoinReservation(ref: { objectId: string; digest: string }, chainId: string): CoinReservation | undefined {
  const digest = fromBase58(ref.digest);
  if (digest.length !== 32 || !digest.subarray(12).every((byte) => byte === MAGIC)) return undefined;
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  const id = Buffer.from(normalizeSuiAddress(ref.objectId).slice(2), 'hex');
  const mask = fromBase58(chainId);
  const unmasked = id.map((byte, i) => byte ^ (mask[i] ?? 0));
  return { accumulatorId: normalizeSuiAddress(Buffer.from(unmasked).toString('hex')), epoch: BigInt(view.getUint32(8, true)), amount: view.getBigUint64(0, true) };
}

/** Id of the accumulator object holding `owner`'s SUI address balance (a dynamic field of 0xacc). */
export function suiAccumulatorId(owner: string): string {
  return normalizeSuiAddress(deriveDynamicFieldID(ACCUMULATOR_ROOT, SUI_ACCUMULATOR_KEY, bcs.Address.serialize(owner).toBytes()));
}
