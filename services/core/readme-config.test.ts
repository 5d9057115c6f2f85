import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { configTable } from './config-table.js';

describe('README configuration table', () => {
  it('is the table generated from the config schema (regenerate: node bin/run-ts.js scripts/config-table.ts)', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(configTable());
  });
});
