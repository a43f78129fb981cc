/**
 * The Subscription root. Each field checks its arguments as the equivalent query would (the topic
 * or group must be visible to the subscriber), then hands the interest to the live hub
 * (src/live), which queues the messages this subscriber may see; each message is mapped here to
 * the schema's types, with fresh per-event loaders.
 */
import { DocumentNode, GraphQLError, GraphQLResolveInfo, Kind } from 'graphql';
import { Arg, Ctx, ID, Info, Resolver, Root, Subscription } from 'type-graphql';
import { UnauthenticatedError } from '../../core/errors';
import { normalizeGroupPath } from '../../discussion/rules/group-path';
import type { Interest, LiveMessage } from '../../live/messages';
import type { LiveConnection } from '../../live/connection';
import type { LiveHub } from '../../live/hub';
import type { GraphQLContext } from '../context';
import { commentNode, ThreadNode, topicNode } from '../discussion/nodes';
import { discussion } from '../discussion/request-scope';
import { id36Of } from '../node/global-id';
import { estimateCost, topicIdsOf } from '../cost';
import { tooExpensive } from '../limits';
import { largestTopic } from '../topic-sizes';
import { LiveEventKind, LiveEventPayload } from './types';

/** The context of an operation run over WebSocket (src/live/server.ts). */
export interface LiveGraphQLContext extends GraphQLContext {
  live?: { hub: LiveHub; connection: LiveConnection };
}

const AFTER = {
  nullable: true,
  description: 'Resume after this `cursor` of an earlier message: what happened since is sent first.',
} as const;

function liveOf(ctx: LiveGraphQLContext): { hub: LiveHub; connection: LiveConnection } {
  if (!ctx.live) {
    throw new GraphQLError('Subscriptions run over WebSocket at /graphql (subprotocol graphql-transport-ws)', {
      extensions: { code: 'BAD_REQUEST' },
    });
  }
  return ctx.live;
}

async function subscribe(
  ctx: LiveGraphQLContext,
  interest: (ctx: LiveGraphQLContext) => Promise<Interest>,
  after: unknown,
) {
  const live = liveOf(ctx);
  return live.hub.subscribe(live.connection, await interest(ctx), typeof after === 'string' ? after : null);
}

/**
 * Each event runs the subscription's selection again, on the topic as it is now: the cost limit
 * checked at subscribe is checked again with the topic's current comment count (the event carries
 * the topic). Over the limit, this event is answered with the refusal instead (the subscription
 * stays: a later event within the limit is sent again, and the client may resubscribe smaller).
 */
async function withinCostLimit(ctx: LiveGraphQLContext, info: GraphQLResolveInfo, m: LiveMessage): Promise<void> {
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [info.operation, ...Object.values(info.fragments)],
  };
  const name = info.operation.name?.value;
  const comments = m.topic.commentCount;
  const byId = new Map(topicIdsOf(document, name, info.variableValues).map((id) => [id, comments]));
  const largest = Math.max(comments, await largestTopic(ctx.services.discussion));
  const { maxCost, maxSelections } = ctx.config.graphql;
  const cost = estimateCost(
    info.schema,
    document,
    name,
    info.variableValues,
    { byId, largest },
    2 * maxSelections + 10,
  );
  if (cost > maxCost) {
    throw tooExpensive(
      `Event not sent: the subscription's selection on the topic as it is now (${comments} comments) has an ` +
        `estimated cost of ${cost}, over the limit of ${maxCost}; subscribe again with a smaller selection`,
      maxCost,
      { cost },
    );
  }
}

function payload(ctx: LiveGraphQLContext, m: LiveMessage): LiveEventPayload {
  // Loaders live as long as the context, which a subscription keeps: each event starts afresh.
  ctx.loaders.clear();
  return {
    cursor: m.cursor,
    kind: m.kind as LiveEventKind,
    topicId: m.topicId.toString(36),
    commentId: m.commentId === null ? null : m.commentId.toString(36),
    parentId: m.parentId === null ? null : m.parentId.toString(36),
    depth: m.depth,
    topic: topicNode(ctx, m.topic),
    comment: m.comment ? commentNode(m.comment) : null,
    thread: m.kind === 'comment.posted' && m.comment ? newThread(m.comment, m.depth ?? 0) : null,
  };
}

