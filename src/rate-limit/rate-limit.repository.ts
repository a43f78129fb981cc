/**
 * Rate-limit counters in MongoDB, so every instance shares them: one document per counted attempt
 * and counter key, read back per window. `expiresAt` (the end of the longest window the attempt
 * can matter for) lets one sweep forget attempts of every limit without knowing their windows.
 */
import { Model, Schema } from 'mongoose';
import type { Database } from '../db/connection';

/** One counted attempt against one counter key (`login:addr:…`, `upload:addr:…`, …). */
export interface RateLimitAttemptDoc {
  key: string;
  at: Date;
  expiresAt: Date;
}

const schema = new Schema<RateLimitAttemptDoc>(
  { key: String, at: Date, expiresAt: Date },
  { versionKey: false, id: false },
);
schema.index({ key: 1, at: 1 });
schema.index({ expiresAt: 1 });

export class RateLimitRepository {
  private readonly model: Model<RateLimitAttemptDoc>;

  constructor(db: Database) {
    this.model = db.model<RateLimitAttemptDoc>('RateLimitAttempt', schema, 'rate_limit_attempts');
  }

  /** Attempt times per key within (since, ∞), oldest first. */
  async recent(keys: readonly string[], since: Date): Promise<Map<string, Date[]>> {
    const docs = await this.model
      .find({ key: { $in: [...keys] }, at: { $gt: since } }, { key: 1, at: 1, _id: 0 })
      .sort({ at: 1 })
      .batchSize(100_000)
      .lean()
      .exec();
    const out = new Map<string, Date[]>(keys.map((k) => [k, []]));
    for (const d of docs) out.get(d.key)?.push(d.at);
    return out;
  }

  async record(keys: readonly string[], at: Date, expiresAt: Date): Promise<void> {
    await this.model.insertMany(keys.map((key) => ({ key, at, expiresAt })));
  }

  /** Forgets attempts that expired before `now` (safe to run on every instance at once). */
  async purge(now: Date): Promise<number> {
    const r = await this.model.deleteMany({ expiresAt: { $lt: now } }).exec();
    return r.deletedCount;
  }
}
