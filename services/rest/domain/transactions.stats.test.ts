import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/errors.js';
import { CursorCodec } from '../../core/cursor.js';
import { RequestCancellation, UpstreamError, type CallOptions, type RequestBudget, type Upstream } from '../../upstream/index.js';
import { RequestUpstream } from '../../upstream/request-upstream.js';
import { listenForCancel } from '../../upstream/request-cancellation.js';
import type { NetworkContext } from './context.js';
import { MemoryTransactionCache } from './transaction-cache.js';
import { TransactionService } from './transactions.js';

const CHECKPOINTS = 3;

/**
 * A network's upstream whose calls answer only when the test says so and fail as SuiUpstream's
 * do when their caller's cancel fires: enough to see whose budget a call runs on.
 */
class HeldUpstream {
  readonly network = 'mainnet' as const;
  readonly calls: { operation: string; options: CallOptions }[] = [];
  readonly #held: (() => void)[] = [];

  call(operation: string, _invoke: unknown, options: CallOptions = {}): Promise<{ response: unknown }> {
    this.calls.push({ operation, options });
    const response = operation === 'GetServiceInfo'
      ? { checkpointHeight: BigInt(CHECKPOINTS - 1) }
      : { checkpoint: { transactions: [{ effects: { status: { success: true } } }, { effects: { status: { success: false } } }] } };
    return new Promise((resolve, reject) => {
      const stop = options.signal
        ? listenForCancel(options.signal, () => reject(new UpstreamError('cancelled', 'mainnet/grpc', operation, `${operation}: cancelled by the caller`, { local: true })))
        : undefined;
      this.#held.push(() => { stop?.(); resolve({ response }); });
    });
  }

  /** Answers every call made so far. */
  answer(): void {
    for (const release of this.#held.splice(0)) release();
  }

  budget(startedAt: number, signal: RequestCancellation, tenant?: string): RequestBudget {
    return { deadlineAt: startedAt + 5_000, signal, tenant };
  }

  forRequest(budget: RequestBudget): Upstream {
    return new RequestUpstream(this as unknown as Upstream, budget, 8);
  }
}

/** Answers every call as it comes, until the stats read has made all of them (service info, then each checkpoint). */
async function answerAll(upstream: HeldUpstream): Promise<void> {
  for (let round = 0; round < 10 && upstream.calls.length < 1 + CHECKPOINTS; round += 1) {
    upstream.answer();
    await new Promise((resolve) => setImmediate(resolve));
  }
  upstream.answer();
}

function requestOf(upstream: HeldUpstream, tenant: string, deadlineAt = Date.now() + 60_000) {
  const cancel = new RequestCancellation();
  const ctx: NetworkContext = { network: 'mainnet', upstream: new RequestUpstream(upstream as unknown as Upstream, { deadlineAt, signal: cancel, tenant }, 8) };
  return { ctx, cancel };
}

function serviceAt(now: number) {
  const cursors = new CursorCodec({ secret: 'x'.repeat(32), maxAgeSeconds: 3_600, now: () => now });
  return new TransactionService({ cache: new MemoryTransactionCache(), cursors, statsCheckpoints: CHECKPOINTS, now: () => now });
}

async function failureOf(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return { status: error.status, code: error.code };
}

describe('transaction stats shared by the requests of one second', () => {
  it('one organization\'s client leaving fails only its own request: another organization sharing the read gets the stats', async () => {
    const upstream = new HeldUpstream();
    const service = serviceAt(1_000);
    const a = requestOf(upstream, 'org-a');
    const b = requestOf(upstream, 'org-b');
    const statsA = service.stats(a.ctx);
    const statsB = service.stats(b.ctx);
    const failedA = failureOf(statsA);
    a.cancel.cancel();
    await answerAll(upstream);
    expect(await statsB).toEqual({ success: CHECKPOINTS, error: CHECKPOINTS, total: 2 * CHECKPOINTS });
    expect(await failedA).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    // One read for both, on a budget and in a queue of its own: neither A's cancel nor A's organization.
    expect(upstream.calls.map((c) => c.operation)).toEqual(['GetServiceInfo', ...Array<string>(CHECKPOINTS).fill('GetCheckpoint')]);
    for (const { options } of upstream.calls) {
      expect(options.tenant).toBe('shared:transaction-stats');
      expect([options.signal === a.cancel, options.signal === b.cancel]).toEqual([false, false]);
    }
  });

  it('a request whose own budget is spent gets 504 UPSTREAM_TIMEOUT; the read goes on for the request that began it', async () => {
    const upstream = new HeldUpstream();
    const service = serviceAt(1_000);
    const first = requestOf(upstream, 'org-a');
    const late = requestOf(upstream, 'org-b', Date.now() - 1);
    const statsFirst = service.stats(first.ctx);
    const failedLate = failureOf(service.stats(late.ctx));
    await answerAll(upstream);
    expect(await failedLate).toEqual({ status: 504, code: 'UPSTREAM_TIMEOUT' });
    expect(await statsFirst).toEqual({ success: CHECKPOINTS, error: CHECKPOINTS, total: 2 * CHECKPOINTS });
  });

  it('the request that began the read leaving before a second one joins still leaves the read to it', async () => {
    const upstream = new HeldUpstream();
    const service = serviceAt(1_000);
    const a = requestOf(upstream, 'org-a');
    const failedA = failureOf(service.stats(a.ctx));
    a.cancel.cancel();
    const b = requestOf(upstream, 'org-b');
    const statsB = service.stats(b.ctx);
    await answerAll(upstream);
    expect(await failedA).toEqual({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    expect(await statsB).toEqual({ success: CHECKPOINTS, error: CHECKPOINTS, total: 2 * CHECKPOINTS });
    expect(upstream.calls).toHaveLength(1 + CHECKPOINTS);
  });
});
