/**
 * presentCommentTreeJson writes the same text as JSON.stringify of the presented tree (presentCommentTree
 * below, the obvious recursive version) without
 * recursion, so GET /topic/{id} stays fast on 5,000-comment trees and safe on deep reply chains.
 */
import fc from 'fast-check';
import { presentCommentFields, presentCommentTreeJson } from '../../../src/rest/beta/presenters';
import type { CommentView } from '../../../src/discussion/views';

function view(id: number, children: CommentView[], extra: Partial<CommentView> = {}): CommentView {
  return {
    id,
    id36: id.toString(36),
    topicId: 1,
    topicId36: '1',
    parentId: null,
    authorUsername: `user${id % 7}`,
    renderedHtml: `<p>comment "${id}" \\ é \u2028</p>`,
    markdown: null,
    createdAt: new Date(Date.UTC(2026, 2, 1) + id * 60_000),
    editedAt: id % 5 === 0 ? new Date(Date.UTC(2026, 2, 2)) : null,
    votes: id % 11,
    isRemoved: id % 13 === 0,
    isDeleted: id % 17 === 0,
    exemplary: id % 3 === 0 ? null : id % 2 === 0,
    collapsed: id % 4 === 0,
    collapsedIndividual: id % 6 === 0,
    isOp: id % 9 === 0,
    isMe: null,
    isNew: id % 8 === 0 ? true : null,
    voted: null,
    bookmarked: false,
    depth: 0,
    children,
    ...extra,
  } as CommentView;
}

/** The presented tree, recursively: each comment's fields, then its children. */
function presentCommentTree(roots: readonly CommentView[]): object[] {
  return roots.map((v) => ({ ...presentCommentFields(v), children: presentCommentTree(v.children ?? []) }));
}

/** A tree from a list of parent indexes (each node's parent comes before it). */
function treeFrom(parents: number[]): CommentView[] {
  const nodes: CommentView[] = [];
  const roots: CommentView[] = [];
  parents.forEach((p, i) => {
    const n = view(i + 1, []);
    nodes.push(n);
    if (i === 0 || p < 0) roots.push(n);
    else nodes[p % i]!.children!.push(n);
  });
  return roots;
}

describe('presentCommentTreeJson', () => {
  it('writes the text of the presented tree', () => {
    expect(presentCommentTreeJson([])).toBe('[]');
    const one = [view(1, [])];
    expect(presentCommentTreeJson(one)).toBe(JSON.stringify(presentCommentTree(one)));
    const nested = [view(1, [view(2, [view(3, [])]), view(4, [])]), view(5, [])];
    expect(presentCommentTreeJson(nested)).toBe(JSON.stringify(presentCommentTree(nested)));
  });

  it('matches on random trees', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 1000 }), { maxLength: 60 }), (parents) => {
        const roots = treeFrom(parents);
        expect(presentCommentTreeJson(roots)).toBe(JSON.stringify(presentCommentTree(roots)));
        JSON.parse(presentCommentTreeJson(roots));
      }),
    );
  });

  it('serializes a 20,000-deep reply chain', () => {
    const root = view(1, []);
    let cur = root;
    for (let i = 2; i <= 20_000; i++) {
      const next = view(i, []);
      cur.children!.push(next);
      cur = next;
    }
    const text = presentCommentTreeJson([root]);
    expect(text.startsWith('[{"id":"1",')).toBe(true);
    expect(text.endsWith(`"children":[${']}'.repeat(20_000)}]`)).toBe(true);
  });
});
