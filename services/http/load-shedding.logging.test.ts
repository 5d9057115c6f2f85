import { describe, expect, it } from 'vitest';
import { capturedLogger, loggedFields } from '../../test/support/captured-log.js';
import { pressureCheck, type PressureSample } from './load-shedding.js';

const calm: PressureSample = { eventLoopDelay: 5, heapUsed: 500 };

/** The samples a check reads, one per request, set by the test. */
function sampled(limits: { maxDelayMs: number; maxHeapUsedBytes: number }) {
  let sample = calm;
  const { lines, logger } = capturedLogger();
  const check = pressureCheck(limits, () => sample, logger);
  const request = (next: PressureSample) => {
    sample = next;
    return check()?.code ?? 'admitted';
  };
  return { lines, request };
}

/** Operators learn from the log when and why the gateway sheds: one line when it starts, one when it stops. */
describe('load shedding episodes in the log', () => {
  it('logs the start once (warn: reason, value, threshold) and the end once (info: how many were shed)', () => {
    const { lines, request } = sampled({ maxDelayMs: 20, maxHeapUsedBytes: 1000 });
    expect(request(calm)).toBe('admitted');
    expect(lines).toEqual([]);
    expect(request({ eventLoopDelay: 21, heapUsed: 500 })).toBe('SERVICE_OVERLOADED');
    expect(lines.map(loggedFields)).toEqual([{ level: 40, msg: 'load shedding started', reason: 'eventLoopDelay', value: 21, threshold: 20 }]);
    // Shed again, by either threshold: no line per request.
    expect([request({ eventLoopDelay: 900, heapUsed: 500 }), request({ eventLoopDelay: 5, heapUsed: 1001 }), request({ eventLoopDelay: 21, heapUsed: 500 })])
      .toEqual(['SERVICE_OVERLOADED', 'SERVICE_OVERLOADED', 'SERVICE_OVERLOADED']);
    expect(lines).toHaveLength(1);
    expect([request(calm), request(calm)]).toEqual(['admitted', 'admitted']);
    expect(lines.map(loggedFields).slice(1)).toEqual([{ level: 30, msg: 'load shedding stopped', shed: 4 }]);
  });

  it('a new episode is logged anew, with its own reason and count', () => {
    const { lines, request } = sampled({ maxDelayMs: 20, maxHeapUsedBytes: 1000 });
    request({ eventLoopDelay: 30, heapUsed: 500 });
    request(calm);
    expect(request({ eventLoopDelay: 5, heapUsed: 1001 })).toBe('SERVICE_OVERLOADED');
    request(calm);
    expect(lines.map(loggedFields)).toEqual([
      { level: 40, msg: 'load shedding started', reason: 'eventLoopDelay', value: 30, threshold: 20 },
      { level: 30, msg: 'load shedding stopped', shed: 1 },
      { level: 40, msg: 'load shedding started', reason: 'heapUsedBytes', value: 1001, threshold: 1000 },
      { level: 30, msg: 'load shedding stopped', shed: 1 },
    ]);
  });

  it('sheds past a threshold, not at it; a threshold of 0 is off', () => {
    const { lines, request } = sampled({ maxDelayMs: 20, maxHeapUsedBytes: 1000 });
    expect(request({ eventLoopDelay: 20, heapUsed: 1000 })).toBe('admitted');
    expect(sampled({ maxDelayMs: 0, maxHeapUsedBytes: 1000 }).request({ eventLoopDelay: 10 ** 6, heapUsed: 1000 })).toBe('admitted');
    expect(sampled({ maxDelayMs: 20, maxHeapUsedBytes: 0 }).request({ eventLoopDelay: 20, heapUsed: 10 ** 12 })).toBe('admitted');
    expect(lines).toEqual([]);
  });
});
