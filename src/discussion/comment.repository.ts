/** Comments: a topic's whole tree in one read, a user's feed, and atomic state transitions. */
import type { CounterRepository } from './counter.repository';
import type { CommentDoc, DiscussionModels } from './models';
import type { AuthorFeedQuery } from './topic.repository';

/** Large enough that a topic's comments come back in the first batch (no getMore round trips). */
const WHOLE_TOPIC_BATCH = 1_000_000;

export class CommentRepository {
  constructor(private readonly m: DiscussionModels, private readonly counters: CounterRepository) {}

  /** Inserts a new comment under a fresh id (CounterRepository.insertWithNewId). */
  insertNew(doc: Omit<CommentDoc, '_id'>): Promise<CommentDoc> {
    return this.counters.insertWithNewId('comment', async (_id) => {
      const comment: CommentDoc = { ...doc, _id };
      await this.m.Comment.create(comment);
      return comment;
    });
  }

  findById(id: number): Promise<CommentDoc | null> {
    return this.m.Comment.findById(id).lean<CommentDoc>().exec();
  }

  findByIds(ids: readonly number[]): Promise<CommentDoc[]> {
    return this.m.Comment.find({ _id: { $in: [...ids] } }).lean<CommentDoc[]>().exec();
  }

  /**
   * Every comment of a topic, deleted and removed ones included (the tree prunes them); their
   * Markdown source only when asked (`markdown` is then absent from the documents).
   */
  forTopic(topicId: number, withMarkdown = false): Promise<CommentDoc[]> {
    return this.m.Comment.find({ topicId }, withMarkdown ? {} : { markdown: 0 }).sort({ _id: 1 }).batchSize(WHOLE_TOPIC_BATCH).lean<CommentDoc[]>().exec();
  }

  byAuthor(q: AuthorFeedQuery): Promise<CommentDoc[]> {
    const and: Record<string, unknown>[] = [{ authorId: q.authorId }, { deleted: false }];
    if (!q.includeRemoved) and.push({ removed: false });
    if (Object.keys(q.condition).length > 0) and.push(q.condition);
    return this.m.Comment.find({ $and: and }, q.withMarkdown ? {} : { markdown: 0 }).sort(q.sort).limit(q.take).lean<CommentDoc[]>().exec();
  }

  /** How many of the topic's comments are neither deleted nor removed (the source of truth of its comment count). */
  countListed(topicId: number): Promise<number> {
    return this.m.Comment.countDocuments({ topicId, deleted: false, removed: false }).exec();
  }

  /** created_at of the topic's latest comment that counts as interesting activity, if any. */
  async latestInterestingAt(topicId: number): Promise<Date | null> {
    const doc = await this.m.Comment.findOne({ topicId, interesting: true }, { createdAt: 1 }).sort({ createdAt: -1 }).lean<Pick<CommentDoc, 'createdAt'>>().exec();
    return doc?.createdAt ?? null;
  }

  /** Applies the update when `where` still holds; returns the comment before (null: no match). */
  updateReturningBefore(id: number, where: Record<string, unknown>, update: Record<string, unknown>): Promise<CommentDoc | null> {
    return this.m.Comment.findOneAndUpdate({ _id: id, ...where }, update, { returnDocument: 'before' }).lean<CommentDoc>().exec();
  }

  update(id: number, update: Record<string, unknown>, where: Record<string, unknown> = {}): Promise<CommentDoc | null> {
    return this.m.Comment.findOneAndUpdate({ _id: id, ...where }, update, { returnDocument: 'after' }).lean<CommentDoc>().exec();
  }
}
