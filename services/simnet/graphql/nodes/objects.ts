import { bcs } from '@mysten/sui/bcs';
import type { CoinTypeRecord, MovePackageRecord, ObjectOwner, ObjectRecord, ObjectTombstone } from '../../ledger/index.js';
import { ownerIndexKey, typeFilterMatcher } from '../../ledger/index.js';
import { moveObjectData } from '../../ledger/object-encoding.js';
import { readAll } from '../context.js';
import type { RequestContext } from '../context.js';
import { checkMultiGetSize, pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { nodeId } from './node-id.js';
import { BalanceNode } from './balance.js';
import { MoveModuleNode, MoveValueNode } from './move.js';
import { NameRecordNode } from './name-record.js';
import { boundedObject, boundedPackage, findDynamicField, packageVersionConnection, versionConnection } from './object-lookups.js';
import type { DynamicFieldNameArgs, VersionFilterArgs } from './object-lookups.js';
import { TransactionNode } from './transaction.js';
import { transactionConnection } from './transaction-filters.js';
import type { TransactionFilterArgs } from './transaction-filters.js';

/**
 * Everything that has an address (`IAddressable`): plain addresses, objects, packages. Objects
 * extend it, which is why the object family lives in this one file (ES module cycles and
 * `extends` do not mix).
 */
export class AddressNode {
  readonly __typename: string = 'Address';

  constructor(
    protected readonly ctx: RequestContext,
    readonly address: string,
  ) {}

  get id(): string {
    return nodeId('Address', this.address);
  }

  balance({ coinType }: { coinType: string }): BalanceNode {
    return new BalanceNode(this.ctx.ledger.getBalance(this.address, coinType));
  }

  multiGetBalances({ keys }: { keys: string[] }): BalanceNode[] {
    checkMultiGetSize(keys.length);
    return keys.map((coinType) => this.balance({ coinType }));
  }

  balances(args: PageArgs): Connection<BalanceNode> {
    const records = readAll((page) => this.ctx.ledger.listBalances(this.address, page));
    return paginate(records, (b) => b.coinType, pageFromArgs(args, pageLimits('Address', 'balances')), (b) => new BalanceNode(b));
  }

  objects(args: PageArgs & { filter?: { type?: string | null; owner?: string | null; ownerKind?: string | null } | null }): Connection<ObjectNode> {
    const page = pageFromArgs(args, pageLimits('Address', 'objects'));
    const matches = args.filter?.type ? typeFilterMatcher(args.filter.type) : () => true;
    const records = readAll((p) => this.ctx.ledger.listOwnedObjects(this.address, {}, p)).filter((o) => !o.package && matches(o.type));
    // The ledger's owner-index order (type, coins largest first, id), and the same key as the cursor.
    return paginate(records, (o) => ownerIndexKey(o), page, (o) => new ObjectNode(this.ctx, o, 'MoveObject'));
  }

  defaultNameRecord(): NameRecordNode | null {
    const record = this.ctx.ledger.reverseLookupName(this.address);
    return record ? NameRecordNode.live(this.ctx, record) : null;
  }

  transactions(args: PageArgs & { relation?: 'SENT' | 'AFFECTED' | null; filter?: TransactionFilterArgs | null }) {
    const filter: TransactionFilterArgs = { ...(args.filter ?? {}) };
    if (args.relation === 'SENT') filter.sentAddress = this.address;
    else filter.affectedAddress = this.address;
    return transactionConnection(this.ctx, filter, args, pageLimits('Address', 'transactions'));
  }

  asObject(): ObjectNode | null {
    const record = this.ctx.ledger.getObject(this.address);
    return record ? ObjectNode.of(this.ctx, record, 'Object') : null;
  }

  dynamicField({ name }: { name: DynamicFieldNameArgs }): DynamicFieldNode | null {
    return findDynamicField(this.ctx, this.address, name, 'field');
  }

  dynamicObjectField({ name }: { name: DynamicFieldNameArgs }): DynamicFieldNode | null {
    return findDynamicField(this.ctx, this.address, name, 'object');
  }

  multiGetDynamicFields({ keys }: { keys: DynamicFieldNameArgs[] }): (DynamicFieldNode | null)[] {
    checkMultiGetSize(keys.length);
    return keys.map((name) => findDynamicField(this.ctx, this.address, name, 'field'));
  }

  multiGetDynamicObjectFields({ keys }: { keys: DynamicFieldNameArgs[] }): (DynamicFieldNode | null)[] {
    checkMultiGetSize(keys.length);
    return keys.map((name) => findDynamicField(this.ctx, this.address, name, 'object'));
  }

  dynamicFields(args: PageArgs): Connection<DynamicFieldNode> {
    const records = readAll((page) => this.ctx.ledger.listDynamicFields(this.address, page));
    return paginate(records, (o) => o.objectId, pageFromArgs(args, pageLimits('IMoveObject', 'dynamicFields')), (o) => new DynamicFieldNode(this.ctx, o));
  }
}

export type ObjectTypename = 'Object' | 'MoveObject' | 'MovePackage' | 'CoinMetadata' | 'DynamicField';

/** One version of an object, under whichever of the schema's object types it is asked as. */
export class ObjectNode extends AddressNode {
  override readonly __typename: ObjectTypename;
  readonly record: ObjectRecord;

  constructor(ctx: RequestContext, record: ObjectRecord, typename: ObjectTypename) {
    super(ctx, record.objectId);
    this.record = record;
    this.__typename = typename;
  }

  /**
   * Where the schema's field is typed `Object`, a package stays an `Object` (reached through
   * `asMovePackage`); where it is typed more narrowly, a package answers as `MovePackage`.
   */
  static of(ctx: RequestContext, record: ObjectRecord, typename: ObjectTypename): ObjectNode {
    return typename === 'Object' || !record.package ? new ObjectNode(ctx, record, typename) : new PackageNode(ctx, record);
  }

  override get id(): string {
    return nodeId(this.__typename, this.address, this.version);
  }

  get version(): number {
    return Number(this.record.version);
  }

  get digest(): string {
    return this.record.digest;
  }

  get storageRebate(): bigint {
    return this.record.storageRebate;
  }

  get hasPublicTransfer(): boolean {
    return this.record.hasPublicTransfer;
  }

  get objectBcs(): Uint8Array {
    return this.record.bcs;
  }

  moveObjectBcs(): Uint8Array | null {
    return this.record.package ? null : bcs.MoveObject.serialize(moveObjectData(this.record).Move).toBytes();
  }

  owner(): object {
    return ownerNode(this.ctx, this.record.owner);
  }

  previousTransaction(): TransactionNode | null {
    const tx = this.ctx.ledger.getTransaction(this.record.previousTransaction);
    return tx ? new TransactionNode(this.ctx, tx) : null;
  }

  contents(): MoveValueNode | null {
    if (this.record.package) return null;
    const display = this.record.display ? { output: this.record.display, errors: null } : null;
    return new MoveValueNode(this.record.type, this.record.contents, this.record.json, display);
  }

  asMoveObject(): ObjectNode | null {
    return this.record.package ? null : new ObjectNode(this.ctx, this.record, 'MoveObject');
  }

  asMovePackage(): PackageNode | null {
    return this.record.package ? new PackageNode(this.ctx, this.record) : null;
  }

  asCoinMetadata(): CoinMetadataNode | null {
    const match = /::coin::CoinMetadata<(.+)>$/.exec(this.record.type);
    const coinType = match && this.ctx.ledger.getCoinType(match[1]!);
    return coinType ? new CoinMetadataNode(this.ctx, coinType, this.record) : null;
  }

  asDynamicField(): DynamicFieldNode | null {
    return this.record.dynamicField ? new DynamicFieldNode(this.ctx, this.record) : null;
  }

  objectAt({ version, rootVersion, checkpoint }: { version?: number | null; rootVersion?: number | null; checkpoint?: number | null }): ObjectNode | null {
    if (version == null && rootVersion == null && checkpoint == null) return this;
    const record = boundedObject(this.ctx, this.address, { version, rootVersion, atCheckpoint: checkpoint });
    return record ? ObjectNode.of(this.ctx, record, 'Object') : null;
  }

  objectVersionsAfter(args: PageArgs & { filter?: VersionFilterArgs | null }): Connection<ObjectNode> {
    return versionConnection(this.ctx, this.address, { ...args.filter, afterVersion: Math.max(args.filter?.afterVersion ?? 0, this.version) }, args);
  }

  objectVersionsBefore(args: PageArgs & { filter?: VersionFilterArgs | null }): Connection<ObjectNode> {
    return versionConnection(this.ctx, this.address, { ...args.filter, beforeVersion: Math.min(args.filter?.beforeVersion ?? Infinity, this.version) }, args);
  }
}

export function isTombstone(record: ObjectRecord | ObjectTombstone): record is ObjectTombstone {
  return 'deleted' in record;
}

export function ownerNode(ctx: RequestContext, owner: ObjectOwner): object {
  switch (owner.kind) {
    case 'address':
      return { __typename: 'AddressOwner', address: new AddressNode(ctx, owner.address) };
    case 'object':
      return { __typename: 'ObjectOwner', address: new AddressNode(ctx, owner.address) };
    case 'shared':
      return { __typename: 'Shared', initialSharedVersion: Number(owner.initialSharedVersion) };
    case 'immutable':
      return { __typename: 'Immutable', _: null };
  }
}

export class PackageNode extends ObjectNode {
  readonly #pkg: MovePackageRecord;

  constructor(ctx: RequestContext, record: ObjectRecord) {
    super(ctx, record, 'MovePackage');
    this.#pkg = record.package!;
  }

  static forPackage(ctx: RequestContext, packageId: string): PackageNode | null {
    const pkg = ctx.ledger.getPackage(packageId);
    const record = pkg && ctx.ledger.getObjectAtVersion(pkg.packageId, pkg.version);
    return record && !isTombstone(record) && record.package ? new PackageNode(ctx, record) : null;
  }

  module({ name }: { name: string }): MoveModuleNode | null {
    return this.#pkg.modules.some((m) => m.name === name) ? new MoveModuleNode(this.ctx, this.address, name) : null;
  }

  modules(args: PageArgs): Connection<MoveModuleNode> {
    const names = this.#pkg.modules.map((m) => m.name).sort();
    return paginate(names, (n) => n, pageFromArgs(args, pageLimits('MovePackage', 'modules')), (n) => new MoveModuleNode(this.ctx, this.address, n));
  }

  packageAt({ version, checkpoint }: { version?: number | null; checkpoint?: number | null }): PackageNode | null {
    if (version == null && checkpoint == null) return this;
    return boundedPackage(this.ctx, this.address, { version, atCheckpoint: checkpoint });
  }

  packageVersionsAfter(args: PageArgs & { filter?: VersionFilterArgs | null }): Connection<PackageNode> {
    return packageVersionConnection(this.ctx, this.address, { ...args.filter, afterVersion: Math.max(args.filter?.afterVersion ?? 0, this.version) }, args);
  }

  packageVersionsBefore(args: PageArgs & { filter?: VersionFilterArgs | null }): Connection<PackageNode> {
    return packageVersionConnection(this.ctx, this.address, { ...args.filter, beforeVersion: Math.min(args.filter?.beforeVersion ?? Infinity, this.version) }, args);
  }
}

/** A coin type's metadata; the object fields are answered when the metadata object is on chain. */
export class CoinMetadataNode extends ObjectNode {
  readonly #coinType: CoinTypeRecord;

  constructor(ctx: RequestContext, coinType: CoinTypeRecord, record: ObjectRecord) {
    super(ctx, record, 'CoinMetadata');
    this.#coinType = coinType;
  }

  get decimals(): number | null {
    return this.#coinType.metadata?.decimals ?? null;
  }

  get name(): string | null {
    return this.#coinType.metadata?.name ?? null;
  }

  get symbol(): string | null {
    return this.#coinType.metadata?.symbol ?? null;
  }

  get description(): string | null {
    return this.#coinType.metadata?.description ?? null;
  }

  get iconUrl(): string | null {
    return this.#coinType.metadata?.iconUrl ?? null;
  }

  get supply(): bigint {
    return this.#coinType.totalSupply;
  }

  // simnet registers no regulated coin and keeps every treasury cap: no deny cap, no global
  // pause, and a supply that can still change.
  readonly regulatedState = 'UNREGULATED';
  readonly denyCap = null;
  readonly allowGlobalPause = null;
  readonly supplyState = null;
}

/** A `0x2::dynamic_field::Field<K, V>` object seen as a dynamic field of its parent. */
export class DynamicFieldNode extends ObjectNode {
  constructor(ctx: RequestContext, record: ObjectRecord) {
    super(ctx, record, 'DynamicField');
  }

  name(): MoveValueNode {
    const info = this.record.dynamicField!;
    return new MoveValueNode(info.nameType, info.nameBcs, info.nameJson);
  }

  value(): MoveValueNode | ObjectNode | null {
    const info = this.record.dynamicField!;
    // Field<K, V> is UID (32 bytes) ‖ K ‖ V.
    const valueBcs = this.record.contents.slice(32 + info.nameBcs.length);
    const json = this.record.json;
    const valueJson = json && typeof json === 'object' && !Array.isArray(json) ? (json['value'] ?? null) : null;
    if (info.kind === 'field') return new MoveValueNode(info.valueType, valueBcs, valueJson);
    const childId = `0x${Buffer.from(valueBcs.slice(0, 32)).toString('hex')}`;
    const child = this.ctx.ledger.getObject(childId);
    return child ? new ObjectNode(this.ctx, child, 'MoveObject') : null;
  }
}
