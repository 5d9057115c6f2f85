import fs from 'node:fs';
import { parse } from 'yaml';
import type { GatewayIR } from '../../operator/ir.js';

/** The golden cases: `<case>.in.yaml` (an IR) → `<case>.out.yaml` (the Envoy snapshot). */
export const TESTDATA = new URL('../../operator/xds/testdata/', import.meta.url);

export function goldenCases(): string[] {
  return fs
    .readdirSync(TESTDATA)
    .filter((file) => file.endsWith('.in.yaml'))
    .map((file) => file.slice(0, -'.in.yaml'.length))
    .sort();
}

export function readCase(name: string): GatewayIR {
  return parse(fs.readFileSync(new URL(`${name}.in.yaml`, TESTDATA), 'utf8')) as GatewayIR;
}
