import { describe, expect, it } from 'vitest';
import { PersistedQueries, sha256 } from './persisted-queries.js';

const query = (n: number, size = 100) => `{ q${n} }`.padEnd(size, ' ');
/** Bytes one entry holds: the query text and its key (organization, colon, 64 hex digits). */
const entryBytes = (organization: string, text: string) => text.length + organization.length + 1 + 64;

describe('PersistedQueries', () => {
  it('keeps queries per organization: another organization does not see (or learn of) them', () => {
    const store = new PersistedQueries({ maxEntries: 10, maxBytes: 10_000, maxBytesPerOrganization: 10_000 });
    store.remember('org_a', sha256(query(1)), query(1));
    expect(store.lookup('org_a', sha256(query(1)))).toBe(query(1));
    expect(store.lookup('org_a', sha256(query(1)).toUpperCase())).toBe(query(1));
    expect(store.lookup('org_b', sha256(query(1)))).toBeUndefined();
  });

  it('an organization at its byte bound evicts its own oldest, never another organization\'s', () => {
    const one = entryBytes('org_a', query(0));
    const store = new PersistedQueries({ maxEntries: 100, maxBytes: 100_000, maxBytesPerOrganization: 3 * one });
    store.remember('org_b', sha256(query(99)), query(99));
    for (let n = 0; n < 3; n += 1) store.remember('org_a', sha256(query(n)), query(n));
    expect(store.bytes).toBe(3 * one + entryBytes('org_b', query(99)));
    store.remember('org_a', sha256(query(3)), query(3));
    expect(store.lookup('org_a', sha256(query(0)))).toBeUndefined();
    expect([1, 2, 3].map((n) => store.lookup('org_a', sha256(query(n))))).toEqual([query(1), query(2), query(3)]);
    expect(store.lookup('org_b', sha256(query(99)))).toBe(query(99));
    expect(store.bytes).toBe(3 * one + entryBytes('org_b', query(99)));
  });

  it('holds at most maxBytes over all organizations (least recently used out first) and maxEntries', () => {
    const one = entryBytes('org_a', query(0));
    const store = new PersistedQueries({ maxEntries: 100, maxBytes: 4 * one, maxBytesPerOrganization: 100_000 });
    for (let n = 0; n < 4; n += 1) store.remember(`org_${'abcd'[n]}`, sha256(query(n)), query(n));
    expect(store.bytes).toBe(4 * one);
    store.lookup('org_a', sha256(query(0)));
    store.remember('org_e', sha256(query(4)), query(4));
    expect(store.bytes).toBe(4 * one);
    expect(store.lookup('org_b', sha256(query(1)))).toBeUndefined();
    expect(store.lookup('org_a', sha256(query(0)))).toBe(query(0));

    const counted = new PersistedQueries({ maxEntries: 2, maxBytes: 100_000, maxBytesPerOrganization: 100_000 });
    for (let n = 0; n < 3; n += 1) counted.remember('org_a', sha256(query(n)), query(n));
    expect(counted.size).toBe(2);
  });

  it("at the process's bounds the organization holding the most gives up its own: one tenant's flood does not flush another's", () => {
    const store = new PersistedQueries({ maxEntries: 10, maxBytes: 100_000, maxBytesPerOrganization: 100_000 });
    store.remember('org_victim', sha256(query(0)), query(0));
    for (let n = 1; n <= 30; n += 1) store.remember('org_flood', sha256(query(n)), query(n));
    expect(store.size).toBe(10);
    expect(store.lookup('org_victim', sha256(query(0)))).toBe(query(0));
    expect(store.lookup('org_flood', sha256(query(30)))).toBe(query(30));
    expect(store.lookup('org_flood', sha256(query(1)))).toBeUndefined();
  });

  it('does not keep a query larger than an organization\'s share at all', () => {
    const store = new PersistedQueries({ maxEntries: 100, maxBytes: 100_000, maxBytesPerOrganization: 1_000 });
    store.remember('org_a', sha256(query(1, 1_000)), query(1, 1_000));
    expect({ bytes: store.bytes, size: store.size }).toEqual({ bytes: 0, size: 0 });
  });
});
