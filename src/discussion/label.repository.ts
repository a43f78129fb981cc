/** Comment labels: one document per (comment, user, label) under a unique index. */
import type { DiscussionModels, LabelDoc } from './models';
import { isDuplicateKey } from './mongo-errors';

export class LabelRepository {
  constructor(private readonly m: DiscussionModels) {}

  /** false when this user already put this label on this comment. */
  async insert(doc: LabelDoc): Promise<boolean> {
    try {
      await this.m.Label.create(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** The removed label's weight, or null when there was none. */
  async remove(commentId: number, userId: number, label: string): Promise<number | null> {
    const doc = await this.m.Label.findOneAndDelete({ commentId, userId, label }).lean<LabelDoc>().exec();
    return doc ? doc.weight : null;
  }
}
