import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrdFiles } from '../services/operator/crds/render.js';

/** Writes crds/generated/*.yaml from the zod schemas (services/operator/crds). */
const dir = join(import.meta.dirname, '..', 'crds', 'generated');
mkdirSync(dir, { recursive: true });
for (const [name, text] of renderCrdFiles()) writeFileSync(join(dir, name), text);
console.log(`wrote ${[...renderCrdFiles().keys()].join(', ')} to crds/generated/`);
