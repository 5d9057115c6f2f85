import { createHash } from 'node:crypto';
import { blake2b } from '@noble/hashes/blake2.js';
import { toBase58 } from '@mysten/sui/utils';

const encoder = new TextEncoder();

/** blake2b-256 over `Name::` ‖ bytes, base58: how Sui digests its signed structures. */
export function suiDigest(typeName: string, bcsBytes: Uint8Array): string {
  return toBase58(suiDigestBytes(typeName, bcsBytes));
}

export function suiDigestBytes(typeName: string, bcsBytes: Uint8Array): Uint8Array {
  const hasher = blake2b.create({ dkLen: 32 });
  hasher.update(encoder.encode(`${typeName}::`));
  hasher.update(bcsBytes);
  return hasher.digest();
}

export function blake2b256(bytes: Uint8Array): Uint8Array {
  return blake2b(bytes, { dkLen: 32 });
}

/**
 * Deterministic pseudo-random source derived from a seed string. Each `fork(label)` gives an
 * independent stream, so adding draws in one place does not shift another place's values.
 */
export class SeededRandom {
  readonly #seed: string;
  #counter = 0;
  #buffer: Buffer = Buffer.alloc(0);
  #offset = 0;

  constructor(seed: string) {
    this.#seed = seed;
  }

  fork(label: string): SeededRandom {
    return new SeededRandom(`${this.#seed}/${label}`);
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      if (this.#offset >= this.#buffer.length) {
        this.#buffer = createHash('sha256').update(`${this.#seed}#${this.#counter++}`).digest();
        this.#offset = 0;
      }
      out[i] = this.#buffer[this.#offset++]!;
    }
    return out;
  }

  /** Uniform integer in [0, max). */
  int(max: number): number {
    const view = this.bytes(4);
    const value = ((view[0]! << 24) | (view[1]! << 16) | (view[2]! << 8) | view[3]!) >>> 0;
    return value % max;
  }

  /** Uniform bigint in [min, max]. */
  bigintBetween(min: bigint, max: bigint): bigint {
    const span = max - min + 1n;
    const raw = BigInt('0x' + Buffer.from(this.bytes(16)).toString('hex'));
    return min + (raw % span);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** A 32-byte object id / address. */
  address(): string {
    return '0x' + Buffer.from(this.bytes(32)).toString('hex');
  }
}
