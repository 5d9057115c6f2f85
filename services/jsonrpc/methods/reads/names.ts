import type { GrpcTypes } from '@mysten/sui/grpc';
import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { UpstreamError, type CallOptions } from '../../../upstream/index.js';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';

/** SuiNS (gRPC NameService). Legacy answers say "no name" with null / an empty page, not an error. */

const LOOKUP_OPTIONS: CallOptions = {
  idempotent: true,
  // Sui's node answers an expired name with RESOURCE_EXHAUSTED "name has expired": an answer, not overload.
  classify: (code, message) => (code === 'RESOURCE_EXHAUSTED' && /expired/i.test(message) ? 'rejected' : undefined),
};

/** The record, or undefined when there is none or it has expired. */
async function lookup(context: JsonRpcContext, operation: string, invoke: (rpc: RpcOptions) => PromiseLike<{ response: { record?: GrpcTypes.NameRecord } }>) {
  try {
    const response: { record?: GrpcTypes.NameRecord } = await context.upstream.call(operation, async (rpc) => (await invoke(rpc)).response, LOOKUP_OPTIONS);
    const record = response.record;
    const expiresAt = record?.expirationTimestamp;
    if (expiresAt && Number(expiresAt.seconds) * 1000 <= context.now()) return undefined;
    return record;
  } catch (error) {
    if (error instanceof UpstreamError && (error.kind === 'not_found' || error.kind === 'rejected' || error.kind === 'invalid_argument')) return undefined;
    throw error;
  }
}

export const resolveNameServiceAddress: JsonRpcMethod = {
  name: 'suix_resolveNameServiceAddress',
  translatesTo: 'gRPC NameService.LookupName',
  async handle(params, context) {
    const name = String(params.name);
    const record = await lookup(context, 'LookupName', (rpc) => context.upstream.grpc.nameService.lookupName({ name }, rpc));
    return record?.targetAddress ?? null;
  },
};

export const resolveNameServiceNames: JsonRpcMethod = {
  name: 'suix_resolveNameServiceNames',
  translatesTo: 'gRPC NameService.ReverseLookupName',
  unfilled: ['only the default (reverse) name: a node also answered at most that one'],
  async handle(params, context) {
    const address = normalizeSuiAddress(String(params.address));
    const record = await lookup(context, 'ReverseLookupName', (rpc) => context.upstream.grpc.nameService.reverseLookupName({ address }, rpc));
    return { data: record?.name ? [record.name] : [], nextCursor: null, hasNextPage: false };
  },
};
