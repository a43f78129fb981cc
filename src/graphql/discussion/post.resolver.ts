/** Posting, editing and deleting topics and comments. */
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { CommentView, EditTopicInput as EditTopicView } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { COMMENT_ID, TOPIC_ID, withFields } from './call';
import { Comment } from './comment.type';
import { primeTopic } from './loaders';
import { CommentNode, commentNode, discussion, TopicNode, topicNode } from './nodes';
import { EditTopicInput, PostTopicInput } from './topic.inputs';
import { Topic } from './topic.type';

/** A deleted comment as a placeholder shows it (behaviour spec 6.4): nothing of its author or text. */
function deletedComment(c: CommentView): CommentView {
  return { ...c, isDeleted: true, authorUsername: null, renderedHtml: null, markdown: null, exemplary: null, isOp: null };
}

@Resolver()
export class PostResolver {
  @Mutation(() => Topic, { description: 'Posts a topic as the logged-in user.' })
  async postTopic(@Arg('input', () => PostTopicInput, { description: 'The topic.' }) input: PostTopicInput, @Ctx() ctx: GraphQLContext): Promise<TopicNode> {
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

  @Mutation(() => Topic, { description: 'Edits a topic: its author (admins may change title, link and tags, not the text).' })
  async editTopic(
    @Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string,
    @Arg('input', () => EditTopicInput, { description: 'What to change.' }) input: EditTopicInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const patch: EditTopicView = {};
    if (input.title != null) patch.title = input.title;
    if (input.markdown !== undefined) patch.markdown = input.markdown;
    if (input.link !== undefined) patch.link = input.link;
    if (input.tags != null) patch.tags = input.tags;
    const t = await withFields(discussion(ctx).topics.edit(ctx.actor, id, patch), TOPIC_ID);
    primeTopic(ctx, t);
    return topicNode(ctx, t);
  }

  @Mutation(() => Topic, { description: 'Deletes a topic (its author only); it disappears for everyone. Returns it as it was, with `isDeleted: true`.' })
  async deleteTopic(@Arg('id', () => ID, { description: 'The topic\'s id36.' }) id: string, @Ctx() ctx: GraphQLContext): Promise<TopicNode> {
    const ds = discussion(ctx);
    const t = await withFields(ds.topics.get(ctx.actor, id), TOPIC_ID);
    await ds.topics.delete(ctx.actor, id);
    return topicNode(ctx, t, true);
  }

  @Mutation(() => Comment, { description: 'Posts a comment on a topic, or a reply to a comment at any depth (not on locked topics, admins excepted).' })
  async postComment(
    @Arg('topicId', () => ID, { description: 'The topic\'s id36.' }) topicId: string,
    @Arg('parentId', () => ID, { nullable: true, description: 'The id36 of the comment to reply to; omit for a top-level comment.' }) parentId: string | null | undefined,
    @Arg('markdown', () => String, { description: 'The text, in Markdown.' }) markdown: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const c = await withFields(discussion(ctx).comments.post(ctx.actor, { topicId, parentId: parentId ?? null, markdown }), {
      topic_id36: 'topicId',
      topic: 'topicId',
      parent: 'parentId',
      parent_id36: 'parentId',
    });
    return commentNode(c, 0);
  }

  @Mutation(() => Comment, { description: 'Edits a comment (its author only; not on locked topics, admins excepted).' })
  async editComment(
    @Arg('id', () => ID, { description: 'The comment\'s id36.' }) id: string,
    @Arg('markdown', () => String, { description: 'The new text, in Markdown.' }) markdown: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    return commentNode(await withFields(discussion(ctx).comments.edit(ctx.actor, id, markdown), COMMENT_ID), 0);
  }

  @Mutation(() => Comment, { description: 'Deletes a comment (its author only); it stays as a placeholder while it has replies. Returns the placeholder (`isDeleted: true`).' })
  async deleteComment(@Arg('id', () => ID, { description: 'The comment\'s id36.' }) id: string, @Ctx() ctx: GraphQLContext): Promise<CommentNode> {
    const ds = discussion(ctx);
    const c = await withFields(ds.comments.get(ctx.actor, id), COMMENT_ID);
    await ds.comments.delete(ctx.actor, id);
    return commentNode(deletedComment(c), 0);
  }
}
