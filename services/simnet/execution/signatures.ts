import { parseSerializedSignature } from '@mysten/sui/cryptography';
import { MultiSigPublicKey, parsePartialSignatures } from '@mysten/sui/multisig';
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
 * A multisig with a zkLogin member is checked member by member, the zkLogin one likewise (the
 * SDK's multisig verifier cannot: it builds its members without a client).
 */
export async function verifyUserSignature(
  message: SignedMessage,
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
  if (parsed.signatureScheme === 'ZkLogin') return { record, address: await verifyZkLogin(message, parsed, currentEpoch) };
  if (parsed.signatureScheme === 'MultiSig' && parsed.multisig.sigs.some((sig) => 'ZkLogin' in sig)) {
    return { record, address: await verifyMultiSigWithZkLogin(message, parsed.multisig, currentEpoch) };
  }
  const publicKey =
    message.kind === 'transaction' ? await verifyTransactionSignature(message.bytes, serialized) : await verifyPersonalMessageSignature(message.bytes, serialized);
  return { record, address: publicKey.toSuiAddress() };
}

interface SignedMessage {
  kind: 'transaction' | 'personalMessage';
  bytes: Uint8Array;
}

type ParsedZkLogin = Extract<ReturnType<typeof parseSerializedSignature>, { signatureScheme: 'ZkLogin' }>;
type ParsedMultiSig = Extract<ReturnType<typeof parseSerializedSignature>, { signatureScheme: 'MultiSig' }>['multisig'];

/** The address a zkLogin signature proves (structurally, as above); throws when it proves none. */
async function verifyZkLogin(message: SignedMessage, parsed: ParsedZkLogin, currentEpoch: bigint): Promise<string> {
  const zk = parsed.zkLogin;
  if (BigInt(zk.maxEpoch) < currentEpoch) throw new Error(`zkLogin signature expired at epoch ${zk.maxEpoch}`);
  const identifier = publicKeyFromRawBytes('ZkLogin', parsed.publicKey);
  const ephemeral = toBase64(zk.userSignature);
  if (message.kind === 'transaction') await verifyTransactionSignature(message.bytes, ephemeral);
  else await verifyPersonalMessageSignature(message.bytes, ephemeral);
  return identifier.toSuiAddress();
}

/** The multisig's address once its signers' weights reach the threshold, each signer verified. */
async function verifyMultiSigWithZkLogin(message: SignedMessage, multisig: ParsedMultiSig, currentEpoch: bigint): Promise<string> {
  const key = new MultiSigPublicKey(multisig.multisig_pk);
  let weight = 0;
  for (const partial of parsePartialSignatures(multisig)) {
    if (partial.signatureScheme === 'ZkLogin') {
      // The SDK keeps a zkLogin signer's whole serialized signature (flag included) in the multisig.
      const zkLogin = parseSerializedSignature(toBase64(partial.signature));
      if (zkLogin.signatureScheme !== 'ZkLogin') throw new Error('malformed zkLogin multisig member signature');
      if ((await verifyZkLogin(message, zkLogin, currentEpoch)) !== partial.publicKey.toSuiAddress()) throw new Error('zkLogin member does not match the multisig key');
    } else {
      const valid = message.kind === 'transaction'
        ? await partial.publicKey.verifyTransaction(message.bytes, partial.signature)
        : await partial.publicKey.verifyPersonalMessage(message.bytes, partial.signature);
      if (!valid) throw new Error(`invalid ${partial.signatureScheme} multisig member signature`);
    }
    weight += partial.weight;
  }
  if (weight < key.getThreshold()) throw new Error(`multisig weight ${weight} is under the threshold ${key.getThreshold()}`);
  return key.toSuiAddress();
}
