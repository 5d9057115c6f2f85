import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, type ErrorCode } from '../core/index.js';

/**
 * Where a bad input sits → the code a caller branches on. A route opts in with
 * `config.fieldCodes`; without it, every schema failure is VALIDATION_FAILED.
 */
export type FieldCodes = Readonly<Record<string, ErrorCode>>;

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
}

/**
 * The one mapping from a failed request schema to the error the caller sees: the first failed
 * field's code when the route names one (INVALID_ADDRESS, INVALID_DIGEST, ...), otherwise
 * VALIDATION_FAILED. A missing or mistyped field is a malformed request, never a field code.
 * Returns undefined when `error` is not a schema failure.
 */
export function validationFailure(error: unknown, fieldCodes: FieldCodes | undefined): ApiError | undefined {
  if (!hasZodFastifySchemaValidationErrors(error)) return undefined;
  const issues = error.validation as ValidationIssue[];
  const context = error.validationContext ?? 'request';
  const described = issues.map((issue) => `${[context, ...(issue.instancePath ?? '').split('/').filter(Boolean)].join('.')}: ${issue.message ?? 'invalid'}`);
  const first = issues[0];
  const field = first?.instancePath?.split('/')[1] ?? '';
  const code = (first?.keyword !== 'invalid_type' && fieldCodes?.[field]) || 'VALIDATION_FAILED';
  return new ApiError(code, { message: described.join('; '), ...(code === 'VALIDATION_FAILED' ? { fields: { issues: described } } : {}) });
}
