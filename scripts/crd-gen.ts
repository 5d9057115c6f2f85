import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdFiles } from '../operator/crds/render.js';

/**
 * Writes the CRDs from the zod schemas (operator/crds) to crds/generated/ and to the
 * Helm chart's crds/ folder (Helm installs them from there); tests fail when either is stale.
 */
const root = join(import.meta.dirname, '..');
const files = renderCrdFiles();
for (const dir of [join(root, 'crds', 'generated'), join(root, 'charts', 'suigw', 'crds')]) {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
}
console.log(`wrote ${[...files.keys()].join(', ')} to crds/generated/ and charts/suigw/crds/`);
