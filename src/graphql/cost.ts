/**
 * The cost of an operation: an upper bound on the fields its execution resolves (one unit per field
 * per value it is resolved on), from the sizes the server knows.
 *
 * A walk from the root down that carries how many times each selection runs:
 * - a connection's `nodes`/`edges` run once per item of its page (`first`/`last`, or the default);
 * - a topic's `threads` page holds at most the topic's comments, and every level of comment threads
 *   below it (`replies`, `descendants`) holds at most the topic's comments in all (each comment has
 *   one parent, and the descendants of distinct top-level comments are distinct); nested `replies`
 *   levels hold them once together (the dearest level counts); a `descendants` below a
 *   `descendants` (where one comment is a descendant of several) counts every comment once per
 *   comment above it;
 * - a topic named by id (`topic(id:)`, `node(id:)`, `nodes(ids:)`, `topicActivity(topicId:)`) has its
 *   stored comment count; a topic reached any other way (a listing, a history, a comment's topic, a
 *   live event's topic) the largest count of any topic (TopicSizes).
 * Fragments on several types are all counted (an upper bound); fields a @skip/@include leaves out
 * are not.
 */
import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  GraphQLCompositeType,
  GraphQLError,
  GraphQLField,
  GraphQLIncludeDirective,
  GraphQLSchema,
  GraphQLSkipDirective,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationDefinitionNode,
  SchemaMetaFieldDef,
  SelectionNode,
  SelectionSetNode,
  TypeMetaFieldDef,
} from 'graphql';
import { pageSizeOf } from './discussion/paging';
import { THREADS_DEFAULT_PAGE_SIZE, THREADS_MAX_PAGE_SIZE } from './discussion/threads';

/** What the estimate knows of topics' sizes. */
export interface TopicSizes {
  /** Comments of the topics the operation names by id, by the argument's value (0: unknown or hidden). */
  byId: ReadonlyMap<string, number>;
  /** An upper bound on any topic's comments, for topics reached otherwise. */
  largest: number;
}

/** Root fields whose argument names a topic (or, for `node`/`nodes`, maybe a topic). */
const TOPIC_ARGUMENTS: Record<string, string> = { topic: 'id', node: 'id', nodes: 'ids', topicActivity: 'topicId' };

/** The comment-thread levels above a selection of one topic. */
interface Threads {
  /** How many times one comment may appear at this level, per topic value. */
  repeats: number;
  /** No comment of this level is an ancestor of another (top-level comments, their replies). */
  antichain: boolean;
}

interface Scope {
  /** Comments of the topic above (its bound), and how many topic values the selection runs for. */
  comments: number;
  topics: number;
  /** Items of the connection above (for its `nodes` and `edges`). */
  page: number;
  threads?: Threads;
  /** The type of a root field naming a topic (a live event's payload): its `topic` is that topic. */
  namedBy?: string;
}

/** Argument values of the operation's root fields that may name topics (literals or variables). */
export function topicIdsOf(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): string[] {
  const operation = operationOf(document, operationName);
  if (!operation) return [];
  const fragments = fragmentsOf(document);
  const ids = new Set<string>();
  const seen = new Set<string>();
  const sets = [operation.selectionSet];
  while (sets.length > 0 && ids.size <= 1000) {
    for (const sel of sets.pop()!.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) sets.push(sel.selectionSet);
      else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const def = fragments.get(sel.name.value);
        if (def && !seen.has(def.name.value)) {
          seen.add(def.name.value);
          sets.push(def.selectionSet);
        }
      } else {
        const arg = TOPIC_ARGUMENTS[sel.name.value];
        const node = arg && sel.arguments?.find((a) => a.name.value === arg)?.value;
        if (!node) continue;
        const values: unknown[] = [];
        if (node.kind === Kind.STRING) values.push(node.value);
        else if (node.kind === Kind.VARIABLE) values.push(variables[node.name.value]);
        else if (node.kind === Kind.LIST)
          for (const v of node.values) {
            if (v.kind === Kind.STRING) values.push(v.value);
            else if (v.kind === Kind.VARIABLE) values.push(variables[v.name.value]);
          }
        for (const v of values.flat()) if (typeof v === 'string' && v.length <= 400) ids.add(v);
      }
    }
  }
  return [...ids];
}

function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName === undefined) return ops.length === 1 ? ops[0] : undefined;
  return ops.find((o) => o.name?.value === operationName);
}

function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(def.name.value)) fragments.set(def.name.value, def);
  return fragments;
}

