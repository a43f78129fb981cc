/** The Comment fields that need more than the mapped node: its topic, its parent, its Markdown. */
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { NotFoundError } from '../../core/errors';
import type { GraphQLContext } from '../context';
import { Comment } from './comment.type';
import { commentsById, topicsById } from './loaders';
import { CommentNode, commentNode, TopicNode, topicNode } from './nodes';
import { Topic } from './topic.type';

@Resolver(() => Comment)
export class CommentResolver {
  @FieldResolver(() => Topic, { description: 'The topic the comment belongs to (an error NOT_FOUND when the viewer may no longer see it).' })
  async topic(@Root() c: CommentNode, @Ctx() ctx: GraphQLContext): Promise<TopicNode> {
    if (c.topic) return c.topic;
    const t = await topicsById(ctx).load(c.view.topicId);
    if (!t) throw new NotFoundError('Topic not found');
    return topicNode(ctx, t);
  }

  @FieldResolver(() => Comment, { nullable: true, description: 'The comment this one replies to; null for a top-level comment.' })
  async parent(@Root() c: CommentNode, @Ctx() ctx: GraphQLContext): Promise<CommentNode | null> {
    if (c.parent !== undefined) return c.parent;
    if (c.view.parentId === null) return null;
    const p = await commentsById(ctx).load(c.view.parentId);
    return p ? commentNode(p) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The Markdown source; only for its author and admins (null for everyone else and when hidden).' })
  markdown(@Root() c: CommentNode, @Ctx() ctx: GraphQLContext): string | null {
    const a = ctx.actor;
    if (a.kind !== 'user' || !(c.view.isMe === true || a.isAdmin)) return null;
    if (c.view.isDeleted) return null;
    return (c.view as { markdown?: string | null }).markdown ?? null;
  }
}
