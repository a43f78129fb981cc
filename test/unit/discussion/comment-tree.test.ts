import fc from 'fast-check';
import { buildCommentTree, collapseTree, TreeInput, TreeNode, walk } from '../../../src/discussion/rules/comment-tree';
import { isInteresting, isLabelActive, relevanceKey } from '../../../src/discussion/rules/labels';

const T = (hhmm: string) => new Date(`2026-03-01T${hhmm}:00.000Z`);

function c(id: number, parentId: number | null, at: string, extra: Partial<TreeInput> = {}): TreeInput {
  return { id, parentId, authorId: 100 + id, createdAt: T(at), votes: 0, deleted: false, removed: false, ...extra };
}

const ids = (nodes: TreeNode<TreeInput>[]) => nodes.map((n) => n.comment.id);
const shape = (nodes: TreeNode<TreeInput>[]): unknown =>
  nodes.map((n) => (n.children.length ? [n.comment.id, shape(n.children)] : n.comment.id));

describe('labels (6.3)', () => {
  it('exemplary is active from weight 0.5, the others from 1.0', () => {
    expect(isLabelActive('exemplary', { exemplary: 0.5 }, 0)).toBe(true);
    expect(isLabelActive('exemplary', { exemplary: 0.4 }, 0)).toBe(false);
    expect(isLabelActive('joke', { joke: 0.9 }, 0)).toBe(false);
    expect(isLabelActive('joke', { joke: 1 }, 0)).toBe(true);
    expect(isLabelActive('offtopic', { offtopic: 1 }, 100)).toBe(true);
  });

  it('noise is inactive while votes ≥ 5 × its weight', () => {
    expect(isLabelActive('noise', { noise: 1 }, 4)).toBe(true);
    expect(isLabelActive('noise', { noise: 1 }, 5)).toBe(false);
    expect(isLabelActive('noise', { noise: 2 }, 9)).toBe(true);
    expect(isLabelActive('noise', { noise: 2 }, 10)).toBe(false);
  });

  it('malice, noise and offtopic make a comment uninteresting; deleted and removed too', () => {
    const base = { deleted: false, removed: false, votes: 0 };
    expect(isInteresting({ ...base, labelWeights: { malice: 1 } as never })).toBe(false);
    expect(isInteresting({ ...base, labelWeights: { noise: 1 } as never })).toBe(false);
    expect(isInteresting({ ...base, votes: 5, labelWeights: { noise: 1 } as never })).toBe(true);
    expect(isInteresting({ ...base, labelWeights: { joke: 1, exemplary: 1 } as never })).toBe(true);
    expect(isInteresting({ ...base, deleted: true })).toBe(false);
    expect(isInteresting({ ...base, removed: true })).toBe(false);
  });
});

describe('relevance key (6.2)', () => {
  it('takes the first matching case', () => {
    expect(relevanceKey({ removed: true, votes: 50, labelWeights: { exemplary: 3 } as never })).toEqual([-100, 0]);
    expect(relevanceKey({ removed: false, votes: 3, labelWeights: { noise: 1, offtopic: 1 } as never })).toEqual([
      -2, 3,
    ]);
    expect(relevanceKey({ removed: false, votes: 3, labelWeights: { offtopic: 1, joke: 1 } as never })).toEqual([
      -1, 3,
    ]);
    expect(relevanceKey({ removed: false, votes: 7, labelWeights: { joke: 1, exemplary: 1 } as never })).toEqual([
      3, 0,
    ]);
    expect(relevanceKey({ removed: false, votes: 4, labelWeights: { exemplary: 1 } as never })).toEqual([8, 0]);
    expect(relevanceKey({ removed: false, votes: 4 })).toEqual([4, 0]);
  });

  it('orders the spec examples', () => {
    const roots = buildCommentTree(
      [
        c(1, null, '10:00', { votes: 7, labelWeights: { joke: 1 } as never }),
        c(2, null, '10:01', { votes: 4 }),
        c(3, null, '10:02', { votes: 4, labelWeights: { exemplary: 1 } as never }),
        c(4, null, '10:03', { votes: 7 }),
        c(5, null, '10:04', { votes: 2 }),
        c(6, null, '10:05', { votes: 1, labelWeights: { exemplary: 1 } as never }),
      ],
      'relevance',
    );
    // 8.0 (3), 7 (4), 4 (2), 3 (joke 1), 2 (5, earlier) tie 2.0 (6)
    expect(ids(roots)).toEqual([3, 4, 2, 1, 5, 6]);
  });
});

