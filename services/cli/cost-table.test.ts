import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generateCostTable } from './cost-table.js';

describe('docs/costs.md', () => {
  it('is the table generated from the route declarations (regenerate: node bin/run-ts.js scripts/cost-table.ts)', async () => {
    const table = await generateCostTable();
    expect(table).toContain('| GET | `/v1/accounts/:address` | 1 |');
    expect(table).toContain('| POST | `/v1/keys` | free (not metered) |');
    expect(table).toContain('| GET | `/v1/usage` | free (not metered) |');
    expect(await readFile(new URL('../../docs/costs.md', import.meta.url), 'utf8')).toBe(table);
  }, 120_000);
});
