import type { GrpcTypes } from '@mysten/sui/grpc';
import type { LedgerReader, NameRecord } from '../ledger/index.js';
import { invalidArgument, notFound, statusError } from './errors.js';
import { toTimestamp } from './proto-values.js';
import { parseAddress } from './validate.js';

const NAME = /^(@[a-z0-9-]+(\.[a-z0-9-]+)*|([a-z0-9-]+\.)+sui)$/i;

function recordToProto(record: NameRecord): GrpcTypes.NameRecord {
  const data: Record<string, string> = {};
  if (record.avatar) data.avatar = record.avatar;
  if (record.contentHash) data.content_hash = record.contentHash;
  return {
    id: record.nftId,
    name: record.name,
    registrationNftId: record.nftId,
    expirationTimestamp: toTimestamp(record.expirationTimestampMs),
    targetAddress: record.targetAddress,
    data,
  };
}

export class NameServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  async lookupName(request: GrpcTypes.LookupNameRequest): Promise<GrpcTypes.LookupNameResponse> {
    const name = request.name?.trim() ?? '';
    if (!NAME.test(name)) throw invalidArgument(`invalid name: ${request.name ?? ''}`);
    const record = this.#ledger.lookupName(name);
    if (!record) throw notFound(`name ${name} not found`);
    // The node reports an expired name as RESOURCE_EXHAUSTED with this exact text.
    if (record.expirationTimestampMs <= this.#ledger.nowMs()) throw statusError('name has expired', 'RESOURCE_EXHAUSTED');
    return { record: recordToProto(record) };
  }

  async reverseLookupName(request: GrpcTypes.ReverseLookupNameRequest): Promise<GrpcTypes.ReverseLookupNameResponse> {
    const address = parseAddress(request.address, 'address');
    const record = this.#ledger.reverseLookupName(address);
    if (!record || record.targetAddress !== address) throw notFound(`no name for ${address}`);
    // As the node: the reverse record resolves through the forward lookup, expiry included.
    if (record.expirationTimestampMs <= this.#ledger.nowMs()) throw statusError('name has expired', 'RESOURCE_EXHAUSTED');
    return { record: recordToProto(record) };
  }
}
