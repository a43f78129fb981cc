/** A user's reactions to posts: votes, bookmarks, ignores, labels and visits. Each answers the post as it is now. */
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { PostKind } from '../../discussion/services';
import type { GraphQLContext } from '../context';
import { COMMENT_ID_DESCRIPTION, TOPIC_ID_DESCRIPTION, id36Of } from '../node/global-id';
import { Comment } from './comment.type';
import { CommentLabel } from './enums';
import { primeTopic } from './loaders';
import { CommentNode, commentNode, TopicNode, topicNode } from './nodes';
import { discussion } from './request-scope';
import { Topic } from './topic.type';

async function topicNow(ctx: GraphQLContext, id: string): Promise<TopicNode> {
  const t = await discussion(ctx).topics.get(ctx.actor, id);
  primeTopic(ctx, t);
  return topicNode(ctx, t);
}

async function commentNow(ctx: GraphQLContext, id: string): Promise<CommentNode> {
  return commentNode(await discussion(ctx).comments.get(ctx.actor, id));
}

async function bookmark(ctx: GraphQLContext, kind: PostKind, id: string, on: boolean): Promise<void> {
  const b = discussion(ctx).bookmarks;
  await (on ? b.bookmark(ctx.actor, kind, id) : b.unbookmark(ctx.actor, kind, id));
}

/** A Boolean switch of a mutation: non-null, so omitting it and passing its default are the same. */
const on = (description: string) => ({ nullable: false as const, defaultValue: true, description });

@Resolver()
export class ReactionResolver {
  @Mutation(() => Topic, {
    nullable: true,
    description:
      "Votes for a topic (or takes the vote back with `vote: false`); never on one's own. Idempotent. " +
      'Limited per account with votes taken back (`VOTE_RATE_LIMIT` within `VOTE_RATE_WINDOW`, admins excepted).',
  })
  async voteTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('vote', () => Boolean, on('true to vote, false to take the vote back.')) yes: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    // The vote answers the topic as it left it: no second read of the topic or of the viewer's mark.
    const t = await discussion(ctx).votes.voteTopic(ctx.actor, id, yes);
    primeTopic(ctx, t);
    return topicNode(ctx, t);
  }

  @Mutation(() => Comment, {
    nullable: true,
    description:
      "Votes for a comment (or takes the vote back with `vote: false`); never on one's own. Idempotent. " +
      'Limited per account with votes taken back (`VOTE_RATE_LIMIT` within `VOTE_RATE_WINDOW`, admins excepted).',
  })
  async voteComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Arg('vote', () => Boolean, on('true to vote, false to take the vote back.')) yes: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    return commentNode(await discussion(ctx).votes.voteComment(ctx.actor, id, yes));
  }

  @Mutation(() => Topic, {
    nullable: true,
    description: 'Bookmarks a topic (or removes the bookmark with `bookmark: false`). Idempotent.',
  })
  async bookmarkTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('bookmark', () => Boolean, on('true to bookmark, false to remove the bookmark.')) yes: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    await bookmark(ctx, 'topic', id, yes);
    return topicNow(ctx, id);
  }

  @Mutation(() => Comment, {
    nullable: true,
    description: 'Bookmarks a comment (or removes the bookmark with `bookmark: false`). Idempotent.',
  })
  async bookmarkComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Arg('bookmark', () => Boolean, on('true to bookmark, false to remove the bookmark.')) yes: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    await bookmark(ctx, 'comment', id, yes);
    return commentNow(ctx, id);
  }

  @Mutation(() => Topic, {
    nullable: true,
    description:
      "Ignores a topic: it leaves the viewer's listing but stays readable (`viewerHasIgnored: true`). " +
      '`ignore: false` undoes it.',
  })
  async ignoreTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('ignore', () => Boolean, on('true to ignore, false to stop ignoring.')) yes: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    const i = discussion(ctx).ignores;
    await (yes ? i.ignore(ctx.actor, id) : i.unignore(ctx.actor, id));
    return topicNow(ctx, id);
  }

  @Mutation(() => Topic, {
    nullable: true,
    description:
      "Records the logged-in viewer's visit to a topic (what REST `GET /topic/{id}` does on each read): " +
      '`lastVisitedAt` becomes now, ' +
      '`newCommentCount` 0, and the next read of its threads marks `isNew` against this visit. Queries ' +
      'never record visits.',
  })
  async visitTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    await discussion(ctx).visits.record(ctx.actor, id);
    return topicNow(ctx, id);
  }

  @Mutation(() => Comment, {
    nullable: true,
    description:
      "Puts a label on a comment that is not one's own (each label once per user), or takes it back with " +
      '`add: false`. `EXEMPLARY` needs a reason. Limited per account with labels taken back (`LABEL_RATE_LIMIT` ' +
      'within `LABEL_RATE_WINDOW`, admins excepted).',
  })
  async labelComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Arg('label', () => CommentLabel, { description: 'The label.' }) label: CommentLabel,
    @Arg('reason', () => String, { nullable: true, description: 'Why (required for EXEMPLARY).' })
    reason: string | null | undefined,
    @Arg('add', () => Boolean, on('true to add the label, false to take it back.')) add: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    const l = discussion(ctx).labels;
    return commentNode(await (add ? l.label(ctx.actor, id, label, reason ?? null) : l.unlabel(ctx.actor, id, label)));
  }
}
