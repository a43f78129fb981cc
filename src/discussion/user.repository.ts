/** Users: lookups by id and by lowercased username, and single-document atomic updates. */
import type { DiscussionModels, UserDoc } from './models';
import { isDuplicateKey } from './mongo-errors';

export class UserRepository {
  constructor(private readonly m: DiscussionModels) {}

  /** Inserts a user; false when the username is already taken (unique index on usernameLower). */
  async insert(doc: UserDoc): Promise<boolean> {
    try {
      await this.m.User.create(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  findById(id: number): Promise<UserDoc | null> {
    return this.m.User.findById(id).lean<UserDoc>().exec();
  }

  findByIds(ids: readonly number[]): Promise<UserDoc[]> {
    return this.m.User.find({ _id: { $in: [...ids] } }).lean<UserDoc[]>().exec();
  }

  findByUsername(username: string): Promise<UserDoc | null> {
    return this.m.User.findOne({ usernameLower: username.toLowerCase() }).lean<UserDoc>().exec();
  }

  /** Applies `$set` fields; returns the updated user or null when unknown. */
  update(id: number, set: Partial<Omit<UserDoc, '_id'>>, bumpTokenVersion = false): Promise<UserDoc | null> {
    const update: Record<string, unknown> = { $set: set };
    if (bumpTokenVersion) update.$inc = { tokenVersion: 1 };
    return this.m.User.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' }).lean<UserDoc>().exec();
  }

  bumpTokenVersion(id: number): Promise<UserDoc | null> {
    return this.m.User.findOneAndUpdate({ _id: id }, { $inc: { tokenVersion: 1 } }, { returnDocument: 'after' }).lean<UserDoc>().exec();
  }

  async setIgnored(id: number, topicId: number, ignored: boolean): Promise<void> {
    const update = ignored ? { $addToSet: { ignoredTopicIds: topicId } } : { $pull: { ignoredTopicIds: topicId } };
    await this.m.User.updateOne({ _id: id }, update).exec();
  }
}
