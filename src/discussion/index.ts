/** Composition root of the discussion domain: models → repositories → services. */
import type { EventRecorder } from '../events/types';
import type { DomainModule, ModuleContext } from '../module';
import type { RateLimiter } from '../rate-limit';
import { AuthService } from './auth.service';
import { dummyHash } from './auth/password';
import { BookmarkService } from './bookmark.service';
import { systemClock } from './clock';
import { TopicCommentCache } from './comment-cache';
import { CommentRepository } from './comment.repository';
import { CommentService } from './comment.service';
import { CounterRepository } from './counter.repository';
import { CountService } from './count.service';
import type { DiscussionDeps } from './deps';
import { GroupRepository } from './group.repository';
import { GroupService } from './group.service';
import { HistoryService } from './history.service';
import { IgnoreService } from './ignore.service';
import { LabelRepository } from './label.repository';
import { LabelService } from './label.service';
import { MarkRepository } from './mark.repository';
import { discussionModels } from './models';
import type { Clock, DiscussionServiceSet, TopicApi } from './services';
import { TopicCommandService } from './topic-command.service';
import { TopicQueryService } from './topic-query.service';
import { TopicRepository } from './topic.repository';
import { UserRepository } from './user.repository';
import { UserService } from './user.service';
import { ViewerDirectory } from './viewer';
import { VisitService } from './visit.service';
import { VoteService } from './vote.service';

export type DiscussionServices = DiscussionServiceSet;
export { SYSTEM } from './services';
export type * from './services';
export type * from './views';
export type * from './inputs/account.input';
export type * from './inputs/comment.input';
export type * from './inputs/edit-topic.input';
export type * from './inputs/group.input';
export type * from './inputs/page.input';
export type * from './inputs/post-topic.input';
export type * from './inputs/settings.input';
export type * from './inputs/topic-list.input';
export type * from './inputs/topic-read.input';

/**
 * `clock`: the time source of the services (the real clock; tests pass a SettableClock).
 * `events`: the live events log the services record their changes in (src/events).
 */
export async function createDiscussion(
  ctx: ModuleContext,
  limits: RateLimiter,
  events: EventRecorder,
  clock: Clock = systemClock,
): Promise<DomainModule<DiscussionServices>> {
  const m = discussionModels(ctx.db);
  // Every insert under a new id goes through the counters (insertWithNewId).
  const counters = new CounterRepository(m);
  const users = new UserRepository(m, counters);
  const d: DiscussionDeps = {
    config: ctx.config.discussion,
    jwtSecret: ctx.jwtSecret,
    clock,
    viewers: new ViewerDirectory(users),
    counters,
    users,
    groups: new GroupRepository(m),
    topics: new TopicRepository(m, counters),
    comments: new CommentRepository(m, counters, new TopicCommentCache(ctx.config.discussion.commentCache)),
    marks: new MarkRepository(m),
    labels: new LabelRepository(m),
    limits,
    events,
  };
  // Computed now, so the first login of an unknown user takes no longer than any other.
  dummyHash().catch((err) => ctx.log.warn({ err }, 'could not prepare the dummy password hash'));
  return { services: buildServices(d) };
}

/** The service set over `d` (one per clock, all over the same repositories). */
function buildServices(d: DiscussionDeps): DiscussionServiceSet {
  const auth = new AuthService(d);
  const userService = new UserService(d, auth);
  const queries = new TopicQueryService(d);
  const commands = new TopicCommandService(d);
  const comments = new CommentService(d);
  const topics: TopicApi = {
    list: (a, args) => queries.list(a, args),
    read: (a, id, args) => queries.read(a, id, args),
    readInOrders: (a, id, opts) => queries.readInOrders(a, id, opts),
    get: (a, ref) => queries.get(a, ref),
    findByIds: (a, ids) => queries.findByIds(a, ids),
    post: (a, input) => commands.post(a, input),
    edit: (a, ref, input) => commands.edit(a, ref, input),
    delete: (a, ref) => commands.delete(a, ref),
    remove: (c, ref) => commands.remove(c, ref),
    restore: (c, ref) => commands.restore(c, ref),
    setLocked: (c, ref, locked) => commands.setLocked(c, ref, locked),
    setOfficial: (c, ref, official) => commands.setOfficial(c, ref, official),
    setTags: (c, ref, tags) => commands.setTags(c, ref, tags),
  };

  return {
    clock: d.clock,
    auth,
    users: userService,
    groups: new GroupService(d),
    topics,
    comments,
    votes: new VoteService(d, comments),
    bookmarks: new BookmarkService(d),
    ignores: new IgnoreService(d),
    labels: new LabelService(d, comments),
    visits: new VisitService(d),
    history: new HistoryService(d, userService),
    counts: new CountService(d),
    withClock: (other) => buildServices({ ...d, clock: other }),
  };
}
