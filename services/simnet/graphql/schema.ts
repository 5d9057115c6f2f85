import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildSchema } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { installScalars } from './scalars.js';

/**
 * Sui's GraphQL schema exactly as `@mysten/sui` ships it (the SDK's typed queries are generated
 * from the same file), so simnet serves the schema the SDK was built against.
 */
export function schemaPath(): string {
  const entry = createRequire(import.meta.url).resolve('@mysten/sui/graphql');
  // entry is <package>/dist/graphql/index.mjs
  return join(dirname(entry), '..', '..', 'src', 'graphql', 'generated', 'schema.graphql');
}

let cached: GraphQLSchema | undefined;

export function suiSchema(): GraphQLSchema {
  if (!cached) {
    const schema = buildSchema(readFileSync(schemaPath(), 'utf8'));
    installScalars(schema);
    cached = schema;
  }
  return cached;
}
