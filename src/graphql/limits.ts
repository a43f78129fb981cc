/**
 * Validation rules that refuse expensive operations before they run:
 *
 * - documentLimitsRule: size limits checked first, in one linear pass, before graphql-js's own
 *   rules see the document (several of them are quadratic in the number of fields — 20,000 copies of
 *   `__typename` took graphql-js 11 s to validate): selections with fragments expanded (a fan of
 *   fragments that each spread the next twice is exponential otherwise), aliases, directives, and
 *   nested introspection lists; and response keys repeated beyond MAX_REPEATED_KEY in one merged
 *   selection set (the pairwise comparison of graphql-js's OverlappingFieldsCanBeMergedRule).
 * - depthLimitRule: the deepest selection, fragments followed (memoized; cycles count 0, graphql-js
 *   rejects them anyway).
 * - checkCost: the operation's estimated cost (cost.ts: the fields it resolves, from the sizes the
 *   server knows) against the cost limit.
 */
import {
  ASTVisitor,
  DefinitionNode,
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  Kind,
  SelectionSetNode,
  ValidationContext,
} from 'graphql';
import { estimateCost, TopicSizes } from './cost';

export interface DocumentLimits {
  maxSelections: number;
  maxAliases: number;
  maxDirectives: number;
}

/**
 * The most fields one response key may gather in a selection set, once the fields that merge there
 * are put together (fragments, inline fragments, and the sub-selections of every same-key field
 * above). graphql-js's OverlappingFieldsCanBeMergedRule compares those fields pairwise: a thousand
 * copies of `node(id: $x) { id }` kept the event loop for seconds (bench/abuse.js). The bound keeps
 * that rule, and the guarantee it gives (one value per response key), at a bounded cost; clients
 * repeat a key a few times at most, plain leaves such as `id` or `__typename` more (one per fragment).
 */
export const MAX_REPEATED_KEY = 5;
/** The same for a key whose fields are all plain leaves (no arguments, no selection): cheap to compare. */
export const MAX_REPEATED_LEAF = 50;

/**
 * Introspection lists (types, fields, args, …) nested deeper than this are refused: GraphiQL's own
 * introspection query nests three (`types { fields { args } }`); each further level multiplies the
 * answer by the size of the schema.
 */
export const MAX_INTROSPECTION_LISTS = 3;
/**
 * `__schema` fields per operation (fragments expanded): each answers the whole schema (~60 KiB of
 * JSON here); 48 aliases of GraphiQL's introspection took a second of CPU for a 1.2 KB request.
 */
export const MAX_SCHEMA_FIELDS = 1;
const INTROSPECTION_LISTS = new Set([
  'types',
  'fields',
  'inputFields',
  'interfaces',
  'possibleTypes',
  'enumValues',
  'args',
  'directives',
]);

function refusal(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
}

function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(def.name.value)) fragments.set(def.name.value, def);
  return fragments;
}

/** Selections, aliases and directives of the document as written (every definition, used or not). */
function countWritten(doc: DocumentNode): { selections: number; aliases: number; directives: number } {
  let selections = 0;
  let aliases = 0;
  let directives = 0;
  const sets: SelectionSetNode[] = [];
  const defs: readonly DefinitionNode[] = doc.definitions;
  for (const def of defs) {
    if (def.kind !== Kind.OPERATION_DEFINITION && def.kind !== Kind.FRAGMENT_DEFINITION) continue;
    directives += def.directives?.length ?? 0;
    if (def.kind === Kind.OPERATION_DEFINITION)
      for (const v of def.variableDefinitions ?? []) directives += v.directives?.length ?? 0;
    sets.push(def.selectionSet);
  }
  // An explicit stack: documents may nest thousands of levels.
  while (sets.length > 0) {
    const set = sets.pop()!;
    for (const sel of set.selections) {
      selections++;
      directives += sel.directives?.length ?? 0;
      if (sel.kind === Kind.FIELD && sel.alias) aliases++;
      if (sel.kind !== Kind.FRAGMENT_SPREAD && sel.selectionSet) sets.push(sel.selectionSet);
    }
  }
  return { selections, aliases, directives };
}

/**
 * For each operation, its selections with every fragment spread expanded, and the deepest nesting
 * of introspection lists; fragments are measured once (memoized), a cycle counts nothing.
 */
