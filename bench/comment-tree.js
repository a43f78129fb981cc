#!/usr/bin/env node
/**
 * Times building, pruning, sorting and collapsing the comment tree of one 5,000-comment topic
 * (the pure code behind GET /api/beta/topic/{id}). Run after `npm run build`:
 *   node bench/comment-tree.js [comments] [rounds]
 */
'use strict';
const path = require('node:path');
const { buildCommentTree, collapseTree, walk } = require(
  path.join(__dirname, '..', 'dist', 'discussion', 'rules', 'comment-tree.js'),
);

const N = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 20);

/** A deterministic pseudo-random topic: replies mostly to recent comments, some deep chains, labels, deletions. */
function makeComments(n) {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const start = Date.UTC(2026, 2, 1);
  const comments = [];
  for (let i = 1; i <= n; i++) {
    const r = rand();
    const parentId = i === 1 || r < 0.15 ? null : r < 0.6 ? i - 1 : 1 + Math.floor(rand() * (i - 1));
    comments.push({
      id: i,
      parentId,
      authorId: 1 + Math.floor(rand() * 200),
      createdAt: new Date(start + i * 60_000),
      votes: Math.floor(rand() * 30),
      deleted: rand() < 0.05,
      removed: rand() < 0.02,
      labelWeights: {
        exemplary: rand() < 0.05 ? 1 : 0,
        noise: rand() < 0.05 ? 1 : 0,
        offtopic: rand() < 0.03 ? 1 : 0,
        joke: rand() < 0.05 ? 1 : 0,
        malice: 0,
      },
    });
  }
  return comments;
}

const comments = makeComments(N);
const viewer = {
  userId: 7,
  previousVisit: new Date(Date.UTC(2026, 2, 1) + (N / 2) * 60_000),
  collapseOldComments: true,
};

for (const order of ['relevance', 'votes', 'newest', 'posted']) {
  // Warm-up, then the median of the rounds.
  for (let i = 0; i < 3; i++) collapseTree(buildCommentTree(comments, order), viewer);
  const times = [];
  let kept = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = process.hrtime.bigint();
    const roots = buildCommentTree(comments, order);
    collapseTree(roots, viewer);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    kept = walk(roots).length;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `comment tree, ${N} comments (${kept} after pruning), order=${order}: median ${median.toFixed(2)} ms ` +
      `over ${ROUNDS} rounds (min ${times[0].toFixed(2)} ms)`,
  );
}
