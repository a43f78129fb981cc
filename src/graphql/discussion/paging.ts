/**
 * Relay connection arguments ↔ the services' keyset pages. Cursors are the REST cursors (bare id36,
 * `t-`/`c-` in the mixed history), so a client can switch front doors in the middle of a walk:
 * `first`/`after` is REST `limit`/`after`, `last`/`before` is REST `limit`/`before`.
 */
import { ArgsType, Field, Int } from 'type-graphql';
import { BOTH_CURSORS_MESSAGE } from '../../discussion/inputs/page.input';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, NotBoth, pageSizeProblem, Rule } from '../../discussion/inputs/rules';
import { validateInput } from '../../discussion/inputs/validate';
import type { Page } from '../../discussion/views';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };

/** A page as the services take it: a size and at most one cursor (bare id36, or `t-`/`c-` in a history). */
export interface PageArgs {
  limit: number;
  before?: string;
  after?: string;
}

@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, {
    nullable: true,
    description:
      `Page forwards: at most this many items (1–${MAX_PAGE_SIZE}, default ` +
      `${DEFAULT_PAGE_SIZE}), after \`after\` when given.`,
  })
  first?: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Cursor (an edge's `cursor` or `pageInfo.endCursor`): return the items after this one. The same " +
      'value as the REST `after` parameter.',
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      `Page backwards: at most this many items (1–${MAX_PAGE_SIZE}) just before \`before\`, ` + 'which it requires.',
  })
  last?: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Cursor (`pageInfo.startCursor`): return the items before this one, in display order. The same ' +
      'value as the REST `before` parameter.',
  })
  before?: string | null;
}

/**
 * The rules of Relay paging arguments with pages of at most `max` items (GraphQL's own: REST has no
 * `first`/`last`), checked by the domain's one helper: at most one issue per argument, a size
 * problem before a combination problem.
 */
function relayPageRules(max: number) {
  class RelayPage {
    @Rule('first', (v, o) => {
      const size = pageSizeProblem(v, max);
      if (size !== null) return size;
      const backwards = v !== undefined && o.last === undefined && o.before !== undefined;
      return backwards ? '`first` pages forwards: use `last` with `before`.' : null;
    })
    first?: number;

    @Rule('last', (v, o) => {
      const size = pageSizeProblem(v, max);
      if (size !== null) return size;
      if (v !== undefined && o.first !== undefined) return 'Give `first` or `last`, not both.';
      const noCursor = v !== undefined && o.before === undefined;
      return noCursor ? '`last` pages backwards from a cursor: give `before` too.' : null;
    })
    last?: number;

    after?: string;

    @NotBoth('after', 'before', BOTH_CURSORS_MESSAGE, 'before') before?: string;
  }
  return RelayPage;
}

const PAGE_RULES = new Map<number, ReturnType<typeof relayPageRules>>();

/** The service's page arguments, or BAD_USER_INPUT naming every offending argument. */
export function toPageArgs(
  args: ConnectionArgs,
  sizes: { max: number; default: number } = { max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
): PageArgs {
  let rules = PAGE_RULES.get(sizes.max);
  if (!rules) PAGE_RULES.set(sizes.max, (rules = relayPageRules(sizes.max)));
  // GraphQL's explicit nulls mean absent.
  const page = validateInput(rules, {
    first: args.first ?? undefined,
    last: args.last ?? undefined,
    after: args.after ?? undefined,
    before: args.before ?? undefined,
  });
  const out: PageArgs = { limit: page.first ?? page.last ?? sizes.default };
  if (page.after !== undefined) out.after = page.after;
  if (page.before !== undefined) out.before = page.before;
  return out;
}

/** Items of a connection's page (its size argument, or the default), for the cost limit (cost.ts). */
export function pageSizeOf(args: Record<string, unknown>): number {
  const n =
    (typeof args.first === 'number' ? args.first : undefined) ??
    (typeof args.last === 'number' ? args.last : undefined) ??
    DEFAULT_PAGE_SIZE;
  return Math.max(1, Math.min(MAX_PAGE_SIZE, n));
}

export interface Edge<N> {
  cursor: string;
  node: N;
}

export interface ConnectionValue<N> {
  edges: Edge<N>[];
  nodes: N[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** A Relay connection from a service page; `cursor` gives each item's REST cursor. */
export function toConnection<T, N>(
  page: Page<T>,
  cursor: (item: T) => string,
  node: (item: T) => N,
): ConnectionValue<N> {
  const nodes: N[] = [];
  const edges = page.items.map((item) => {
    const n = node(item);
    nodes.push(n);
    return { cursor: cursor(item), node: n };
  });
  return {
    edges,
    nodes,
    pageInfo: {
      hasNextPage: page.pageInfo.hasNext,
      hasPreviousPage: page.pageInfo.hasPrev,
      startCursor: page.pageInfo.firstCursor ?? edges[0]?.cursor ?? null,
      endCursor: page.pageInfo.lastCursor ?? edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
