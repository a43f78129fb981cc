/** Comments: a topic's whole tree in one read, a user's feed, and atomic state transitions. */
import { randomUUID } from 'node:crypto';
import type { TopicCommentCache } from './comment-cache';
import type { CounterRepository } from './counter.repository';
import { collectionOf } from '../db/connection';
import type { CommentDoc, DiscussionModels, TopicDoc } from './models';
import { isDuplicateKey } from './mongo-errors';
import { feedFilter, keysetSort } from './keyset';
import type { AuthorFeedQuery } from './topic.repository';
import type { CommentLabel } from './views';
import { depthsFromParents } from './rules/depths';
import { readById, readByIds, readWhole } from './whole-read';

/** A topic's comment-cache key: its comments' version (none: '') and its count of posts (forTopic). */
function cacheKey(version: string, posts: number): string {
  return `${version}/${posts}`;
}

/**
 * The key for an entry kept under `key` after a post raised the topic's count of posts to `posts`:
 * the same version with the new count, or null unless `key` had the count just before.
 */
function keyAfterPost(key: string, posts: number): string | null {
  const before = `/${posts - 1}`;
  return key.endsWith(before) ? cacheKey(key.slice(0, -before.length), posts) : null;
}

/** Large enough that a topic's comments come back in the first batch (no getMore round trips). */
const WHOLE_TOPIC_BATCH = 1_000_000;

export class CommentRepository {
  constructor(
    private readonly m: DiscussionModels,
    private readonly counters: CounterRepository,
    private readonly cache: TopicCommentCache,
  ) {}

  /** The next comment id, for insertNew's `drawnId` (a post draws it while it reads its topic). */
  drawId(): Promise<number> {
    return this.counters.next('comment');
  }

  /**
   * Inserts a new comment under a fresh id (CounterRepository.insertWithNewId; `followUps.drawnId` first
   * when given). Then, at once: `followUps.alongside()` (the topic's count and activity) and
   * `followUps.announce(inserted, written)`, where `written` is the promise of the first (the live
   * event is written after it, src/events/event-writer.ts). Neither waits for the other.
   *
   * A post writes no new version of the topic's comments: the topic's `commentPosts`, which its
   * `alongside` raises after the insert, is part of the cache's key (forTopic), so one write fewer
   * per post. `alongside` must therefore raise it, and answer the topic as it left it: when the
   * count it raised is the one this process's cached entry was kept under plus one, no other post
   * came in between and the entry gains the comment (TopicCommentCache.addPost); otherwise, or when
   * it fails, the entry goes.
   */
  async insertNew(
    doc: Omit<CommentDoc, '_id'>,
    followUps: {
      drawnId?: Promise<number>;
      alongside: () => Promise<Pick<TopicDoc, 'commentPosts'> | null>;
      announce?: (inserted: CommentDoc, written: Promise<unknown>) => Promise<unknown>;
    },
  ): Promise<CommentDoc> {
    const inserted = await this.counters.insertWithNewId(
      'comment',
      async (_id) => {
        // `_id` first, as mongoose's create (and MongoDB) store it; the document is complete already.
        const comment: CommentDoc = { _id, ...doc };
        await collectionOf(this.m.Comment).insertOne(comment);
        return comment;
      },
      followUps.drawnId,
    );
    const topicId = inserted.topicId;
    const written = followUps.alongside();
    // Registered first, so the entry has moved on before this post answers.
    written.then(
      (topic) => {
        const posts = topic?.commentPosts;
        if (posts === undefined) return this.cache.drop(topicId);
        this.cache.addPost(topicId, (key) => keyAfterPost(key, posts), inserted);
      },
      () => this.cache.drop(topicId),
    );
    await Promise.all([written, followUps.announce?.(inserted, written)]);
    return inserted;
  }

