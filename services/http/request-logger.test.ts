import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../../test/support/captured-log.js';
import { deferredChildLogger } from './request-logger.js';

/** A request's deferred logger writes what pino's child would have written. */
describe('deferredChildLogger', () => {
  it('writes the same line as the child it stands for, bindings and redaction included', () => {
    const deferred = capturedLogger();
    const direct = capturedLogger();
    const entry = { req: { headers: { 'x-api-key': 'svc_secret' } }, n: 1 };
    deferredChildLogger(deferred.logger, { reqId: 'r-1' }, {}).warn(entry, 'hello %s', 'world');
    direct.logger.child({ reqId: 'r-1' }, {}).warn(entry, 'hello %s', 'world');
    const withoutTime = (line: Record<string, unknown> | undefined) => ({ ...line, time: 0, pid: 0, hostname: '' });
    expect(withoutTime(deferred.lines[0])).toEqual(withoutTime(direct.lines[0]));
    expect(deferred.lines[0]).toMatchObject({ reqId: 'r-1', msg: 'hello world', req: { headers: { 'x-api-key': '[redacted]' } } });
  });

  it('keeps the level: the parent one, or the route one (logLevel)', () => {
    const { lines, logger } = capturedLogger();
    const inherited = deferredChildLogger(logger, { reqId: 'a' }, {});
    expect(inherited.level).toBe('info');
    inherited.debug('not written');
    const routeLevel = deferredChildLogger(logger, { reqId: 'b' }, { level: 'debug' });
    expect(routeLevel.level).toBe('debug');
    routeLevel.debug('written');
    expect(lines.map((line) => [line['reqId'], line['msg']])).toEqual([['b', 'written']]);
  });

  it('makes children of the request child', () => {
    const { lines, logger } = capturedLogger();
    deferredChildLogger(logger, { reqId: 'c' }, {}).child({ stage: 'x' }).error('failed');
    expect(lines[0]).toMatchObject({ reqId: 'c', stage: 'x', msg: 'failed', level: 50 });
  });
});
