/**
 * Relay connection arguments ↔ the services' keyset pages. Cursors are the REST cursors (bare id36,
 * `t-`/`c-` in the mixed history), so a client can switch front doors in the middle of a walk:
 * `first`/`after` is REST `limit`/`after`, `last`/`before` is REST `limit`/`before`.
 */
import { ArgsType, Field, Int } from 'type-graphql';
import { ValidationError, type Issue } from '../../core/errors';
import type { Page, PageArgs } from '../../discussion/views';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, { nullable: true, description: `Page forwards: at most this many items (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}), after \`after\` when given.` })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor (an edge\'s `cursor` or `pageInfo.endCursor`): return the items after this one. The same value as the REST `after` parameter.' })
  after?: string | null;

  @Field(() => Int, { nullable: true, description: `Page backwards: at most this many items (1–${MAX_PAGE_SIZE}) just before \`before\`, which it requires.` })
  last?: number | null;

  @Field(() => String, { nullable: true, description: 'Cursor (`pageInfo.startCursor`): return the items before this one, in display order. The same value as the REST `before` parameter.' })
  before?: string | null;
}

function sizeIssue(name: 'first' | 'last', n: number, max: number): Issue | null {
  if (n < 1) return { field: name, message: `${n} is less than the minimum of 1`, exception: 'ValidationError' };
  if (n > max) return { field: name, message: `${n} is greater than the maximum of ${max}`, exception: 'ValidationError' };
  return null;
}

/** The service's page arguments, or BAD_USER_INPUT naming every offending argument. */
export function toPageArgs(args: ConnectionArgs, sizes: { max: number; default: number } = { max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }): PageArgs {
  const issues: Issue[] = [];
  const first = args.first ?? undefined;
  const last = args.last ?? undefined;
  const after = args.after ?? undefined;
  const before = args.before ?? undefined;
  if (first !== undefined) {
    const i = sizeIssue('first', first, sizes.max);
    if (i) issues.push(i);
  }
  if (last !== undefined) {
    const i = sizeIssue('last', last, sizes.max);
    if (i) issues.push(i);
  }
  // At most one issue per argument (as REST): a combination problem only where the size was fine.
  const add = (i: Issue) => {
    if (!issues.some((j) => j.field === i.field)) issues.push(i);
  };
  if (first !== undefined && last !== undefined) add({ field: 'last', message: 'Give `first` or `last`, not both.' });
  else if (last !== undefined && before === undefined) add({ field: 'last', message: '`last` pages backwards from a cursor: give `before` too.' });
  else if (first !== undefined && before !== undefined) add({ field: 'first', message: '`first` pages forwards: use `last` with `before`.' });
  if (after !== undefined && before !== undefined) issues.push({ field: 'before', message: "Can't specify both after and before.", exception: 'ValidationError' });
  if (issues.length > 0) throw new ValidationError(issues);
  const out: PageArgs = { limit: first ?? last ?? sizes.default };
  if (after !== undefined) out.after = after;
  if (before !== undefined) out.before = before;
  return out;
}

/** Estimated number of items of a connection field, for the cost limit. */
export function pageSizeOf(args: Record<string, unknown>): number {
  const n = (typeof args.first === 'number' ? args.first : undefined) ?? (typeof args.last === 'number' ? args.last : undefined) ?? DEFAULT_PAGE_SIZE;
  return Math.max(1, Math.min(MAX_PAGE_SIZE, n));
}

/** The cost of a connection: its items' cost times the page size, plus the connection itself. */
export function connectionComplexity({ args, childComplexity }: { args: Record<string, unknown>; childComplexity: number }): number {
  return 1 + pageSizeOf(args) * childComplexity;
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
export function toConnection<T, N>(page: Page<T>, cursor: (item: T) => string, node: (item: T) => N): ConnectionValue<N> {
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