  /**
   * After any change of a topic's comments but a post (insertNew): a new version for them, so no
   * process serves its cached copy any more (comment-cache.ts), and this process's entry goes at
   * once.
   */
  private async changed(topicId: number): Promise<void> {
    this.cache.drop(topicId);
    const bump = () =>
      collectionOf(this.m.CommentVersion).updateOne({ _id: topicId }, { $set: { v: randomUUID() } }, { upsert: true });
    try {
      await bump();
    } catch (err) {
      // Two first changes at once: both upserts inserted, one lost the _id; it is there now.
      if (!isDuplicateKey(err)) throw err;
      await bump();
    }
  }

  /** The version of a topic's comments; null while none has changed (comment-cache.ts). */
  async versionOf(topicId: number): Promise<string | null> {
    const doc = await readById<{ v: string }>(this.m.CommentVersion, topicId);
    return doc?.v ?? null;
  }

  findById(id: number): Promise<CommentDoc | null> {
    return readById<CommentDoc>(this.m.Comment, id);
  }

  findByIds(ids: readonly number[]): Promise<CommentDoc[]> {
    return readByIds<CommentDoc>(this.m.Comment, ids);
  }

  /**
   * How many ancestors comment `c` has: stored on it since depths are (CommentDoc.depth); for an
   * older comment, from the parent links of its whole topic, read in one query, not one per
   * ancestor (a reply 176 levels down took 176 reads in a row).
   */
  async depthOf(c: Pick<CommentDoc, '_id' | 'topicId' | 'parentId' | 'depth'>): Promise<number> {
    if (typeof c.depth === 'number') return c.depth;
    if (c.parentId === null) return 0;
    const links = await readWhole<Pick<CommentDoc, '_id' | 'parentId'>>(this.m.Comment, {
      filter: { topicId: c.topicId },
      projection: { parentId: 1 },
      batchSize: WHOLE_TOPIC_BATCH,
    });
    return depthsFromParents(links).get(c._id) ?? 0;
  }

  /**
   * Every comment of a topic, deleted and removed ones included (the tree prunes them); their
   * Markdown source only when asked (`markdown` is then absent from the documents). From the
   * cache while the topic's `commentPosts` and `version` (versionOf), both read before this, are
   * the ones they were kept under; the documents are then shared and frozen.
   *
   * Why both: a post raises `commentPosts` (after its insert) and writes no version; every other
   * change writes a new random version (after its comment is written). Neither half ever returns
   * to an earlier value, so a change finished after the key was read makes the next key differ;
   * and since both are read before the comments, an entry may be newer than its key, never older.
   * (Not the comment count: a delete lowers it, and a post between a delete's version and its
   * count would bring an earlier key back without the post.)
   */
  async forTopic(
    topic: Pick<TopicDoc, '_id' | 'commentPosts'>,
    version: string | null,
    withMarkdown = false,
  ): Promise<readonly CommentDoc[]> {
    const topicId = topic._id;
    const key = cacheKey(version ?? '', topic.commentPosts ?? 0);
    const cached = this.cache.get(topicId, key, withMarkdown);
    if (cached) return cached;
    const keep = this.cache.enabled;
    const docs = await readWhole<CommentDoc>(this.m.Comment, {
      filter: { topicId },
      sort: { _id: 1 },
      projection: withMarkdown || keep ? undefined : { markdown: 0 },
      batchSize: WHOLE_TOPIC_BATCH,
    });
    return keep ? this.cache.set(topicId, key, docs, withMarkdown) : docs;
  }

  byAuthor(q: AuthorFeedQuery): Promise<CommentDoc[]> {
    const and: Record<string, unknown>[] = [{ authorId: q.authorId }, { deleted: false }];
    if (!q.includeRemoved) and.push({ removed: false });
    const keyset = feedFilter('comment', q.direction, q.anchor);
    if (Object.keys(keyset).length > 0) and.push(keyset);
    return readWhole<CommentDoc>(this.m.Comment, {
      filter: { $and: and },
      projection: q.withMarkdown ? undefined : { markdown: 0 },
      sort: keysetSort('createdAt', q.direction),
      limit: q.take,
    });
  }

