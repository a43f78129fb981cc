/**
 * Per-request DataLoaders of the discussion (never at module scope: each request has its own
 * caller and cache). Each batches one service `findByIds`-style call per tick of execution.
 */
import DataLoader from 'dataloader';
import { ANONYMOUS } from '../../core/actor';
import type { CommentView, GroupView, TopicView, UserView } from '../../discussion/views';
import { GraphQLContext, loader } from '../context';
import { orNull } from './or-null';
import { rememberTopicSize } from '../topic-sizes';

/** A value computed once per request (e.g. the groups list, a topic's comment tree). */
export function memo<T>(ctx: GraphQLContext, key: string, create: () => T): T {
  return loader(ctx, `memo:${key}`, create);
}

const services = (ctx: GraphQLContext) => ctx.services.discussion;

export function usersById(ctx: GraphQLContext): DataLoader<number, UserView | null> {
  return loader(
    ctx,
    'usersById',
    () => new DataLoader<number, UserView | null>((ids) => services(ctx).users.findByIds(ids)),
  );
}

/**
 * Users by lowercased username. The services have no batch lookup by name, so each distinct name is
 * one lookup; only `joinedAt`/`isAdmin` of comment authors take this path (topic authors go by id).
 */
export function usersByName(ctx: GraphQLContext): DataLoader<string, UserView | null> {
  return loader(
    ctx,
    'usersByName',
    () =>
      new DataLoader<string, UserView | null>((names) =>
        Promise.all(
          names.map((n) =>
            orNull(services(ctx).users.getByUsername(ctx.actor, n)).catch((e: unknown) =>
              e instanceof Error ? e : new Error(String(e)),
            ),
          ),
        ),
      ),
  );
}

/** Topics as the caller may see them (null where unknown, deleted or hidden), viewer fields included. */
export function topicsById(ctx: GraphQLContext): DataLoader<number, TopicView | null> {
  return loader(
    ctx,
    'topicsById',
    () => new DataLoader<number, TopicView | null>((ids) => services(ctx).topics.findByIds(ctx.actor, ids)),
  );
}

/**
 * Topics as an anonymous visitor sees them: no viewer-specific values, so no query of the viewer's
 * marks. Used when a selection asks for none of those values (e.g. `comment { topic { title } }`
 * in a feed); topics this hides (removed ones) are then looked up as the caller.
 */
export function publicTopicsById(ctx: GraphQLContext): DataLoader<number, TopicView | null> {
  return loader(
    ctx,
    'publicTopicsById',
    () => new DataLoader<number, TopicView | null>((ids) => services(ctx).topics.findByIds(ANONYMOUS, ids)),
  );
}

/** Comments as the caller may see them (feed shape). */
export function commentsById(ctx: GraphQLContext): DataLoader<number, CommentView | null> {
  return loader(
    ctx,
    'commentsById',
    () => new DataLoader<number, CommentView | null>((ids) => services(ctx).comments.findByIds(ctx.actor, ids)),
  );
}

/**
 * Comments as the viewer sees them wherever they appear (a tree's placeholders included; in a
 * hidden topic, as the author's history shows them): parents and `node`.
 */
export function commentsAsShownById(ctx: GraphQLContext): DataLoader<number, CommentView | null> {
  return loader(
    ctx,
    'commentsAsShownById',
    () => new DataLoader<number, CommentView | null>((ids) => services(ctx).comments.findByIdsAsShown(ctx.actor, ids)),
  );
}

/** Every group, listed once per request (groups are few), by path. */
export function groupsByPath(ctx: GraphQLContext): Promise<Map<string, GroupView>> {
  return memo(ctx, 'groupsByPath', async () => new Map((await services(ctx).groups.list()).map((g) => [g.path, g])));
}

export function primeTopic(ctx: GraphQLContext, t: TopicView): void {
  topicsById(ctx).clear(t.id).prime(t.id, t);
  // The cost estimate of the next operations naming it needs no read of its own (topic-sizes.ts).
  rememberTopicSize(services(ctx), t.id, t.commentCount);
}

export function primeUser(ctx: GraphQLContext, u: UserView): void {
  usersById(ctx).clear(u.id).prime(u.id, u);
  usersByName(ctx).clear(u.username.toLowerCase()).prime(u.username.toLowerCase(), u);
}
