import { bech32 } from '@scure/base';

/** Sui's private key form: bech32, prefix `suiprivkey`, a scheme flag byte then 32 key bytes. */
const PREFIX = 'suiprivkey';
const ED25519_FLAG = 0x00;
const KEY_BYTES = 32;

/**
 * Whether `value` is an ED25519 key in Sui's bech32 form (what the SDK's `decodeSuiPrivateKey`
 * reads and `Ed25519Keypair.fromSecretKey` takes). Decoded here with the bech32 codec the SDK
 * itself uses rather than through `@mysten/sui/cryptography`: the config schema is loaded by every
 * role, and that module cost each of them (authz, ratelimit, migrate, grpc included) about 180 ms
 * of start-up and 3.4 MB of heap for one check of one setting.
 */
export function isEd25519SuiPrivateKey(value: string): boolean {
  try {
    const { prefix, words } = bech32.decode(value as `${string}1${string}`);
    const bytes = bech32.fromWords(words);
    return prefix === PREFIX && bytes.length === 1 + KEY_BYTES && bytes[0] === ED25519_FLAG;
  } catch {
    return false;
  }
}
