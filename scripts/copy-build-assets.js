// Copies the files the services read from disk next to their modules (SQL migrations, the event
// catalog, the OpenRPC document: each found through `new URL('./…', import.meta.url)`) into the
// build, so dist/ is as complete as the source tree. Run by `npm run build` after tsc.
import { cpSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

const SOURCE_ROOTS = ['services', 'operator'];
const OUT = process.argv[2] ?? 'dist';
// Read at run time; everything else that is not TypeScript (READMEs, notes) is documentation.
const ASSET_EXTENSIONS = new Set(['.json', '.sql', '.proto']);
// Test inputs never ship.
const TEST_ONLY_DIRS = new Set(['fixtures', 'testdata']);

function copyAssets(dir) {
  let copied = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!TEST_ONLY_DIRS.has(entry.name)) copied += copyAssets(path);
    } else if (ASSET_EXTENSIONS.has(extname(entry.name))) {
      cpSync(path, join(OUT, path));
      copied += 1;
    }
  }
  return copied;
}

const total = SOURCE_ROOTS.reduce((sum, root) => sum + copyAssets(root), 0);
console.log(`copied ${total} run-time assets into ${OUT}/`);
