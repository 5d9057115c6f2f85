import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVICES = join(dirname(fileURLToPath(import.meta.url)), '..');
const STATIC_IMPORT = /^(?:import|export)(?!\s+type\b)[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm;

/**
 * What loading a module loads: every file and package reached through its static imports
 * (`import type` erased, `import()` not followed, as Node loads the compiled files).
 */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier).replace(/\.js$/, '.ts'));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  };
  visit(join(SERVICES, entry));
  return { files: new Set([...files].map((file) => relative(SERVICES, file))), packages };
}

describe('what suigw authz and suigw ratelimit load', () => {
  const { files, packages } = staticGraph('cli/envoy-services.ts');

  it('is not the gateway: its route table is built in a worker thread, its HTTP layer is never loaded', () => {
    expect([...files].filter((file) => /^(cli\/(gateway|streams)|http|rest|jsonrpc|graphql|grpc|management|streams|webhooks|zklogin|billing|upstream)\b/.test(file))).toEqual([]);
    expect([...packages].filter((name) => /^(fastify|@fastify\/|@mysten\/sui\/(verify|zklogin|jsonRpc|grpc|graphql)|@grpc\/grpc-js)/.test(name))).toEqual([]);
  });

  it('is what they serve with: the access pipeline, PostgreSQL, Redis, the Envoy codecs', () => {
    expect(files).toContain('envoy/index.ts');
    expect(files).toContain('pipeline/index.ts');
    expect(files).toContain('cli/route-table.ts');
    expect(packages).toContain('kysely');
    expect(packages).toContain('ioredis');
  });
});
