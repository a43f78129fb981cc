/** Groups, keyed by their path. */
import type { DiscussionModels, GroupDoc } from './models';
import { isDuplicateKey } from './mongo-errors';

export class GroupRepository {
  constructor(private readonly m: DiscussionModels) {}

  async insert(doc: GroupDoc): Promise<boolean> {
    try {
      await this.m.Group.create(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  findByPath(path: string): Promise<GroupDoc | null> {
    return this.m.Group.findById(path).lean<GroupDoc>().exec();
  }

  list(): Promise<GroupDoc[]> {
    return this.m.Group.find({}).sort({ _id: 1 }).lean<GroupDoc[]>().exec();
  }
}
