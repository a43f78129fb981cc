/** The Comment fields that need more than the mapped node: its topic, its parent, its Markdown. */
import { Ctx, FieldResolver, Info, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../context';
import { Comment } from './comment.type';
import { commentsAsShownById, publicTopicsById, topicsById } from './loaders';
import { childFields } from './lookahead';
import { CommentNode, commentNode, TopicNode, topicNode } from './nodes';
import { Topic } from './topic.type';

/**
 * Topic fields whose values depend on the viewer (the viewer's marks, or the Markdown shown only to
 * the topic's author and admins): asked for, the topic is read as the viewer, never as anonymous.
 */
const VIEWER_FIELDS = new Set([
  'newCommentCount',
  'viewerHasVoted',
  'viewerHasBookmarked',
  'viewerHasIgnored',
  'lastVisitedAt',
  'threads',
  'markdown',
]);

/** Whether the selection below this field asks for a viewer-specific Topic value (once per field occurrence). */
const viewerFieldsAsked = new WeakMap<object, boolean>();
function asksViewerFields(info: GraphQLResolveInfo): boolean {
  let v = viewerFieldsAsked.get(info.fieldNodes);
  if (v === undefined) {
    v = childFields(info).some((f) => VIEWER_FIELDS.has(f.name));
    viewerFieldsAsked.set(info.fieldNodes, v);
  }
  return v;
}

@Resolver(() => Comment)
export class CommentResolver {
  @FieldResolver(() => Topic, {
    nullable: true,
    description:
      'The topic the comment belongs to; null when the viewer may not see it (deleted, or removed and the ' +
      "viewer is neither its author nor an admin), as `node(id:)` answers for it. A user's history lists " +
      'comments whatever the state of their topic.',
  })
  async topic(
    @Root() c: CommentNode,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<TopicNode | null> {
    if (c.topic) return c.topic;
    let t =
      ctx.actor.kind === 'user' && !asksViewerFields(info) ? await publicTopicsById(ctx).load(c.view.topicId) : null;
    t ??= await topicsById(ctx).load(c.view.topicId);
    return t ? topicNode(ctx, t) : null;
  }

  @FieldResolver(() => Comment, {
    nullable: true,
    description:
      'The comment this one replies to, as `node(id:)` answers it (a placeholder when deleted or hidden, as ' +
      "in the tree); null for a top-level comment, and on a topic hidden from the viewer when its author's " +
      'history does not show the parent either.',
  })
  async parent(@Root() c: CommentNode, @Ctx() ctx: GraphQLContext): Promise<CommentNode | null> {
    if (c.parent !== undefined) return c.parent;
    if (c.view.parentId === null) return null;
    const p = await commentsAsShownById(ctx).load(c.view.parentId);
    return p ? commentNode(p) : null;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'The Markdown source; only for its author and admins (null for everyone else and when deleted).',
  })
  markdown(@Root() c: CommentNode, @Ctx() ctx: GraphQLContext): string | null {
    const a = ctx.actor;
    if (a.kind !== 'user' || !(c.view.isMe === true || a.isAdmin)) return null;
    if (c.view.isDeleted) return null;
    // The service already nulls it for everyone else and for deleted comments; this is a second guard.
    return c.view.markdown;
  }
}
