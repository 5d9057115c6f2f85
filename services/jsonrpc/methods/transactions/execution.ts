import { bcs } from '@mysten/sui/bcs';
import { GrpcTypes } from '@mysten/sui/grpc';
import { fromBase64, normalizeSuiAddress } from '@mysten/sui/utils';
import { JSONRPC_ERROR, JsonRpcError, upstreamFailure, type JsonRpcContext, type JsonRpcMethod } from '../../method.js';
import { u64, type Json } from './legacy-values.js';
import { renderTransactionData } from './render-input.js';
import { u64Param } from '../../params.js';
import {
  FULL_READ_MASK, readMaskFor, renderBalanceChanges, renderEffects, renderEvent, renderObjectChanges, renderTransactionResponse, type ResponseOptions,
} from './render-response.js';

/** sui_executeTransactionBlock (ExecuteTransaction), sui_dryRunTransactionBlock and sui_devInspectTransactionBlock (SimulateTransaction). */

function decodeBase64(value: unknown, param: string): Uint8Array {
  try {
    return fromBase64(String(value));
  } catch {
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${param} is not base64`);
  }
}

function transactionData(value: unknown): Uint8Array {
  const bytes = decodeBase64(value, 'tx_bytes');
  try {
    bcs.TransactionData.parse(bytes);
  } catch {
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: tx_bytes is not a BCS TransactionData');
  }
  return bytes;
}

const executeTransactionBlock: JsonRpcMethod = {
  name: 'sui_executeTransactionBlock',
  translatesTo: 'gRPC TransactionExecutionService.ExecuteTransaction',
  unfilled: [
    'checkpoint: absent (as on a node: execution answers precede the checkpoint)',
    'confirmedLocalExecution: true for both request types (v2 answers once the node has executed it)',
  ],
  async handle(params, context) {
    const txBytes = transactionData(params.tx_bytes);
    const signatures = (params.signatures as unknown[]).map((s, i) => decodeBase64(s, `signatures[${i}]`));
    const opts = (params.options ?? {}) as ResponseOptions;
    const { response } = await context.upstream.call('ExecuteTransaction', (o) =>
      context.upstream.grpc.transactionExecutionService.executeTransaction({
        transaction: { bcs: { value: txBytes } },
        signatures: signatures.map((value) => ({ bcs: { value }, signature: { oneofKind: undefined } })),
        readMask: { paths: readMaskFor({ ...opts, showInput: opts.showInput || opts.showRawInput }) },
      }, o));
    if (!response.transaction) throw upstreamFailure('the upstream answered without a transaction', 'UPSTREAM_BAD_RESPONSE');
    const executed = { ...response.transaction, transaction: response.transaction.transaction ?? { bcs: { value: txBytes } } };
    return renderTransactionResponse(executed, opts, { confirmedLocalExecution: true, omitCheckpoint: true });
  },
};

async function simulate(context: JsonRpcContext, transaction: GrpcTypes.Transaction, checks: boolean): Promise<GrpcTypes.SimulateTransactionResponse> {
  const { response } = await context.upstream.call('SimulateTransaction', (o) =>
    context.upstream.grpc.transactionExecutionService.simulateTransaction({
      transaction,
      readMask: { paths: [...FULL_READ_MASK.map((p) => `transaction.${p}`), 'command_outputs', 'suggested_gas_price'] },
      checks: checks ? GrpcTypes.SimulateTransactionRequest_TransactionChecks.ENABLED : GrpcTypes.SimulateTransactionRequest_TransactionChecks.DISABLED,
    }, o), { idempotent: true });
  return response;
}

function renderedEvents(tx: GrpcTypes.ExecutedTransaction | undefined): Json[] {
  const digest = tx?.digest ?? '';
  return (tx?.events?.events ?? []).map((e, i) => renderEvent(e, digest, i, null));
}

const dryRunTransactionBlock: JsonRpcMethod = {
  name: 'sui_dryRunTransactionBlock',
  translatesTo: 'gRPC TransactionExecutionService.SimulateTransaction (checks enabled, no gas selection)',
  unfilled: [
    'executionErrorSource: absent (v2 reports the error, not its source)',
    'an empty gas payment runs against a mock gas coin as on a full node (what the SDK\'s budget estimate sends), unless the gas owner\'s address balance pays for it: v2 simulates what execution would do',
  ],
  async handle(params, context) {
    const txBytes = transactionData(params.tx_bytes);
    const response = await simulate(context, { bcs: { value: txBytes } }, true);
    const tx = response.transaction;
    return {
      effects: renderEffects(tx?.effects, tx?.digest ?? ''),
      events: renderedEvents(tx),
      objectChanges: tx ? renderObjectChanges({ ...tx, transaction: tx.transaction ?? {} } as GrpcTypes.ExecutedTransaction) : [],
      balanceChanges: tx ? renderBalanceChanges(tx) : [],
      input: renderTransactionData(txBytes),
      ...(response.suggestedGasPrice !== undefined ? { suggestedGasPrice: u64(response.suggestedGasPrice) } : {}),
    };
  },
};

/** The largest budget a dev-inspect may use when the caller names none (protocol max_tx_gas on mainnet). */
const DEV_INSPECT_BUDGET = 50_000_000_000n;

async function referenceGasPrice(context: JsonRpcContext): Promise<bigint> {
  const { response } = await context.upstream.call('GetEpoch', (o) =>
    context.upstream.grpc.ledgerService.getEpoch({ readMask: { paths: ['reference_gas_price'] } }, o), { idempotent: true });
  return response.epoch?.referenceGasPrice ?? 1000n;
}

interface DevInspectArgs {
  gasBudget?: string | null;
  gasObjects?: [string, string, string][] | null;
  gasSponsor?: string | null;
  showRawTxnDataAndEffects?: boolean | null;
  skipChecks?: boolean | null;
}

const devInspectTransactionBlock: JsonRpcMethod = {
  name: 'sui_devInspectTransactionBlock',
  translatesTo: 'gRPC TransactionExecutionService.SimulateTransaction (checks disabled) of the kind wrapped in TransactionData',
  unfilled: [
    'results: return values and mutable-reference outputs from SimulateTransaction.command_outputs (empty when the upstream reports none)',
    'epoch param: ignored (v2 simulates at the current epoch)',
  ],
  async handle(params, context) {
    const kindBytes = decodeBase64(params.tx_bytes, 'tx_bytes');
    let kind;
    try {
      kind = bcs.TransactionKind.parse(kindBytes);
    } catch {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: tx_bytes is not a BCS TransactionKind');
    }
    const sender = normalizeSuiAddress(String(params.sender_address));
    const args = (params.additional_args ?? {}) as DevInspectArgs;
    const price = params.gas_price !== undefined ? u64Param(params.gas_price, 'gas_price') : await referenceGasPrice(context);
    const data = bcs.TransactionData.serialize({
      V1: {
        kind,
        sender,
        gasData: {
          payment: (args.gasObjects ?? []).map(([objectId, version, digest]) => ({ objectId, version: String(version), digest })),
          owner: normalizeSuiAddress(args.gasSponsor ?? sender),
          price: price.toString(),
          budget: (args.gasBudget ? u64Param(args.gasBudget, 'gasBudget') : DEV_INSPECT_BUDGET).toString(),
        },
        expiration: { None: true },
      },
    }).toBytes();
    const response = await simulate(context, { bcs: { value: data } }, false);
    const tx = response.transaction;
    const status = tx?.effects?.status;
    const results = response.commandOutputs.map((output) => ({
      ...(output.mutatedByRef.length ? { mutableReferenceOutputs: output.mutatedByRef.map((o) => [argumentJson(o.argument), [...(o.value?.value ?? [])], o.value?.name ?? '']) } : {}),
      ...(output.returnValues.length ? { returnValues: output.returnValues.map((o) => [[...(o.value?.value ?? [])], o.value?.name ?? '']) } : {}),
    }));
    return {
      effects: renderEffects(tx?.effects, tx?.digest ?? ''),
      events: renderedEvents(tx),
      ...(status?.success === false ? { error: status.error?.description ?? 'execution failed' } : {}),
      ...(response.commandOutputs.length ? { results } : {}),
      ...(args.showRawTxnDataAndEffects ? { rawTxnData: [...data], rawEffects: [...(tx?.effects?.bcs?.value ?? [])] } : {}),
    };
  },
};

function argumentJson(arg: GrpcTypes.Argument | undefined): Json {
  const GAS = 1;
  const INPUT = 2;
  const RESULT = 3;
  if (!arg || arg.kind === GAS) return 'GasCoin';
  if (arg.kind === INPUT) return { Input: arg.input ?? 0 };
  if (arg.kind === RESULT && arg.subresult !== undefined) return { NestedResult: [arg.result ?? 0, arg.subresult] };
  if (arg.kind === RESULT) return { Result: arg.result ?? 0 };
  return 'GasCoin';
}

export const EXECUTION_METHODS: readonly JsonRpcMethod[] = [executeTransactionBlock, dryRunTransactionBlock, devInspectTransactionBlock];
