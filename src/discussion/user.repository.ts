/** Users: lookups by id and by lowercased username, and single-document atomic updates. */
import type { CounterRepository } from './counter.repository';
import type { DiscussionModels, UserDoc } from './models';
import type { UserSettings } from './views';
import { isDuplicateKey } from './mongo-errors';
import { readById, readByIds, readOne } from './whole-read';

export class UserRepository {
  constructor(
    private readonly m: DiscussionModels,
    private readonly counters: CounterRepository,
  ) {}

  /** Inserts a new user under a fresh id; null when the username is taken (unique index on usernameLower). */
  async insertNew(doc: Omit<UserDoc, '_id'>): Promise<UserDoc | null> {
    try {
      return await this.counters.insertWithNewId('user', async (_id) => {
        const user: UserDoc = { ...doc, _id };
        await this.m.User.create(user);
        return user;
      });
    } catch (err) {
      // insertWithNewId settles collisions on _id itself; any other duplicate is the username index.
      if (isDuplicateKey(err)) return null;
      throw err;
    }
  }

  findById(id: number): Promise<UserDoc | null> {
    return readById<UserDoc>(this.m.User, id);
  }

  findByIds(ids: readonly number[]): Promise<UserDoc[]> {
    return readByIds<UserDoc>(this.m.User, ids);
  }

  findByUsername(username: string): Promise<UserDoc | null> {
    return readOne<UserDoc>(this.m.User, { usernameLower: username.toLowerCase() });
  }

  /** A new password hash; every older token stops working. The updated user or null when unknown. */
  setPasswordHash(id: number, passwordHash: string) {
    return this.update(id, { passwordHash }, true);
  }

  /** The user deleted their account; their tokens stop working. */
  markDeleted(id: number) {
    return this.update(id, { deleted: true }, true);
  }

  /** An admin banned (or unbanned) the user. */
  setBanned(id: number, banned: boolean) {
    return this.update(id, { banned });
  }

  /** `$set` fields, and the token version bumped when asked; the updated user or null when unknown. */
  private update(id: number, set: Partial<Omit<UserDoc, '_id'>>, bumpTokenVersion = false): Promise<UserDoc | null> {
    const update: Record<string, unknown> = { $set: set };
    if (bumpTokenVersion) update.$inc = { tokenVersion: 1 };
    return this.m.User.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' }).lean<UserDoc>().exec();
  }

  /** Changes the given settings, leaving the others as they are; the updated user or null when unknown. */
  updateSettings(id: number, settings: Partial<UserSettings>): Promise<UserDoc | null> {
    const set: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(settings)) set[`settings.${k}`] = v;
    return this.m.User.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }).lean<UserDoc>().exec();
  }

  bumpTokenVersion(id: number): Promise<UserDoc | null> {
    return this.m.User.findOneAndUpdate({ _id: id }, { $inc: { tokenVersion: 1 } }, { returnDocument: 'after' })
      .lean<UserDoc>()
      .exec();
  }

  async setIgnored(id: number, topicId: number, ignored: boolean): Promise<void> {
    const update = ignored ? { $addToSet: { ignoredTopicIds: topicId } } : { $pull: { ignoredTopicIds: topicId } };
    await this.m.User.updateOne({ _id: id }, update).exec();
  }
}
