/** A user's reactions to posts: votes, bookmarks, ignores and labels. Each answers the post as it is now. */
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { PostKind } from '../../discussion/services';
import type { GraphQLContext } from '../context';
import { COMMENT_ID, TOPIC_ID, withFields } from './call';
import { Comment } from './comment.type';
import { CommentLabel } from './enums';
import { primeTopic } from './loaders';
import { CommentNode, commentNode, discussion, TopicNode, topicNode } from './nodes';
import { Topic } from './topic.type';

async function topicNow(ctx: GraphQLContext, id: string): Promise<TopicNode> {
  const t = await withFields(discussion(ctx).topics.get(ctx.actor, id), TOPIC_ID);
  primeTopic(ctx, t);
  return topicNode(ctx, t);
}

async function commentNow(ctx: GraphQLContext, id: string): Promise<CommentNode> {
  return commentNode(await withFields(discussion(ctx).comments.get(ctx.actor, id), COMMENT_ID), 0);
}

function rename(kind: PostKind) {
  return kind === 'topic' ? TOPIC_ID : COMMENT_ID;
}

async function vote(ctx: GraphQLContext, kind: PostKind, id: string, on: boolean): Promise<void> {
  const v = discussion(ctx).votes;
  await withFields(on ? v.vote(ctx.actor, kind, id) : v.unvote(ctx.actor, kind, id), rename(kind));
}

async function bookmark(ctx: GraphQLContext, kind: PostKind, id: string, on: boolean): Promise<void> {
  const b = discussion(ctx).bookmarks;
  await withFields(on ? b.bookmark(ctx.actor, kind, id) : b.unbookmark(ctx.actor, kind, id), rename(kind));
}

@Resolver()
export class ReactionResolver {
  @Mutation(() => Topic, { description: 'Votes for a topic (or takes the vote back with `vote: false`); never on one\'s own. Idempotent.' })
  async voteTopic(
    @Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string,
    @Arg('vote', () => Boolean, { nullable: true, defaultValue: true, description: 'true to vote, false to take the vote back.' }) on: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    await vote(ctx, 'topic', id, on !== false);
    return topicNow(ctx, id);
  }

  @Mutation(() => Comment, { description: 'Votes for a comment (or takes the vote back with `vote: false`); never on one\'s own. Idempotent.' })
  async voteComment(
    @Arg('id', () => ID, { description: 'The comment\'s id36.' }) id: string,
    @Arg('vote', () => Boolean, { nullable: true, defaultValue: true, description: 'true to vote, false to take the vote back.' }) on: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    await vote(ctx, 'comment', id, on !== false);
    return commentNow(ctx, id);
  }

  @Mutation(() => Topic, { description: 'Bookmarks a topic (or removes the bookmark with `bookmark: false`). Idempotent.' })
  async bookmarkTopic(
    @Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string,
    @Arg('bookmark', () => Boolean, { nullable: true, defaultValue: true, description: 'true to bookmark, false to remove the bookmark.' }) on: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    await bookmark(ctx, 'topic', id, on !== false);
    return topicNow(ctx, id);
  }

  @Mutation(() => Comment, { description: 'Bookmarks a comment (or removes the bookmark with `bookmark: false`). Idempotent.' })
  async bookmarkComment(
    @Arg('id', () => ID, { description: 'The comment\'s id36.' }) id: string,
    @Arg('bookmark', () => Boolean, { nullable: true, defaultValue: true, description: 'true to bookmark, false to remove the bookmark.' }) on: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    await bookmark(ctx, 'comment', id, on !== false);
    return commentNow(ctx, id);
  }

  @Mutation(() => Topic, { description: 'Ignores a topic: it leaves the viewer\'s listing but stays readable (`ignored: true`). `ignore: false` undoes it.' })
  async ignoreTopic(
    @Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string,
    @Arg('ignore', () => Boolean, { nullable: true, defaultValue: true, description: 'true to ignore, false to stop ignoring.' }) on: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const i = discussion(ctx).ignores;
    await withFields(on !== false ? i.ignore(ctx.actor, id) : i.unignore(ctx.actor, id), TOPIC_ID);
    return topicNow(ctx, id);
  }

  @Mutation(() => Comment, { description: 'Puts a label on a comment that is not one\'s own (each label once per user), or takes it back with `add: false`. `EXEMPLARY` needs a reason.' })
  async labelComment(
    @Arg('id', () => ID, { description: 'The comment\'s id36.' }) id: string,
    @Arg('label', () => CommentLabel, { description: 'The label.' }) label: CommentLabel,
    @Arg('reason', () => String, { nullable: true, description: 'Why (required for EXEMPLARY).' }) reason: string | null | undefined,
    @Arg('add', () => Boolean, { nullable: true, defaultValue: true, description: 'true to add the label, false to take it back.' }) add: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const l = discussion(ctx).labels;
    const c = await withFields(add !== false ? l.label(ctx.actor, id, label, reason ?? null) : l.unlabel(ctx.actor, id, label), COMMENT_ID);
    return commentNode(c, 0);
  }
}
