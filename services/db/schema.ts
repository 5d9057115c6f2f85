import type { ColumnType, Generated } from 'kysely';

/** Kysely's view of the tables created by `migrations/*.sql`. */

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type BigIntColumn = ColumnType<string, bigint | string | number, bigint | string | number>;

export interface OrganizationsTable {
  id: string;
  name: string;
  tier: ColumnType<string, string | undefined, string>;
  wallet_address: string | null;
  prepaid_micro_usd: ColumnType<string, bigint | string | number | undefined, bigint | string | number>;
  subscription_plan: string | null;
  subscription_status: string | null;
  subscription_period_end: Timestamp | null;
  /** A card subscription set by an operator (migration 009): blocks an on-chain plan. */
  card_subscription_active: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  slug: string;
  network: string;
  created_at: Timestamp;
  /** Insertion order, for listings (migration 003). */
  created_seq: Generated<string>;
}

export interface KeyRateLimitColumn {
  perKeyRps?: number | null;
  perIpRps?: number | null;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string | null;
  project_id: string | null;
  name: string;
  hash: string;
  start: string;
  scopes: string[];
  allowed_origins: ColumnType<string[], string[] | undefined, string[]>;
  rate_limit: ColumnType<KeyRateLimitColumn | null, string | null | undefined, string | null>;
  kind: ColumnType<string, string | undefined, string>;
  enabled: Generated<boolean>;
  expires_at: Timestamp;
  created_at: Timestamp;
  created_by_key_id: string | null;
  disabled_at: Timestamp | null;
  /** Insertion order, for listings (migration 003). */
  created_seq: Generated<string>;
}

export interface WalletChallengesTable {
  id: string;
  address: string;
  message: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface PrepaidGrantsTable {
  id: string;
  organization_id: string;
  micro_usd: BigIntColumn;
  note: string;
  created_at: Timestamp;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Timestamp;
}

/** Finalized transactions read by the REST data plane (`002_rest_transaction_cache.sql`). */
export interface RestTransactionCacheTable {
  network: string;
  digest: string;
  checkpoint: BigIntColumn;
  /** protobuf binary of sui.rpc.v2.ExecutedTransaction, BCS blobs removed. */
  payload: Uint8Array;
  cached_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Batched usage per organization, key, network, route and minute (`004_usage.sql`). */
export interface UsageMinutesTable {
  organization_id: string;
  key_id: string;
  network: string;
  route: string;
  minute: Timestamp;
  requests: BigIntColumn;
  credits: BigIntColumn;
}

/** OAuth client IDs an organization accepts as zkLogin audiences (`005_zklogin.sql`). */
export interface ZkLoginAudiencesTable {
  id: string;
  organization_id: string;
  audience: string;
  created_at: Timestamp;
  created_seq: Generated<string>;
}

/** On-chain plans (`009_billing.sql`). */
export interface OnchainPlansTable {
  id: string;
  organization_id: string;
  network: string;
  tier: string;
  interval: string;
  state: string;
  allowance_id: string;
  allowance_cap_id: string | null;
  funder: string;
  price_micro_usdc: BigIntColumn;
  pending_tier: string | null;
  pending_allowance_id: string | null;
  anchor_at: Timestamp | null;
  periods_paid: ColumnType<number, number | undefined, number>;
  period_start: Timestamp | null;
  period_end: Timestamp | null;
  failed_attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp | null;
  reminded_for: Timestamp | null;
  notify_email: string | null;
  created_at: Timestamp;
  ended_at: Timestamp | null;
}

export interface BillingChargesTable {
  id: string;
  plan_id: string;
  period_key: Timestamp;
  kind: string;
  tier: string;
  allowance_id: string;
  amount_micro_usdc: BigIntColumn;
  status: string;
  digest: string | null;
  tx_bytes: string | null;
  signature: string | null;
  decline_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PlanTransitionsTable {
  id: string;
  plan_id: string;
  from_state: string | null;
  to_state: string;
  trigger: string;
  actor: string;
  reason: string;
  idempotency_key: string;
  at: Timestamp;
  seq: Generated<string>;
}

export interface BillingEmailsTable {
  id: string;
  plan_id: string;
  kind: string;
  idempotency_key: string;
  recipient: string;
  subject: string;
  body: string;
  created_at: Timestamp;
  sent_at: Timestamp | null;
}

export interface DatabaseSchema {
  onchain_plans: OnchainPlansTable;
  billing_charges: BillingChargesTable;
  plan_transitions: PlanTransitionsTable;
  billing_emails: BillingEmailsTable;
  organizations: OrganizationsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  wallet_challenges: WalletChallengesTable;
  prepaid_grants: PrepaidGrantsTable;
  schema_migrations: SchemaMigrationsTable;
  rest_transaction_cache: RestTransactionCacheTable;
  usage_minutes: UsageMinutesTable;
  zklogin_audiences: ZkLoginAudiencesTable;
}
