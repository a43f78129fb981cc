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

  /** The comment's label weight sums now (the source of truth of its labelWeights). */
  async weightSums(commentId: number): Promise<LabelWeights> {
    const docs = await this.m.Label.find({ commentId }, { label: 1, weight: 1, _id: 0 }).batchSize(100_000).lean<Pick<LabelDoc, 'label' | 'weight'>[]>().exec();
    const sums: LabelWeights = { ...NO_LABELS };
    for (const l of docs) if (l.label in sums) sums[l.label as keyof LabelWeights] += l.weight;
    return sums;
  }

  /** The removed label's weight, or null when there was none. */
  async remove(commentId: number, userId: number, label: string): Promise<number | null> {
    const doc = await this.m.Label.findOneAndDelete({ commentId, userId, label }).lean<LabelDoc>().exec();
    return doc ? doc.weight : null;
  }
}
