import { setMaxListeners } from 'node:events';

/**
 * "The caller went away" for one request's upstream calls, without an EventTarget per request.
 *
 * An AbortController per request and an abort listener per call were ~1.5% of the gateway's
 * busy CPU on the balance route (docs/benchmarks.md), and almost no request is ever cancelled.
 * The `h2` transport and the bulkheads register plain hooks here; a real `AbortSignal` is made
 * only when something asks for one (fetch for GraphQL, grpc-js, raw proxy attempts).
 */
export class RequestCancellation {
  #cancelled = false;
  #hooks: Set<() => void> | undefined;
  #controller: AbortController | undefined;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The same cancellation as an AbortSignal, made on first use (already aborted if cancelled). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      // Every call of the request may listen (a stats read makes 21); the signal lives as long as the request.
      setMaxListeners(64, this.#controller.signal);
      if (this.#cancelled) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Runs `hook` once when the request is cancelled; undo with `offCancel`. Not called if already cancelled. */
  onCancel(hook: () => void): void {
    if (this.#cancelled) return;
    (this.#hooks ??= new Set()).add(hook);
  }

  offCancel(hook: () => void): void {
    this.#hooks?.delete(hook);
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const hooks = this.#hooks;
    this.#hooks = undefined;
    if (hooks) for (const hook of hooks) hook();
    this.#controller?.abort();
  }
}

/**
 * The `RpcOptions` key under which `SuiUpstream` hands a request's cancellation to the `h2`
 * transport (protobuf-ts passes extra string keys through to the transport untouched).
 */
export const REQUEST_CANCELLATION = 'suigw.requestCancellation';

/** What a caller may hand the upstream layer to cancel its calls: a request's cancellation or any AbortSignal. */
export type CallCancel = RequestCancellation | AbortSignal;

export function isCancelled(cancel: CallCancel | undefined): boolean {
  if (cancel === undefined) return false;
  return cancel instanceof RequestCancellation ? cancel.cancelled : cancel.aborted;
}

/** An AbortSignal for APIs that take only that (fetch, grpc-js); a RequestCancellation makes its own on first use. */
export function signalOf(cancel: CallCancel | undefined): AbortSignal | undefined {
  return cancel instanceof RequestCancellation ? cancel.signal : cancel;
}

/** Calls `hook` when `cancel` fires; returns what stops listening. */
export function listenForCancel(cancel: CallCancel, hook: () => void): () => void {
  if (cancel instanceof RequestCancellation) {
    cancel.onCancel(hook);
    return () => cancel.offCancel(hook);
  }
  cancel.addEventListener('abort', hook, { once: true });
  return () => cancel.removeEventListener('abort', hook);
}
