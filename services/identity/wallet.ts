import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isValidSuiAddress, normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { Database } from '../db/index.js';
import { ADDRESS_PATTERN, ApiError, type Clock } from '../core/index.js';
import { createOrganization } from './organizations.js';
import { createKey, revokeWalletKeys, type CreatedApiKey } from './keys.js';
import type { Scope } from './scopes.js';
import { formatMicroUsd } from '../plans/index.js';
import type { Upstream } from '../upstream/types.js';

/**
 * Wallet organizations (spec: POST /v1/wallet/register). A wallet proves control of its address
 * by signing a one-time challenge as a personal message; its organization (tier `wallet`, one
 * mainnet project) is created on first use. With a prepaid balance of at least the minimum it
 * gets a 30-day key with scopes data, streams, manage, and its older wallet keys are revoked.
 */

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const WALLET_KEY_SCOPES: readonly Scope[] = ['data', 'streams', 'manage'];
export const WALLET_KEY_LIFETIME_DAYS = 30;

export interface WalletChallenge {
  challengeId: string;
  address: string;
  message: string;
  expiresAt: string;
}

export function parseWalletAddress(address: string): string {
  if (!ADDRESS_PATTERN.test(address) || !isValidSuiAddress(address)) {
    throw new ApiError('VALIDATION_FAILED', { message: 'address must match ^0x[a-fA-F0-9]{64}$.' });
  }
  return normalizeSuiAddress(address);
}

/**
 * Challenges are stateless, so an anonymous caller cannot fill a table: the id carries its expiry
 * and a random nonce, authenticated with an HMAC (the wallet-challenges subkey of SUIGW_SECRET)
 * over the address too. A row is written only when a registration's signature verifies (to make
 * the challenge single-use), and rows past their expiry are deleted then.
 */
export function createWalletChallenge(challengeKey: Buffer, clock: Clock, rawAddress: string): WalletChallenge {
  const address = parseWalletAddress(rawAddress);
  const expiresAt = clock.now() + CHALLENGE_TTL_MS;
  const body = Buffer.alloc(EXPIRY_BYTES + NONCE_BYTES);
  body.writeUIntBE(expiresAt, 0, EXPIRY_BYTES);
  randomBytes(NONCE_BYTES).copy(body, EXPIRY_BYTES);
  const challengeId = `${CHALLENGE_PREFIX}${body.toString('base64url')}${challengeTag(challengeKey, address, body).toString('base64url')}`;
  return { challengeId, address, message: challengeMessage(address, challengeId, expiresAt), expiresAt: new Date(expiresAt).toISOString() };
}

const CHALLENGE_PREFIX = 'chal_';
const EXPIRY_BYTES = 6;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const CHALLENGE_ID = /^chal_([A-Za-z0-9_-]{24})([A-Za-z0-9_-]{22})$/;

function challengeTag(challengeKey: Buffer, address: string, body: Buffer): Buffer {
  return createHmac('sha256', challengeKey).update(address).update(body).digest().subarray(0, TAG_BYTES);
}

/** The expiry of a challenge this server issued for this address, or undefined. */
function challengeExpiry(challengeKey: Buffer, address: string, challengeId: string): number | undefined {
  const match = CHALLENGE_ID.exec(challengeId);
  if (!match) return undefined;
  const body = Buffer.from(match[1]!, 'base64url');
  const tag = Buffer.from(match[2]!, 'base64url');
  if (body.length !== EXPIRY_BYTES + NONCE_BYTES || tag.length !== TAG_BYTES) return undefined;
  if (!timingSafeEqual(tag, challengeTag(challengeKey, address, body))) return undefined;
  return body.readUIntBE(0, EXPIRY_BYTES);
}

function challengeMessage(address: string, challengeId: string, expiresAt: number): string {
  return [
    'suigw wants you to register this Sui address for an API key.',
    '',
    `Address: ${address}`,
    `Challenge: ${challengeId}`,
    `Issued At: ${new Date(expiresAt - CHALLENGE_TTL_MS).toISOString()}`,
    `Expiration Time: ${new Date(expiresAt).toISOString()}`,
  ].join('\n');
}

