// Prints the README's configuration table from the one config schema:
//   node bin/run-ts.js scripts/config-table.ts
// A test (services/core/readme-config.test.ts) fails when the README's table is stale.
import { configTable } from '../services/core/config-table.js';

console.log(configTable());
