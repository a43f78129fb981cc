/** Integer id sequences (topics, comments, users): one counter document per sequence, `$inc`. */
import type { DiscussionModels } from './models';
import { isDuplicateKey } from './mongo-errors';

export type Sequence = 'user' | 'topic' | 'comment';

export class CounterRepository {
  constructor(private readonly m: DiscussionModels) {}

  /** The next id of `name`, starting at 1. Every id allocation goes through here. */
  async next(name: Sequence): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.m.Counter.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }).lean();
        return doc!.seq;
      } catch (err) {
        // Two first allocations racing to create the counter: the loser retries once.
        if (isDuplicateKey(err) && attempt === 0) continue;
        throw err;
      }
    }
  }
}
