/** Query.topics, Query.topic and the Topic fields that need more than the mapped node. */
import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../context';
import { TOPIC_ID_DESCRIPTION, id36Of } from '../node/global-id';
import { orNull } from './or-null';
import { CommentThreadConnection, TopicConnection } from './connection.types';
import { CommentOrder, TopicOrder } from './enums';
import { primeTopic } from './loaders';
import { topicTrees } from './topic-trees';
import { childFields, selectsFieldBelow } from './lookahead';
import { ThreadNode, threadTree, TopicNode, topicNode } from './nodes';
import { discussion } from './request-scope';
import { ConnectionArgs, toConnection, toPageArgs } from './paging';
import { threadPage, threadPageArgs, THREADS_DEFAULT_PAGE_SIZE, THREADS_MAX_PAGE_SIZE } from './threads';
import { Topic } from './topic.type';

/** The `threads` fields selected right below a topic. */
const threadsFields = (info: GraphQLResolveInfo) => childFields(info).filter((f) => f.name === 'threads');

const ORDER_DESCRIPTION =
  "How siblings are sorted at every level. Null or omitted: the logged-in viewer's preferred order " +
  '(`settings.defaultCommentOrder`, RELEVANCE unless changed), as REST does; RELEVANCE for anonymous viewers.';

@ArgsType()
export class TopicsArgs extends ConnectionArgs {
  @Field(() => TopicOrder, { defaultValue: TopicOrder.ACTIVITY, description: 'Sort order (REST `order`).' })
  order!: TopicOrder;

  @Field(() => String, {
    defaultValue: 'all',
    description:
      'Only topics posted within this period: `all`, or a number of hours or days such as `4h`, `2d` (REST `period`).',
  })
  period!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Only topics with a tag containing this label path, e.g. `ask` or `ask.survey`; spaces and `_` are ' +
      'the same (REST `tag`).',
  })
  tag?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Only topics of this group and of its subgroups (path, with or without `~`): `games` also lists ' +
      '`games.tabletop`. ' +
      'An unknown group gives an empty page; an invalid path is BAD_USER_INPUT on `group`. (REST has no ' +
      'such parameter.)',
  })
  group?: string | null;
}

@ArgsType()
export class ThreadsArgs extends ConnectionArgs {
  @Field(() => CommentOrder, { nullable: true, description: ORDER_DESCRIPTION })
  order?: CommentOrder | null;
}

/**
 * The topic's comment tree in `order` (undefined: the viewer's preferred order), read once per
 * request, never recording a visit (queries have no side effects; see `visitTopic`); with the
 * comments' Markdown source only when the selection asks for `markdown` (a tree read with it also
 * serves selections without it).
 */
function tree(
  ctx: GraphQLContext,
  topic: TopicNode,
  order: CommentOrder | undefined,
  markdown: boolean,
): Promise<ThreadNode[]> {
  const trees = topicTrees(ctx);
  const found = trees.find(topic.view.id, order, markdown);
  if (found) return found;
  const read = discussion(ctx).topics.readInOrders(ctx.actor, topic.id36, { orders: [order], markdown });
  return trees.put(
    topic.view.id,
    order,
    markdown,
    read.then((r) => threadTree(topic, r.trees[0]!)),
  );
}

@Resolver(() => Topic)
export class TopicResolver {
  @Query(() => TopicConnection, {
    description:
      'The topic listing of every group (REST `GET /topics`): deleted, removed and (for a logged-in ' +
      'viewer) ignored topics are left out.',
  })
  async topics(@Args(() => TopicsArgs) args: TopicsArgs, @Ctx() ctx: GraphQLContext): Promise<TopicConnection> {
    const page = await discussion(ctx).topics.list(ctx.actor, {
      ...toPageArgs(args),
      order: args.order,
      period: args.period,
      ...(args.tag != null ? { tag: args.tag } : {}),
      ...(args.group != null ? { group: args.group } : {}),
    });
    return toConnection(
      page,
      (t) => t.id36,
      (t) => {
        primeTopic(ctx, t);
        return topicNode(ctx, t);
      },
    ) as unknown as TopicConnection;
  }

  @Query(() => Topic, {
    nullable: true,
    description:
      'One topic (REST `GET /topic/{id}`); null when unknown, deleted, or removed (unless the viewer is ' +
      'its author or an admin). ' +
      'Reading it records no visit (REST does): `visitTopic` does, when the client has shown the topic.',
  })
  async topic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) idArg: string,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<TopicNode | null> {
    const id = id36Of(idArg, 'Topic', 'id');
    const ds = discussion(ctx);
    // The orders the selection's `threads` fields ask for (look-ahead): read with the topic at once.
    const asked = threadsFields(info).map((f) => (f.args.order as CommentOrder | null | undefined) ?? undefined);
    const orders = [...new Set(asked)];
    if (orders.length === 0) {
      const t = await orNull(ds.topics.get(ctx.actor, id));
      if (!t) return null;
      primeTopic(ctx, t);
      return topicNode(ctx, t);
    }
    // Markdown anywhere below covers every tree's selection.
    const markdown = selectsFieldBelow(info, 'markdown');
    const read = await orNull(ds.topics.readInOrders(ctx.actor, id, { orders, markdown }));
    if (!read) return null;
    primeTopic(ctx, read.topic);
    const node = topicNode(ctx, read.topic);
    const trees = topicTrees(ctx);
    orders.forEach((order, i) => {
      trees.put(read.topic.id, order, markdown, Promise.resolve(threadTree(node, read.trees[i]!)));
    });
    return node;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'The Markdown source of the text; only for its author and admins (null for everyone else).',
  })
  markdown(@Root() topic: TopicNode, @Ctx() ctx: GraphQLContext): string | null {
    // The service already nulls it for everyone else; this is a second guard.
    const a = ctx.actor;
    if (a.kind !== 'user' || (a.userId !== topic.view.authorId && !a.isAdmin)) return null;
    return topic.view.markdown;
  }

  @FieldResolver(() => CommentThreadConnection, {
    description:
      'The comment tree by page (REST `comments`, which is the whole tree): top-level comments in `order`, ' +
      `${THREADS_DEFAULT_PAGE_SIZE} per page unless \`first\`/\`last\` say otherwise (at most ` +
      `${THREADS_MAX_PAGE_SIZE}), each with all its replies ` +
      '(`replies`, nested, or `descendants`, flat in display order); deleted comments without replies are pruned.',
  })
  async threads(
    @Root() topic: TopicNode,
    @Args(() => ThreadsArgs) args: ThreadsArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Bad paging arguments are refused before the tree is read.
    threadPageArgs(args);
    const roots = await tree(ctx, topic, args.order ?? undefined, selectsFieldBelow(info, 'markdown'));
    return threadPage(roots, args);
  }
}