/**
 * A new comment at its place in the tree, as `postComment` answers it: no replies yet, not collapsed.
 * `isNew` is the domain's (the comment view was built for this subscriber: view-builders.ts
 * isNewFor), as a read of the topic's threads marks it.
 */
function newThread(c: NonNullable<LiveMessage['comment']>, depth: number): ThreadNode {
  const isNew = c.isNew;
  return { comment: commentNode(c), depth, isCollapsed: false, isCollapsedIndividually: false, isNew, replies: [] };
}

@Resolver()
export class LiveResolver {
  @Subscription(() => LiveEventPayload, {
    description:
      "A topic's activity: new comments (with their place in the tree), edits, deletions, removals, restorations, " +
      'and vote-count changes ' +
      'of the topic and its comments, as the subscriber may see them (what `topic(id)` would show). ' +
      'NOT_FOUND when the topic is unknown or hidden from the subscriber; ' +
      'nothing is sent while the subscriber ignores it.',
    subscribe: ({ args, context }) =>
      subscribe(
        context as LiveGraphQLContext,
        async (ctx) => {
          const topic = await discussion(ctx).topics.get(ctx.actor, id36Of(String(args.topicId), 'Topic', 'topicId'));
          return { kind: 'topic', topicId: topic.id };
        },
        args.after,
      ),
  })
  async topicActivity(
    @Root() m: LiveMessage,
    @Ctx() ctx: LiveGraphQLContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('topicId', () => ID, { description: 'The topic: its global `id`, or its `id36` (the REST id).' })
    _topicId: string,
    @Arg('after', () => String, AFTER) _after?: string | null,
  ): Promise<LiveEventPayload> {
    await withinCostLimit(ctx, info, m);
    return payload(ctx, m);
  }

  @Subscription(() => LiveEventPayload, {
    description:
      'New topics (TOPIC_POSTED) of the whole site, ' +
      'or of one group and its subgroups (as the `topics` listing filters them).',
    subscribe: ({ args, context }) =>
      subscribe(
        context as LiveGraphQLContext,
        async (ctx) => {
          if (args.group === undefined || args.group === null) return { kind: 'newTopics', groupPath: null };
          const group = await discussion(ctx).groups.get(normalizeGroupPath(String(args.group)) ?? String(args.group));
          return { kind: 'newTopics', groupPath: group.path };
        },
        args.after,
      ),
  })
  async newTopics(
    @Root() m: LiveMessage,
    @Ctx() ctx: LiveGraphQLContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('group', () => String, {
      nullable: true,
      description: 'A group path (with or without `~`); its subgroups are included. Null: every group.',
    })
    _group?: string | null,
    @Arg('after', () => String, AFTER) _after?: string | null,
  ): Promise<LiveEventPayload> {
    await withinCostLimit(ctx, info, m);
    return payload(ctx, m);
  }

  @Subscription(() => LiveEventPayload, {
    description:
      'Someone answered the logged-in subscriber: ' +
      'replies to their comments and top-level comments on their topics (COMMENT_POSTED).',
    subscribe: ({ args, context }) =>
      subscribe(
        context as LiveGraphQLContext,
        async (ctx) => {
          if (ctx.actor.kind !== 'user')
            throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
          return { kind: 'replies', userId: ctx.actor.userId };
        },
        args.after,
      ),
  })
  async myReplies(
    @Root() m: LiveMessage,
    @Ctx() ctx: LiveGraphQLContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('after', () => String, AFTER) _after?: string | null,
  ): Promise<LiveEventPayload> {
    await withinCostLimit(ctx, info, m);
    return payload(ctx, m);
  }
}

/**
 * type-graphql insists on a PubSub once any subscription exists, even though every field here has
 * its own `subscribe` (the live hub): this one is never used.
 */
export const noPubSub = {
  publish(): void {
    throw new Error('Subscriptions are fed by the live hub (src/live), not by a PubSub');
  },
  subscribe(): AsyncIterable<unknown> {
    throw new Error('Subscriptions are fed by the live hub (src/live), not by a PubSub');
  },
};
