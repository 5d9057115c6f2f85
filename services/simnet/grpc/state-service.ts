import { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeStructTag } from '@mysten/sui/utils';
import type { BalanceRecord, LedgerReader } from '../ledger/index.js';
import { objectToProto } from './convert-objects.js';
import { invalidArgument, notFound } from './errors.js';
import { ReadMask, applyReadMask } from './read-mask.js';
import { cursorToPageToken, pageSize, pageTokenToCursor, parseAddress } from './validate.js';

function parseCoinType(value: string | undefined): string {
  if (!value) throw invalidArgument('missing coin_type');
  try {
    return normalizeStructTag(value);
  } catch {
    throw invalidArgument(`invalid coin_type: ${value}`);
  }
}

function balanceToProto(balance: BalanceRecord): GrpcTypes.Balance {
  return { coinType: balance.coinType, balance: balance.balance, addressBalance: balance.addressBalance, coinBalance: balance.coinBalance };
}

export class StateServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  async listDynamicFields(request: GrpcTypes.ListDynamicFieldsRequest): Promise<GrpcTypes.ListDynamicFieldsResponse> {
    const parent = parseAddress(request.parent, 'parent');
    const mask = ReadMask.parse(request.readMask, 'parent,field_id').validate(GrpcTypes.DynamicField);
    const page = this.#ledger.listDynamicFields(parent, { cursor: pageTokenToCursor(request.pageToken), limit: pageSize(request.pageSize) });
    return {
      dynamicFields: page.items.map((object) => {
        const field = object.dynamicField!;
        const proto: GrpcTypes.DynamicField = {
          kind: field.kind === 'object' ? GrpcTypes.DynamicField_DynamicFieldKind.OBJECT : GrpcTypes.DynamicField_DynamicFieldKind.FIELD,
          parent: field.parent,
          fieldId: object.objectId,
          name: { name: field.nameType, value: field.nameBcs },
          valueType: field.valueType,
        };
        if (mask.has('field_object')) proto.fieldObject = objectToProto(object, mask.sub('field_object'));
        // The value is the part of the Field<K, V> contents after the UID and the name.
        if (mask.has('value')) proto.value = { name: field.valueType, value: object.contents.slice(32 + field.nameBcs.length) };
        return applyReadMask(GrpcTypes.DynamicField, proto, mask);
      }),
      nextPageToken: cursorToPageToken(page.nextCursor),
    };
  }

  async listOwnedObjects(request: GrpcTypes.ListOwnedObjectsRequest): Promise<GrpcTypes.ListOwnedObjectsResponse> {
    const owner = parseAddress(request.owner, 'owner');
    const mask = ReadMask.parse(request.readMask, 'object_id,version,object_type').validate(GrpcTypes.Object);
    let type: string | undefined;
    if (request.objectType) {
      try {
        type = normalizeStructTag(request.objectType);
      } catch {
        throw invalidArgument(`invalid object_type: ${request.objectType}`);
      }
    }
    const page = this.#ledger.listOwnedObjects(owner, { type }, { cursor: pageTokenToCursor(request.pageToken), limit: pageSize(request.pageSize) });
    return {
      objects: page.items.map((object) => applyReadMask(GrpcTypes.Object, objectToProto(object, mask), mask)),
      nextPageToken: cursorToPageToken(page.nextCursor),
    };
  }

  async getCoinInfo(request: GrpcTypes.GetCoinInfoRequest): Promise<GrpcTypes.GetCoinInfoResponse> {
    const coinType = parseCoinType(request.coinType);
    const record = this.#ledger.getCoinType(coinType);
    if (!record) throw notFound(`coin type ${coinType} not found`);
    const metadata = record.metadata;
    return {
      coinType,
      metadata: metadata
        ? {
            id: metadata.objectId,
            decimals: metadata.decimals,
            name: metadata.name,
            symbol: metadata.symbol,
            description: metadata.description,
            iconUrl: metadata.iconUrl,
            metadataCapState: GrpcTypes.CoinMetadata_MetadataCapState.UNCLAIMED,
          }
        : undefined,
      treasury: { id: record.treasuryCapId, totalSupply: record.totalSupply, supplyState: GrpcTypes.CoinTreasury_SupplyState.SUPPLY_STATE_UNKNOWN },
    };
  }

  async getBalance(request: GrpcTypes.GetBalanceRequest): Promise<GrpcTypes.GetBalanceResponse> {
    const owner = parseAddress(request.owner, 'owner');
    return { balance: balanceToProto(this.#ledger.getBalance(owner, parseCoinType(request.coinType))) };
  }

  async listBalances(request: GrpcTypes.ListBalancesRequest): Promise<GrpcTypes.ListBalancesResponse> {
    const owner = parseAddress(request.owner, 'owner');
    const page = this.#ledger.listBalances(owner, { cursor: pageTokenToCursor(request.pageToken), limit: pageSize(request.pageSize) });
    return { balances: page.items.map(balanceToProto), nextPageToken: cursorToPageToken(page.nextCursor) };
  }
}
