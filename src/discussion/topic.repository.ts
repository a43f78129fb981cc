/** Topics: the listing and feed queries (each served by an index of models.ts) and atomic updates. */
import type { CounterRepository } from './counter.repository';
import type { DiscussionModels, TopicDoc } from './models';
import { Anchor, Direction, keysetFilter, keysetSort } from './keyset';

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
  /** Extra conditions (mixed-feed keyset); merged with $and. */
  condition: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  take: number;
  /** Comments: also read the Markdown source (left out otherwise). */
  withMarkdown?: boolean;
}

export class TopicRepository {
  constructor(private readonly m: DiscussionModels, private readonly counters: CounterRepository) {}

  /** Inserts a new topic under a fresh id (CounterRepository.insertWithNewId). */
  insertNew(doc: Omit<TopicDoc, '_id'>): Promise<TopicDoc> {
    return this.counters.insertWithNewId('topic', async (_id) => {
      const topic: TopicDoc = { ...doc, _id };
      await this.m.Topic.create(topic);
      return topic;
    });
  }

  findById(id: number): Promise<TopicDoc | null> {
    return this.m.Topic.findById(id).lean<TopicDoc>().exec();
  }

  findByIds(ids: readonly number[]): Promise<TopicDoc[]> {
    return this.m.Topic.find({ _id: { $in: [...ids] } }).lean<TopicDoc[]>().exec();
  }

  /** One page of the listing (deleted and removed never included). */
  list(q: TopicListQuery): Promise<TopicDoc[]> {
    const and: Record<string, unknown>[] = [];
    if (q.tagKey !== undefined) and.push({ tagKeys: q.tagKey });
    if (q.groupPaths !== undefined) and.push({ groupPath: q.groupPaths.length === 1 ? q.groupPaths[0] : { $in: [...q.groupPaths] } });
    and.push({ listed: true });
    if (q.createdAfter) and.push({ createdAt: { $gt: q.createdAfter } });
    if (q.excludeIds && q.excludeIds.length > 0) and.push({ _id: { $nin: [...q.excludeIds] } });
    const keyset = keysetFilter(q.sortField, q.direction, q.anchor);
    if (Object.keys(keyset).length > 0) and.push(keyset);
    return this.m.Topic.find({ $and: and })
      .sort(keysetSort(q.sortField, q.direction))
      .limit(q.take)
      .lean<TopicDoc[]>()
      .exec();
  }

  /** A user's topics in (createdAt, _id) order, deleted never included. */
  byAuthor(q: AuthorFeedQuery): Promise<TopicDoc[]> {
    const and: Record<string, unknown>[] = [{ authorId: q.authorId }, { deleted: false }];
    if (!q.includeRemoved) and.push({ removed: false });
    if (Object.keys(q.condition).length > 0) and.push(q.condition);
    return this.m.Topic.find({ $and: and }).sort(q.sort).limit(q.take).lean<TopicDoc[]>().exec();
  }

  /** Every topic's stored counts (counts:verify). */
  allCounts(): Promise<Pick<TopicDoc, '_id' | 'voteCount' | 'commentCount'>[]> {
    return this.m.Topic.find({}, { voteCount: 1, commentCount: 1 }).batchSize(100_000).lean<Pick<TopicDoc, '_id' | 'voteCount' | 'commentCount'>[]>().exec();
  }

  /** `$set` (and optional `$inc` / `$max`) on one topic; the updated topic or null. */
  update(id: number, update: { set?: Partial<TopicDoc>; inc?: Partial<Record<'voteCount' | 'commentCount', number>>; max?: Partial<Record<'lastActivityAt' | 'lastInterestingActivityAt', Date>> }, where: Record<string, unknown> = {}): Promise<TopicDoc | null> {
    const u: Record<string, unknown> = {};
    if (update.set && Object.keys(update.set).length > 0) u.$set = update.set;
    if (update.inc) u.$inc = update.inc;
    if (update.max) u.$max = update.max;
    return this.m.Topic.findOneAndUpdate({ _id: id, ...where }, u, { returnDocument: 'after' }).lean<TopicDoc>().exec();
  }

  /** Like update, but returns the topic as it was before (to see which transition happened). */
  updateReturningBefore(id: number, where: Record<string, unknown>, set: Partial<TopicDoc>): Promise<TopicDoc | null> {
    return this.m.Topic.findOneAndUpdate({ _id: id, ...where }, { $set: set }, { returnDocument: 'before' }).lean<TopicDoc>().exec();
  }
}
