/** Comment labels: one document per (comment, user, label) under a unique index. */
import type { DiscussionModels, LabelDoc } from './models';
import { isDuplicateKey } from './mongo-errors';
import { LabelWeights, NO_LABELS } from './rules/labels';

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

  /** Every labelled comment's weight sums (counts:verify). */
  async allWeightSums(): Promise<Map<number, LabelWeights>> {
    const docs = await this.m.Label.find({}, { commentId: 1, label: 1, weight: 1, _id: 0 })
      .batchSize(100_000)
      .lean<Pick<LabelDoc, 'commentId' | 'label' | 'weight'>[]>()
      .exec();
    const sums = new Map<number, LabelWeights>();
    for (const l of docs) {
      let s = sums.get(l.commentId);
      if (!s) sums.set(l.commentId, (s = { ...NO_LABELS }));
      if (l.label in s) s[l.label as keyof LabelWeights] += l.weight;
    }
    return sums;
  }

  /** The removed label's weight, or null when there was none. */
  async remove(commentId: number, userId: number, label: string): Promise<number | null> {
    const doc = await this.m.Label.findOneAndDelete({ commentId, userId, label }).lean<LabelDoc>().exec();
    return doc ? doc.weight : null;
  }
}
