/** Groups (`~tech`, `~games.tabletop`): created by admins and the command line. */
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import type { Caller, GroupService } from './services';
import { groupView } from './view-builders';
import { normalizeGroupPath } from './rules/group-path';
import { requireAdmin } from './viewer';
import type { CreateGroupInput, GroupView } from './views';

export { normalizeGroupPath };

const MAX_DESCRIPTION = 1000;

export class GroupServiceImpl implements GroupService {
  constructor(private readonly d: DiscussionDeps) {}

  async create(caller: Caller, input: CreateGroupInput): Promise<GroupView> {
    requireAdmin(caller);
    const path = typeof input.path === 'string' ? normalizeGroupPath(input.path) : null;
    const description = (input.description ?? '').trim();
    const issues = [];
    if (!path) {
      issues.push({ field: 'path', message: 'A group path is lowercase letters, numbers and single underscores, with dots between levels (e.g. games.tabletop)' });
    }
    if (description.length > MAX_DESCRIPTION) issues.push({ field: 'description', message: `Description must be at most ${MAX_DESCRIPTION} characters long` });
    if (issues.length > 0) throw new ValidationError(issues);
    const doc = { _id: path!, description, createdAt: this.d.clock.now() };
    if (!(await this.d.groups.insert(doc))) throw new ConflictError(`The group ~${path} already exists`, 'GROUP_EXISTS');
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
