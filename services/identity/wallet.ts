import { isValidSuiAddress, normalizeSuiAddress } from '@mysten/sui/utils';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import type { Database } from '../db/index.js';
import { ADDRESS_PATTERN, ApiError, type Clock } from '../core/index.js';
import { newId } from './ids.js';
import { createOrganization } from './organizations.js';
import { createKey, revokeWalletKeys, type CreatedApiKey } from './keys.js';
import type { Scope } from './scopes.js';
import { formatMicroUsd } from './plans.js';

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

export async function createWalletChallenge(database: Database, clock: Clock, rawAddress: string): Promise<WalletChallenge> {
  const address = parseWalletAddress(rawAddress);
  const now = clock.now();
  const id = newId('chal');
  const expiresAt = new Date(now + CHALLENGE_TTL_MS).toISOString();
  const message = [
    'suigw wants you to register this Sui address for an API key.',
    '',
    `Address: ${address}`,
    `Challenge: ${id}`,
    `Issued At: ${new Date(now).toISOString()}`,
    `Expiration Time: ${expiresAt}`,
  ].join('\n');
  await database.db
    .insertInto('wallet_challenges')
    .values({ id, address, message, expires_at: expiresAt })
    .execute();
  return { challengeId: id, address, message, expiresAt };
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
  minimumPrepaidMicroUsd: bigint,
  input: WalletRegistration,
): Promise<WalletRegistrationResult> {
  const address = parseWalletAddress(input.address);
  const now = new Date(clock.now());
  // Consume the challenge first and exactly once, whatever happens next.
  const challenge = await database.db
    .updateTable('wallet_challenges')
    .set({ used_at: now })
    .where('id', '=', input.challengeId)
    .where('address', '=', address)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['message'])
    .executeTakeFirst();
  if (!challenge) {
    throw new ApiError('WALLET_CHALLENGE_INVALID', { message: 'Request a new challenge with GET /v1/wallet/challenge.' });
  }
  try {
    await verifyPersonalMessageSignature(new TextEncoder().encode(challenge.message), input.signature, { address });
  } catch {
    throw new ApiError('WALLET_SIGNATURE_INVALID', { message: 'The signature does not match the challenge and address.' });
  }

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

