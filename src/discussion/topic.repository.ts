/** Topics: the listing and feed queries (each served by an index of models.ts) and atomic updates. */
import type { CounterRepository } from './counter.repository';
import { collectionOf } from '../db/connection';
import type { DiscussionModels, TopicDoc } from './models';
import { Anchor, Direction, FeedAnchor, feedFilter, keysetFilter, keysetSort } from './keyset';
import { readById, readByIds, readWhole } from './whole-read';

export interface TopicListQuery {
  sortField: string;
  direction: Direction;
  anchor?: Anchor;
  /** Match key of the `tag=` filter. */
  tagKey?: string;
  /** Only topics in these groups (a group and its subgroups); must not be empty. */
  groupPaths?: readonly string[];
  /** Exclusive lower bound on createdAt. */
  createdAfter?: Date;
  excludeIds?: readonly number[];
  /** Rows to read (limit + 1). */
  take: number;
}

export interface AuthorFeedQuery {
  authorId: number;
  includeRemoved: boolean;
  /** Reading forwards or backwards from `anchor` (createdAt order). */
  direction: Direction;
  /** The item the page starts after / ends before, of either kind (the mixed history). */
  anchor?: FeedAnchor;
  take: number;
  /** Comments: also read the Markdown source (left out otherwise). */
  withMarkdown?: boolean;
}

/** What an edit may change. */
export type TopicEdit = Partial<
  Pick<TopicDoc, 'title' | 'markdown' | 'html' | 'wordCount' | 'link' | 'tags' | 'tagKeys' | 'editedAt'>
>;

type TopicUpdate = {
  set?: Partial<TopicDoc>;
  inc?: Partial<Record<'voteCount' | 'commentCount' | 'commentPosts', number>>;
  max?: Partial<Record<'lastActivityAt' | 'lastInterestingActivityAt', Date>>;
};

export class TopicRepository {
  constructor(
    private readonly m: DiscussionModels,
    private readonly counters: CounterRepository,
  ) {}

  /** Inserts a new topic under a fresh id (CounterRepository.insertWithNewId). */
  insertNew(doc: Omit<TopicDoc, '_id'>): Promise<TopicDoc> {
    return this.counters.insertWithNewId('topic', async (_id) => {
      const topic: TopicDoc = { ...doc, _id };
      await this.m.Topic.create(topic);
      return topic;
    });
  }

  findById(id: number): Promise<TopicDoc | null> {
    return readById<TopicDoc>(this.m.Topic, id);
  }

  findByIds(ids: readonly number[]): Promise<TopicDoc[]> {
    return readByIds<TopicDoc>(this.m.Topic, ids);
  }

  /** One page of the listing (deleted and removed never included). */
  list(q: TopicListQuery): Promise<TopicDoc[]> {
    const and: Record<string, unknown>[] = [];
    if (q.tagKey !== undefined) and.push({ tagKeys: q.tagKey });
    if (q.groupPaths !== undefined)
      and.push({ groupPath: q.groupPaths.length === 1 ? q.groupPaths[0] : { $in: [...q.groupPaths] } });
    and.push({ listed: true });
    if (q.createdAfter) and.push({ createdAt: { $gt: q.createdAfter } });
    if (q.excludeIds && q.excludeIds.length > 0) and.push({ _id: { $nin: [...q.excludeIds] } });
    const keyset = keysetFilter(q.sortField, q.direction, q.anchor);
    if (Object.keys(keyset).length > 0) and.push(keyset);
    return readWhole<TopicDoc>(this.m.Topic, {
      filter: { $and: and },
      sort: keysetSort(q.sortField, q.direction),
      limit: q.take,
    });
  }

  /** A user's topics in (createdAt, _id) order, deleted never included. */
  byAuthor(q: AuthorFeedQuery): Promise<TopicDoc[]> {
    const and: Record<string, unknown>[] = [{ authorId: q.authorId }, { deleted: false }];
    if (!q.includeRemoved) and.push({ removed: false });
    const keyset = feedFilter('topic', q.direction, q.anchor);
    if (Object.keys(keyset).length > 0) and.push(keyset);
    return readWhole<TopicDoc>(this.m.Topic, {
      filter: { $and: and },
      sort: keysetSort('createdAt', q.direction),
      limit: q.take,
    });
  }

  /** Every topic's stored counts (counts:verify). */
  allCounts(): Promise<Pick<TopicDoc, '_id' | 'voteCount' | 'commentCount'>[]> {
    return this.m.Topic.find({}, { voteCount: 1, commentCount: 1 })
      .batchSize(100_000)
      .lean<Pick<TopicDoc, '_id' | 'voteCount' | 'commentCount'>[]>()
      .exec();
  }

  /** The author's or an admin's changes (text, title, link, tags, edit time) to a topic not deleted meanwhile. */
  edit(id: number, changes: TopicEdit) {
    return this.apply(id, { set: changes }, { deleted: false });
  }

  /** The author deleted it: gone from every listing. */
  markDeleted(id: number) {
    return this.apply(id, { set: { deleted: true, listed: false } });
  }

  /** An admin removed it (`removed`) or restored it (listed again unless deleted). */
  setRemoved(id: number, removed: boolean, wasDeleted: boolean) {
    const set = removed ? { removed: true, listed: false } : { removed: false, listed: !wasDeleted };
    return this.apply(id, { set });
  }

  setLocked(id: number, locked: boolean) {
    return this.apply(id, { set: { locked } });
  }

  setOfficial(id: number, official: boolean) {
    return this.apply(id, { set: { official } });
  }

  setTags(id: number, tags: string[], tagKeys: string[]) {
    return this.apply(id, { set: { tags, tagKeys } });
  }

  /** A vote came (+1) or went (-1). */
  adjustVotes(id: number, delta: number) {
    return this.apply(id, { inc: { voteCount: delta } });
  }

  /**
   * A comment was posted at `at`: one more comment (and one more post, which only rises: the comment
   * cache's key, CommentRepository.forTopic), activity and interesting activity at least `at`.
   */
  commentPosted(id: number, at: Date) {
    return this.apply(id, {
      inc: { commentCount: 1, commentPosts: 1 },
      max: { lastActivityAt: at, lastInterestingActivityAt: at },
    });
  }

  /** A comment changed at `at` (edited, deleted, removed, restored); `countDelta` moves the comment count. */
  commentChanged(id: number, at: Date, countDelta = 0) {
    const inc = countDelta !== 0 ? { commentCount: countDelta } : undefined;
    return this.apply(id, { inc, max: { lastActivityAt: at } });
  }

  setLastInterestingActivity(id: number, at: Date) {
    return this.apply(id, { set: { lastInterestingActivityAt: at } });
  }

  /** counts:verify --fix: the recounted values. */
  setCounts(id: number, counts: Pick<TopicDoc, 'voteCount' | 'commentCount'>) {
    return this.apply(id, { set: counts });
  }

  /** One atomic update (`$set`, `$inc`, `$max`) of a topic where `where` still holds; the updated topic or null. */
  private apply(
    id: number,
    update: TopicUpdate,
    where: Partial<Pick<TopicDoc, 'deleted'>> = {},
  ): Promise<TopicDoc | null> {
    const u: Record<string, unknown> = {};
    if (update.set && Object.keys(update.set).length > 0) u.$set = update.set;
    if (update.inc) u.$inc = update.inc;
    if (update.max) u.$max = update.max;
    return collectionOf(this.m.Topic).findOneAndUpdate({ _id: id, ...where }, u, { returnDocument: 'after' });
  }
}