/**
 * The estimated cost of one operation, its variables already coerced. Walks at most `maxNodes`
 * selections (fragments expanded), else throws a GraphQLError.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  sizes: TopicSizes,
  maxNodes = 1_000_000,
): number {
  const operation = operationOf(document, operationName);
  if (!operation) return 0;
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = fragmentsOf(document);
  let nodes = 0;

  const included = (node: SelectionNode) => {
    if (!node.directives || node.directives.length === 0) return true;
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  };

  /**
   * The cost of a selection set run `times` times. `levels`, inside a `replies` level: the costs of the
   * `replies` levels below go there instead of into the sum (their caller bounds them together).
   */
  const walkSet = (
    set: SelectionSetNode,
    type: GraphQLCompositeType,
    times: number,
    scope: Scope,
    levels?: number[],
  ): number => {
    let cost = 0;
    for (const sel of set.selections) {
      if (++nodes > maxNodes) throw new GraphQLError('Query has too many nodes to estimate');
      if (!included(sel)) continue;
      if (sel.kind === Kind.FIELD) {
        const c = walkField(sel, type, times, scope);
        if (levels && isLevel(type, sel, scope)) levels.push(c);
        else cost += c;
      } else {
        const set2 = sel.kind === Kind.INLINE_FRAGMENT ? sel.selectionSet : fragments.get(sel.name.value)?.selectionSet;
        const on = sel.kind === Kind.INLINE_FRAGMENT ? sel.typeCondition : fragments.get(sel.name.value)?.typeCondition;
        const cond = on ? schema.getType(on.name.value) : type;
        if (set2 && cond && (isObjectType(cond) || isInterfaceType(cond) || cond === type))
          cost += walkSet(set2, cond as GraphQLCompositeType, times, scope, levels);
      }
    }
    return cost;
  };

  const fieldOf = (type: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined => {
    if (name === '__schema' && type === root) return SchemaMetaFieldDef;
    if (name === '__type' && type === root) return TypeMetaFieldDef;
    if (isObjectType(type) || isInterfaceType(type)) return type.getFields()[name];
    return undefined;
  };

  const walkField = (node: FieldNode, parent: GraphQLCompositeType, times: number, scope: Scope): number => {
    const field = fieldOf(parent, node.name.value);
    if (!field || !node.selectionSet) return times;
    const type = getNamedType(field.type) as GraphQLCompositeType;
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(field, node, variables);
    } catch {
      // Arguments that do not coerce: execution refuses this field before it resolves anything.
      return times;
    }
    const { below, scope: inner } = childOf(parent.name, field.name, type.name, args, times, scope);
    if (!isLevel(parent, node, scope)) return times + walkSet(node.selectionSet, type, below, inner);
    // Nested `replies` levels hold distinct comments (each at one depth), the topic's in all: their
    // cost is at most the topic's comments times the dearest level's fields, each counted here at the
    // topic's comments. Several `replies` of one level are several walks of the same comments.
    const levels: number[] = [];
    const own = walkSet(node.selectionSet, type, below, inner, levels);
    return (
      times +
      Math.max(
        own,
        levels.reduce((a, b) => a + b, 0),
      )
    );
  };

  /** A `replies` field below comments none of which is an ancestor of another: a level of the tree. */
  const isLevel = (parent: GraphQLCompositeType, node: FieldNode, scope: Scope): boolean =>
    parent.name === 'CommentThread' && node.name.value === 'replies' && scope.threads?.antichain !== false;

  const topicNamed = (value: unknown): number => {
    const values = Array.isArray(value) ? value : [value];
    let most = 0;
    for (const v of values) most = Math.max(most, typeof v === 'string' ? (sizes.byId.get(v) ?? sizes.largest) : 0);
    return most;
  };

  /** How many times the selection below a field runs, and what it knows. */
  const childOf = (
    parent: string,
    field: string,
    type: string,
    args: Record<string, unknown>,
    times: number,
    scope: Scope,
  ): { below: number; scope: Scope } => {
    if (parent === root.name && TOPIC_ARGUMENTS[field]) {
      const ids = args[TOPIC_ARGUMENTS[field]!];
      const count = Array.isArray(ids) ? ids.length : 1;
      return {
        below: times * count,
        scope: { comments: topicNamed(ids), topics: times * count, page: 1, namedBy: type },
      };
    }
    const sameTopic = type === 'Topic' && parent === scope.namedBy;
    const items = parent.endsWith('Connection') && (field === 'nodes' || field === 'edges');
    if (!sameTopic && (type === 'Topic' || type === 'TopicConnection' || type === 'HistoryConnection')) {
      // Each topic value its own tree (the topics of a page, or the same topic again and again).
      scope = { ...scope, comments: sizes.largest, topics: items ? times * scope.page : times, threads: undefined };
    }
    if (parent === 'Topic' && field === 'threads') {
      const n = typeof args.first === 'number' ? args.first : typeof args.last === 'number' ? args.last : undefined;
      const asked = Math.max(1, Math.min(THREADS_MAX_PAGE_SIZE, n ?? THREADS_DEFAULT_PAGE_SIZE));
      return {
        below: times,
        scope: { ...scope, page: Math.min(asked, scope.comments), threads: { repeats: 1, antichain: true } },
      };
    }
    if (type.endsWith('Connection')) return { below: times, scope: { ...scope, page: pageSizeOf(args) } };
    if (items) {
      // The items of a page of topics (or of a history, some of them topics) are so many topic values.
      const topics = parent === 'TopicConnection' || parent === 'HistoryConnection' ? times * scope.page : scope.topics;
      return { below: times * scope.page, scope: { ...scope, topics } };
    }
    if (parent === 'CommentThread' && (field === 'replies' || field === 'descendants')) {
      const above = scope.threads ?? { repeats: 1, antichain: true };
      const threads: Threads =
        field === 'replies'
          ? above
          : above.antichain
            ? { repeats: above.repeats, antichain: false }
            : { repeats: above.repeats * Math.max(1, scope.comments), antichain: false };
      const level = scope.topics * threads.repeats * scope.comments;
      return { below: Math.min(times * Math.max(1, scope.comments), level), scope: { ...scope, threads } };
    }
    return { below: times, scope };
  };

  return walkSet(operation.selectionSet, root, 1, { comments: sizes.largest, topics: 1, page: 1 });
}
