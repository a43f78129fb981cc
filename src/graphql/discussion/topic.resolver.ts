/** Query.topics, Query.topic and the Topic fields that need more than the mapped node. */
import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { TopicListArgs } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { orNull, remember, TOPIC_ID, withFields } from './call';
import { Comment } from './comment.type';
import { TopicConnection } from './connection.types';
import { CommentOrder, TopicOrder } from './enums';
import { memo, primeTopic } from './loaders';
import { childFields, givenArgs, selectsFieldBelow } from './lookahead';
import { CommentTree, commentTree, discussion, TopicNode, topicNode } from './nodes';
import { ConnectionArgs, connectionComplexity, toConnection, toPageArgs } from './paging';
import { Topic } from './topic.type';

/** Estimated comments of a topic, for the cost limit (the tree and the flat list hold the same comments). */
export const FLAT_COMMENTS_COST_FACTOR = 100;
export const TOP_COMMENTS_COST_FACTOR = FLAT_COMMENTS_COST_FACTOR;

const ORDER_DESCRIPTION =
  'How siblings are sorted at every level. When omitted: the logged-in viewer\'s preferred order (`settings.defaultCommentOrder`, itself RELEVANCE unless changed), as REST does; RELEVANCE for anonymous viewers.';

@ArgsType()
export class TopicsArgs extends ConnectionArgs {
  @Field(() => TopicOrder, { nullable: true, defaultValue: TopicOrder.ACTIVITY, description: 'Sort order (REST `order`).' })
  order?: TopicOrder | null;

  @Field(() => String, { nullable: true, defaultValue: 'all', description: 'Only topics posted within this period: `all`, or a number of hours or days such as `4h`, `2d` (REST `period`).' })
  period?: string | null;

  @Field(() => String, { nullable: true, description: 'Only topics with a tag containing this label path, e.g. `ask` or `ask.survey`; spaces and `_` are the same (REST `tag`).' })
  tag?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Only topics of this group and of its subgroups (path, with or without `~`): `games` also lists `games.tabletop`. ' +
      'An unknown group gives an empty page; an invalid path is BAD_USER_INPUT on `group`. (REST has no such parameter.)',
  })
  group?: string | null;
}

function treeKey(topicId: number, order: CommentOrder | undefined, markdown: boolean): string {
  return `tree:${topicId}:${order ?? 'preferred'}:${markdown ? 'md' : 'html'}`;
}

/**
 * The `order` a comment tree field asks for: the given one, or undefined when the operation gave
 * none, so the service applies the viewer's preferred order (settings.defaultCommentOrder) exactly
 * as REST does without `order`; anonymous viewers get RELEVANCE.
 */
function requestedOrder(order: CommentOrder | null | undefined, given: boolean): CommentOrder | undefined {
  return given && order != null ? order : undefined;
}

/**
 * The topic's comment tree in `order`, read once per request (no visit recorded here); with the
 * comments' Markdown source only when the selection asks for `markdown` (a tree read with it also
 * serves selections without it).
 */
function tree(ctx: GraphQLContext, topic: TopicNode, order: CommentOrder | undefined, markdown: boolean): Promise<CommentTree> {
  const richer = treeKey(topic.view.id, order, true);
  const key = markdown || ctx.loaders.has(`memo:${richer}`) ? richer : treeKey(topic.view.id, order, false);
  return memo(ctx, key, async () => {
    const read = await discussion(ctx).topics.read(ctx.actor, topic.id, { ...(order ? { order } : {}), recordVisit: false, markdown: key === richer });
    return commentTree(topic, read.comments);
  });
}

function orderGiven(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some((n) => givenArgs(n, info.variableValues).has('order'));
}

