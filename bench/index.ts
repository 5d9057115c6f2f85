/**
 * `npm run bench`: runs every benchmark in `bench/*.ts` (this file and `bench/lib/` excepted),
 * one after the other, in name order. A benchmark file exports `default async function ()`;
 * add a file and it runs here, no edit needed. `npm run bench -- auth` runs the ones whose
 * file name contains `auth`.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);

const files = (await readdir(here))
  .filter((name) => name.endsWith('.ts') && name !== 'index.ts' && !name.endsWith('.d.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of files) {
  console.log(`\n=== bench/${name} ===`);
  const module = (await import(pathToFileURL(join(here, name)).href)) as { default?: () => Promise<void> };
  if (typeof module.default !== 'function') {
    console.error(`bench/${name} exports no default function; skipped`);
    failed += 1;
    continue;
  }
  try {
    await module.default();
  } catch (error) {
    failed += 1;
    console.error(`bench/${name} failed:`, error);
  }
}
process.exit(failed === 0 ? 0 : 1);