  /** Listed comments per topic (the source of truth of comment counts; counts:verify). */
  async listedCounts(): Promise<Map<number, number>> {
    const rows = await this.m.Comment.aggregate<{ _id: number; n: number }>([
      { $match: { deleted: false, removed: false } },
      { $group: { _id: '$topicId', n: { $sum: 1 } } },
    ]).exec();
    return new Map(rows.map((r) => [r._id, r.n]));
  }

  /** Every comment's stored counts, its parent link and stored depth (counts:verify). */
  allCounts(): Promise<Pick<CommentDoc, '_id' | 'parentId' | 'depth' | 'voteCount' | 'labelWeights'>[]> {
    return this.m.Comment.find({}, { parentId: 1, depth: 1, voteCount: 1, labelWeights: 1 })
      .batchSize(100_000)
      .lean<Pick<CommentDoc, '_id' | 'parentId' | 'depth' | 'voteCount' | 'labelWeights'>[]>()
      .exec();
  }

  /** created_at of the topic's latest comment that counts as interesting activity, if any. */
  async latestInterestingAt(topicId: number): Promise<Date | null> {
    const doc = await this.m.Comment.findOne({ topicId, interesting: true }, { createdAt: 1 })
      .sort({ createdAt: -1 })
      .lean<Pick<CommentDoc, 'createdAt'>>()
      .exec();
    return doc?.createdAt ?? null;
  }

  /** A vote came (+1) or went (-1); the updated comment or null. */
  adjustVotes(id: number, delta: number) {
    return this.update(id, { $inc: { voteCount: delta } });
  }

  /** A label's weight sum moves by `delta` (a label put on or taken off). */
  adjustLabelWeight(id: number, label: CommentLabel, delta: number) {
    return this.update(id, { $inc: { [`labelWeights.${label}`]: delta } });
  }

  /** New text for a comment not deleted meanwhile (with the edit time when it counts as an edit). */
  editText(id: number, text: Pick<CommentDoc, 'markdown' | 'html'> & { editedAt?: Date }) {
    return this.update(id, { $set: text }, { deleted: false });
  }

  setInteresting(id: number, interesting: boolean) {
    return this.update(id, { $set: { interesting } });
  }

  /** counts:verify --fix: the recounted values. */
  setCounts(id: number, counts: Pick<CommentDoc, 'voteCount' | 'labelWeights' | 'depth'>) {
    return this.update(id, { $set: counts });
  }

  /** The author deleted it (text erased); the comment as it was, or null when it already was deleted. */
  markDeleted(id: number) {
    const erased = { deleted: true, interesting: false, markdown: '', html: '' };
    return this.updateReturningBefore(id, { deleted: false }, { $set: erased });
  }

  /** An admin removed it; the comment as it was, or null when it already was removed. */
  markRemoved(id: number) {
    return this.updateReturningBefore(id, { removed: false }, { $set: { removed: true, interesting: false } });
  }

  /** An admin restored it, interesting again or not; the comment as it was, or null when it was not removed. */
  markRestored(id: number, interesting: boolean) {
    return this.updateReturningBefore(id, { removed: true }, { $set: { removed: false, interesting } });
  }

  /** Applies the update when `where` still holds; returns the comment before (null: no match). */
  private async updateReturningBefore(
    id: number,
    where: Partial<Pick<CommentDoc, 'deleted' | 'removed'>>,
    update: Record<string, unknown>,
  ): Promise<CommentDoc | null> {
    const before = await collectionOf(this.m.Comment).findOneAndUpdate({ _id: id, ...where }, update, {
      returnDocument: 'before',
    });
    if (before) await this.changed(before.topicId);
    return before;
  }

  private async update(
    id: number,
    update: Record<string, unknown>,
    where: Partial<Pick<CommentDoc, 'deleted'>> = {},
  ): Promise<CommentDoc | null> {
    const after = await collectionOf(this.m.Comment).findOneAndUpdate({ _id: id, ...where }, update, {
      returnDocument: 'after',
    });
    if (after) await this.changed(after.topicId);
    return after;
  }
}
