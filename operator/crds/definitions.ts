import { z } from 'zod';
import { API_GROUP, API_VERSION, SPEC_SCHEMAS, statusSchemas, type Kind } from './schemas.js';

/**
 * CustomResourceDefinitions built from the zod specs: structural OpenAPI v3 schemas (every node
 * typed, defaults kept), CEL rules where a rule spans fields or versions, printer columns and
 * the status subresource.
 */

type Json = Record<string, unknown>;

interface KindInfo {
  plural: string;
  shortNames: string[];
  columns: { name: string; type: string; jsonPath: string; description?: string }[];
  /** Rules on `spec` (CEL), mirrored by the zod schemas or by the operator's reconcile. */
  rules: { rule: string; message: string }[];
}

const READY = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const KINDS: Record<Kind, KindInfo> = {
  Project: {
    plural: 'projects',
    shortNames: ['sgproj'],
    columns: [
      { name: 'Organization', type: 'string', jsonPath: '.spec.organizationId' },
      { name: 'Network', type: 'string', jsonPath: '.spec.network' },
      { name: 'Project ID', type: 'string', jsonPath: '.status.projectId' },
      READY,
      AGE,
    ],
    rules: [{ rule: 'self.organizationId == oldSelf.organizationId && self.network == oldSelf.network', message: 'organizationId and network are fixed at creation' }],
  },
  ApiKey: {
    plural: 'apikeys',
    shortNames: ['apikey', 'ak'],
    columns: [
      { name: 'Project', type: 'string', jsonPath: '.spec.project' },
      { name: 'Network', type: 'string', jsonPath: '.status.network' },
      { name: 'Scopes', type: 'string', jsonPath: '.spec.scopes' },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
      { name: 'Expiry', type: 'string', jsonPath: '.status.expiresAt' },
      AGE,
    ],
    rules: [
      // The API never re-enables a key; neither does a CR (delete and create a new one).
      { rule: 'oldSelf.enabled || !self.enabled', message: 'a disabled key cannot be enabled again; create a new ApiKey' },
      { rule: 'self.project == oldSelf.project && self.expiresInDays == oldSelf.expiresInDays', message: 'project and expiresInDays are fixed at creation' },
    ],
  },
  WarpStream: {
    plural: 'warpstreams',
    shortNames: ['ws'],
    columns: [
      { name: 'Project', type: 'string', jsonPath: '.spec.project' },
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
      READY,
      AGE,
    ],
    rules: [{ rule: "!(self.type in ['address', 'object']) || self.filter.matches('^0x[0-9a-fA-F]{1,64}$')", message: 'an address or object filter is a 0x-prefixed hex id' }],
  },
  OnchainPlan: {
    plural: 'onchainplans',
    shortNames: ['ocp'],
    columns: [
      { name: 'Organization', type: 'string', jsonPath: '.spec.organizationId' },
      { name: 'Tier', type: 'string', jsonPath: '.spec.tier' },
      { name: 'Network', type: 'string', jsonPath: '.spec.network' },
      { name: 'Billing Day', type: 'integer', jsonPath: '.spec.billingDay' },
      READY,
      AGE,
    ],
    rules: [],
  },
};

/**
 * Kubernetes' structural schemas forbid `additionalProperties` beside `properties` (unknown fields
 * are pruned instead), and its pattern dialect has no `\u`/`\p{…}` escapes: those patterns stay
 * in zod, which the operator runs on every CR (a refused CR gets Ready=False, reason InvalidSpec).
 */
function structural(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(structural);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'id') continue;
    if (key === 'additionalProperties' && 'properties' in node) continue;
    if (key === 'pattern' && typeof value === 'string' && /\\[up]/.test(value)) continue;
    out[key] = structural(value);
  }
  return out;
}

function openApi(schema: z.ZodType): Json {
  return structural(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' })) as Json;
}

export function customResourceDefinition(kind: Kind): Json {
  const info = KINDS[kind];
  const spec = openApi(SPEC_SCHEMAS[kind]);
  if (info.rules.length > 0) spec['x-kubernetes-validations'] = info.rules;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${info.plural}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural: info.plural, singular: kind.toLowerCase(), shortNames: info.shortNames, categories: ['suigw'] },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: info.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status: openApi(statusSchemas[kind]),
              },
            },
          },
        },
      ],
    },
  };
}

export const ALL_KINDS = Object.keys(KINDS) as Kind[];
