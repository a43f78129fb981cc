/**
 * Validation rules that refuse expensive operations before they run: a depth limit (fragments
 * followed, cycles ignored since graphql-js rejects them anyway) and the cost estimate of
 * graphql-query-complexity, where connection sizes multiply the cost of their children.
 */
import { GraphQLError, GraphQLSchema, Kind, ValidationContext, ASTVisitor, SelectionSetNode, FragmentDefinitionNode, DocumentNode } from 'graphql';
import { fieldExtensionsEstimator, simpleEstimator, getComplexity } from 'graphql-query-complexity';

export function depthLimitRule(maxDepth: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!set) return 0;
      let max = 0;
      for (const sel of set.selections) {
        let d = 0;
        if (sel.kind === Kind.FIELD) {
          d = sel.name.value.startsWith('__') && !sel.selectionSet ? 0 : 1 + depthOf(sel.selectionSet, seen);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          d = depthOf(sel.selectionSet, seen);
        } else {
          const name = sel.name.value;
          const frag = fragments.get(name);
          if (frag && !seen.has(name)) d = depthOf(frag.selectionSet, new Set(seen).add(name));
        }
        if (d > max) max = d;
        if (max > maxDepth) return max; // enough to refuse; stop walking huge documents
      }
      return max;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`Query is too deep: depth ${depth > maxDepth ? `> ${maxDepth}` : depth} exceeds the limit of ${maxDepth}`, {
              nodes: [node],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
            }),
          );
        }
      },
    };
  };
}

/** The estimated cost of one operation; connection fields declare their cost via `complexity`. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined): number {
  return getComplexity({
    schema,
    query: document,
    operationName,
    variables: variables ?? {},
    estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
  });
}