describe('ordering (6.2)', () => {
  const list = [
    c(1, null, '10:00', { votes: 1 }),
    c(2, null, '09:00', { votes: 5 }),
    c(3, null, '11:00', { votes: 5 }),
    c(4, null, '11:00', { votes: 0 }),
  ];
  it.each([
    ['posted', [2, 1, 3, 4]],
    ['newest', [3, 4, 1, 2]],
    ['votes', [2, 3, 1, 4]],
    ['relevance', [2, 3, 1, 4]],
  ] as const)('%s', (order, expected) => {
    expect(ids(buildCommentTree(list, order))).toEqual(expected);
  });

  it('applies at every level and keeps posting order on ties (created_at, then id)', () => {
    const roots = buildCommentTree(
      [
        c(1, null, '10:00'),
        c(5, 1, '10:05', { votes: 1 }),
        c(3, 1, '10:05', { votes: 1 }),
        c(4, 1, '10:01', { votes: 1 }),
        c(2, 1, '10:10', { votes: 3 }),
      ],
      'votes',
    );
    expect(shape(roots)).toEqual([[1, [2, 4, 3, 5]]]);
    expect(roots[0]!.children.map((n) => n.depth)).toEqual([1, 1, 1, 1]);
  });
});

describe('pruning (6.1)', () => {
  it('drops deleted comments without live descendants, keeps placeholders above live ones', () => {
    const roots = buildCommentTree(
      [
        c(1, null, '10:00', { deleted: true }),
        c(2, 1, '10:01', { deleted: true }),
        c(3, null, '10:02', { deleted: true }),
        c(4, 3, '10:03', { deleted: true }),
        c(5, 4, '10:04'),
        c(6, null, '10:05', { deleted: true }),
        c(7, 6, '10:06', { removed: true }),
        c(8, null, '10:07'),
        c(9, 8, '10:08', { deleted: true }),
      ],
      'posted',
    );
    expect(shape(roots)).toEqual([[3, [[4, [5]]]], [6, [7]], 8]);
    const depths = Object.fromEntries(walk(roots).map((n) => [n.comment.id, n.depth]));
    expect(depths).toEqual({ 3: 0, 4: 1, 5: 2, 6: 0, 7: 1, 8: 0 });
  });

  it('handles reply chains deeper than the call stack', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => c(i + 1, i === 0 ? null : i, '10:00'));
    const roots = buildCommentTree(chain, 'relevance');
    collapseTree(roots, { userId: 1, previousVisit: T('09:00'), collapseOldComments: true });
    const all = walk(roots);
    expect(all).toHaveLength(50_000);
    expect(all[all.length - 1]!.depth).toBe(49_999);
  });
});

