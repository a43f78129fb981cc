/**
 * Derived counts kept on posts for sorting and display — a topic's vote_count and comment_count, a
 * comment's votes and label weight sums — and how they stay exact without transactions.
 *
 * Each change first moves the count with `$inc` (atomic on MongoDB, where the settling below then
 * finds nothing to fix), then *settles* the post: reads the document and recounts from the source
 * of truth (the marks, the comments, the labels) after its own write, and `$set`s the counts
 * whenever they differ, reading again after every write. FerretDB 1.24 (SQLite) executes every
 * update as "read the document, compute, write it back" with no transaction, so concurrent
 * `$inc`s — and even conditional updates — lose each other there (50 parallel `$inc` leave a
 * handful). Settling converges anyway: every counted change is followed by a settling that starts
 * after it and ends with a read that agreed with the source, so the last write to a post is always
 * checked. A count clobbered by another concurrent update of the same document (an edit, a lock;
 * FerretDB only) is healed by the post's next counted change.
 */
import type { DiscussionDeps } from './deps';
import type { CommentDoc, TopicDoc } from './models';
import type { LabelWeights } from './rules/labels';
import { COMMENT_LABELS } from './views';

/** Rounds of read-and-fix before leaving the rest to the settlings of the changes still coming. */
const MAX_ROUNDS = 10;

/**
 * Runs the settling of one post at most once at a time per process: a change that arrives while
 * one runs asks it to run again, and waits for that run, which starts after the change. Only an
 * economy (a burst of votes on one post costs a few settlings, not one each): other processes
 * settle on their own, and correctness never depends on this map.
 */
export class CountSettler {
  private readonly running = new Map<string, { again: boolean; done: Promise<unknown> }>();

  run<T>(key: string, settle: () => Promise<T>): Promise<T> {
    const current = this.running.get(key);
    if (current) {
      current.again = true;
      return current.done as Promise<T>;
    }
    const entry = { again: false, done: Promise.resolve() as Promise<unknown> };
    entry.done = (async () => {
      try {
        let result: T;
        do {
          entry.again = false;
          result = await settle();
        } while (entry.again);
        return result;
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, entry);
    return entry.done as Promise<T>;
  }
}

/** Brings a topic's vote_count and comment_count to their recounted values; the settled topic (null: gone). */
export function settleTopicCounts(d: DiscussionDeps, topicId: number): Promise<TopicDoc | null> {
  return d.settler.run(`topic:${topicId}`, async () => {
    for (let round = 1; ; round++) {
      const [topic, voteCount, commentCount] = await Promise.all([d.topics.findById(topicId), d.marks.countVotes('topic', topicId), d.comments.countListed(topicId)]);
      if (!topic || (topic.voteCount === voteCount && topic.commentCount === commentCount) || round > MAX_ROUNDS) return topic;
      await d.topics.update(topicId, { set: { voteCount, commentCount } });
    }
  });
}

function sameWeights(a: Partial<LabelWeights> | undefined, b: LabelWeights): boolean {
  return COMMENT_LABELS.every((l) => Math.abs((a?.[l] ?? 0) - b[l]) < 1e-9);
}

/** Brings a comment's votes and label weight sums to their recounted values; the settled comment (null: gone). */
export function settleCommentCounts(d: DiscussionDeps, commentId: number): Promise<CommentDoc | null> {
  return d.settler.run(`comment:${commentId}`, async () => {
    for (let round = 1; ; round++) {
      const [comment, voteCount, labelWeights] = await Promise.all([d.comments.findById(commentId), d.marks.countVotes('comment', commentId), d.labels.weightSums(commentId)]);
      if (!comment || (comment.voteCount === voteCount && sameWeights(comment.labelWeights, labelWeights)) || round > MAX_ROUNDS) return comment;
      await d.comments.update(commentId, { $set: { voteCount, labelWeights } });
    }
  });
}
