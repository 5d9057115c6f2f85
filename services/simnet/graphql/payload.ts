import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { GraphqlErrorCode } from './errors.js';
import { LIMITS } from './limits.js';

/**
 * Top-level arguments that carry transaction bytes and signatures: Sui budgets them apart from
 * the query (`maxTransactionPayloadSize`), so a large transaction does not count as a large query.
 */
const TX_PAYLOAD_ARGS: Readonly<Record<string, readonly string[]>> = {
  'mutation.executeTransaction': ['transactionDataBcs', 'signatures'],
  'query.simulateTransaction': ['transaction'],
  'query.verifySignature': ['message', 'signature'],
  'query.verifyZkLoginSignature': ['bytes', 'signature'],
};

export interface PayloadUsage {
  query_payload_size: number;
  tx_payload_size: number;
}

function payloadError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: GraphqlErrorCode.GRAPHQL_VALIDATION_FAILED } });
}

/** Rejects a request that cannot fit both budgets before anything is parsed. */
export function checkRequestSize(requestSize: number): void {
  const limit = LIMITS.maxQueryPayloadSize + LIMITS.maxTransactionPayloadSize;
  if (requestSize > limit) throw payloadError(`Request too large ${requestSize}B > ${limit}B`);
}

function size(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + size(item), 0);
  return value == null ? 0 : Buffer.byteLength(JSON.stringify(value));
}

/** Splits the request into its transaction payload and the rest, and checks both budgets. */
export function checkPayload(requestSize: number, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): PayloadUsage {
  let txPayload = 0;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const names = TX_PAYLOAD_ARGS[`${operation.operation}.${selection.name.value}`] ?? [];
    for (const arg of selection.arguments ?? []) {
      if (names.includes(arg.name.value)) txPayload += size(valueFromASTUntyped(arg.value, variables));
    }
  }
  if (txPayload > LIMITS.maxTransactionPayloadSize) throw payloadError(`Transaction payload exceeded limit of ${LIMITS.maxTransactionPayloadSize}B`);
  const queryPayload = Math.max(0, requestSize - txPayload);
  if (queryPayload > LIMITS.maxQueryPayloadSize) throw payloadError(`Query payload too large: ${queryPayload}B > ${LIMITS.maxQueryPayloadSize}B`);
  return { query_payload_size: queryPayload, tx_payload_size: txPayload };
}
