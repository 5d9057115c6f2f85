import { AsyncResource, executionAsyncId } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { installLeanAsyncResourceBind } from './async-resource-bind.js';

describe('installLeanAsyncResourceBind', () => {
  installLeanAsyncResourceBind();

  it('binds without the deprecated asyncResource property (DEP0172)', () => {
    const bound = new AsyncResource('test').bind(() => undefined);
    expect(Object.getOwnPropertyDescriptor(bound, 'asyncResource')).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(AsyncResource.bind(() => undefined), 'asyncResource')).toBeUndefined();
  });

  it('runs the function in the resource\'s async scope, with the caller\'s this and arguments', () => {
    const resource = new AsyncResource('test');
    const seen: unknown[] = [];
    const bound = resource.bind(function (this: unknown, a: number, b: number) {
      seen.push(executionAsyncId(), this, a + b);
      return 'result';
    });
    const self = { name: 'caller' };
    expect(bound.call(self, 2, 3)).toBe('result');
    expect(seen).toEqual([resource.asyncId(), self, 5]);
    expect(bound.length).toBe(2);
  });

  it('binds thisArg when given', () => {
    const resource = new AsyncResource('test');
    const self = { name: 'bound' };
    // @types/node declares `bind(fn)` only; Node also takes `thisArg`.
    const bindWithThis = resource.bind as unknown as (fn: (this: unknown) => unknown, thisArg: unknown) => (this: unknown) => unknown;
    const bound = bindWithThis.call(resource, function (this: unknown) {
      return [executionAsyncId(), this];
    }, self);
    expect(bound.call({ other: true })).toEqual([resource.asyncId(), self]);
  });

  it('refuses a non-function as Node does', () => {
    expect(() => new AsyncResource('test').bind('nope' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('installs once', () => {
    const bind = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(bind);
  });
});
