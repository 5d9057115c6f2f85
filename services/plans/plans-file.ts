import { readFileSync } from 'node:fs';
import { PlansFileError, parsePlansFile, type PlanTable } from './plan-table.js';

/** Reads and validates a deployment's plans file (SUIGW_PLANS_FILE); a missing file is an error too. */
export function readPlansFile(path: string): PlanTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PlansFileError(path, [`cannot be read: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return parsePlansFile(path, text);
}
