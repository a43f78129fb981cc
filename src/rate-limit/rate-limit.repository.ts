/**
 * Rate-limit counters in MongoDB, so every instance shares them. A counter of limit L is L slots,
 * one document each (`<key>#<i>`, i < L); a slot holds the latest attempt counted in it and is free
 * again once that attempt has left the window (`expiresAt` ≤ now). Taking a slot is one atomic
 * conditional upsert of that document: of concurrent attempts at one slot exactly one wins (the
 * others meet the document no longer free, or its `_id` already inserted), so no more than L
 * attempts are ever counted within one window however many arrive at once. `expiresAt` also lets
 * one sweep forget the slots of every limit without knowing their windows.
 */
import { Model, Schema } from 'mongoose';
import type { Database } from '../db/connection';
import { retireIndexes } from '../db/connection';
import { isDuplicateKey } from '../discussion/mongo-errors';

/** One slot of one counter key (`login:addr:…`, `upload:addr:…`, …): its latest counted attempt. */
export interface RateLimitSlotDoc {
  _id: string;
  key: string;
  slot: number;
  at: Date;
  expiresAt: Date;
  /** Names the attempt holding the slot, so only that attempt can give it back. */
  holder: string;
}

/** What a slot held before an attempt took it (null: the slot did not exist). */
export type PreviousHolder = Pick<RateLimitSlotDoc, 'at' | 'expiresAt' | 'holder'> | null;

const schema = new Schema<RateLimitSlotDoc>(
  { _id: String, key: String, slot: Number, at: Date, expiresAt: Date, holder: String },
  { versionKey: false, id: false },
);
schema.index({ key: 1, slot: 1 });
schema.index({ expiresAt: 1 });
// One document per attempt, read back per window, until the counters became slots (issue 43).
retireIndexes(schema, ['key_1_at_1']);

export class RateLimitRepository {
  private readonly model: Model<RateLimitSlotDoc>;

  constructor(db: Database) {
    this.model = db.model<RateLimitSlotDoc>('RateLimitSlot', schema, 'rate_limit_attempts');
  }

  /** The existing slots of `key` below `limit`, with the expiry of the attempt each holds. */
  async slots(key: string, limit: number): Promise<{ slot: number; expiresAt: Date }[]> {
    return this.model
      .find({ key, slot: { $lt: limit } }, { slot: 1, expiresAt: 1, _id: 0 })
      .batchSize(100_000)
      .lean<{ slot: number; expiresAt: Date }[]>()
      .exec();
  }

  /**
   * Takes slot `slot` of `key` for an attempt at `at` if the slot is free (missing, or its attempt
   * expired by `at`): returns what it held before, or undefined when another attempt holds it.
   */
  async take(
    key: string,
    slot: number,
    at: Date,
    expiresAt: Date,
    holder: string,
  ): Promise<PreviousHolder | undefined> {
    try {
      const before = await this.model.collection.findOneAndUpdate(
        { _id: `${key}#${slot}` as never, expiresAt: { $lte: at } },
        { $set: { key, slot, at, expiresAt, holder } },
        { upsert: true, returnDocument: 'before' },
      );
      return before ? { at: before.at, expiresAt: before.expiresAt, holder: before.holder } : null;
    } catch (err) {
      // The slot exists and is held: the upsert's insert met its `_id`.
      if (isDuplicateKey(err)) return undefined;
      throw err;
    }
  }

  /** Gives slot `slot` of `key` back to what it held before `holder` took it (if `holder` still holds it). */
  async giveBack(key: string, slot: number, holder: string, previous: PreviousHolder): Promise<void> {
    const filter = { _id: `${key}#${slot}` as never, holder };
    if (previous === null) await this.model.collection.deleteOne(filter);
    else await this.model.collection.updateOne(filter, { $set: previous });
  }

  /** Forgets slots whose attempt expired before `now` (safe to run on every instance at once). */
  async purge(now: Date): Promise<number> {
    const r = await this.model.deleteMany({ expiresAt: { $lt: now } }).exec();
    return r.deletedCount;
  }
}