function measureOperations(
  doc: DocumentNode,
  stopAbove: number,
): { selections: number; introspectionLists: number; schemaFields: number } {
  const fragments = fragmentsOf(doc);
  type Measure = { selections: number; lists: number; schemas: number };
  const memo = new Map<string, Measure | null>();

  const measureSet = (set: SelectionSetNode | undefined, inIntrospection: boolean): Measure => {
    const m: Measure = { selections: 0, lists: 0, schemas: 0 };
    if (!set) return m;
    /** Adds an inner set's measure; `listsAbove`: the introspection list that holds it, if one does. */
    const add = (inner: Measure, listsAbove = 0) => {
      m.selections += inner.selections;
      m.schemas += inner.schemas;
      m.lists = Math.max(m.lists, inner.lists + listsAbove);
    };
    for (const sel of set.selections) {
      m.selections++;
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        add(measureFragment(sel.name.value));
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const inner = measureSet(
          sel.selectionSet,
          inIntrospection || (sel.typeCondition?.name.value.startsWith('__') ?? false),
        );
        add(inner);
      } else {
        const name = sel.name.value;
        const enters = inIntrospection || name === '__schema' || name === '__type';
        const inner = measureSet(sel.selectionSet, enters);
        if (name === '__schema') m.schemas++;
        add(inner, inIntrospection && INTROSPECTION_LISTS.has(name) ? 1 : 0);
      }
      // Far beyond the limit already: the exact figure does not matter.
      if (m.selections > stopAbove) break;
    }
    return m;
  };

  const measureFragment = (name: string): Measure => {
    const known = memo.get(name);
    if (known === null) return { selections: 0, lists: 0, schemas: 0 }; // a cycle
    if (known) return known;
    const def = fragments.get(name);
    if (!def) return { selections: 0, lists: 0, schemas: 0 };
    memo.set(name, null);
    const m = measureSet(def.selectionSet, def.typeCondition.name.value.startsWith('__'));
    memo.set(name, m);
    return m;
  };

  let selections = 0;
  let introspectionLists = 0;
  let schemaFields = 0;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const m = measureSet(def.selectionSet, false);
    selections = Math.max(selections, m.selections);
    introspectionLists = Math.max(introspectionLists, m.lists);
    schemaFields = Math.max(schemaFields, m.schemas);
  }
  return { selections, introspectionLists, schemaFields };
}

/**
 * The first response key gathering more fields than its bound in one merged selection set. Walks
 * the document as the fields merge: the fields of one key in a set, fragments and inline fragments
 * expanded, then their sub-selections together as the next set. A fragment is expanded once per
 * set, a field node counted once (a fragment spread twice merges with itself trivially), so the
 * walk is linear in the expanded document, which documentLimitsRule bounds before calling it.
 */
function overRepeatedKey(
  doc: DocumentNode,
  budget: number,
): { key: string; count: number; bound: number } | 'too many selections' | undefined {
  const fragments = fragmentsOf(doc);
  /**
   * Merged sets still to look at (an explicit stack: documents may nest deep), each with the
   * fragments expanded above it: a fragment met again below itself is a cycle (graphql-js refuses
   * those), not expanded again.
   */
  const pending: { sets: SelectionSetNode[]; above: ReadonlySet<string> }[] = [];
  for (const def of doc.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION) pending.push({ sets: [def.selectionSet], above: new Set() });
    else if (def.kind === Kind.FRAGMENT_DEFINITION)
      pending.push({ sets: [def.selectionSet], above: new Set([def.name.value]) });
  }
  while (pending.length > 0) {
    const { sets, above } = pending.pop()!;
    const byKey = new Map<string, Set<FieldNode>>();
    const expanded = new Set<string>(above);
    const queue = [...sets];
    while (queue.length > 0) {
      const set = queue.pop()!;
      // Fragments unused by any operation were not measured: their expansion is bounded here.
      budget -= set.selections.length;
      if (budget < 0) return 'too many selections';
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          const key = sel.alias?.value ?? sel.name.value;
          let fields = byKey.get(key);
          if (!fields) byKey.set(key, (fields = new Set()));
          fields.add(sel);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          queue.push(sel.selectionSet);
        } else if (!expanded.has(sel.name.value)) {
          expanded.add(sel.name.value);
          const def = fragments.get(sel.name.value);
          if (def) queue.push(def.selectionSet);
        }
      }
    }
    for (const [key, fields] of byKey) {
      const below: SelectionSetNode[] = [];
      let leaves = true;
      for (const f of fields) {
        if (f.selectionSet) below.push(f.selectionSet);
        if (f.selectionSet || (f.arguments?.length ?? 0) > 0) leaves = false;
      }
      const bound = leaves ? MAX_REPEATED_LEAF : MAX_REPEATED_KEY;
      if (fields.size > bound) return { key, count: fields.size, bound };
      if (below.length > 0) pending.push({ sets: below, above: expanded });
    }
  }
  return undefined;
}

/** Selections of the document's largest operation, fragments expanded (counted up to about `stopAbove`). */
export function expandedSelections(doc: DocumentNode, stopAbove = 1_000_000): number {
  return measureOperations(doc, stopAbove).selections;
}

/**
 * Refuses documents over the size limits. It acts on entering the document, before graphql-js's
 * rules visit any selection set, and then hands the visit an empty document (a visitor edit), so
 * no other validation rule spends time on a refused document.
 */
