/** Thrown by ledger readers for a malformed cursor or argument (maps to INVALID_ARGUMENT). */
export class InvalidArgumentError extends Error {
  readonly code = 'INVALID_ARGUMENT' as const;
}

/** A malformed or foreign page cursor. */
export class InvalidCursorError extends InvalidArgumentError {}
