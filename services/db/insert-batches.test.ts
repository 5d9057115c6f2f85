import { describe, expect, it } from 'vitest';
import { insertBatches, ROWS_PER_INSERT } from './insert-batches.js';

const rows = (count: number) => Array.from({ length: count }, (_, index) => index);

describe('insertBatches', () => {
  it('keeps 1,000 rows in one batch', () => {
    expect(ROWS_PER_INSERT).toBe(1_000);
    expect([...insertBatches(rows(1_000))].map((batch) => batch.length)).toEqual([1_000]);
  });

  it('splits 1,001 rows into 1,000 and 1, in order', () => {
    const batches = [...insertBatches(rows(1_001))];
    expect(batches.map((batch) => batch.length)).toEqual([1_000, 1]);
    expect(batches.flat()).toEqual(rows(1_001));
  });

  it('yields nothing for no rows', () => {
    expect([...insertBatches([])]).toEqual([]);
  });
});
