// Placeholder until the foundation's one error table lands on main; the data-plane entries below
// move into it on merge (same codes, same statuses).
export const errorTable = {
  VALIDATION_FAILED: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Request validation failed' },
  INVALID_ADDRESS: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid address: expected 0x followed by 64 hex characters' },
  INVALID_DIGEST: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid digest: expected a base58 string' },
  INVALID_CURSOR: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid or expired cursor' },
  INVALID_OBJECT_ID: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid object id: expected 0x followed by 64 hex characters' },
  INVALID_COIN_TYPE: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid coin type: expected a Move struct tag' },
  INVALID_CHECKPOINT: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid checkpoint: expected a sequence number or a base58 digest' },
  INVALID_NAME: { http: 400, grpc: 'INVALID_ARGUMENT', ws: 1008, message: 'Invalid name' },
  ACCOUNT_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Account not found' },
  OBJECT_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Object not found' },
  TRANSACTION_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Transaction not found' },
  CHECKPOINT_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Checkpoint not found' },
  PACKAGE_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Package not found' },
  COIN_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Coin type not found' },
  NAME_NOT_FOUND: { http: 404, grpc: 'NOT_FOUND', ws: 1008, message: 'Name not found' },
  NETWORK_NOT_CONFIGURED: { http: 404, grpc: 'UNIMPLEMENTED', ws: 1008, message: 'No upstream is configured for this network' },
  INTERNAL_ERROR: { http: 500, grpc: 'INTERNAL', ws: 1011, message: 'Internal error' },
  UPSTREAM_BAD_RESPONSE: { http: 502, grpc: 'UNAVAILABLE', ws: 1011, message: 'The upstream node returned an error or an unreadable answer' },
  UPSTREAM_UNAVAILABLE: { http: 503, grpc: 'UNAVAILABLE', ws: 1011, message: 'The upstream node is unavailable' },
  UPSTREAM_TIMEOUT: { http: 504, grpc: 'DEADLINE_EXCEEDED', ws: 1011, message: 'The upstream node did not answer in time' },
} as const;

export type ErrorCode = keyof typeof errorTable;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? errorTable[code].message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = errorTable[code].http;
  }
}
