import type { Kysely } from 'kysely';
import type { DatabaseSchema, Database } from '../db/index.js';
import { ApiError, type Clock } from '../core/index.js';
import { newId } from './ids.js';
import { generateKeyValue, hashKeyValue, KEY_PREFIX, keyStart } from './key-value.js';
import { parseOriginPattern } from './origins.js';
import { isScope, type Scope } from './scopes.js';
import { notifyIdentityChange } from './invalidation.js';
import { findProject } from './projects.js';
import type { KeyRateLimit } from './principal.js';
import { checkRateLimitWithin, originsWithin, rateLimitWithin } from './key-restrictions.js';

/** Spec: at most 50 enabled keys per organization. */
export const MAX_ENABLED_KEYS_PER_ORGANIZATION = 50;

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_KEY_LIFETIME_DAYS = 30;
export const MAX_KEY_LIFETIME_DAYS = 365;
export const DEFAULT_SCOPES: readonly Scope[] = ['data'];

/** A key as listed: never the secret, only its first characters. */
export interface ApiKeyListItem {
  id: string;
  name: string;
  start: string;
  prefix: string;
  projectId: string | null;
  scopes: Scope[];
  allowedOrigins: string[];
  rateLimit: KeyRateLimit;
  enabled: boolean;
  expiresAt: string;
  createdAt: string;
}

export interface CreatedApiKey {
  id: string;
  /** The key value: returned once, in the creation response, and never again. */
  apiKey: string;
  name: string;
  projectId: string;
  scopes: Scope[];
  allowedOrigins: string[];
  rateLimit: KeyRateLimit;
  expiresAt: string;
}

/**
 * Who asks for a key: a key holder (its scopes, expiry, allowed origins and rate caps bound the
 * new key) or an operator.
 */
export type KeyCreator =
  | {
      kind: 'key';
      keyId: string;
      scopes: readonly Scope[];
      expiresAt: number;
      allowedOrigins: readonly string[];
      rateLimit: KeyRateLimit;
    }
  | { kind: 'operator' };

export interface NewApiKey {
  organizationId: string;
  projectId: string;
  name: string;
  scopes?: readonly string[] | undefined;
  expiresInDays?: number | undefined;
  allowedOrigins?: readonly string[] | undefined;
  rateLimit?: Partial<KeyRateLimit> | undefined;
  kind?: 'standard' | 'wallet';
  /** A fixed key value (dev seeding only); normally generated. */
  value?: string;
}

export interface ApiKeyChanges {
  name?: string | undefined;
  scopes?: readonly string[] | undefined;
  allowedOrigins?: readonly string[] | undefined;
  rateLimit?: Partial<KeyRateLimit> | null | undefined;
}

type KeyRow = {
  id: string;
  name: string;
  start: string;
  project_id: string | null;
  scopes: string[];
  allowed_origins: string[];
  rate_limit: { perKeyRps?: number | null; perIpRps?: number | null } | null;
  enabled: boolean;
  expires_at: Date | string;
  created_at: Date | string;
};

const KEY_COLUMNS = [
  'id',
  'name',
  'start',
  'project_id',
  'scopes',
  'allowed_origins',
  'rate_limit',
  'enabled',
  'expires_at',
  'created_at',
] as const;

