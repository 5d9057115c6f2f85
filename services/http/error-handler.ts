import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError, errorBody, isApiError, type ErrorCode } from '../core/index.js';
import { databaseUnavailableError } from '../db/index.js';
import { validationFailure } from '../route-contract/index.js';
import type { RouteTable } from './route-table.js';

/** Fastify's own failure codes, translated to the table's codes. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_BODY',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_BODY',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_BODY',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
  FST_ERR_BAD_URL: 'INVALID_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

/** Turns anything thrown into an ApiError; the database unreachable is 503, unknown failures INTERNAL_ERROR (logged). */
export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  const invalid = validationFailure(error, request.routeOptions.config?.fieldCodes);
  if (invalid) return invalid;
  const fastifyError = error as Partial<FastifyError>;
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new ApiError(mapped, { message: describe(mapped, fastifyError), cause: error });
  if (error instanceof SyntaxError && (fastifyError.statusCode === 400 || 'body' in error)) {
    return new ApiError('INVALID_BODY', { message: 'The body is not valid JSON.', cause: error });
  }
  const unavailable = databaseUnavailableError(error);
  if (unavailable) {
    request.log.warn({ err: error }, 'the database did not answer');
    return unavailable;
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error }, 'response does not match its schema');
  } else if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // A client error fastify raised that the table does not name: its own code stays off the wire.
    return new ApiError('VALIDATION_FAILED', { message: fastifyError.message ?? 'Bad request', cause: error });
  } else {
    request.log.error({ err: error }, 'unhandled error');
  }
  return new ApiError('INTERNAL_ERROR', { cause: error });
}

function describe(code: ErrorCode, error: Partial<FastifyError>): string {
  switch (code) {
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'The body must be JSON, sent with Content-Type: application/json.';
    case 'INVALID_BODY':
      return 'The body is not valid JSON.';
    case 'PAYLOAD_TOO_LARGE':
      return 'The body is larger than this endpoint accepts.';
    case 'INVALID_URL':
      return 'The URL is not validly percent-encoded.';
    case 'URI_TOO_LONG':
      return 'A path segment is longer than the server accepts.';
    default:
      return error.message ?? code;
  }
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) void reply.headers(error.headers);
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error, reply.request.id));
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, toApiError(error, request));
}

/**
 * No route matched: 405 with `Allow` when the path exists under other methods (RFC 9110 15.5.6),
 * 404 otherwise.
 */
export function notFoundHandler(routes: RouteTable) {
  return function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const path = request.url.split('?')[0] ?? '/';
    if (routes.methodsAt(path).length > 0) {
      const allow = routes.allowAt(path);
      return sendError(reply, new ApiError('METHOD_NOT_ALLOWED', { message: `${path} answers ${allow}.`, headers: { allow } }));
    }
    return sendError(reply, new ApiError('NOT_FOUND', { message: `No route ${request.method} ${path}.` }));
  };
}
