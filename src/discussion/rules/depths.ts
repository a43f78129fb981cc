/**
 * Comment depths from parent links: how many ancestors each comment has (0 at top level). A
 * comment stores its own depth since its post (CommentDoc.depth); this recomputes depths from the
 * links, the source of truth, for comments stored before that and for counts:verify.
 */

export interface ParentLink {
  _id: number;
  parentId?: number | null;
}

/**
 * Every comment's depth. A parent that is not among `links` ends its chain there (the depth counts
 * the ancestors found); so does a cycle, which no post can make: stored data edited by hand must
 * not hang a check. Iterative (a chain may be thousands deep), each comment visited once.
 */
export function depthsFromParents(links: readonly ParentLink[]): Map<number, number> {
  const parentOf = new Map<number, number | null>();
  for (const l of links) parentOf.set(l._id, l.parentId ?? null);
  const depth = new Map<number, number>();
  const chain: number[] = [];
  const onChain = new Set<number>();
  for (const l of links) {
    // Up from this comment to the first one whose depth is known, the top, or a missing parent.
    let base = -1;
    for (let id: number | null | undefined = l._id; ;) {
      if (id === null || id === undefined || !parentOf.has(id) || onChain.has(id)) break;
      const known = depth.get(id);
      if (known !== undefined) {
        base = known;
        break;
      }
      chain.push(id);
      onChain.add(id);
      id = parentOf.get(id);
    }
    // Then down the chain, each one deeper than its parent.
    while (chain.length > 0) {
      const id = chain.pop()!;
      onChain.delete(id);
      depth.set(id, ++base);
    }
  }
  return depth;
}
