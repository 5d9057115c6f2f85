import { GraphQLError } from 'graphql';

/**
 * Every `extensions.code` simnet's GraphQL service puts on an error, in one table. The first five
 * are the codes Sui's GraphQL service (sui-indexer-alt-graphql) uses; `FEATURE_UNAVAILABLE` marks
 * a field of the schema that simnet does not serve.
 */
export const GraphqlErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  FEATURE_UNAVAILABLE: 'FEATURE_UNAVAILABLE',
} as const;

export type GraphqlErrorCode = (typeof GraphqlErrorCode)[keyof typeof GraphqlErrorCode];

export function graphqlError(code: GraphqlErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** The caller's fault: a bad argument, cursor, page size or filter combination. */
export function badUserInput(message: string): GraphQLError {
  return graphqlError(GraphqlErrorCode.BAD_USER_INPUT, message);
}

/** A field of Sui's schema that simnet does not serve (listed in README.md). */
export function notSupported(what: string): GraphQLError {
  return graphqlError(GraphqlErrorCode.FEATURE_UNAVAILABLE, `${what} is not supported by simnet`);
}

/** The same error (message, locations, path) with other extensions. */
export function recoded(error: GraphQLError, extensions: Record<string, unknown>): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}

/** Gives every error a code, as Sui does: errors without one are internal. */
export function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions['code'] === 'string') return error;
  const original = error.originalError;
  // The ledger's readers reject malformed arguments (addresses, types, cursors) with a typed
  // error whose `code` is INVALID_ARGUMENT: the caller's fault, as in Sui.
  if ((original as { code?: unknown } | undefined)?.code === 'INVALID_ARGUMENT') {
    return recoded(error, { code: GraphqlErrorCode.BAD_USER_INPUT });
  }
  if (original instanceof GraphQLError && typeof original.extensions['code'] === 'string') {
    return recoded(error, { ...original.extensions });
  }
  return recoded(error, { ...error.extensions, code: GraphqlErrorCode.INTERNAL_SERVER_ERROR });
}
