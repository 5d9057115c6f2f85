import type {
  ClientStreamingCall, DuplexStreamingCall, MethodInfo, RpcOptions, RpcTransport, ServerStreamingCall, UnaryCall,
} from '@protobuf-ts/runtime-rpc';

/**
 * A transport whose calls made without a deadline of their own get `timeoutMs`, cut to what is
 * left until `deadlineAt` (ms since the epoch, as `Date.now()`; at least 1 ms). For the SDK's
 * calls that no `Upstream.call` wraps (a transaction's `build()` resolving its inputs, billing's
 * reads and executions): without it they carry no deadline, and a node that accepts a call and
 * never answers it holds the caller forever (keepalive only ends a dead connection, not a silent
 * stream). A caller's own `timeout` wins.
 */
export class DefaultDeadlineTransport implements RpcTransport {
  readonly #inner: RpcTransport;
  readonly #timeoutMs: number;
  readonly #deadlineAt: number;

  constructor(inner: RpcTransport, timeoutMs: number, deadlineAt = Infinity) {
    this.#inner = inner;
    this.#timeoutMs = timeoutMs;
    this.#deadlineAt = deadlineAt;
  }

  mergeOptions(options?: Partial<RpcOptions>): RpcOptions {
    const merged = this.#inner.mergeOptions(options);
    if (merged.timeout !== undefined) return merged;
    return { ...merged, timeout: Math.max(1, Math.min(this.#timeoutMs, this.#deadlineAt - Date.now())) };
  }

  unary<I extends object, O extends object>(method: MethodInfo<I, O>, input: I, options: RpcOptions): UnaryCall<I, O> {
    return this.#inner.unary(method, input, options);
  }

  serverStreaming<I extends object, O extends object>(method: MethodInfo<I, O>, input: I, options: RpcOptions): ServerStreamingCall<I, O> {
    return this.#inner.serverStreaming(method, input, options);
  }

  clientStreaming<I extends object, O extends object>(method: MethodInfo<I, O>, options: RpcOptions): ClientStreamingCall<I, O> {
    return this.#inner.clientStreaming(method, options);
  }

  duplex<I extends object, O extends object>(method: MethodInfo<I, O>, options: RpcOptions): DuplexStreamingCall<I, O> {
    return this.#inner.duplex(method, options);
  }
}
