import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { deriveDynamicFieldID } from '@mysten/sui/utils';
import { apyFromRates, apyWindow, type ExchangeRate } from './apy.js';
import { fullAddress, valueToJson, type ProtoValue } from './proto-values.js';
import type { Upstream } from './types.js';

/**
 * Each active validator's staking APY (formula in apy.ts) from its pool's `exchange_rates` table
 * entries at the window's two epochs: shared by REST (`/v1/validators/apy`) and JSON-RPC
 * (`suix_getValidatorsApy`). Upstream failures are thrown as they come (UpstreamError).
 */
export async function validatorApys(upstream: Upstream, state: GrpcTypes.SystemState): Promise<{ address: string; apy: number }[]> {
  const epoch = state.epoch ?? 0n;
  const epochMs = state.parameters?.epochDurationMs ?? 86_400_000n;
  const validators = state.validators?.activeValidators ?? [];
  const wanted = validators.map((v) => {
    const table = v.stakingPool?.exchangeRates?.id;
    const window = apyWindow(epoch, v.stakingPool?.activationEpoch);
    const fieldId = (e: bigint) => (table ? deriveDynamicFieldID(table, 'u64', bcs.u64().serialize(e).toBytes()) : undefined);
    return { validator: v, window, fromId: fieldId(window.from), toId: fieldId(window.to) };
  });
  const ids = [...new Set(wanted.flatMap((w) => [w.fromId, w.toId]).filter((id): id is string => !!id))];
  const rates = new Map<string, ExchangeRate>();
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    const response = await upstream.call('BatchGetObjects', async (o) => (await upstream.grpc.ledgerService.batchGetObjects({
      requests: chunk.map((objectId) => ({ objectId })), readMask: { paths: ['object_id', 'json'] },
    }, o)).response, { idempotent: true });
    response.objects.forEach((result, index) => {
      if (result.result.oneofKind !== 'object') return;
      const rate = exchangeRateFromField(result.result.object);
      const id = chunk[index];
      if (rate && id) rates.set(fullAddress(id), rate);
    });
  }
  return Promise.all(wanted.map(async (w) => {
    let latest = w.toId ? rates.get(fullAddress(w.toId)) : undefined;
    let earlier = w.fromId ? rates.get(fullAddress(w.fromId)) : undefined;
    const table = w.validator.stakingPool?.exchangeRates?.id;
    if ((!latest || !earlier) && table) {
      // Fallback when the entries are not at their derived ids: list the table itself.
      const listed = await listRates(upstream, table, w.window);
      latest ??= listed.get(w.window.to);
      earlier ??= listed.get(w.window.from);
    }
    return { address: fullAddress(w.validator.address), apy: apyFromRates(latest, earlier, epochMs) };
  }));
}

async function listRates(upstream: Upstream, table: string, window: { from: bigint; to: bigint }): Promise<Map<bigint, ExchangeRate>> {
  const found = new Map<bigint, ExchangeRate>();
  let pageToken: Uint8Array | undefined;
  for (let page = 0; page < 10 && !(found.has(window.from) && found.has(window.to)); page += 1) {
    const response = await upstream.call('ListDynamicFields', async (o) => (await upstream.grpc.stateService.listDynamicFields({
      parent: table, pageSize: 1000, pageToken, readMask: { paths: ['name', 'value'] },
    }, o)).response, { idempotent: true });
    for (const field of response.dynamicFields) {
      const rate = exchangeRateFromBcs(field.name?.value, field.value?.value);
      if (rate && (rate.epoch === window.from || rate.epoch === window.to)) found.set(rate.epoch, rate);
    }
    pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    if (!pageToken) break;
  }
  return found;
}

/** `0x2::dynamic_field::Field<u64, PoolTokenExchangeRate>` as JSON → an ExchangeRate. */
export function exchangeRateFromField(object: GrpcTypes.Object): ExchangeRate | undefined {
  const json = valueToJson(object.json as ProtoValue | undefined) as { name?: unknown; value?: { sui_amount?: unknown; pool_token_amount?: unknown } } | null;
  if (!json || json.name === undefined || !json.value) return undefined;
  try {
    return { epoch: BigInt(String(json.name)), suiAmount: BigInt(String(json.value.sui_amount ?? 0)), poolTokenAmount: BigInt(String(json.value.pool_token_amount ?? 0)) };
  } catch {
    return undefined;
  }
}

/** A table entry's BCS: key u64 epoch; value PoolTokenExchangeRate { sui_amount: u64, pool_token_amount: u64 }. */
export function exchangeRateFromBcs(name: Uint8Array | undefined, value: Uint8Array | undefined): ExchangeRate | undefined {
  if (!name || name.length !== 8 || !value || value.length < 16) return undefined;
  const key = Buffer.from(name);
  const rate = Buffer.from(value);
  return { epoch: key.readBigUInt64LE(0), suiAmount: rate.readBigUInt64LE(0), poolTokenAmount: rate.readBigUInt64LE(8) };
}
