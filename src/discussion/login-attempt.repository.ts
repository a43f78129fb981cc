/**
 * Login rate-limit counters in MongoDB (so every instance shares them): one document per counted
 * attempt and counter key, read back per window.
 */
import type { DiscussionModels } from './models';

export class LoginAttemptRepository {
  constructor(private readonly m: DiscussionModels) {}

  /** Attempt times per key within (since, ∞), oldest first. */
  async recent(keys: readonly string[], since: Date): Promise<Map<string, Date[]>> {
    const docs = await this.m.LoginAttempt.find({ key: { $in: [...keys] }, at: { $gt: since } }, { key: 1, at: 1, _id: 0 })
      .sort({ at: 1 })
      .batchSize(100_000)
      .lean()
      .exec();
    const out = new Map<string, Date[]>(keys.map((k) => [k, []]));
    for (const d of docs) out.get(d.key)?.push(d.at);
    return out;
  }

  async record(keys: readonly string[], at: Date): Promise<void> {
    await this.m.LoginAttempt.insertMany(keys.map((key) => ({ key, at })));
  }

  /** Forgets attempts older than `before` (safe to run on every instance at once). */
  async purge(before: Date): Promise<number> {
    const r = await this.m.LoginAttempt.deleteMany({ at: { $lt: before } }).exec();
    return r.deletedCount;
  }
}
