/** Posting, editing and deleting topics and comments. */
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { CommentView } from '../../discussion/views';
import type { EditTopicInput as EditTopicView } from '../../discussion/inputs/edit-topic.input';
import type { GraphQLContext } from '../context';
import { COMMENT_ID_DESCRIPTION, TOPIC_ID_DESCRIPTION, id36Of } from '../node/global-id';
import { Comment, CommentThread } from './comment.type';
import { primeTopic } from './loaders';
import { CommentNode, commentNode, ThreadNode, TopicNode, topicNode } from './nodes';
import { discussion } from './request-scope';
import { EditTopicInput, PostTopicInput } from './topic.inputs';
import { Topic } from './topic.type';

/**
 * A new comment's place: its depth (the post's answer carries it), no replies yet, never new nor
 * collapsed for its author. Enough for a cache to insert it under its parent's thread
 * (`comment.parent.id`) or as a top-level thread of `comment.topic`.
 */
function newThread(c: CommentView): ThreadNode {
  return {
    comment: commentNode(c),
    depth: c.depth,
    isCollapsed: false,
    isCollapsedIndividually: false,
    isNew: c.isNew === null ? null : false,
    replies: [],
  };
}

/** A deleted comment as a placeholder shows it (docs/discussion-api.md §6.4): nothing of its author or text. */
function deletedComment(c: CommentView): CommentView {
  return {
    ...c,
    isDeleted: true,
    authorUsername: null,
    renderedHtml: null,
    markdown: null,
    exemplary: null,
    isOp: null,
  };
}

@Resolver()
export class PostResolver {
  @Mutation(() => Topic, {
    nullable: true,
    description:
      'Posts a topic as the logged-in user. Limited per account (`TOPIC_RATE_LIMIT` within `TOPIC_RATE_WINDOW`, ' +
      'admins excepted): over it, TOO_MANY_REQUESTS (HTTP 429) with `retryAfter`.',
  })
  async postTopic(
    @Arg('input', () => PostTopicInput, { description: 'The topic.' }) input: PostTopicInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const t = await discussion(ctx).topics.post(ctx.actor, {
      group: input.group.replace(/^~/, ''),
      title: input.title,
      markdown: input.markdown ?? null,
      link: input.link ?? null,
      tags: input.tags ?? [],
    });
    primeTopic(ctx, t);
    return topicNode(ctx, t);
  }

  @Mutation(() => Topic, {
    nullable: true,
    description: 'Edits a topic: its author (admins may change title, link and tags, not the text).',
  })
  async editTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('input', () => EditTopicInput, { description: 'What to change.' }) input: EditTopicInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    const patch: EditTopicView = {};
    if (input.title != null) patch.title = input.title;
    if (input.markdown !== undefined) patch.markdown = input.markdown;
    if (input.link !== undefined) patch.link = input.link;
    if (input.tags != null) patch.tags = input.tags;
    const t = await discussion(ctx).topics.edit(ctx.actor, id, patch);
    primeTopic(ctx, t);
    return topicNode(ctx, t);
  }

  @Mutation(() => Topic, {
    nullable: true,
    description:
      'Deletes a topic (its author only); it disappears for everyone. Returns it as it was, with `isDeleted: true`.',
  })
  async deleteTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    const ds = discussion(ctx);
    const t = await ds.topics.get(ctx.actor, id);
    await ds.topics.delete(ctx.actor, id);
    return topicNode(ctx, t, true);
  }

  @Mutation(() => CommentThread, {
    nullable: true,
    description:
      'Posts a comment on a topic, or a reply to a comment at any depth (not on locked topics, admins excepted). ' +
      'Returns its thread node: the new comment record (with `topic` and `parent`), its depth, no replies. ' +
      'Limited per account (`COMMENT_RATE_LIMIT` within `COMMENT_RATE_WINDOW`, admins excepted): over it, ' +
      'TOO_MANY_REQUESTS (HTTP 429) with `retryAfter`.',
  })
  async postComment(
    @Arg('topicId', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('parentId', () => ID, {
      nullable: true,
      description: 'The comment to reply to (its global `id` or its `id36`); omit or null for a top-level comment.',
    })
    parentArg: string | null | undefined,
    @Arg('markdown', () => String, { description: 'The text, in Markdown.' }) markdown: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ThreadNode> {
    const topicId = id36Of(topicArg, 'Topic', 'topicId');
    const parentId = parentArg == null ? null : id36Of(parentArg, 'Comment', 'parentId');
    const c = await discussion(ctx).comments.post(ctx.actor, { topicId, parentId, markdown });
    return newThread(c);
  }

  @Mutation(() => Comment, {
    nullable: true,
    description: 'Edits a comment (its author only; not on locked topics, admins excepted).',
  })
  async editComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Arg('markdown', () => String, { description: 'The new text, in Markdown.' }) markdown: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    return commentNode(await discussion(ctx).comments.edit(ctx.actor, id, markdown));
  }

  @Mutation(() => Comment, {
    nullable: true,
    description:
      'Deletes a comment (its author only); it stays as a placeholder while it has replies. Returns the ' +
      'placeholder (`isDeleted: true`).',
  })
  async deleteComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    const ds = discussion(ctx);
    const c = await ds.comments.get(ctx.actor, id);
    await ds.comments.delete(ctx.actor, id);
    return commentNode(deletedComment(c));
  }
}