function toListItem(row: KeyRow): ApiKeyListItem {
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    prefix: KEY_PREFIX,
    projectId: row.project_id,
    scopes: row.scopes.filter(isScope),
    allowedOrigins: row.allowed_origins,
    rateLimit: normalizeRateLimit(row.rate_limit),
    enabled: row.enabled,
    expiresAt: new Date(row.expires_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

function normalizeRateLimit(value: Partial<KeyRateLimit> | null | undefined): KeyRateLimit {
  return { perKeyRps: value?.perKeyRps ?? null, perIpRps: value?.perIpRps ?? null };
}

/** An unknown scope name as the error quotes it: at most 64 characters of it (names are unbounded). */
function quotedName(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

/** INVALID_SCOPES for unknown names, SCOPE_ESCALATION for scopes the creator lacks. */
function checkScopes(requested: readonly string[], creator: KeyCreator): Scope[] {
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0 || requested.length === 0) {
    throw new ApiError('INVALID_SCOPES', {
      message:
        requested.length === 0
          ? 'At least one scope is required.'
          : `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.map(quotedName).join(', ')}. Allowed: data, streams, manage, zkLogin.`,
    });
  }
  const scopes = [...new Set(requested as Scope[])];
  if (creator.kind === 'key') {
    const missing = scopes.filter((scope) => !creator.scopes.includes(scope));
    if (missing.length > 0) {
      throw new ApiError('SCOPE_ESCALATION', { message: `The calling key lacks: ${missing.join(', ')}.` });
    }
  }
  return scopes;
}

function checkOrigins(origins: readonly string[]): string[] {
  const issues = origins.flatMap((origin, index) => {
    const problem = originEntryProblem(origin);
    return problem === undefined ? [] : [`body.allowedOrigins.${index}: ${problem}`];
  });
  if (issues.length > 0) throw new ApiError('VALIDATION_FAILED', { message: issues.join('; '), fields: { issues } });
  return [...new Set(origins.map((origin) => origin.trim().toLowerCase()))];
}

function originEntryProblem(origin: string): string | undefined {
  // Browsers send `Origin: null` from every sandboxed iframe and file:// page, whoever serves it:
  // as an entry it would read as "my sandboxed page" but stand for all of them.
  if (origin.trim().toLowerCase() === 'null') {
    return '"null" is the origin of every sandboxed iframe and file:// page, not of one site; name the site\'s own origin';
  }
  if (parseOriginPattern(origin) === undefined) return `${JSON.stringify(origin)} is not of the form [scheme://][*.]host[:port]`;
  return undefined;
}

/** The organizations the keys `ids` belong to (unknown ids are skipped). */
export async function organizationsOfKeys(db: Kysely<DatabaseSchema>, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('api_keys').select('organization_id').distinct().where('id', 'in', [...ids]).execute();
  return rows.flatMap((row) => (row.organization_id === null ? [] : [row.organization_id]));
}

export async function listKeys(db: Kysely<DatabaseSchema>, organizationId: string): Promise<ApiKeyListItem[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('organization_id', '=', organizationId)
    .orderBy('created_seq')
    .execute();
  return rows.map(toListItem);
}

/**
 * Creates a key under the spec's rules: default scopes `['data']`, lifetime 1-365 days (default
 * 30) and never past the creating key's own expiry, scopes only those the creator holds, the
 * project in the organization, at most 50 enabled keys per organization. Likewise, the new key
 * is held to the creating key's allowed origins and rate caps (inherited when not named, narrower
 * when named: `key-restrictions.ts`).
 */
export async function createKey(
  database: Database,
  clock: Clock,
  creator: KeyCreator,
  input: NewApiKey,
): Promise<CreatedApiKey> {
  const scopes = checkScopes(input.scopes ?? DEFAULT_SCOPES, creator);
  const requestedOrigins = input.allowedOrigins === undefined ? undefined : checkOrigins(input.allowedOrigins);
  const allowedOrigins = creator.kind === 'key' ? [...originsWithin(requestedOrigins, creator)] : (requestedOrigins ?? []);
  const rateLimit = creator.kind === 'key' ? rateLimitWithin(input.rateLimit, creator) : normalizeRateLimit(input.rateLimit);
  const days = input.expiresInDays ?? DEFAULT_KEY_LIFETIME_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_KEY_LIFETIME_DAYS) {
    throw new ApiError('VALIDATION_FAILED', { message: 'expiresInDays must be an integer from 1 to 365.' });
  }
  const now = clock.now();
  const expiresAt = Math.min(now + days * DAY_MS, creator.kind === 'key' ? creator.expiresAt : Infinity);
  const value = input.value ?? generateKeyValue();

  const project = await findProject(database.db, input.organizationId, input.projectId);
  if (!project) throw new ApiError('PROJECT_NOT_FOUND', { message: `No project ${input.projectId} in this organization.` });

  const id = newId('key');
  await database.db.transaction().execute(async (trx) => {
    // Lock the organization so two concurrent creations cannot both take the 50th place.
    const organization = await trx
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', input.organizationId)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!organization) throw new ApiError('ORGANIZATION_NOT_FOUND');
    const { count } = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', input.organizationId)
      .where('enabled', '=', true)
      .where('expires_at', '>', new Date(now))
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ENABLED_KEYS_PER_ORGANIZATION) {
      throw new ApiError('KEY_LIMIT_REACHED', {
        message: `This organization has ${MAX_ENABLED_KEYS_PER_ORGANIZATION} enabled keys; disable one first.`,
      });
    }
    await trx
      .insertInto('api_keys')
      .values({
        id,
        organization_id: input.organizationId,
        project_id: project.id,
        name: input.name,
        hash: hashKeyValue(value),
        start: keyStart(value),
        scopes,
        allowed_origins: allowedOrigins,
        rate_limit: JSON.stringify(rateLimit),
        kind: input.kind ?? 'standard',
        expires_at: new Date(expiresAt),
        created_at: new Date(now),
        created_by_key_id: creator.kind === 'key' ? creator.keyId : null,
      })
      .execute();
    await notifyIdentityChange(trx, { created: true });
  });
  return {
    id,
    apiKey: value,
    name: input.name,
    projectId: project.id,
    scopes,
    allowedOrigins,
    rateLimit,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/** Disables a key at once (idempotent). A key may disable itself. */
export async function disableKey(
  database: Database,
  clock: Clock,
  organizationId: string,
  keyId: string,
): Promise<{ id: string; enabled: false }> {
  const row = await database.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('api_keys')
      .set((eb) => ({ enabled: false, disabled_at: eb.fn.coalesce('disabled_at', eb.val(new Date(clock.now()))) }))
      .where('id', '=', keyId)
      .where('organization_id', '=', organizationId)
      .returning('id')
      .executeTakeFirst();
    if (!updated) throw new ApiError('KEY_NOT_FOUND', { message: `No key ${keyId} in this organization.` });
    await notifyIdentityChange(trx, { keyId });
    return updated;
  });
  return { id: row.id, enabled: false };
}

