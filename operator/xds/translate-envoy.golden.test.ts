import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { goldenCases, readCase, TESTDATA } from '../../test/support/xds-golden-cases.js';
import { translateToEnvoy } from './translate-envoy.js';

// A reviewer reads the golden diff, not the code: `UPDATE_GOLDEN=1 npx vitest run operator/xds` rewrites them.
const UPDATE = process.env.UPDATE_GOLDEN === '1';

describe('IR → Envoy resources (golden files)', () => {
  it('has cases to check', () => {
    expect(goldenCases()).toEqual(['dns-backends', 'two-networks']);
  });

  for (const name of goldenCases()) {
    it(`${name}: the snapshot equals ${name}.out.yaml`, () => {
      const actual = stringify(translateToEnvoy(readCase(name)), { lineWidth: 0, aliasDuplicateObjects: false });
      const file = new URL(`${name}.out.yaml`, TESTDATA);
      if (UPDATE) fs.writeFileSync(file, actual);
      expect(actual).toBe(fs.readFileSync(file, 'utf8'));
    });
  }

  it('is deterministic: the same IR gives the same snapshot, versioned by the IR', () => {
    const ir = readCase('two-networks');
    expect(translateToEnvoy(ir)).toEqual(translateToEnvoy(structuredClone(ir)));
    expect(translateToEnvoy(ir).version).toBe('3f2a9c0d1e7b4a55');
  });
});
