import { GraphQLError, Kind, execute, getOperationAST, parse, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLFieldResolver, GraphQLFormattedError } from 'graphql';
import { GraphqlErrorCode, graphqlError, notSupported, recoded, withCode } from './errors.js';
import { checkPayload, checkRequestSize } from './payload.js';
import { checkQueryShape } from './query-shape.js';
import { suiSchema } from './schema.js';

/** A GraphQL request as it arrives over HTTP, not yet trusted. */
export interface GraphqlRequest {
  readonly query?: unknown;
  readonly variables?: unknown;
  readonly operationName?: unknown;
}

export interface GraphqlResponse {
  data?: unknown;
  errors?: GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

export interface RunOptions {
  /** GET requests may be cached and replayed: like any GraphQL-over-HTTP server, no mutations. */
  readonly queriesOnly?: boolean;
  /** Bytes of the request as received (default: its JSON); budgets are measured on it. */
  readonly requestSize?: number;
  /** `x-sui-rpc-show-usage`: report how much of each limit the query uses. */
  readonly showUsage?: boolean;
}

/**
 * Resolves a field from its parent value: a property is returned, a method is called with
 * `(args, context, info)`. A field the parent does not define is one simnet does not serve, so it
 * answers a `FEATURE_UNAVAILABLE` error instead of a silent null.
 */
const strictFieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  if (source !== null && typeof source === 'object' && info.fieldName in source) {
    const value: unknown = (source as Record<string, unknown>)[info.fieldName];
    return typeof value === 'function' ? value.call(source, args, context, info) : value;
  }
  throw notSupported(`${info.parentType.name}.${info.fieldName}`);
};

function requestError(code: GraphqlErrorCode, message: string): GraphqlResponse {
  return { data: null, errors: [graphqlError(code, message).toJSON()] };
}

/** Clients send the same few queries over and over: keep their validated documents. */
const VALIDATED_CACHE_SIZE = 256;
const validated = new Map<string, DocumentNode>();

/** Parses and validates a query against Sui's schema, or answers the errors Sui would. */
function validatedDocument(query: string): DocumentNode | GraphqlResponse {
  const cached = validated.get(query);
  if (cached) return cached;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) {
      return { data: null, errors: [recoded(error, { code: GraphqlErrorCode.GRAPHQL_PARSE_FAILED }).toJSON()] };
    }
    throw error;
  }
  const validationErrors = validate(suiSchema(), document);
  if (validationErrors.length > 0) {
    return {
      data: null,
      errors: validationErrors.map((error) => recoded(error, { code: GraphqlErrorCode.GRAPHQL_VALIDATION_FAILED }).toJSON()),
    };
  }
  if (validated.size >= VALIDATED_CACHE_SIZE) validated.delete(validated.keys().next().value!);
  validated.set(query, document);
  return document;
}

/**
 * Runs one GraphQL request against Sui's schema: parse, validate, check Sui's limits, execute.
 * Every error carries an `extensions.code`; nothing here throws for a bad query.
 */
export async function runGraphql(
  request: GraphqlRequest,
  rootValue: object,
  contextValue: object,
  options: RunOptions = {},
): Promise<GraphqlResponse> {
  const { query, variables, operationName } = request;
  if (typeof query !== 'string' || query.trim() === '') {
    return requestError(GraphqlErrorCode.BAD_USER_INPUT, 'Request has no query');
  }
  const requestSize = options.requestSize ?? Buffer.byteLength(JSON.stringify(request));
  try {
    checkRequestSize(requestSize);
  } catch (error) {
    return { data: null, errors: [(error as GraphQLError).toJSON()] };
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return requestError(GraphqlErrorCode.BAD_USER_INPUT, 'Variables must be a JSON object');
  }
  if (operationName != null && typeof operationName !== 'string') {
    return requestError(GraphqlErrorCode.BAD_USER_INPUT, 'operationName must be a string');
  }

  const document = validatedDocument(query);
  if (!('kind' in document) || document.kind !== Kind.DOCUMENT) return document as GraphqlResponse;

  const operation = getOperationAST(document, operationName ?? undefined);
  let usage: Record<string, unknown> | undefined;
  if (operation) {
    if (options.queriesOnly && operation.operation === 'mutation') {
      return requestError(GraphqlErrorCode.BAD_USER_INPUT, 'Mutations must be sent with POST');
    }
    const variableValues = (variables ?? {}) as Record<string, unknown>;
    try {
      const payload = checkPayload(requestSize, operation, variableValues);
      const shape = checkQueryShape(suiSchema(), document, operation, variableValues);
      usage = { input: shape.input, payload, output: shape.output };
    } catch (error) {
      if (error instanceof GraphQLError) return { data: null, errors: [error.toJSON()] };
      throw error;
    }
  }

  const result: ExecutionResult = await execute({
    schema: suiSchema(),
    document,
    rootValue,
    contextValue,
    variableValues: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: operationName ?? undefined,
    fieldResolver: strictFieldResolver,
  });

  const response: GraphqlResponse = { data: result.data ?? null };
  if (options.showUsage && usage) response.extensions = { usage };
  if (result.errors && result.errors.length > 0) {
    response.errors = result.errors.map((error) => {
      // Errors without a path come from coercing the request's variables: the caller's fault.
      if (!error.path && error.extensions['code'] === undefined) {
        return recoded(error, { code: GraphqlErrorCode.BAD_USER_INPUT }).toJSON();
      }
      return withCode(error).toJSON();
    });
  }
  return response;
}
