import { describe, expect, it } from 'vitest';
import { ProverSlots } from './prover-slots.js';

describe('ProverSlots: one organization holds at most its share, the rest stays for the others', () => {
  it.each([[1, 1], [2, 1], [3, 2], [4, 3], [7, 6], [8, 6], [16, 12]])('%d slots: %d per organization', (size, share) => {
    const slots = new ProverSlots(size);
    expect(slots.perOrganization).toBe(share);
    const held = Array.from({ length: share }, () => slots.tryAcquire('org_a'));
    expect(held.every((release) => release !== undefined)).toBe(true);
    // One past the share is refused; the other organizations get what is left, and no more.
    expect(slots.tryAcquire('org_a')).toBeUndefined();
    const others = Array.from({ length: size - share }, (_, i) => slots.tryAcquire(`org_${i}`));
    expect(others.every((release) => release !== undefined)).toBe(true);
    expect(slots.tryAcquire('org_b')).toBeUndefined();
    // A released slot can be taken again; releasing twice frees it once.
    held[0]!();
    held[0]!();
    expect(slots.tryAcquire('org_a')).toBeDefined();
    expect(slots.tryAcquire('org_b')).toBeUndefined();
  });
});
