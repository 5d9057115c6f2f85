import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { DELIVERY_FAIRNESS, DeliverySlots } from './delivery-slots.js';

const limits = DELIVERY_FAIRNESS;

describe('DeliverySlots', () => {
  it(`an endpoint takes ${limits.perEndpoint} slots and not one more; an organization ${limits.perOrganization} over its endpoints`, () => {
    const slots = new DeliverySlots(limits, new ManualClock());
    for (let i = 0; i < limits.perEndpoint; i += 1) expect(slots.take('wh_a', 'org_1')).toBe(true);
    expect(slots.take('wh_a', 'org_1')).toBe(false);
    expect(slots.blockedEndpoints()).toEqual(['wh_a']);
    for (let i = 0; i < limits.perOrganization - limits.perEndpoint; i += 1) expect(slots.take(`wh_${i}`, 'org_1')).toBe(true);
    expect(slots.take('wh_z', 'org_1')).toBe(false);
    expect(slots.blockedOrganizations()).toEqual(['org_1']);
    expect(slots.take('wh_other', 'org_2')).toBe(true);
    slots.release('wh_a', 'org_1', 'answered');
    expect(slots.take('wh_z', 'org_1')).toBe(true);
    expect(slots.inFlightOf('org_1')).toBe(limits.perOrganization);
  });

  it(`the process holds ${limits.total} attempts at most`, () => {
    const slots = new DeliverySlots(limits, new ManualClock());
    for (let i = 0; i < limits.total; i += 1) expect(slots.take(`wh_${i}`, `org_${i}`)).toBe(true);
    expect(slots.free()).toBe(0);
    expect(slots.take('wh_last', 'org_last')).toBe(false);
  });

  it(`${limits.timeoutsToOpen} timeouts in a row open the endpoint's circuit; after ${limits.openMs} ms one probe; a timeout re-opens it for twice as long; an answer closes it`, () => {
    const clock = new ManualClock();
    const slots = new DeliverySlots(limits, clock);
    const attemptTimingOut = () => {
      expect(slots.take('wh_slow', 'org_1')).toBe(true);
      slots.release('wh_slow', 'org_1', 'timed-out');
    };
    for (let i = 0; i < limits.timeoutsToOpen - 1; i += 1) attemptTimingOut();
    expect(slots.circuitOf('wh_slow')).toBe('closed');
    attemptTimingOut();
    expect(slots.circuitOf('wh_slow')).toBe('open');
    expect(slots.take('wh_slow', 'org_1')).toBe(false);
    expect(slots.blockedEndpoints()).toEqual(['wh_slow']);

    clock.advance(limits.openMs - 1);
    expect(slots.take('wh_slow', 'org_1')).toBe(false);
    clock.advance(1);
    expect(slots.circuitOf('wh_slow')).toBe('half-open');
    expect(slots.take('wh_slow', 'org_1')).toBe(true);
    expect(slots.take('wh_slow', 'org_1')).toBe(false);
    slots.release('wh_slow', 'org_1', 'timed-out');
    expect(slots.circuitOf('wh_slow')).toBe('open');
    clock.advance(2 * limits.openMs - 1);
    expect(slots.take('wh_slow', 'org_1')).toBe(false);
    clock.advance(1);
    expect(slots.take('wh_slow', 'org_1')).toBe(true);
    slots.release('wh_slow', 'org_1', 'answered');
    expect(slots.circuitOf('wh_slow')).toBe('closed');
    for (let i = 0; i < limits.perEndpoint; i += 1) expect(slots.take('wh_slow', 'org_1')).toBe(true);
  });

  it(`an open circuit waits at most ${limits.maxOpenMs} ms`, () => {
    const clock = new ManualClock();
    const slots = new DeliverySlots(limits, clock);
    for (let i = 0; i < limits.timeoutsToOpen; i += 1) {
      slots.take('wh_slow', 'org_1');
      slots.release('wh_slow', 'org_1', 'timed-out');
    }
    for (let round = 0; round < 10; round += 1) {
      clock.advance(limits.maxOpenMs);
      expect(slots.take('wh_slow', 'org_1')).toBe(true);
      slots.release('wh_slow', 'org_1', 'timed-out');
    }
    clock.advance(limits.maxOpenMs - 1);
    expect(slots.circuitOf('wh_slow')).toBe('open');
    clock.advance(1);
    expect(slots.circuitOf('wh_slow')).toBe('half-open');
  });

  it('an attempt never sent (held for credits) leaves the circuit and the timeouts in a row as they were', () => {
    const clock = new ManualClock();
    const slots = new DeliverySlots(limits, clock);
    for (let i = 0; i < limits.timeoutsToOpen - 1; i += 1) {
      slots.take('wh_slow', 'org_1');
      slots.release('wh_slow', 'org_1', 'timed-out');
    }
    slots.take('wh_slow', 'org_1');
    slots.release('wh_slow', 'org_1', 'untried');
    slots.take('wh_slow', 'org_1');
    slots.release('wh_slow', 'org_1', 'timed-out');
    expect(slots.circuitOf('wh_slow')).toBe('open');
    clock.advance(limits.openMs);
    expect(slots.take('wh_slow', 'org_1')).toBe(true);
    slots.release('wh_slow', 'org_1', 'untried');
    expect(slots.circuitOf('wh_slow')).toBe('half-open');
    expect(slots.take('wh_slow', 'org_1')).toBe(true);
    expect(slots.take('wh_slow', 'org_1')).toBe(false);
    expect(slots.inFlight).toBe(1);
  });
});
