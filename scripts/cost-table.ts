// Writes docs/costs.md from the routes' declared costs:
//   node bin/run-ts.js scripts/cost-table.ts
// A test (services/cli/cost-table.test.ts) fails when docs/costs.md is stale.
import { writeFile } from 'node:fs/promises';
import { generateCostTable } from '../services/cli/cost-table.js';

await writeFile(new URL('../docs/costs.md', import.meta.url), await generateCostTable());
