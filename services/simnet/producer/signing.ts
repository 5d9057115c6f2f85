import { createPrivateKey, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import type { GenesisAccount } from '../ledger/index.js';
import { blake2b256 } from '../ledger/hashing.js';

/** DER header of a PKCS#8 Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** Intent of a transaction: scope TransactionData, version V0, app Sui. */
const TRANSACTION_INTENT = new Uint8Array([0, 0, 0]);

/**
 * Signs transactions for a genesis account with Node's native Ed25519, byte-for-byte what
 * `Ed25519Keypair.signTransaction` produces (Ed25519 is deterministic) at a fraction of the
 * cost, so the producer keeps up with large checkpoints.
 */
export class FastEd25519Signer {
  readonly #key: KeyObject;
  readonly #publicKey: Uint8Array;

  constructor(account: GenesisAccount) {
    const { secretKey } = decodeSuiPrivateKey(account.keypair.getSecretKey());
    this.#key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(secretKey)]), format: 'der', type: 'pkcs8' });
    this.#publicKey = account.keypair.getPublicKey().toRawBytes();
  }

  /** The serialized signature (flag ‖ signature ‖ public key) over `txBytes`. */
  signTransaction(txBytes: Uint8Array): Uint8Array {
    const message = new Uint8Array(TRANSACTION_INTENT.length + txBytes.length);
    message.set(TRANSACTION_INTENT);
    message.set(txBytes, TRANSACTION_INTENT.length);
    const signature = sign(null, blake2b256(message), this.#key);
    const serialized = new Uint8Array(1 + signature.length + this.#publicKey.length);
    serialized[0] = 0x00;
    serialized.set(signature, 1);
    serialized.set(this.#publicKey, 1 + signature.length);
    return serialized;
  }
}