@Resolver(() => Topic)
export class TopicResolver {
  @Query(() => TopicConnection, {
    description: 'The topic listing of every group (REST `GET /topics`): deleted, removed and (for a logged-in viewer) ignored topics are left out.',
    complexity: connectionComplexity,
  })
  async topics(@Args(() => TopicsArgs) args: TopicsArgs, @Ctx() ctx: GraphQLContext): Promise<TopicConnection> {
    const page = await discussion(ctx).topics.list(ctx.actor, {
      ...toPageArgs(args),
      order: args.order ?? TopicOrder.ACTIVITY,
      period: args.period ?? 'all',
      ...(args.tag != null ? { tag: args.tag } : {}),
      ...(args.group != null ? { group: args.group } : {}),
    } as TopicListArgs);
    return toConnection(page, (t) => t.id36, (t) => {
      primeTopic(ctx, t);
      return topicNode(ctx, t);
    }) as unknown as TopicConnection;
  }

  @Query(() => Topic, {
    nullable: true,
    description:
      'One topic (REST `GET /topic/{id}`); null when unknown, deleted, or removed (unless the viewer is its author or an admin). ' +
      'Asking for its `comments` or `commentsFlat` records a logged-in viewer\'s visit, after the answer was computed against the previous one.',
  })
  async topic(
    @Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<TopicNode | null> {
    const ds = discussion(ctx);
    const orders = [
      ...new Set(
        childFields(info)
          .filter((f) => f.name === 'comments' || f.name === 'commentsFlat')
          .map((f) => requestedOrder(f.args.order as CommentOrder | null | undefined, f.given.has('order'))),
      ),
    ];
    if (orders.length === 0) {
      const t = await orNull(withFields(ds.topics.get(ctx.actor, id), TOPIC_ID));
      if (!t) return null;
      primeTopic(ctx, t);
      return topicNode(ctx, t);
    }
    // One read per order asked, in sequence; only the last records the visit, so every tree sees the previous one.
    // Markdown anywhere below covers every tree's selection (tree() then finds these reads).
    const markdown = selectsFieldBelow(info, 'markdown');
    let node: TopicNode | undefined;
    for (const [i, order] of orders.entries()) {
      const read = await orNull(withFields(ds.topics.read(ctx.actor, id, { ...(order ? { order } : {}), recordVisit: i === orders.length - 1, markdown }), TOPIC_ID));
      if (!read) return null;
      if (!node) {
        primeTopic(ctx, read.topic);
        node = topicNode(ctx, read.topic);
      }
      remember(ctx, treeKey(read.topic.id, order, markdown), Promise.resolve(commentTree(node, read.comments)));
    }
    return node!;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The Markdown source of the text; only for its author and admins (null for everyone else).' })
  markdown(@Root() topic: TopicNode, @Ctx() ctx: GraphQLContext): string | null {
    // The service already nulls it for everyone else; this is a second guard.
    const a = ctx.actor;
    if (a.kind !== 'user' || (a.userId !== topic.view.authorId && !a.isAdmin)) return null;
    return topic.view.markdown;
  }

  @FieldResolver(() => [Comment], {
    description: 'The comment tree (REST `comments`): top-level comments, replies nested in `children`; deleted comments without replies are pruned, every level sorted by `order`.',
    complexity: ({ childComplexity }) => 1 + TOP_COMMENTS_COST_FACTOR * childComplexity,
  })
  async comments(
    @Root() topic: TopicNode,
    @Arg('order', () => CommentOrder, { nullable: true, defaultValue: CommentOrder.RELEVANCE, description: ORDER_DESCRIPTION }) order: CommentOrder | null,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return (await tree(ctx, topic, requestedOrder(order, orderGiven(info)), selectsFieldBelow(info, 'markdown'))).roots;
  }

  @FieldResolver(() => [Comment], {
    description:
      'Every comment of the tree in display order (depth-first), each with `depth` and `parentId`, so a client renders any depth with one flat selection.',
    complexity: ({ childComplexity }) => 1 + FLAT_COMMENTS_COST_FACTOR * childComplexity,
  })
  async commentsFlat(
    @Root() topic: TopicNode,
    @Arg('order', () => CommentOrder, { nullable: true, defaultValue: CommentOrder.RELEVANCE, description: ORDER_DESCRIPTION }) order: CommentOrder | null,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return (await tree(ctx, topic, requestedOrder(order, orderGiven(info)), selectsFieldBelow(info, 'markdown'))).flat;
  }
}