export interface WalletRegistration {
  address: string;
  challengeId: string;
  /** Sui serialized signature (base64) of the challenge message as a personal message. */
  signature: string;
}

export interface WalletRegistrationResult extends CreatedApiKey {
  organizationId: string;
  revokedKeys: number;
}

export async function registerWallet(
  database: Database,
  clock: Clock,
  challengeKey: Buffer,
  minimumPrepaidMicroUsd: bigint,
  input: WalletRegistration,
  /** The mainnet upstream, asked only for a zkLogin signature (resolving it may throw NETWORK_NOT_CONFIGURED). */
  chain: () => Upstream,
): Promise<WalletRegistrationResult> {
  const address = parseWalletAddress(input.address);
  const now = clock.now();
  const expiresAt = challengeExpiry(challengeKey, address, input.challengeId);
  if (expiresAt === undefined || expiresAt <= now) {
    throw new ApiError('WALLET_CHALLENGE_INVALID', { message: 'Request a new challenge with GET /v1/wallet/challenge.' });
  }
  const message = challengeMessage(address, input.challengeId, expiresAt);
  if (!(await verifyChallengeSignature(new TextEncoder().encode(message), input.signature, address, chain))) {
    throw new ApiError('WALLET_SIGNATURE_INVALID', { message: 'The signature does not match the challenge and address.' });
  }
  await consumeChallenge(database, { id: input.challengeId, address, message, expiresAt, now });

  const organization = await findOrCreateWalletOrganization(database, clock, address);
  if (organization.prepaidMicroUsd < minimumPrepaidMicroUsd) {
    throw new ApiError('INSUFFICIENT_PREPAID_BALANCE', {
      message: `A wallet key needs a prepaid balance of at least $${formatMicroUsd(minimumPrepaidMicroUsd)}; the balance is $${formatMicroUsd(organization.prepaidMicroUsd)}.`,
      fields: { organizationId: organization.id },
    });
  }
  const revokedKeys = await revokeWalletKeys(database, clock, organization.id);
  const key = await createKey(database, clock, { kind: 'operator' }, {
    organizationId: organization.id,
    projectId: organization.projectId,
    name: `wallet ${address.slice(0, 10)}…`,
    scopes: WALLET_KEY_SCOPES,
    expiresInDays: WALLET_KEY_LIFETIME_DAYS,
    kind: 'wallet',
  });
  // Concurrent registrations each revoked before any of them issued: keep only the newest.
  const raced = await revokeWalletKeys(database, clock, organization.id, { keepNewest: true });
  return { ...key, organizationId: organization.id, revokedKeys: revokedKeys + raced };
}

/**
 * Whether `signature` signs `bytes` as a personal message of `address`. Ed25519, Secp256k1,
 * Secp256r1, passkey and multisig signatures are checked here, with no network call. A zkLogin
 * signature, alone or as a multisig's signer, can only be checked against the chain (its proof
 * against the issuers' JWKs of the epoch): the mainnet upstream's
 * SignatureVerificationService.VerifySignature answers, under the upstream's deadline, breaker and
 * bulkhead. Its failure is the upstream's error (503 UPSTREAM_UNAVAILABLE, 504 UPSTREAM_TIMEOUT),
 * never a bad signature; a signature the node refuses, or refuses to read (INVALID_ARGUMENT), is.
 */
