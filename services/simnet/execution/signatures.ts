import { parseSerializedSignature } from '@mysten/sui/cryptography';
import { publicKeyFromRawBytes, verifyPersonalMessageSignature, verifyTransactionSignature } from '@mysten/sui/verify';
import { toBase64 } from '@mysten/sui/utils';
import type { SignatureRecord } from '../ledger/index.js';

const SCHEMES: Record<string, SignatureRecord['scheme']> = {
  ED25519: 'ed25519',
  Secp256k1: 'secp256k1',
  Secp256r1: 'secp256r1',
  MultiSig: 'multisig',
  ZkLogin: 'zklogin',
  Passkey: 'passkey',
};

export interface VerifiedSignature {
  readonly record: SignatureRecord;
  /** The address the signature proves authority over. */
  readonly address: string;
}

/**
 * Checks one serialized signature (flag ‖ signature ‖ public key, or a multisig / zkLogin /
 * passkey authenticator) over transaction bytes or a personal message.
 *
 * Ed25519, Secp256k1, Secp256r1, passkey and multisig signatures are verified cryptographically.
 * zkLogin is verified structurally: the ephemeral signature over the message is checked, the
 * address is derived from `iss` and the address seed, and `max_epoch` is compared with the
 * current epoch; the Groth16 proof itself is NOT checked (simnet has no JWKs or verifying key).
 */
export async function verifyUserSignature(
  message: { kind: 'transaction' | 'personalMessage'; bytes: Uint8Array },
  signature: Uint8Array,
  currentEpoch: bigint,
): Promise<VerifiedSignature> {
  const serialized = toBase64(signature);
  let parsed: ReturnType<typeof parseSerializedSignature>;
  try {
    parsed = parseSerializedSignature(serialized);
  } catch {
    throw new Error('malformed signature');
  }
  const scheme = SCHEMES[parsed.signatureScheme];
  if (!scheme) throw new Error(`unsupported signature scheme ${parsed.signatureScheme}`);
  const record: SignatureRecord = { bytes: signature, scheme };
  if (parsed.signatureScheme === 'ZkLogin') {
    const zk = parsed.zkLogin;
    if (BigInt(zk.maxEpoch) < currentEpoch) throw new Error(`zkLogin signature expired at epoch ${zk.maxEpoch}`);
    const identifier = publicKeyFromRawBytes('ZkLogin', parsed.publicKey);
    const ephemeral = toBase64(zk.userSignature);
    if (message.kind === 'transaction') await verifyTransactionSignature(message.bytes, ephemeral);
    else await verifyPersonalMessageSignature(message.bytes, ephemeral);
    return { record, address: identifier.toSuiAddress() };
  }
  const publicKey =
    message.kind === 'transaction' ? await verifyTransactionSignature(message.bytes, serialized) : await verifyPersonalMessageSignature(message.bytes, serialized);
  return { record, address: publicKey.toSuiAddress() };
}
