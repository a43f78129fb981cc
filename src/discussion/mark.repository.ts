/**
 * Votes, bookmarks and visits: one document per (user, post) under a unique index, so a user
 * votes at most once per post on every database. Each change is a single conditional update that
 * reports whether it changed anything, so the post's `$inc` moves once per real change (atomic on
 * MongoDB and on the embedded FerretDB; count.service.ts).
 */
import { collectionOf } from '../db/connection';
import { MARK_DEFAULTS, type DiscussionModels, type MarkDoc, type MarkKind } from './models';
import { isDuplicateKey } from './mongo-errors';
import { readOne, readWhole } from './whole-read';

const MANY = 1_000_000;

export class MarkRepository {
  constructor(private readonly m: DiscussionModels) {}

  /** The viewer's marks on a topic and on all of its comments (one query). */
  forTopicPage(userId: number, topicId: number): Promise<MarkDoc[]> {
    return readWhole<MarkDoc>(this.m.Mark, { filter: { userId, topicId }, batchSize: MANY });
  }

  /** The viewer's marks on these topics and comments (one query). */
  async forPosts(userId: number, topicIds: readonly number[], commentIds: readonly number[]): Promise<MarkDoc[]> {
    const or: Record<string, unknown>[] = [];
    if (topicIds.length > 0) or.push({ kind: 'topic', postId: { $in: [...new Set(topicIds)] } });
    if (commentIds.length > 0) or.push({ kind: 'comment', postId: { $in: [...commentIds] } });
    if (or.length === 0) return [];
    return readWhole<MarkDoc>(this.m.Mark, { filter: { userId, $or: or }, batchSize: MANY });
  }

  /** Votes per post of a kind, from the marks (the source of truth of vote counts; counts:verify). */
  async voteCounts(kind: MarkKind): Promise<Map<number, number>> {
    const rows = await this.m.Mark.aggregate<{ _id: number; n: number }>([
      { $match: { kind, voted: true } },
      { $group: { _id: '$postId', n: { $sum: 1 } } },
    ]).exec();
    return new Map(rows.map((r) => [r._id, r.n]));
  }

  find(userId: number, kind: MarkKind, postId: number): Promise<MarkDoc | null> {
    return readOne<MarkDoc>(this.m.Mark, { userId, kind, postId });
  }

  /**
   * Sets a boolean flag (voted / bookmarked) with its timestamp. `changed` says whether it changed;
   * `mark` is the mark as that change left it (one findAndModify returns it, so an answer that shows
   * the viewer's flags needs no second read), null when nothing changed. The unique index makes
   * concurrent first marks collide instead of duplicating.
   */
  async setFlag(
    userId: number,
    kind: MarkKind,
    postId: number,
    topicId: number,
    flag: 'voted' | 'bookmarked',
    on: boolean,
    at: Date,
  ): Promise<{ changed: boolean; mark: MarkDoc | null }> {
    const stamp = flag === 'voted' ? 'votedAt' : 'bookmarkedAt';
    const key = { userId, kind, postId };
    if (!on) {
      const mark = await collectionOf(this.m.Mark).findOneAndUpdate(
        { ...key, [flag]: true },
        { $set: { [flag]: false, [stamp]: null } },
        { returnDocument: 'after' },
      );
      return { changed: mark !== null, mark };
    }
    try {
      // Matched (the flag was off) or inserted (no mark yet): either way it changed now.
      const set = { [flag]: true, [stamp]: at, topicId };
      const mark = await collectionOf(this.m.Mark).findOneAndUpdate(
        { ...key, [flag]: { $ne: true } },
        { $set: set, $setOnInsert: startingValues(set) },
        { upsert: true, returnDocument: 'after' },
      );
      return { changed: mark !== null, mark };
    } catch (err) {
      // The document exists with the flag already set: nothing changed.
      if (isDuplicateKey(err)) return { changed: false, mark: null };
      throw err;
    }
  }

  /**
   * Records (at, commentCount) as the user's latest visit to a topic. Two first visits at once
   * (two tabs, a client retrying) both try to insert the mark: MongoDB retries such an upsert by
   * itself, FerretDB reports the unique index's E11000 — the mark exists now, so it is updated.
   * The (userId, kind, postId) filter is served by the unique index (on FerretDB through Agora's
   * pushdown build, third_party/ferretdb patch 0001).
   */
  async recordVisit(userId: number, topicId: number, at: Date, commentCount: number): Promise<void> {
    const key = { userId, kind: 'topic' as MarkKind, postId: topicId };
    const set = { visitAt: at, visitCommentCount: commentCount, topicId };
    try {
      await collectionOf(this.m.Mark).updateOne(
        key,
        { $set: set, $setOnInsert: startingValues(set) },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await collectionOf(this.m.Mark).updateOne(key, { $set: set });
    }
  }
}

/**
 * What a new mark starts with besides `set`: the defaults of every other flag, as mongoose's
 * setDefaultsOnInsert sent them (the writes above go through the driver's collection, collectionOf).
 */
function startingValues(set: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(MARK_DEFAULTS).filter(([k]) => !(k in set)));
}
