/**
 * The one error table of the service: every code of the spec (general, billing, zkLogin, data
 * plane) with its HTTP status, gRPC status and WebSocket close code. Handlers throw
 * `new ApiError('KEY_NOT_FOUND')`; one renderer per transport turns it into the wire form.
 */

/** gRPC status codes (numbers as on the wire, see grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/** WebSocket close codes: 4003 for scope/origin and 1008 QUOTA_EXCEEDED are the spec's. */
export const WsClose = {
  POLICY: 1008,
  INTERNAL: 1011,
  TRY_AGAIN_LATER: 1013,
  UNAUTHORIZED: 4001,
  BAD_REQUEST: 4000,
  FORBIDDEN: 4003,
  NOT_FOUND: 4004,
  CONFLICT: 4009,
  RATE_LIMITED: 4029,
} as const;

export interface ErrorDefinition {
  readonly status: number;
  readonly grpc: GrpcStatusCode;
  readonly ws: number;
  /** Short human summary, rendered as `error`. */
  readonly title: string;
  /**
   * Whether `code` appears on the wire. The spec answers some failures without a code (a missing
   * or invalid key: 401; the organization-wide rate limit: 429); they still have an internal
   * name so that code can branch on them.
   */
  readonly wire?: false;
}

const e = (
  status: number,
  grpc: GrpcStatusCode,
  ws: number,
  title: string,
  wire?: false,
): ErrorDefinition => (wire === false ? { status, grpc, ws, title, wire } : { status, grpc, ws, title });

const G = GrpcStatus;
const W = WsClose;

