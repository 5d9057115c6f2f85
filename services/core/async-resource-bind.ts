import { AsyncResource } from 'node:async_hooks';

/**
 * `AsyncResource.prototype.bind` without the `asyncResource` property on the bound function,
 * installed once per process by every role (services/cli) on Node versions that still attach it.
 *
 * Why: `ClientHttp2Session.request()` binds a new AsyncResource for every HTTP/2 request it makes,
 * and Node 20's `bind` defines that property with two `util.deprecate` wrappers (DEP0172, runtime
 * deprecated since Node 20; nodejs/node#58618 removes it). Each wrapper sets the prototype of a
 * fresh function: ~9 µs per bind against ~0.3 µs without, on every upstream gRPC call, gRPC proxy
 * call and gRPC-Web call (docs/benchmarks.md, "Node 20's AsyncResource.bind"). Everything else
 * `bind` does is kept: the wrapper runs `fn` in the resource's async scope with the caller's
 * `this` (or `thisArg`), and has `fn`'s `length`. Nothing in the gateway or its dependencies reads
 * the deprecated property.
 */
export function installLeanAsyncResourceBind(): void {
  const prototype = AsyncResource.prototype as AsyncResource & { [LEAN]?: true };
  if (prototype[LEAN] || !attachesDeprecatedProperty()) return;
  // @types/node declares `bind(fn)` only; Node also takes `thisArg`.
  const original = prototype.bind as unknown as (this: AsyncResource, fn: unknown, thisArg?: unknown) => unknown;
  Object.defineProperty(prototype, 'bind', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function bind(this: AsyncResource, fn: unknown, thisArg?: unknown): unknown {
      // Argument errors exactly as Node raises them.
      return typeof fn === 'function' ? boundTo(this, fn as Bindable, thisArg) : original.call(this, fn, thisArg);
    },
  });
  Object.defineProperty(prototype, LEAN, { value: true });
}

type Bindable = (this: unknown, ...args: unknown[]) => unknown;

/** Node's bound function: `fn` in the resource's scope, called with the caller's `this` unless `thisArg` is given. */
function boundTo(resource: AsyncResource, fn: Bindable, thisArg: unknown): Bindable {
  const bound: Bindable = thisArg === undefined
    ? function (this: unknown, ...args: unknown[]) { return resource.runInAsyncScope(fn, this, ...args); }
    : (...args: unknown[]) => resource.runInAsyncScope(fn, thisArg, ...args);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound;
}

const LEAN = Symbol('suigw.leanAsyncResourceBind');

/** Whether this Node's `bind` still defines `asyncResource` (read as a descriptor: no deprecation warning). */
function attachesDeprecatedProperty(): boolean {
  const bound = new AsyncResource('suigw.probe').bind(() => undefined);
  return Object.getOwnPropertyDescriptor(bound, 'asyncResource') !== undefined;
}
