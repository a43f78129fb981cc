/**
 * Integer ids (users, topics, comments): one counter document per sequence, and the one function
 * through which every insert under a new id goes.
 *
 * The counter's `$inc` (one findAndModify) hands out each number once: it is atomic on MongoDB and
 * on the embedded FerretDB (patch 0006, docs/embedded-database.md), so concurrent inserts never
 * collide. The `_id` unique index stays the arbiter for a counter that fell behind the data (reset
 * by hand, data imported or restored without it): an insert that finds its id taken moves the
 * counter past the highest id in use and tries again with a fresh one.
 */
import type { Model } from 'mongoose';
import { collectionOf } from '../db/connection';
import type { DiscussionModels } from './models';
import { duplicateKeyFields, isDuplicateKey } from './mongo-errors';

export type Sequence = 'user' | 'topic' | 'comment';

/** Far more than a counter that fell behind ever needs (each round, at least one contender wins). */
const MAX_ATTEMPTS = 50;

export class CounterRepository {
  private readonly collections: Record<Sequence, Model<{ _id: number }>>;

  constructor(private readonly m: DiscussionModels) {
    this.collections = { user: m.User, topic: m.Topic, comment: m.Comment } as unknown as Record<
      Sequence,
      Model<{ _id: number }>
    >;
  }

  /**
   * Inserts a document under the next id of `name`: `insert(id)` writes it (and throws the
   * driver's error untouched). Retries with a fresh id while the insert fails on `_id`; a
   * duplicate on any other unique index (a username, …) is rethrown for the caller to map.
   * Returns what `insert` returned. `drawn`, when given, is the first id to try (from `next`,
   * drawn while the caller still checked its input).
   */
  async insertWithNewId<T>(name: Sequence, insert: (id: number) => Promise<T>, drawn?: Promise<number>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const id = await (attempt === 1 && drawn ? drawn : this.next(name));
      try {
        return await insert(id);
      } catch (err) {
        if (!isDuplicateKey(err) || !(await this.idWasTaken(name, id, err))) throw err;
        if (attempt >= MAX_ATTEMPTS) throw new Error(`No free ${name} id after ${attempt} attempts`, { cause: err });
        await this.catchUp(name);
        // Contenders that collided together would collide again in step: spread them out a little.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt, 10) * 2));
      }
    }
  }

  /** The next number of `name`, starting at 1 (not necessarily free: see insertWithNewId). */
  async next(name: Sequence): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await collectionOf(this.m.Counter).findOneAndUpdate(
          { _id: name },
          { $inc: { seq: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc!.seq;
      } catch (err) {
        // Two first allocations racing to create the counter: the loser retries.
        if (isDuplicateKey(err) && attempt < 3) continue;
        throw err;
      }
    }
  }

  /**
   * Whether a duplicate-key error of an insert under `id` was about `_id`. MongoDB names the index
   * (keyPattern/keyValue); FerretDB does not, so then the data decides: the id was the problem
   * exactly when a document holds it (if another index also objects, the retry will say so).
   */
  private async idWasTaken(name: Sequence, id: number, err: unknown): Promise<boolean> {
    const fields = duplicateKeyFields(err);
    if (fields) return fields.length === 1 && fields[0] === '_id';
    return (await this.collections[name].exists({ _id: id })) !== null;
  }

  /** Moves the counter up to the highest id in use (never down). */
  private async catchUp(name: Sequence): Promise<void> {
    const top = await this.collections[name].findOne({}, { _id: 1 }).sort({ _id: -1 }).lean<{ _id: number }>().exec();
    if (top) await this.m.Counter.updateOne({ _id: name }, { $max: { seq: top._id } }, { upsert: true }).exec();
  }
}