/**
 * Edits name, scopes, allowed origins and per-key/per-IP rate caps under the rules of creation:
 * the edited key ends with scopes the editor holds (those it keeps included) and, when the editor
 * is a key, never outlives it and is held to its allowed origins and rate caps (those it keeps
 * included). A disabled key is not edited (409 KEY_DISABLED).
 */
export async function updateKey(
  database: Database,
  creator: KeyCreator,
  organizationId: string,
  keyId: string,
  changes: ApiKeyChanges,
): Promise<ApiKeyListItem> {
  const scopes = changes.scopes === undefined ? undefined : checkScopes(changes.scopes, creator);
  const allowedOrigins = changes.allowedOrigins === undefined ? undefined : checkOrigins(changes.allowedOrigins);
  const row = await database.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('api_keys')
      .select(['id', 'rate_limit', 'allowed_origins', 'enabled', 'scopes', 'expires_at'])
      .where('id', '=', keyId)
      .where('organization_id', '=', organizationId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new ApiError('KEY_NOT_FOUND', { message: `No key ${keyId} in this organization.` });
    if (!current.enabled) throw new ApiError('KEY_DISABLED', { message: `Key ${keyId} is disabled; create a new key instead.` });
    // The key after the edit obeys creation's rules: scopes it keeps count as given by the editor.
    if (scopes === undefined) checkScopes(current.scopes, creator);
    const expiresAt =
      creator.kind === 'key' && new Date(current.expires_at).getTime() > creator.expiresAt ? new Date(creator.expiresAt) : undefined;
    const rateLimit =
      changes.rateLimit === undefined
        ? undefined
        : changes.rateLimit === null
          ? normalizeRateLimit(null)
          : normalizeRateLimit({ ...normalizeRateLimit(current.rate_limit), ...changes.rateLimit });
    if (creator.kind === 'key') {
      originsWithin(allowedOrigins ?? current.allowed_origins, creator);
      checkRateLimitWithin(rateLimit ?? normalizeRateLimit(current.rate_limit), creator);
    }
    const set = {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(allowedOrigins === undefined ? {} : { allowed_origins: allowedOrigins }),
      ...(rateLimit === undefined ? {} : { rate_limit: JSON.stringify(rateLimit) }),
      ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
    };
    // An empty PATCH changes nothing; an UPDATE with no SET clause would be invalid SQL.
    if (Object.keys(set).length === 0) {
      return trx.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', keyId).executeTakeFirstOrThrow();
    }
    const updated = await trx
      .updateTable('api_keys')
      .set(set)
      .where('id', '=', keyId)
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
    await notifyIdentityChange(trx, { keyId });
    return updated;
  });
  return toListItem(row);
}

/**
 * Disables every enabled wallet key of an organization (a new wallet key replaces them), or,
 * with `keepNewest`, all but the newest: run after issuing a key, it makes concurrent
 * registrations converge on one enabled wallet key.
 */
export async function revokeWalletKeys(
  database: Database,
  clock: Clock,
  organizationId: string,
  options: { keepNewest?: boolean } = {},
): Promise<number> {
  return database.db.transaction().execute(async (trx) => {
    const rows = await revokeWalletKeysIn(trx, clock, organizationId, options);
    if (rows > 0) await notifyIdentityChange(trx, { organizationId });
    return rows;
  });
}

async function revokeWalletKeysIn(
  trx: Kysely<DatabaseSchema>,
  clock: Clock,
  organizationId: string,
  options: { keepNewest?: boolean },
): Promise<number> {
  let update = trx
    .updateTable('api_keys')
    .set({ enabled: false, disabled_at: new Date(clock.now()) })
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'wallet')
    .where('enabled', '=', true);
  if (options.keepNewest) {
    update = update.where('id', '!=', (eb) =>
      eb
        .selectFrom('api_keys')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('kind', '=', 'wallet')
        .where('enabled', '=', true)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1),
    );
  }
  const rows = await update.returning('id').execute();
  return rows.length;
}
