/**
 * A topic's comment tree (docs/discussion-api.md §6.1, §6.2, §6.5): attach, prune deleted leaves, order
 * siblings, assign depths and collapse states. Iterative throughout (no recursion on depth), and
 * O(n log n) overall: one pass to attach, one post-order pass to prune, one sort per sibling list.
 */
import type { CommentOrder } from '../views';
import { isLabelActive, LabelWeights, relevanceKey } from './labels';

export interface TreeInput {
  id: number;
  parentId: number | null;
  authorId: number;
  createdAt: Date;
  votes: number;
  deleted: boolean;
  removed: boolean;
  labelWeights?: Partial<LabelWeights>;
}

export type CollapseState = 'none' | 'full' | 'individual' | 'open';

export interface TreeNode<T extends TreeInput> {
  comment: T;
  parent: TreeNode<T> | null;
  children: TreeNode<T>[];
  depth: number;
  state: CollapseState;
}

/** Who looks at the tree, for collapsing (6.5). */
export interface CollapseViewer {
  userId: number;
  /** The viewer's previous visit to the topic, if any. */
  previousVisit: Date | null;
  /** The "collapse old comments" setting. */
  collapseOldComments: boolean;
}

/** Builds, prunes and orders the tree; returns the top-level nodes. */
export function buildCommentTree<T extends TreeInput>(comments: readonly T[], order: CommentOrder): TreeNode<T>[] {
  const byId = new Map<number, TreeNode<T>>();
  for (const c of comments) byId.set(c.id, { comment: c, parent: null, children: [], depth: 0, state: 'none' });
  const roots: TreeNode<T>[] = [];
  for (const node of byId.values()) {
    const parent = node.comment.parentId === null ? undefined : byId.get(node.comment.parentId);
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else roots.push(node);
  }

  // Pre-order list (parents before children), then walked backwards as a post-order.
  const preorder = walk(roots);
  const hasLive = new Map<TreeNode<T>, boolean>();
  for (let i = preorder.length - 1; i >= 0; i--) {
    const node = preorder[i]!;
    let live = !node.comment.deleted;
    for (const child of node.children) if (hasLive.get(child)) live = true;
    hasLive.set(node, live);
  }
  const prune = (list: TreeNode<T>[]) => list.filter((n) => hasLive.get(n));
  const kept = prune(roots);
  for (const node of preorder) if (node.children.length > 0) node.children = prune(node.children);

  const compare = comparator<T>(order);
  kept.sort(compare);
  for (const node of walk(kept)) {
    node.depth = node.parent ? node.parent.depth + 1 : 0;
    if (node.children.length > 1) node.children.sort(compare);
  }
  return kept;
}

/** Nodes in pre-order (parents before their children), iteratively. */
export function walk<T extends TreeInput>(roots: readonly TreeNode<T>[]): TreeNode<T>[] {
  const out: TreeNode<T>[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

interface SortKey {
  primary: number;
  secondary: number;
  created: number;
  id: number;
}

function comparator<T extends TreeInput>(order: CommentOrder): (a: TreeNode<T>, b: TreeNode<T>) => number {
  const keys = new WeakMap<TreeNode<T>, SortKey>();
  const keyOf = (n: TreeNode<T>): SortKey => {
    let k = keys.get(n);
    if (!k) {
      const c = n.comment;
      const created = c.createdAt.getTime();
      let primary = 0;
      let secondary = 0;
      if (order === 'votes') primary = c.votes;
      else if (order === 'newest') primary = created;
      else if (order === 'relevance') [primary, secondary] = relevanceKey(c);
      k = { primary, secondary, created, id: c.id };
      keys.set(n, k);
    }
    return k;
  };
  return (a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    // Descending on the order's key; ties keep posting order (created_at, then id, ascending).
    return kb.primary - ka.primary || kb.secondary - ka.secondary || ka.created - kb.created || ka.id - kb.id;
  };
}

/** Sets every node's collapse state for `viewer` (null: anonymous) following 6.5. */
export function collapseTree<T extends TreeInput>(roots: readonly TreeNode<T>[], viewer: CollapseViewer | null): void {
  const all = walk(roots);
  // Step 1: active noise, not the viewer's own → full.
  for (const node of all) {
    const c = node.comment;
    node.state = isLabelActive('noise', c.labelWeights, c.votes) && c.authorId !== viewer?.userId ? 'full' : 'none';
  }
  if (!viewer || !viewer.previousVisit || !viewer.collapseOldComments) return;
  const since = viewer.previousVisit.getTime();

  // Step 2.1: new comments open (unless they have a state), their parents open whatever their state.
  for (const node of all) {
    const c = node.comment;
    if (c.createdAt.getTime() > since && !c.deleted && !c.removed && c.authorId !== viewer.userId) {
      if (node.state === 'none') node.state = 'open';
      if (node.parent) node.parent.state = 'open';
    }
  }

  // Step 2.2: which nodes have an open strict descendant (post-order over the pre-order list).
  const openBelow = new Set<TreeNode<T>>();
  for (let i = all.length - 1; i >= 0; i--) {
    const node = all[i]!;
    if (node.parent && (node.state === 'open' || openBelow.has(node))) openBelow.add(node.parent);
  }
  const madeFull = new Set<TreeNode<T>>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.state === 'none' && !openBelow.has(node)) {
      node.state = 'full';
      madeFull.add(node);
      continue;
    }
    if (node.state === 'none') node.state = 'individual';
    stack.push(...node.children);
  }

  // Step 2.3: everything at the top collapsed → undo what 2.2 collapsed there.
  if (roots.every((n) => n.state === 'full')) {
    for (const n of roots) if (madeFull.has(n)) n.state = 'none';
  }
}
