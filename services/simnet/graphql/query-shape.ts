import { GraphQLError, Kind, getNamedType, isCompositeType, valueFromASTUntyped } from 'graphql';
import type {
  ASTNode,
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { GraphqlErrorCode } from './errors.js';
import { LIMITS, pageLimits } from './limits.js';

export interface ShapeLimits {
  readonly maxQueryNodes: number;
  readonly maxQueryDepth: number;
  readonly maxOutputNodes: number;
  readonly maxMultiGetSize: number;
}

/** What `x-sui-rpc-show-usage` reports about a query's shape. */
export interface ShapeUsage {
  input: { nodes: number; depth: number };
  output: { nodes: number };
}

function limitError(message: string, node?: ASTNode): GraphQLError {
  return new GraphQLError(message, { nodes: node, extensions: { code: GraphqlErrorCode.GRAPHQL_VALIDATION_FAILED } });
}

/**
 * Sui's checks of a query's shape before running it, with its messages: depth and number of
 * fields (fragments counted where spread), page sizes and multi-get sizes, and the estimated
 * output nodes, which assume every connection returns a full page (`first`/`last`, else the
 * field's default) and every multi-get finds all its keys; each field counts once per time it
 * repeats, and each page or multi-get element counts as a node too. Throws a
 * `GRAPHQL_VALIDATION_FAILED` error when a limit is exceeded.
 */
export function checkQueryShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  limits: ShapeLimits = LIMITS,
): ShapeUsage {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const usage: ShapeUsage = { input: { nodes: 0, depth: 0 }, output: { nodes: 0 } };
  if (!root) return usage;

  const argument = (field: FieldNode, name: string): unknown => {
    const arg = field.arguments?.find((a) => a.name.value === name);
    return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
  };
  const count = (amount: number, field: FieldNode) => {
    usage.output.nodes += amount;
    if (usage.output.nodes > limits.maxOutputNodes) {
      throw limitError(
        `Query is estimated to produce over ${limits.maxOutputNodes} output nodes. Try fetching fewer fields or fetching fewer items per page in paginated or multi-get fields.`,
        field,
      );
    }
  };
  const pageSize = (parent: GraphQLCompositeType, field: FieldNode): number => {
    const sizes = [argument(field, 'first'), argument(field, 'last')].filter((n): n is number => typeof n === 'number');
    const page = pageLimits(parent.name, field.name.value);
    const size = sizes.length > 0 ? Math.max(...sizes) : page.default;
    if (size > page.max) throw limitError(`Page size is too large: ${size} > ${page.max}`, field);
    return size;
  };
  const multiGetSize = (field: FieldNode): number | undefined => {
    const keys = argument(field, 'keys');
    if (!field.name.value.startsWith('multiGet') || !Array.isArray(keys)) return undefined;
    if (keys.length > limits.maxMultiGetSize) throw limitError(`Too many keys supplied to multi-get: ${keys.length} > ${limits.maxMultiGetSize}`, field);
    return keys.length;
  };

  /** `page`: the page size of the connection `parent` is, when it is one. */
  const visit = (set: SelectionSetNode, parent: GraphQLCompositeType, depth: number, multiplicity: number, page: number | undefined, seen: ReadonlySet<string>): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        usage.input.nodes += 1;
        usage.input.depth = Math.max(usage.input.depth, depth);
        if (usage.input.nodes > limits.maxQueryNodes) throw limitError(`Query has over ${limits.maxQueryNodes} nodes`, selection);
        if (depth > limits.maxQueryDepth) throw limitError(`Query nesting is over ${limits.maxQueryDepth}`, selection);
        count(multiplicity, selection);
        const fieldType = 'getFields' in parent ? parent.getFields()[selection.name.value]?.type : undefined;
        const named = fieldType && getNamedType(fieldType);
        if (!selection.selectionSet || !named || !isCompositeType(named)) continue;
        let childMultiplicity = multiplicity;
        let childPage: number | undefined;
        const keys = multiGetSize(selection);
        if ((selection.name.value === 'nodes' || selection.name.value === 'edges') && page !== undefined) {
          childMultiplicity = multiplicity * page;
          count(childMultiplicity, selection);
        } else if (keys !== undefined) {
          childMultiplicity = multiplicity * keys;
          count(childMultiplicity, selection);
        } else if (named.name.endsWith('Connection')) {
          childPage = pageSize(parent, selection);
        }
        visit(selection.selectionSet, named, depth + 1, childMultiplicity, childPage, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition && schema.getType(selection.typeCondition.name.value);
        visit(selection.selectionSet, condition && isCompositeType(condition) ? condition : parent, depth, multiplicity, page, seen);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment) throw limitError(`Fragment ${name} referred to but not found in document`, selection);
        if (seen.has(name)) continue;
        const condition = schema.getType(fragment.typeCondition.name.value);
        visit(fragment.selectionSet, condition && isCompositeType(condition) ? condition : parent, depth, multiplicity, page, new Set([...seen, name]));
      }
    }
  };
  visit(operation.selectionSet, root, 1, 1, undefined, new Set());
  return usage;
}
