import { z } from 'zod';

/**
 * A container's resources as Kubernetes takes them (`ResourceRequirements`: requests and limits
 * per resource name, each a quantity such as `250m`, `256Mi` or `1e3`): the operator's settings
 * for the pods it creates, written as JSON in one environment variable each.
 */
export interface ContainerResources {
  requests?: Readonly<Record<string, string>>;
  limits?: Readonly<Record<string, string>>;
}

/** The quantity grammar of the chart's values.schema.json (`definitions.quantity`). */
const QUANTITY = /^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+|[KMGTPE]i|[mkMGTPE])?$/;
const MULTIPLIERS: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A quantity's value, for comparing a request with its limit (exponents are part of the number). */
export function quantityValue(quantity: string): number {
  const match = /^[+]?([0-9.]+(?:[eE][-+]?[0-9]+)?)([KMGTPE]i|[mkMGTPE])?$/.exec(quantity)!;
  return Number(match[1]) * MULTIPLIERS[match[2] ?? '']!;
}

const quantity = z.union([z.string().regex(QUANTITY, 'expected a Kubernetes quantity (250m, 256Mi, 1Gi, 2)'), z.number().nonnegative().transform(String)]);
const perResource = z.record(z.string().min(1), quantity);

const containerResourcesSchema = z
  .strictObject({ requests: perResource.optional(), limits: perResource.optional() })
  // The API server refuses a pod whose request is above its limit: refused here, at start-up.
  .superRefine((value, ctx) => {
    for (const [name, limit] of Object.entries(value.limits ?? {})) {
      const request = value.requests?.[name];
      if (request !== undefined && quantityValue(request) > quantityValue(limit)) {
        ctx.addIssue({ code: 'custom', message: `requests.${name} (${request}) is above limits.${name} (${limit})` });
      }
    }
  });

/** An environment variable holding `ContainerResources` as JSON, with its default. */
export function containerResourcesSetting(fallback: ContainerResources) {
  return z
    .string()
    .optional()
    .transform((text, ctx): ContainerResources => {
      if (text === undefined || text.trim() === '') return fallback;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'expected JSON: {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}}' });
        return z.NEVER;
      }
      const parsed = containerResourcesSchema.safeParse(json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message });
        return z.NEVER;
      }
      return parsed.data;
    });
}
