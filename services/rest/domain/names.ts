import { normalizeSuiAddress } from '@mysten/sui/utils';
import { ApiError } from '../../core/errors.js';
import type { NameAvailability, NameResolution } from '../schemas.js';
import type { NetworkContext } from './context.js';
import { fullAddress, timestampMs } from './proto-values.js';
import { UpstreamError, upstreamApiError } from '../../upstream/index.js';
import { askOptional } from './upstream-calls.js';
import { imageUrl } from './web-url.js';
import type { GrpcTypes } from '@mysten/sui/grpc';

/** Names travel without the `.sui` suffix in the API; the node wants the full name. */
export function withSuffix(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.sui') ? lower : `${lower}.sui`;
}

export function withoutSuffix(name: string): string {
  return name.toLowerCase().replace(/\.sui$/, '');
}

function expiration(record: GrpcTypes.NameRecord): string | undefined {
  const ms = timestampMs(record.expirationTimestamp);
  return ms === null ? undefined : new Date(Number(ms)).toISOString();
}

export class NameService {
  readonly #now: () => number;
  constructor(deps: { now: () => number }) { this.#now = deps.now; }

  /** The record, `expired` for a registered name past its expiration, or undefined if unregistered. */
  async #lookup(ctx: NetworkContext, name: string): Promise<GrpcTypes.NameRecord | 'expired' | undefined> {
    try {
      const response = await ctx.upstream.call('LookupName', async (o) => (await ctx.upstream.grpc.nameService.lookupName({ name: withSuffix(name) }, o)).response, {
        idempotent: true,
        // Sui's node answers an expired name with RESOURCE_EXHAUSTED "name has expired": an answer, not overload.
        classify: (code, message) => (code === 'RESOURCE_EXHAUSTED' && /expired/i.test(message) ? 'rejected' : undefined),
      });
      return response.record;
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'not_found') return undefined;
      if (error instanceof UpstreamError && error.kind === 'rejected') return 'expired';
      throw upstreamApiError(error);
    }
  }

  async resolve(ctx: NetworkContext, name: string): Promise<NameResolution> {
    const record = await this.#lookup(ctx, name);
    if (!record || record === 'expired' || !record.targetAddress || this.#expired(record)) throw new ApiError('NAME_NOT_FOUND', { message: `${withoutSuffix(name)} does not resolve to an address` });
    const result: NameResolution = { name: withoutSuffix(name), address: fullAddress(record.targetAddress) };
    const exp = expiration(record);
    if (exp) result.expiration = exp;
    const avatar = imageUrl(record.data.avatar);
    if (avatar) result.avatar = avatar;
    const contentHash = record.data.content_hash ?? record.data.contentHash;
    if (contentHash) result.contentHash = contentHash;
    return result;
  }

  async reverse(ctx: NetworkContext, address: string): Promise<{ address: string; name: string | null }> {
    const owner = normalizeSuiAddress(address);
    const response = await askOptional(ctx.upstream, 'ReverseLookupName', (o) => ctx.upstream.grpc.nameService.reverseLookupName({ address: owner }, o));
    const name = response?.record?.name;
    return { address: owner, name: name ? withoutSuffix(name) : null };
  }

  async resolveMany(ctx: NetworkContext, names: readonly string[]): Promise<{ name: string; address: string | null; error?: string }[]> {
    return Promise.all(names.map(async (name) => {
      try {
        const resolved = await this.resolve(ctx, name);
        return { name, address: resolved.address };
      } catch (error) {
        if (error instanceof ApiError && error.code === 'NAME_NOT_FOUND') return { name, address: null, error: 'not found' };
        throw error;
      }
    }));
  }

  /** Registered: a record exists. Available: no record, or its registration has expired. */
  async availability(ctx: NetworkContext, name: string): Promise<NameAvailability> {
    const record = await this.#lookup(ctx, name);
    const expired = record === 'expired' || (record !== undefined && this.#expired(record));
    const result: NameAvailability = { name: withoutSuffix(name), registered: record !== undefined, available: record === undefined || expired };
    const exp = record && record !== 'expired' ? expiration(record) : undefined;
    if (exp) result.expiration = exp;
    return result;
  }

  #expired(record: GrpcTypes.NameRecord): boolean {
    const ms = timestampMs(record.expirationTimestamp);
    return ms !== null && Number(ms) < this.#now();
  }
}

