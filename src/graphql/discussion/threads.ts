/**
 * A topic's threads by page: the top-level comments of one read of the tree (one order), sliced
 * Relay-style, each keeping all its replies. The tree is read whole anyway (the services cache it
 * per topic version), so a page is a slice of it; cursors are the top-level comments' id36.
 */
import { ValidationError } from '../../core/errors';
import type { ThreadNode } from './nodes';
import { ConnectionArgs, ConnectionValue, PageArgs, toPageArgs } from './paging';

export const THREADS_DEFAULT_PAGE_SIZE = 50;
export const THREADS_MAX_PAGE_SIZE = 1000;

function indexOf(roots: readonly ThreadNode[], cursor: string, field: 'after' | 'before'): number {
  const i = roots.findIndex((t) => t.comment.id36 === cursor);
  if (i < 0) {
    throw new ValidationError([
      { field, message: `${JSON.stringify(cursor)} is not the cursor of a top-level comment of this topic.` },
    ]);
  }
  return i;
}

/** The paging arguments checked (sizes, combinations), or BAD_USER_INPUT; cursors are checked against the tree. */
export function threadPageArgs(args: ConnectionArgs): PageArgs {
  return toPageArgs(args, { max: THREADS_MAX_PAGE_SIZE, default: THREADS_DEFAULT_PAGE_SIZE });
}

export function threadPage(roots: readonly ThreadNode[], args: ConnectionArgs): ConnectionValue<ThreadNode> {
  const page = threadPageArgs(args);
  const limit = page.limit;
  let start = 0;
  let end: number;
  if (page.before !== undefined) {
    end = indexOf(roots, page.before, 'before');
    start = Math.max(0, end - limit);
  } else {
    if (page.after !== undefined) start = indexOf(roots, page.after, 'after') + 1;
    end = Math.min(roots.length, start + limit);
  }
  const nodes = roots.slice(start, end);
  const edges = nodes.map((node) => ({ cursor: node.comment.id36, node }));
  return {
    edges,
    nodes,
    pageInfo: {
      hasNextPage: end < roots.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