describe('collapsing (6.5)', () => {
  const viewerId = 2;
  const mine = { authorId: viewerId };

  /** Example 3 of docs/discussion-api.md §8: 2s..2x as 1..6. */
  const example = () => [
    c(1, null, '10:00', { votes: 4, labelWeights: { exemplary: 1 } as never }),
    c(2, null, '11:00', { votes: 7, labelWeights: { joke: 1 } as never }),
    c(3, null, '11:30', { deleted: true }),
    c(4, 1, '11:45', { votes: 2 }),
    c(5, 3, '11:50', mine),
    c(6, 4, '13:00', { votes: 1 }),
  ];
  const states = (roots: TreeNode<TreeInput>[]) => Object.fromEntries(walk(roots).map((n) => [n.comment.id, n.state]));

  it('reproduces example 3', () => {
    const roots = buildCommentTree(example(), 'relevance');
    expect(ids(roots)).toEqual([1, 2, 3]);
    collapseTree(roots, { userId: viewerId, previousVisit: T('12:00'), collapseOldComments: true });
    expect(states(roots)).toEqual({ 1: 'individual', 4: 'open', 6: 'open', 2: 'full', 3: 'full', 5: 'none' });
  });

  it('resets the top level when everything there would be collapsed (2.3)', () => {
    const roots = buildCommentTree(example(), 'relevance');
    collapseTree(roots, { userId: viewerId, previousVisit: T('16:00'), collapseOldComments: true });
    expect(Object.values(states(roots)).every((s) => s === 'none')).toBe(true);
  });

  it('collapses noise for everyone but its author, anonymous included', () => {
    const list = [
      c(1, null, '10:00', { labelWeights: { noise: 1 } as never }),
      c(2, null, '10:00', { authorId: viewerId, labelWeights: { noise: 1 } as never }),
    ];
    const anon = buildCommentTree(list, 'posted');
    collapseTree(anon, null);
    expect(states(anon)).toEqual({ 1: 'full', 2: 'full' });
    const own = buildCommentTree(list, 'posted');
    collapseTree(own, { userId: viewerId, previousVisit: null, collapseOldComments: true });
    expect(states(own)).toEqual({ 1: 'full', 2: 'none' });
  });

  it('keeps a 2.3 reset from undoing noise collapses', () => {
    const list = [c(1, null, '10:00', { labelWeights: { noise: 1 } as never }), c(2, null, '10:00')];
    const roots = buildCommentTree(list, 'posted');
    collapseTree(roots, { userId: viewerId, previousVisit: T('12:00'), collapseOldComments: true });
    expect(states(roots)).toEqual({ 1: 'full', 2: 'none' });
  });

  it('opens the parent of a new comment even when noise collapsed it, but not a new noise comment itself', () => {
    const list = [
      c(1, null, '10:00', { labelWeights: { noise: 1 } as never }),
      c(2, 1, '13:00', { labelWeights: { noise: 1 } as never }),
      c(3, null, '09:00'),
    ];
    const roots = buildCommentTree(list, 'posted');
    collapseTree(roots, { userId: viewerId, previousVisit: T('12:00'), collapseOldComments: true });
    expect(states(roots)).toEqual({ 3: 'full', 1: 'open', 2: 'full' });
  });

  it('does nothing beyond noise without a previous visit or with the setting off', () => {
    for (const viewer of [
      { userId: viewerId, previousVisit: null, collapseOldComments: true },
      { userId: viewerId, previousVisit: T('12:00'), collapseOldComments: false },
    ]) {
      const roots = buildCommentTree(example(), 'relevance');
      collapseTree(roots, viewer);
      expect(Object.values(states(roots)).every((s) => s === 'none')).toBe(true);
    }
  });

  it('never treats deleted, removed or own comments as new', () => {
    const list = [
      c(1, null, '10:00'),
      c(2, 1, '13:00', { removed: true }),
      c(3, null, '10:00'),
      c(4, 3, '13:00', mine),
      c(5, null, '10:00'),
    ];
    const roots = buildCommentTree(list, 'posted');
    collapseTree(roots, { userId: viewerId, previousVisit: T('12:00'), collapseOldComments: true });
    // Nothing is new, so everything at the top would be full and 2.3 resets it.
    expect(Object.values(states(roots)).every((s) => s === 'none')).toBe(true);
  });
});

describe('tree properties', () => {
  const arbComments = fc
    .array(
      fc.record({
        parent: fc.nat(),
        votes: fc.nat(20),
        minute: fc.nat(600),
        deleted: fc.boolean(),
        removed: fc.boolean(),
      }),
      { maxLength: 60 },
    )
    .map((rows) =>
      rows.map((r, i): TreeInput => ({
        id: i + 1,
        parentId: i === 0 || r.parent % 3 === 0 ? null : 1 + (r.parent % i),
        authorId: r.parent % 5,
        createdAt: new Date(Date.UTC(2026, 2, 1, 0, r.minute)),
        votes: r.votes,
        deleted: r.deleted,
        removed: r.removed,
      })),
    );

  it('keeps exactly the comments that are live or have a live descendant, each once, with consistent depths', () => {
    fc.assert(
      fc.property(arbComments, fc.constantFrom('votes', 'newest', 'posted', 'relevance' as const), (list, order) => {
        const roots = buildCommentTree(list, order);
        const all = walk(roots);
        const byId = new Map(list.map((x) => [x.id, x]));
        const liveBelow = (id: number): boolean =>
          !byId.get(id)!.deleted || list.some((x) => x.parentId === id && liveBelow(x.id));
        expect(new Set(all.map((n) => n.comment.id)).size).toBe(all.length);
        expect(all.map((n) => n.comment.id).sort((a, b) => a - b)).toEqual(
          list.filter((x) => liveBelow(x.id)).map((x) => x.id),
        );
        for (const n of all) expect(n.depth).toBe(n.parent ? n.parent.depth + 1 : 0);
      }),
    );
  });
});
