import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { pipelineTable } from './stages.js';

describe('docs/metering.md', () => {
  it('shows the pipeline table as PIPELINE declares it', async () => {
    expect(await readFile(new URL('../../docs/metering.md', import.meta.url), 'utf8')).toContain(pipelineTable());
  });
});
