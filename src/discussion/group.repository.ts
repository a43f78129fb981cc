/** Groups, keyed by their path. */
import type { DiscussionModels, GroupDoc } from './models';
import { isDuplicateKey } from './mongo-errors';
import { subgroupRange } from './rules/group-path';

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

  /** The paths of a group and of all its subgroups, in path order; [] for an unknown group. */
  async pathsUnder(path: string): Promise<string[]> {
    const docs = await this.m.Group.find({ _id: subgroupRange(path) }, { _id: 1 })
      .sort({ _id: 1 })
      .lean<Pick<GroupDoc, '_id'>[]>()
      .exec();
    return docs.map((g) => g._id);
  }

  list(): Promise<GroupDoc[]> {
    return this.m.Group.find({}).sort({ _id: 1 }).lean<GroupDoc[]>().exec();
  }
}
