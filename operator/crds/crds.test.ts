import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrdFiles } from './render.js';
import { SPEC_SCHEMAS, type Kind } from './schemas.js';

const root = join(import.meta.dirname, '..', '..', 'crds');
const generated = new Map(readdirSync(join(root, 'generated')).map((f) => [f, readFileSync(join(root, 'generated', f), 'utf8')]));

/* eslint-disable @typescript-eslint/no-explicit-any -- CRD documents are open YAML. */
const ajv = new Ajv({ strict: false, allErrors: true });
const crdValidators = new Map<string, (spec: unknown) => boolean>(
  [...generated.values()].map((text) => {
    const crd = parse(text) as any;
    const validate = ajv.compile(crd.spec.versions[0].schema.openAPIV3Schema);
    return [crd.spec.names.kind as string, (object: unknown) => validate(object) as boolean];
  }),
);

/** A CR as both gates judge it: the API server (the CRD's schema) and the operator (zod). */
function judge(kind: Kind, spec: unknown): { crd: boolean; zod: boolean } {
  return {
    crd: crdValidators.get(kind)!({ apiVersion: 'suigw.io/v1alpha1', kind, metadata: { name: 'x' }, spec }),
    zod: SPEC_SCHEMAS[kind].safeParse(spec).success,
  };
}

describe('generated CRDs', () => {
  it('are up to date with the zod schemas (run node bin/run-ts.js scripts/crd-gen.ts)', () => {
    expect(new Map(renderCrdFiles())).toEqual(generated);
  });

  it('are structural: every schema node has a type, and no additionalProperties beside properties', () => {
    const walk = (node: any, path: string): string[] => {
      if (typeof node !== 'object' || node === null) return [];
      const problems: string[] = [];
      if (!('type' in node) && !('x-kubernetes-int-or-string' in node)) problems.push(`${path}: no type`);
      if ('properties' in node && 'additionalProperties' in node) problems.push(`${path}: additionalProperties beside properties`);
      for (const [key, child] of Object.entries(node.properties ?? {})) problems.push(...walk(child, `${path}.${key}`));
      if (node.items) problems.push(...walk(node.items, `${path}[]`));
      return problems;
    };
    for (const text of generated.values()) {
      const crd = parse(text) as any;
      expect(walk(crd.spec.versions[0].schema.openAPIV3Schema, crd.spec.names.kind)).toEqual([]);
      expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    }
  });

  it("say what an OnchainPlan's suspend stops, and what still bills its organization (kubectl explain shows it)", () => {
    const plans = parse(generated.get('onchainplans.suigw.io.yaml')!) as any;
    expect(plans.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.suspend.description).toBe(
      "true suspends this plan's own billing CronJob only. The Helm chart's hourly pass over every organization (CronJob <release>-billing) still bills it: to stop its charges, cancel the plan (POST /v1/billing/onchain/cancel).",
    );
  });

  it('print the columns platform teams look for', () => {
    const apikeys = parse(generated.get('apikeys.suigw.io.yaml')!) as any;
    expect(apikeys.spec.versions[0].additionalPrinterColumns.map((c: any) => c.name)).toEqual(['Project', 'Network', 'Scopes', 'Enabled', 'Expiry', 'Age']);
  });
});

describe('samples', () => {
  const samples = readdirSync(join(root, 'samples')).filter((f) => f.endsWith('.yaml'));
  it('cover the four kinds', () => {
    expect(samples.map((f) => (parse(readFileSync(join(root, 'samples', f), 'utf8')) as any).kind).sort()).toEqual(['ApiKey', 'OnchainPlan', 'Project', 'WarpStream']);
  });
  for (const file of samples) {
    it(`${file} is accepted by the CRD schema and by the operator`, () => {
      const sample = parse(readFileSync(join(root, 'samples', file), 'utf8')) as any;
      expect(judge(sample.kind, sample.spec)).toEqual({ crd: true, zod: true });
    });
  }
});

describe('bad resources are refused for the management API\'s reasons', () => {
  const key = { project: 'shop' };
  // `crd: false` where the API server refuses at admission; `zod` always (the operator reports
  // InvalidSpec). Rules Kubernetes cannot express as a schema (NUL and control characters, unknown
  // fields, which it prunes) are the operator's alone.
  const cases: [string, Kind, unknown, { crd: boolean; zod: boolean }][] = [
    ['an unknown scope', 'ApiKey', { ...key, scopes: ['data', 'admin'] }, { crd: false, zod: false }],
    ['no scopes', 'ApiKey', { ...key, scopes: [] }, { crd: false, zod: false }],
    ['a lifetime of 0 days', 'ApiKey', { ...key, expiresInDays: 0 }, { crd: false, zod: false }],
    ['a lifetime over 365 days', 'ApiKey', { ...key, expiresInDays: 366 }, { crd: false, zod: false }],
    ['a fractional lifetime', 'ApiKey', { ...key, expiresInDays: 1.5 }, { crd: false, zod: false }],
    ['a name over 100 characters', 'ApiKey', { ...key, displayName: 'k'.repeat(101) }, { crd: false, zod: false }],
    ['a name with a control character', 'ApiKey', { ...key, displayName: 'a\u0007b' }, { crd: true, zod: false }],
    ['51 allowed origins', 'ApiKey', { ...key, allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://o${i}.example.com`) }, { crd: false, zod: false }],
    ['a rate of 0', 'ApiKey', { ...key, rateLimit: { perKeyRps: 0 } }, { crd: false, zod: false }],
    ['an unknown rate field', 'ApiKey', { ...key, rateLimit: { perMinute: 5 } }, { crd: true, zod: false }],
    ['no project', 'ApiKey', { scopes: ['data'] }, { crd: false, zod: false }],
    ['a project that is not a Kubernetes name', 'ApiKey', { project: 'Shop_1' }, { crd: false, zod: false }],
    ['an unknown network', 'Project', { organizationId: 'org_1', network: 'moonnet' }, { crd: false, zod: false }],
    ['a project name over 100 characters', 'Project', { organizationId: 'org_1', network: 'mainnet', displayName: 'p'.repeat(101) }, { crd: false, zod: false }],
    ['an organization id that is not one', 'Project', { organizationId: 'proj_1', network: 'mainnet' }, { crd: false, zod: false }],
    ['a stream of an unknown type', 'WarpStream', { project: 'shop', type: 'block', filter: 'x' }, { crd: false, zod: false }],
    ['an address stream on a non-address (CEL in the CRD)', 'WarpStream', { project: 'shop', type: 'address', filter: 'alice' }, { crd: true, zod: false }],
    ['a billing day of 32', 'OnchainPlan', { organizationId: 'org_1', network: 'mainnet', tier: 'growth', billingDay: 32 }, { crd: false, zod: false }],
    ['the free tier on chain', 'OnchainPlan', { organizationId: 'org_1', network: 'mainnet', tier: 'free' }, { crd: false, zod: false }],
  ];
  for (const [what, kind, spec, expected] of cases) {
    it(`${kind}: ${what}`, () => expect(judge(kind, spec)).toEqual(expected));
  }

  it('the CRDs carry CEL rules for what spans fields or versions', () => {
    const rules = (file: string) => (parse(generated.get(file)!) as any).spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];
    expect(rules('apikeys.suigw.io.yaml').map((r: any) => r.rule)).toEqual(['oldSelf.enabled || !self.enabled', 'self.project == oldSelf.project && self.expiresInDays == oldSelf.expiresInDays']);
    expect(rules('warpstreams.suigw.io.yaml')[0].rule).toContain("self.filter.matches('^0x[0-9a-fA-F]{1,64}$')");
  });
});