async function verifyChallengeSignature(bytes: Uint8Array, signature: string, address: string, chain: () => Upstream): Promise<boolean> {
  // Loaded on the first registration: the verifier brings every signature scheme's curves and
  // zkLogin's Poseidon (~5 MB of heap) into each process that imports identity, the Envoy roles
  // included, where no registration ever happens. Outside the try: a failed load is not a bad signature.
  const [{ isValidPersonalMessageSignature }, { parseSerializedSignature }] = await Promise.all([import('@mysten/sui/verify'), import('@mysten/sui/cryptography')]);
  let parsed: ReturnType<typeof parseSerializedSignature>;
  try {
    parsed = parseSerializedSignature(signature);
  } catch {
    return false;
  }
  // The SDK verifies a multisig's members without a client, so a zkLogin signer can only fail
  // there: the node verifies the whole multisig instead (its VerifySignature takes any signature).
  const zkLoginSigner = parsed.signatureScheme === 'MultiSig' && parsed.multisig.sigs.some((sig) => 'ZkLogin' in sig);
  if (parsed.signatureScheme !== 'ZkLogin' && !zkLoginSigner) {
    try {
      return await isValidPersonalMessageSignature(bytes, signature, { address });
    } catch {
      return false;
    }
  }
  const upstream = chain();
  try {
    // The SDK's core API takes no call options: the attempt's deadline goes as the client's default.
    return await upstream.call('VerifySignature', async (options) => {
      const client = upstream.grpcWithDeadline(typeof options.timeout === 'number' ? options.timeout : undefined);
      if (!zkLoginSigner) return isValidPersonalMessageSignature(bytes, signature, { address, client });
      // Named for zkLogin, but a plain VerifySignature of the serialized signature for `address`.
      const verified = await client.core.verifyZkLoginSignature({ bytes: toBase64(bytes), signature, intentScope: 'PersonalMessage', address });
      return verified.success && verified.errors.length === 0;
    }, { idempotent: true });
  } catch (error) {
    // Loaded here, not statically: the Envoy roles import identity and load nothing of the upstreams.
    const [{ isUpstreamError }, { upstreamApiError }] = await Promise.all([import('../upstream/errors.js'), import('../upstream/api-errors.js')]);
    if (isUpstreamError(error) && error.kind === 'invalid_argument') return false;
    throw upstreamApiError(error);
  }
}

/**
 * Single use: the first registration to record the challenge wins, whatever happens next. Only
 * challenges whose signature verified get here; expired records go (an expired id is refused
 * by its own expiry), so the table holds at most the last five minutes of registrations.
 */
async function consumeChallenge(
  database: Database,
  challenge: { id: string; address: string; message: string; expiresAt: number; now: number },
): Promise<void> {
  const now = new Date(challenge.now);
  await database.db.deleteFrom('wallet_challenges').where('expires_at', '<=', now).execute();
  const recorded = await database.db
    .insertInto('wallet_challenges')
    .values({ id: challenge.id, address: challenge.address, message: challenge.message, expires_at: new Date(challenge.expiresAt), used_at: now })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!recorded) {
    throw new ApiError('WALLET_CHALLENGE_INVALID', { message: 'This challenge was used; request a new one with GET /v1/wallet/challenge.' });
  }
}

async function findOrCreateWalletOrganization(database: Database, clock: Clock, address: string) {
  const find = () =>
    database.db
      .selectFrom('organizations as o')
      .innerJoin('projects as p', 'p.organization_id', 'o.id')
      .select(['o.id', 'o.prepaid_micro_usd', 'p.id as projectId'])
      .where('o.wallet_address', '=', address)
      .where('o.deleted_at', 'is', null)
      .where('p.network', '=', 'mainnet')
      .orderBy('p.created_seq')
      .executeTakeFirst();
  let row = await find();
  if (!row) {
    await createOrganization(database.db, clock, {
      name: `Wallet ${address.slice(0, 10)}…${address.slice(-4)}`,
      tier: 'wallet',
      walletAddress: address,
    }).catch(async (error: unknown) => {
      // A concurrent registration created it first (unique wallet address): use theirs.
      if (await find()) return;
      // Or the address belongs to a deleted organization: the unique address stays taken.
      const deleted = await database.db
        .selectFrom('organizations')
        .select('id')
        .where('wallet_address', '=', address)
        .where('deleted_at', 'is not', null)
        .executeTakeFirst();
      if (deleted) throw new ApiError('ORGANIZATION_NOT_FOUND', { message: 'The organization of this wallet was deleted.' });
      throw error;
    });
    row = await find();
  }
  if (!row) throw new ApiError('INTERNAL_ERROR');
  return { id: row.id, projectId: row.projectId, prepaidMicroUsd: BigInt(row.prepaid_micro_usd) };
}

