import { Kind, getNamedType, isCompositeType, valueFromASTUntyped } from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { LIMITS, pageLimits } from './limits.js';

export interface ShapeLimits {
  readonly maxQueryNodes: number;
  readonly maxQueryDepth: number;
  readonly maxOutputNodes: number;
}

/**
 * Sui's checks of a query's shape before running it: depth, number of fields (fragments
 * expanded where spread) and the estimated number of output nodes, which assumes every
 * connection returns a full page (`first`/`last`, else the field's default) and every multi-get
 * finds all its keys. Returns a message when a limit is exceeded.
 */
export function checkQueryShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  limits: ShapeLimits = LIMITS,
): string | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return null;

  let nodes = 0;
  let outputNodes = 0;
  const argument = (field: FieldNode, name: string): unknown => {
    const arg = field.arguments?.find((a) => a.name.value === name);
    return arg ? valueFromASTUntyped(arg.value, variables) : undefined;
  };
  /** How many times a field's children repeat: a connection's page, a multi-get's keys. */
  const fanOut = (parent: GraphQLCompositeType, field: FieldNode, type: GraphQLCompositeType): number => {
    const size = argument(field, 'first') ?? argument(field, 'last');
    if (type.name.endsWith('Connection')) return typeof size === 'number' ? size : pageLimits(parent.name, field.name.value).default;
    const keys = argument(field, 'keys');
    return Array.isArray(keys) ? keys.length : 1;
  };

  /** `page`: the page size of the connection `parent` is, when it is one. */
  const visit = (set: SelectionSetNode, parent: GraphQLCompositeType, depth: number, repeat: number, page: number, seen: ReadonlySet<string>): string | null => {
    for (const selection of set.selections) {
      let problem: string | null = null;
      if (selection.kind === Kind.FIELD) {
        nodes += 1;
        outputNodes += repeat;
        if (nodes > limits.maxQueryNodes) return `Query has too many nodes. The maximum allowed is ${limits.maxQueryNodes}`;
        if (depth > limits.maxQueryDepth) return `Query nesting is over ${limits.maxQueryDepth}`;
        if (outputNodes > limits.maxOutputNodes) return `Estimated output nodes exceeds ${limits.maxOutputNodes}`;
        const fieldType = 'getFields' in parent ? parent.getFields()[selection.name.value]?.type : undefined;
        const named = fieldType && getNamedType(fieldType);
        if (selection.selectionSet && named && isCompositeType(named)) {
          const connection = named.name.endsWith('Connection');
          // A connection's `nodes` / `edges` repeat per page item; its `pageInfo` does not.
          const perItem = parent.name.endsWith('Connection') && (selection.name.value === 'nodes' || selection.name.value === 'edges');
          // Sui also counts each item of a page as a node (the "{" of its worked example).
          if (perItem) outputNodes += repeat * page;
          const childRepeat = perItem ? repeat * page : connection ? repeat : repeat * fanOut(parent, selection, named);
          problem = visit(selection.selectionSet, named, depth + 1, childRepeat, connection ? fanOut(parent, selection, named) : 1, seen);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition && schema.getType(selection.typeCondition.name.value);
        problem = visit(selection.selectionSet, condition && isCompositeType(condition) ? condition : parent, depth, repeat, page, seen);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        const condition = schema.getType(fragment.typeCondition.name.value);
        problem = visit(fragment.selectionSet, condition && isCompositeType(condition) ? condition : parent, depth, repeat, page, new Set([...seen, name]));
      }
      if (problem) return problem;
    }
    return null;
  };
  return visit(operation.selectionSet, root, 1, 1, 1, new Set());
}
