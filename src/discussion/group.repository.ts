/** Groups, keyed by their path. */
import type { DiscussionModels, GroupDoc } from './models';
import { isDuplicateKey } from './mongo-errors';
import { subgroupRange } from './rules/group-path';
import { readById, readWhole } from './whole-read';

/** More groups than a site has: one reply. */
const MANY_GROUPS = 100_000;

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
    return readById<GroupDoc>(this.m.Group, path);
  }

  /** The paths of a group and of all its subgroups, in path order; [] for an unknown group. */
  async pathsUnder(path: string): Promise<string[]> {
    const docs = await readWhole<Pick<GroupDoc, '_id'>>(this.m.Group, {
      filter: { _id: subgroupRange(path) },
      sort: { _id: 1 },
      batchSize: MANY_GROUPS,
    });
    return docs.map((g) => g._id);
  }

  list(): Promise<GroupDoc[]> {
    return this.m.Group.find({}).sort({ _id: 1 }).lean<GroupDoc[]>().exec();
  }
}
