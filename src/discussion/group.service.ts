/** Groups (`~tech`, `~games.tabletop`): created by admins and the command line. */
import { ConflictError, NotFoundError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import type { Caller, GroupApi } from './services';
import { groupView } from './view-builders';
import { normalizeGroupPath } from './rules/group-path';
import { requireAdmin } from './viewer';
import type { GroupView } from './views';
import { CreateGroupInput } from './inputs/group.input';
import { validateInput } from './inputs/validate';

export { normalizeGroupPath };

export class GroupService implements GroupApi {
  constructor(private readonly d: DiscussionDeps) {}

  async create(caller: Caller, input: CreateGroupInput): Promise<GroupView> {
    requireAdmin(caller);
    validateInput(CreateGroupInput, input);
    const path = normalizeGroupPath(input.path)!;
    const description = (input.description ?? '').trim();
    const doc = { _id: path, description, createdAt: this.d.clock.now() };
    if (!(await this.d.groups.insert(doc)))
      throw new ConflictError(`The group ~${path} already exists`, 'GROUP_EXISTS');
    return groupView(doc);
  }

  async list(): Promise<GroupView[]> {
    return (await this.d.groups.list()).map(groupView);
  }

  async get(path: string): Promise<GroupView> {
    const p = typeof path === 'string' ? normalizeGroupPath(path) : null;
    const doc = p ? await this.d.groups.findByPath(p) : null;
    if (!doc) throw new NotFoundError('Group not found', 'GROUP_NOT_FOUND');
    return groupView(doc);
  }
}