export const ERRORS = {
  // Authentication and authorization (spec: Authentication, Errors).
  API_KEY_MISSING: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'Missing API key', false),
  API_KEY_INVALID: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'Invalid API key', false),
  API_KEY_DISABLED: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'Invalid API key', false),
  API_KEY_EXPIRED: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'API key expired'),
  AUTH_CONTEXT_MISSING: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'API key has no organization'),
  INSUFFICIENT_SCOPE: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Insufficient scope'),
  ORIGIN_NOT_ALLOWED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Origin not allowed'),
  NETWORK_MISMATCH: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Network mismatch'),
  ORGANIZATION_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Organization not found'),

  // Rate limits and credits (spec: Errors, Limits).
  RATE_LIMIT_EXCEEDED: e(429, G.RESOURCE_EXHAUSTED, W.RATE_LIMITED, 'Rate limit exceeded'),
  ORG_RATE_LIMITED: e(429, G.RESOURCE_EXHAUSTED, W.RATE_LIMITED, 'Organization rate limit exceeded', false),
  CU_QUOTA_EXCEEDED: e(429, G.RESOURCE_EXHAUSTED, W.POLICY, 'Monthly credits spent'),
  /**
   * Not in the spec: the organization already has as many JSON-RPC WebSockets open on this process
   * as it may (docs/jsonrpc.md, Subscriptions); one closes, then one opens. A 429, so not charged.
   */
  CONNECTION_LIMIT_REACHED: e(429, G.RESOURCE_EXHAUSTED, W.RATE_LIMITED, 'Connection limit reached'),

  // Management API.
  SCOPE_ESCALATION: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Scope escalation'),
  PROJECT_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Project not found'),
  PROJECT_SLUG_TAKEN: e(409, G.ALREADY_EXISTS, W.CONFLICT, 'Project slug taken'),
  PROJECT_LIMIT_REACHED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Project limit reached'),
  INVALID_SCOPES: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid scopes'),
  INVALID_PROJECT_NAME: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid project name'),
  KEY_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Key not found'),
  KEY_LIMIT_REACHED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Key limit reached'),
  /** Not in the spec: a disabled key stays as it was disabled (no operation re-enables it). */
  KEY_DISABLED: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Key disabled'),
  INVALID_BODY: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid body'),
  UNSUPPORTED_MEDIA_TYPE: e(415, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Unsupported media type'),
  VALIDATION_FAILED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Validation failed'),
  NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Not found'),
  METHOD_NOT_ALLOWED: e(405, G.UNIMPLEMENTED, W.BAD_REQUEST, 'Method not allowed'),
  /** Not in the spec: a WebSocket address asked without an upgrade (RFC 9110 15.5.22; sent with `Upgrade: websocket`). */
  UPGRADE_REQUIRED: e(426, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Upgrade required'),
  PAYLOAD_TOO_LARGE: e(413, G.RESOURCE_EXHAUSTED, W.BAD_REQUEST, 'Payload too large'),
  INTERNAL_ERROR: e(500, G.INTERNAL, W.INTERNAL, 'Internal error'),
  // HTTP edges: malformed or too slow requests, and load shed before the event loop drowns.
  BAD_REQUEST: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Bad request'),
  INVALID_URL: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid URL'),
  REQUEST_TIMEOUT: e(408, G.DEADLINE_EXCEEDED, W.BAD_REQUEST, 'Request timeout'),
  URI_TOO_LONG: e(414, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'URI too long'),
  HEADERS_TOO_LARGE: e(431, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Request headers too large'),
  SERVICE_OVERLOADED: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Service overloaded'),
  DATABASE_UNAVAILABLE: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Database unavailable'),
  SHUTTING_DOWN: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Shutting down'),

  // Wallet organizations (POST /v1/wallet/register and its challenge).
  WALLET_CHALLENGE_INVALID: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Wallet challenge invalid or expired'),
  WALLET_SIGNATURE_INVALID: e(401, G.UNAUTHENTICATED, W.UNAUTHORIZED, 'Wallet signature invalid'),
  INSUFFICIENT_PREPAID_BALANCE: e(402, G.FAILED_PRECONDITION, W.POLICY, 'Prepaid balance below minimum'),

  // On-chain billing (spec: "Billing codes", status 400 unless shown).
  ONCHAIN_BILLING_DISABLED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'On-chain billing disabled'),
  PLAN_NOT_AVAILABLE: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Plan not available'),
  STRIPE_SUBSCRIPTION_ACTIVE: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Card subscription active'),
  ONCHAIN_SUBSCRIPTION_EXISTS: e(409, G.ALREADY_EXISTS, W.CONFLICT, 'On-chain subscription exists'),
  ONCHAIN_SUBSCRIPTION_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'On-chain subscription not found'),
  ALLOWANCE_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Allowance not found'),
  ALLOWANCE_WRONG_COIN: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance has the wrong coin'),
  ALLOWANCE_WRONG_SPENDER: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance has the wrong spender'),
  ALLOWANCE_WRONG_APP: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance has the wrong app'),
  ALLOWANCE_WRONG_FUNDER: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance has the wrong funder'),
  ALLOWANCE_WRONG_ORGANIZATION: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance names another organization'),
  // Ours (the spec has no code for it): activate's allowanceCapId is not that allowance's cap, held by its funder.
  ALLOWANCE_CAP_MISMATCH: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance cap does not match the allowance'),
  ALLOWANCE_IN_USE: e(409, G.ALREADY_EXISTS, W.CONFLICT, 'Allowance in use'),
  PLAN_CANCELLED: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Plan cancelled'),
  CHARGE_IN_PROGRESS: e(409, G.ABORTED, W.CONFLICT, 'Charge in progress, retry in a minute'),
  INVALID_FUNDER_ADDRESS: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid funder address'),
  COIN_NOT_ACCEPTED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Coin not accepted'),
  TX_BUILD_FAILED: e(400, G.FAILED_PRECONDITION, W.BAD_REQUEST, 'Transaction build failed'),
  ALLOWANCE_LIMIT_TOO_LOW: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance limit too low'),
  ALLOWANCE_EXPIRES_TOO_SOON: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Allowance expires too soon'),
  ALLOWANCE_NOT_STARTED: e(400, G.FAILED_PRECONDITION, W.BAD_REQUEST, 'Allowance not started'),
  PLAN_UNCHANGED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Plan unchanged'),
  PREPAID_BALANCE_PRESENT: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Prepaid balance present'),
  BALANCE_UNAVAILABLE: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Balance unavailable'),
  DOWNGRADE_NEEDS_RENEWAL: e(400, G.FAILED_PRECONDITION, W.BAD_REQUEST, 'Downgrade applies at renewal'),

  // zkLogin (spec: "zkLogin codes").
  INVALID_JWT: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid JWT'),
  UNSUPPORTED_ISSUER: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Unsupported issuer'),
  NETWORK_NOT_SUPPORTED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Network not supported'),
  INVALID_EPHEMERAL_KEY: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid ephemeral key'),
  NONCE_MISMATCH: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Nonce mismatch'),
  MAX_EPOCH_OUT_OF_RANGE: e(400, G.OUT_OF_RANGE, W.BAD_REQUEST, 'maxEpoch out of range'),
  PLAN_REQUIRED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Plan required'),
  AUDIENCE_NOT_ALLOWED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Audience not allowed'),
  PROOF_RATE_LIMITED: e(429, G.RESOURCE_EXHAUSTED, W.RATE_LIMITED, 'Proof rate limit reached'),
  PROVER_FAILED: e(502, G.UNAVAILABLE, W.INTERNAL, 'Prover failed'),
  PROVER_BUSY: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Prover busy'),
  SALT_UNAVAILABLE: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Salt service unavailable'),
  CHAIN_UNAVAILABLE: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Chain unavailable'),

  // REST data plane (issue 4): bad input is 400 with the field's code, before any upstream call.
  INVALID_ADDRESS: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid address'),
  INVALID_DIGEST: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid digest'),
  INVALID_CURSOR: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid cursor'),
  INVALID_OBJECT_ID: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid object id'),
  INVALID_COIN_TYPE: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid coin type'),
  INVALID_CHECKPOINT: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid checkpoint'),
  INVALID_NAME: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Invalid name'),
  ACCOUNT_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Account not found'),
  OBJECT_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Object not found'),
  TRANSACTION_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Transaction not found'),
  CHECKPOINT_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Checkpoint not found'),
  PACKAGE_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Package not found'),
  COIN_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Coin metadata not found'),
  NAME_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Name not found'),
  NETWORK_NOT_CONFIGURED: e(404, G.UNIMPLEMENTED, W.NOT_FOUND, 'No upstream configured for this network'),
  // The upstream Sui node: wrong answer, down (or circuit open), too slow.
  UPSTREAM_BAD_RESPONSE: e(502, G.UNAVAILABLE, W.INTERNAL, 'Upstream returned a bad response'),
  UPSTREAM_UNAVAILABLE: e(503, G.UNAVAILABLE, W.TRY_AGAIN_LATER, 'Upstream unavailable'),
  UPSTREAM_TIMEOUT: e(504, G.DEADLINE_EXCEEDED, W.TRY_AGAIN_LATER, 'Upstream timeout'),

  // GraphQL gateway: guard rails checked before a query is forwarded (docs/graphql.md).
  GRAPHQL_QUERY_TOO_LARGE: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'GraphQL query too large'),
  GRAPHQL_PARSE_FAILED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'GraphQL query does not parse'),
  GRAPHQL_QUERY_TOO_DEEP: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'GraphQL query too deep'),
  GRAPHQL_TOO_MANY_ALIASES: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'GraphQL query has too many aliases'),
  GRAPHQL_QUERY_TOO_COMPLEX: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'GraphQL query too complex'),
  GRAPHQL_PERSISTED_QUERY_MISMATCH: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Persisted query hash mismatch'),

  // Streams (spec: Stream connection, Events).
  STREAM_ALREADY_CONNECTED: e(409, G.ALREADY_EXISTS, W.CONFLICT, 'Stream already connected'),
  STREAM_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Stream not found'),
  STREAM_LIMIT_REACHED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Stream limit reached'),
  /** Not in the spec: the stream is beyond the plan's stream count (a plan ended); docs/webhooks.md#plan-end-pause. */
  STREAM_PAUSED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Stream paused'),

  // Webhooks (not in the spec beyond "managed with the manage scope"; docs/webhooks.md).
  WEBHOOK_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Webhook not found'),
  WEBHOOK_LIMIT_REACHED: e(403, G.PERMISSION_DENIED, W.FORBIDDEN, 'Webhook limit reached'),
  WEBHOOK_URL_NOT_ALLOWED: e(400, G.INVALID_ARGUMENT, W.BAD_REQUEST, 'Webhook URL not allowed'),
  WEBHOOK_DELIVERY_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Webhook delivery not found'),
  /** A redelivery of a delivery still queued or in flight: it is attempted on its schedule already. */
  WEBHOOK_DELIVERY_PENDING: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Webhook delivery pending'),
  /** A redelivery to a switched-off webhook (PATCH enabled: false, or a 410): switch it on first. */
  WEBHOOK_DISABLED: e(409, G.FAILED_PRECONDITION, W.CONFLICT, 'Webhook disabled'),

  // Catalog (`?protocol=` names no protocol cataloged on the key's network).
  PROTOCOL_NOT_FOUND: e(404, G.NOT_FOUND, W.NOT_FOUND, 'Protocol not found'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export interface ApiErrorOptions {
  /** Detail for the caller, rendered as `message`. Never include secrets. */
  message?: string;
  /** Extra fields of the body (e.g. `retryAfter`), rendered beside `error` and `code`. */
  fields?: Record<string, unknown>;
  /** Response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly definition: ErrorDefinition;
  readonly fields: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly detail: string | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const definition: ErrorDefinition = ERRORS[code];
    super(options.message ?? definition.title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.definition = definition;
    this.detail = options.message;
    this.fields = options.fields;
    this.headers = options.headers;
  }

  get status(): number {
    return this.definition.status;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** The HTTP body of an error: `{error, message?, code?, requestId?, ...fields}`. */
export interface ErrorBody {
  error: string;
  message?: string;
  code?: string;
  requestId?: string;
  [field: string]: unknown;
}

export function errorBody(error: ApiError, requestId?: string): ErrorBody {
  const body: ErrorBody = { error: error.definition.title };
  if (error.detail !== undefined && error.detail !== error.definition.title) body.message = error.detail;
  if (error.definition.wire !== false) body.code = error.code;
  if (error.fields) Object.assign(body, error.fields);
  if (requestId !== undefined) body.requestId = requestId;
  return body;
}
