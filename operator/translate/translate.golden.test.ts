import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { translate } from './translate.js';
import type { TranslationInput } from './types.js';

/** Golden files: testdata/<case>.in.yaml → <case>.out.yaml; UPDATE_GOLDEN=1 rewrites them. */
const dir = join(import.meta.dirname, '..', 'testdata');
const cases = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).map((f) => f.slice(0, -'.in.yaml'.length));

describe('translation golden files', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(2));

  for (const name of cases) {
    it(name, () => {
      const input = parse(readFileSync(join(dir, `${name}.in.yaml`), 'utf8')) as TranslationInput;
      const actual = stringify(translate(input), { lineWidth: 0 });
      const outPath = join(dir, `${name}.out.yaml`);
      if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(outPath, actual);
      expect(existsSync(outPath), `${outPath} missing: run with UPDATE_GOLDEN=1`).toBe(true);
      expect(actual).toBe(readFileSync(outPath, 'utf8'));
    });
  }

  it('is deterministic and versions by content', () => {
    const input = parse(readFileSync(join(dir, 'keys.in.yaml'), 'utf8')) as TranslationInput;
    const first = translate(structuredClone(input));
    expect(translate(structuredClone(input)).ir.version).toBe(first.ir.version);
    input.database.keys[0]!.rateLimit.perKeyRps = 51;
    expect(translate(input).ir.version).not.toBe(first.ir.version);
  });
});