export function documentLimitsRule(limits: DocumentLimits) {
  return (context: ValidationContext): ASTVisitor => ({
    Document(node) {
      const problems: string[] = [];
      const written = countWritten(node);
      const expanded = measureOperations(node, limits.maxSelections);
      const selections = Math.max(written.selections, expanded.selections);
      if (selections > limits.maxSelections) {
        problems.push(
          `Query has too many selections: ` +
            `${selections > limits.maxSelections * 2 ? `more than ${limits.maxSelections * 2}` : selections} ` +
            `(fragments expanded) exceeds the limit of ${limits.maxSelections}`,
        );
      }
      if (written.aliases > limits.maxAliases)
        problems.push(`Query has too many aliases: ${written.aliases} exceeds the limit of ${limits.maxAliases}`);
      if (written.directives > limits.maxDirectives)
        problems.push(
          `Query has too many directives: ${written.directives} exceeds the limit of ${limits.maxDirectives}`,
        );
      if (expanded.introspectionLists > MAX_INTROSPECTION_LISTS) {
        problems.push(
          `Introspection is nested too deep: ${expanded.introspectionLists} nested lists exceed the ` +
            `limit of ${MAX_INTROSPECTION_LISTS}`,
        );
      }
      if (expanded.schemaFields > MAX_SCHEMA_FIELDS) {
        problems.push(
          `Introspection is repeated: ${expanded.schemaFields} __schema fields in one operation exceed the ` +
            `limit of ${MAX_SCHEMA_FIELDS}`,
        );
      }
      // Only on a document within the size limits: the walk is linear in its expanded size.
      if (problems.length === 0) {
        const repeated = overRepeatedKey(node, 4 * limits.maxSelections);
        if (repeated === 'too many selections') {
          problems.push(
            `Query has too many selections: fragments expanded exceed the limit of ${limits.maxSelections}`,
          );
        } else if (repeated) {
          problems.push(
            `Field "${repeated.key}" is repeated too often: ${repeated.count} fields answer to it in one ` +
              `selection set (fragments and same-name fields merged), more than the limit of ${repeated.bound}`,
          );
        }
      }
      if (problems.length === 0) return undefined;
      for (const p of problems) context.reportError(refusal(p));
      const empty: DocumentNode = { kind: Kind.DOCUMENT, definitions: [] };
      return empty;
    },
  });
}

export function depthLimitRule(maxDepth: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    /** Depth of each fragment's selection set, measured once; null while being measured (a cycle). */
    const memo = new Map<string, number | null>();
    const depthOf = (set: SelectionSetNode | undefined): number => {
      if (!set) return 0;
      let max = 0;
      for (const sel of set.selections) {
        let d = 0;
        if (sel.kind === Kind.FIELD) {
          d = sel.name.value.startsWith('__') && !sel.selectionSet ? 0 : 1 + depthOf(sel.selectionSet);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          d = depthOf(sel.selectionSet);
        } else {
          const name = sel.name.value;
          const known = memo.get(name);
          if (known !== undefined) d = known ?? 0;
          else {
            const frag = fragments.get(name);
            if (frag) {
              memo.set(name, null);
              d = depthOf(frag.selectionSet);
              memo.set(name, d);
            }
          }
        }
        if (d > max) max = d;
        if (max > maxDepth) return max; // enough to refuse; stop walking huge documents
      }
      return max;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet);
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`Query is too deep: depth > ${maxDepth} exceeds the limit of ${maxDepth}`, {
              nodes: [node],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
            }),
          );
        }
      },
    };
  };
}

/** The refusal of an operation over the cost limit (the same over HTTP and WebSocket). */
export function tooExpensive(message: string, maxCost: number, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 }, maxCost, ...extra },
  });
}

/**
 * The cost of an operation (cost.ts) checked against `maxCost`: its cost when within, else the
 * refusal to answer. Undefined when its variables do not coerce: graphql-js refuses them before
 * anything runs (BAD_USER_INPUT), so there is no cost to bound. A document too large to estimate
 * (beyond what validation admits) is refused: it must never skip the cost limit.
 */
export function checkCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  limits: { maxCost: number; maxSelections: number },
  sizes: TopicSizes,
): number | GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
  if (coerced.errors) return undefined;
  let cost: number;
  try {
    // Validation already bounded the selections (fragments expanded); the margin keeps the
    // estimate's own node limit out of the way of anything that passed it.
    cost = estimateCost(schema, document, operationName, coerced.coerced, sizes, 2 * limits.maxSelections + 10);
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    return tooExpensive(
      `Query is too expensive: it has too many nodes to estimate within the limit of ${limits.maxCost}`,
      limits.maxCost,
    );
  }
  if (cost > limits.maxCost)
    return tooExpensive(
      `Query is too expensive: estimated cost ${cost} exceeds the limit of ${limits.maxCost}`,
      limits.maxCost,
      { cost },
    );
  return cost;
}
