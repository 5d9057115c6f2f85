import { bcs } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { EventRecord, TransactionRecord } from '../../ledger/index.js';
import { typeFilterMatcher } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { badUserInput } from '../errors.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginateScan } from '../pagination.js';
import type { Connection, PageArgs, PageLimits } from '../pagination.js';
import { EventNode } from './event.js';
import { TransactionNode } from './transaction.js';

export interface TransactionFilterArgs {
  affectedAddress?: string | null;
  affectedObject?: string | null;
  afterCheckpoint?: number | null;
  atCheckpoint?: number | null;
  beforeCheckpoint?: number | null;
  function?: string | null;
  kind?: 'SYSTEM_TX' | 'PROGRAMMABLE_TX' | null;
  sentAddress?: string | null;
}

type ParsedTransaction = ReturnType<typeof bcs.TransactionData.parse>;
const parsed = new WeakMap<TransactionRecord, ParsedTransaction>();

/** The record's `TransactionData`, decoded once per record. */
export function parseTransaction(tx: TransactionRecord): ParsedTransaction {
  let data = parsed.get(tx);
  if (!data) {
    data = bcs.TransactionData.parse(tx.bcs);
    parsed.set(tx, data);
  }
  return data;
}

/** The executor records a transaction's Move calls; older records are decoded from their BCS. */
function moveCalls(tx: TransactionRecord): readonly { package: string; module: string; function: string }[] {
  if (tx.moveCalls) return tx.moveCalls;
  const kind = parseTransaction(tx).V1.kind;
  const ptb = kind.ProgrammableTransaction ?? kind.ProgrammableSystemTransaction;
  if (!ptb) return [];
  return ptb.commands.flatMap((command) => (command.MoveCall ? [command.MoveCall] : []));
}

/** `0xP`, `0xP::m` or `0xP::m::f`, as Sui's `function` filter takes it. */
function functionMatcher(filter: string): (tx: TransactionRecord) => boolean {
  const [pkg, module, fn, ...rest] = filter.split('::');
  if (!pkg || !/^0x[0-9a-fA-F]{1,64}$/.test(pkg) || rest.length > 0) throw badUserInput(`Invalid function filter: ${filter}`);
  const packageId = normalizeSuiAddress(pkg);
  return (tx) =>
    moveCalls(tx).some(
      (call) => normalizeSuiAddress(call.package) === packageId && (module === undefined || call.module === module) && (fn === undefined || call.function === fn),
    );
}

/** A predicate for Sui's `TransactionFilter` (all set fields must match). */
function transactionMatcher(filter: TransactionFilterArgs): (tx: TransactionRecord) => boolean {
  const matchesFunction = filter.function ? functionMatcher(filter.function) : () => true;
  const { sentAddress, affectedAddress, affectedObject, atCheckpoint, afterCheckpoint, beforeCheckpoint, kind } = filter;
  return (tx) => {
    const checkpoint = Number(tx.checkpoint);
    return (
      (sentAddress == null || tx.sender === sentAddress) &&
      (affectedAddress == null || tx.affectedAddresses.includes(affectedAddress)) &&
      (affectedObject == null || tx.affectedObjects.includes(affectedObject)) &&
      (atCheckpoint == null || checkpoint === atCheckpoint) &&
      (afterCheckpoint == null || checkpoint > afterCheckpoint) &&
      (beforeCheckpoint == null || checkpoint < beforeCheckpoint) &&
      (kind == null || (kind === 'PROGRAMMABLE_TX') === (tx.kind === 'programmable')) &&
      matchesFunction(tx)
    );
  };
}

/**
 * Sealed transactions matching the filter, paged by their global position (Sui's transaction
 * sequence number), scanning from the cursor rather than reading the whole chain.
 */
export function transactionConnection(ctx: RequestContext, filter: TransactionFilterArgs, args: PageArgs, limits: PageLimits): Connection<TransactionNode> {
  const page = pageFromArgs(args, limits);
  const scan = function* (options: { after?: number; descending: boolean }) {
    for (const { position, transaction } of ctx.ledger.iterateTransactions(options)) yield { position, item: transaction };
  };
  return paginateScan(scan, transactionMatcher(filter), page, (tx) => new TransactionNode(ctx, tx));
}

export interface EventFilterArgs {
  afterCheckpoint?: number | null;
  atCheckpoint?: number | null;
  beforeCheckpoint?: number | null;
  module?: string | null;
  sender?: string | null;
  type?: string | null;
}

/** A predicate for Sui's `EventFilter` (all set fields must match). */
function eventMatcher(filter: EventFilterArgs): (event: EventRecord) => boolean {
  const [modulePackage, moduleName, ...extra] = filter.module?.split('::') ?? [];
  if (filter.module && (extra.length > 0 || !/^0x[0-9a-fA-F]{1,64}$/.test(modulePackage ?? ''))) {
    throw badUserInput(`Invalid module filter: ${filter.module}`);
  }
  const packageId = modulePackage ? normalizeSuiAddress(modulePackage) : undefined;
  const matchesType = filter.type ? typeFilterMatcher(filter.type) : () => true;
  const { sender, atCheckpoint, afterCheckpoint, beforeCheckpoint } = filter;
  return (event) => {
    const checkpoint = Number(event.checkpoint);
    return (
      (sender == null || event.sender === sender) &&
      (packageId === undefined || (event.packageId === packageId && (moduleName === undefined || event.module === moduleName))) &&
      (atCheckpoint == null || checkpoint === atCheckpoint) &&
      (afterCheckpoint == null || checkpoint > afterCheckpoint) &&
      (beforeCheckpoint == null || checkpoint < beforeCheckpoint) &&
      matchesType(event.type)
    );
  };
}

/** Sealed events matching the filter, paged by their global position like transactions. */
export function eventConnection(ctx: RequestContext, filter: EventFilterArgs, args: PageArgs): Connection<EventNode> {
  const page = pageFromArgs(args, pageLimits('Query', 'events'));
  const scan = function* (options: { after?: number; descending: boolean }) {
    for (const { position, event } of ctx.ledger.iterateEvents(options)) yield { position, item: event };
  };
  return paginateScan(scan, eventMatcher(filter), page, (event) => new EventNode(ctx, event));
}
