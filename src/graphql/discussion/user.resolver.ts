/** Query.viewer, Query.user and the User fields: profile facts and the three feeds. */
import { Arg, Args, Ctx, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { ValidationError } from '../../core/errors';
import type { AccountView, CommentView, HistoryItem, Page, TopicView, UserView } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { toGlobalId } from '../node/global-id';
import { orNull } from './or-null';
import { CommentConnection, HistoryConnection, TopicConnection } from './connection.types';
import { memo, primeTopic, primeUser, usersById, usersByName } from './loaders';
import { childFields } from './lookahead';
import { commentNode, topicNode, UserNode, userNode } from './nodes';
import { discussion } from './request-scope';
import { ConnectionArgs, toConnection, toPageArgs } from './paging';
import { DateTimeScalar } from './scalars';
import { User, UserSettings } from './user.type';

type Feed = 'history' | 'topics' | 'comments';
const FEEDS: readonly Feed[] = ['history', 'topics', 'comments'];

async function viewOf(ctx: GraphQLContext, u: UserNode): Promise<UserView> {
  if (u.view) return u.view;
  const v =
    u.userId !== undefined
      ? await usersById(ctx).load(u.userId)
      : await usersByName(ctx).load(u.username.toLowerCase());
  if (!v) throw new Error(`user ${u.username} vanished while the request ran`);
  return v;
}

function feedKey(feed: Feed, username: string, args: object): string {
  return `feed:${feed}:${username.toLowerCase()}:${JSON.stringify(args)}`;
}

/** One feed page of a user, once per request and arguments. */
function feed(ctx: GraphQLContext, feed: Feed, username: string, args: ConnectionArgs) {
  const pageArgs = toPageArgs(args);
  const h = discussion(ctx).history;
  return memo(ctx, feedKey(feed, username, pageArgs), () =>
    feed === 'history'
      ? h.history(ctx.actor, username, pageArgs)
      : feed === 'topics'
        ? h.topics(ctx.actor, username, pageArgs)
        : h.comments(ctx.actor, username, pageArgs),
  ) as Promise<{ user: UserView; page: unknown }>;
}

@Resolver(() => User)
export class UserResolver {
  @Query(() => User, {
    nullable: true,
    description: 'The logged-in user (whom the bearer token names); null when anonymous.',
  })
  async viewer(@Ctx() ctx: GraphQLContext): Promise<UserNode | null> {
    if (ctx.actor.kind !== 'user') return null;
    const me = await discussion(ctx).users.me(ctx.actor);
    primeUser(ctx, me);
    return userNode(me);
  }

  @Query(() => User, { nullable: true, description: 'A user by username (case-insensitive); null when there is none.' })
  async user(
    @Arg('username', () => String, { description: 'The username, in any letter case.' }) username: string,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserNode | null> {
    // A feed asked for below answers the lookup too (the feed call finds the user itself).
    const first = childFields(info).find((f) => (FEEDS as readonly string[]).includes(f.name));
    if (first) {
      let pending: ReturnType<typeof feed> | undefined;
      try {
        pending = feed(ctx, first.name as Feed, username, first.args as ConnectionArgs);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err; // the field itself reports bad paging arguments
      }
      if (pending) {
        try {
          const { user } = await pending;
          primeUser(ctx, user);
          return userNode(user);
        } catch {
          // not found, forbidden, …: look the user up alone below; the feed field reports its own error
        }
      }
    }
    const u = await orNull(discussion(ctx).users.getByUsername(ctx.actor, username));
    if (!u) return null;
    primeUser(ctx, u);
    return userNode(u);
  }

  @FieldResolver(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the user again.',
  })
  id(@Root() u: UserNode): string {
    // Usernames are unique regardless of letter case: one user, one id, whichever case a path used.
    return toGlobalId('User', u.username.toLowerCase());
  }

  @FieldResolver(() => DateTimeScalar, { description: 'When the user registered.' })
  async joinedAt(@Root() u: UserNode, @Ctx() ctx: GraphQLContext): Promise<Date> {
    return (await viewOf(ctx, u)).createdAt;
  }

  @FieldResolver(() => Boolean, { description: 'Whether the user is an admin.' })
  async isAdmin(@Root() u: UserNode, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return (await viewOf(ctx, u)).isAdmin;
  }

  @FieldResolver(() => UserSettings, {
    nullable: true,
    description: "The user's settings: only for the user themself (null for everyone else).",
  })
  async settings(@Root() u: UserNode, @Ctx() ctx: GraphQLContext): Promise<UserSettings | null> {
    const a = ctx.actor;
    if (a.kind !== 'user' || a.username.toLowerCase() !== u.username.toLowerCase()) return null;
    const own =
      (u.view as AccountView | undefined)?.settings ??
      (await memo(ctx, 'me', () => discussion(ctx).users.me(a))).settings;
    return own as unknown as UserSettings;
  }

  @FieldResolver(() => HistoryConnection, {
    description:
      "The user's topics and comments, newest first (REST `GET /user/{username}`); cursors are " +
      '`t-<id36>` / `c-<id36>`. ' +
      'FORBIDDEN when the user is banned, deleted their account, or shows their history only to ' +
      'logged-in users and the viewer is anonymous.',
  })
  async history(
    @Root() u: UserNode,
    @Args(() => ConnectionArgs) args: ConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ): Promise<HistoryConnection> {
    const { page } = await feed(ctx, 'history', u.username, args);
    return toConnection(
      page as Page<HistoryItem>,
      (i) => (i.kind === 'topic' ? `t-${i.topic.id36}` : `c-${i.comment.id36}`),
      (i) => {
        if (i.kind === 'comment') return commentNode(i.comment);
        primeTopic(ctx, i.topic);
        return topicNode(ctx, i.topic);
      },
    ) as unknown as HistoryConnection;
  }

  @FieldResolver(() => TopicConnection, {
    description: "The user's topics, newest first (REST `GET /user/{username}/topics`).",
  })
  async topics(
    @Root() u: UserNode,
    @Args(() => ConnectionArgs) args: ConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicConnection> {
    const { page } = await feed(ctx, 'topics', u.username, args);
    return toConnection(
      page as Page<TopicView>,
      (t) => t.id36,
      (t) => {
        primeTopic(ctx, t);
        return topicNode(ctx, t);
      },
    ) as unknown as TopicConnection;
  }

  @FieldResolver(() => CommentConnection, {
    description: "The user's comments, newest first (REST `GET /user/{username}/comments`).",
  })
  async comments(
    @Root() u: UserNode,
    @Args(() => ConnectionArgs) args: ConnectionArgs,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentConnection> {
    const { page } = await feed(ctx, 'comments', u.username, args);
    return toConnection(
      page as Page<CommentView>,
      (c) => c.id36,
      (c) => commentNode(c),
    ) as unknown as CommentConnection;
  }
}
