/**
 * Derived counts kept on posts for sorting and display — a topic's vote_count and comment_count, a
 * comment's votes and label weight sums — and a comment's depth, and the check that they match
 * their sources.
 *
 * On the write path a count moves with one increment per real change (the repositories'
 * adjustVotes, commentPosted, …): the change itself is a single conditional update or a
 * unique-index insert that reports whether it happened (a mark's flag, a label, a comment's
 * deleted/removed state), and single-document writes are atomic on MongoDB and
 * on the embedded FerretDB alike (its patch 0006, docs/embedded-database.md). Nothing is recounted
 * there. What can still leave a count off is a process that dies between the change and its
 * increment, or data edited by hand: `npm run cli -- counts:verify [--fix]` recounts every post from
 * the sources of truth (marks, comments, labels, parent links), reports the drift and, with --fix,
 * sets the counts.
 */
import type { DiscussionDeps } from './deps';
import { depthsFromParents } from './rules/depths';
import { LabelWeights, NO_LABELS } from './rules/labels';
import type { Caller, CountReport, CountApi } from './services';
import { requireAdmin } from './viewer';
import { COMMENT_LABELS } from './views';

/** At most this many drifted posts are listed in a report (all are counted, and all are fixed). */
const LISTED = 50;

function sameWeights(a: Partial<LabelWeights> | undefined, b: LabelWeights): boolean {
  return COMMENT_LABELS.every((l) => Math.abs((a?.[l] ?? 0) - b[l]) < 1e-9);
}

export class CountService implements CountApi {
  constructor(private readonly d: DiscussionDeps) {}

  async verify(caller: Caller, opts: { fix: boolean }): Promise<CountReport> {
    requireAdmin(caller);
    const report: CountReport = { topics: 0, comments: 0, drifted: 0, fixed: 0, drift: [] };
    const note = (entry: CountReport['drift'][number]) => {
      report.drifted += 1;
      if (report.drift.length < LISTED) report.drift.push(entry);
    };

    const [topicVotes, commentVotes, listed, weights] = await Promise.all([
      this.d.marks.voteCounts('topic'),
      this.d.marks.voteCounts('comment'),
      this.d.comments.listedCounts(),
      this.d.labels.allWeightSums(),
    ]);

    for (const t of await this.d.topics.allCounts()) {
      report.topics += 1;
      const voteCount = topicVotes.get(t._id) ?? 0;
      const commentCount = listed.get(t._id) ?? 0;
      if (t.voteCount === voteCount && t.commentCount === commentCount) continue;
      const stored = { voteCount: t.voteCount, commentCount: t.commentCount };
      note({ post: `topic ${t._id}`, stored, counted: { voteCount, commentCount } });
      if (opts.fix && (await this.d.topics.setCounts(t._id, { voteCount, commentCount }))) report.fixed += 1;
    }

    const comments = await this.d.comments.allCounts();
    const depths = depthsFromParents(comments);
    for (const c of comments) {
      report.comments += 1;
      const voteCount = commentVotes.get(c._id) ?? 0;
      const labelWeights = weights.get(c._id) ?? { ...NO_LABELS };
      const depth = depths.get(c._id) ?? 0;
      if (c.voteCount === voteCount && sameWeights(c.labelWeights, labelWeights) && c.depth === depth) continue;
      // A comment stored before depths were has none: reported (and, with fix, given its depth) here.
      const stored = { voteCount: c.voteCount, labelWeights: c.labelWeights, depth: c.depth };
      note({ post: `comment ${c._id}`, stored, counted: { voteCount, labelWeights, depth } });
      if (opts.fix && (await this.d.comments.setCounts(c._id, { voteCount, labelWeights, depth }))) report.fixed += 1;
    }
    return report;
  }
}
