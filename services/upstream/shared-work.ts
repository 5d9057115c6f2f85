import { UpstreamError } from './errors.js';
import { isCancelled, listenForCancel, RequestCancellation, type CallCancel } from './request-cancellation.js';
import type { Upstream } from './types.js';
import { MAX_TIMER_MS } from '../core/index.js';

/**
 * The network's upstream for work several requests share (the transaction stats of a second):
 * a budget of its own from now, cancelled by nobody, and queued as `tenant` rather than as the
 * organization whose request happened to begin it. A request awaits the work with `awaitShared`,
 * so its leaving or running out of time ends its own wait, never the work the others wait for.
 */
export function sharedUpstream(upstream: Upstream, tenant: string): Upstream {
  return upstream.forRequest(upstream.budget(Date.now(), new RequestCancellation(), tenant));
}

/**
 * `work` as one caller awaits it: by `deadlineAt` (epoch ms) at the latest, else `timeout`, and
 * until `cancel` fires, else `cancelled`; `work` itself goes on. A budget already spent or a
 * caller already gone fails at once.
 */
export function waitWithin<T>(work: Promise<T>, deadlineAt: number, cancel: CallCancel | undefined, upstream: string, operation: string): Promise<T> {
  if (isCancelled(cancel)) return Promise.reject(cancelled(upstream, operation));
  const leftMs = deadlineAt - Date.now();
  if (leftMs <= 0) return Promise.reject(timedOut(upstream, operation));
  return new Promise<T>((resolve, reject) => {
    let stopListening: (() => void) | undefined;
    const timer = setTimeout(() => { stopListening?.(); reject(timedOut(upstream, operation)); }, Math.min(leftMs, MAX_TIMER_MS));
    if (cancel) stopListening = listenForCancel(cancel, () => { clearTimeout(timer); reject(cancelled(upstream, operation)); });
    const settle = () => { clearTimeout(timer); stopListening?.(); };
    work.then((value) => { settle(); resolve(value); }, (error: unknown) => { settle(); reject(error); });
  });
}

function cancelled(upstream: string, operation: string): UpstreamError {
  return new UpstreamError('cancelled', upstream, operation, `${operation}: cancelled by the caller`, { local: true });
}

function timedOut(upstream: string, operation: string): UpstreamError {
  return new UpstreamError('timeout', upstream, operation, `${operation}: the request's time budget ran out waiting for ${upstream}`, { local: true });
}
