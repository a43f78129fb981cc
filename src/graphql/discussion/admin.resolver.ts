/** Admin actions: groups, removing and restoring posts, locking, official topics, tags, bans. */
import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { COMMENT_ID_DESCRIPTION, TOPIC_ID_DESCRIPTION, id36Of } from '../node/global-id';
import { Comment } from './comment.type';
import { Group } from './group.type';
import { primeTopic, primeUser } from './loaders';
import { CommentNode, commentNode, GroupNode, groupNode, TopicNode, topicNode, UserNode, userNode } from './nodes';
import { discussion } from './request-scope';
import type { TopicView } from '../../discussion/views';
import { Topic } from './topic.type';
import { User } from './user.type';

/** A Boolean switch of a mutation: non-null, so omitting it and passing its default are the same. */
const on = (description: string) => ({ nullable: false as const, defaultValue: true, description });

function topicOut(ctx: GraphQLContext, t: TopicView): TopicNode {
  primeTopic(ctx, t);
  return topicNode(ctx, t);
}

@Resolver()
export class AdminResolver {
  @Mutation(() => Group, { nullable: true, description: 'Admin: creates a group.' })
  async createGroup(
    @Arg('path', () => String, {
      description: 'The path: lowercase labels joined by dots (`tech`, `games.tabletop`), with or without `~`.',
    })
    path: string,
    @Arg('description', () => String, { nullable: true, description: 'What the group is about.' })
    description: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<GroupNode> {
    return groupNode(
      await discussion(ctx).groups.create(ctx.actor, {
        path: path.replace(/^~/, ''),
        ...(description != null ? { description } : {}),
      }),
    );
  }

  @Mutation(() => Topic, {
    nullable: true,
    description:
      'Admin: removes a topic (only its author and admins still see it), or restores it with `removed: false`.',
  })
  async removeTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('removed', () => Boolean, on('true to remove, false to restore.')) removed: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    const t = discussion(ctx).topics;
    return topicOut(ctx, await (removed ? t.remove(ctx.actor, id) : t.restore(ctx.actor, id)));
  }

  @Mutation(() => Comment, {
    nullable: true,
    description:
      'Admin: removes a comment (hidden from everyone but its author and admins), or restores it with ' +
      '`removed: false`.',
  })
  async removeComment(
    @Arg('id', () => ID, { description: COMMENT_ID_DESCRIPTION }) commentArg: string,
    @Arg('removed', () => Boolean, on('true to remove, false to restore.')) removed: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentNode> {
    const id = id36Of(commentArg, 'Comment', 'id');
    const c = discussion(ctx).comments;
    return commentNode(await (removed ? c.remove(ctx.actor, id) : c.restore(ctx.actor, id)));
  }

  @Mutation(() => Topic, {
    nullable: true,
    description:
      'Admin: locks a topic (no new comments or edits, admins excepted), or unlocks it with `locked: false`.',
  })
  async lockTopic(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('locked', () => Boolean, on('true to lock, false to unlock.')) locked: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    return topicOut(ctx, await discussion(ctx).topics.setLocked(ctx.actor, id, locked));
  }

  @Mutation(() => Topic, {
    nullable: true,
    description: 'Admin: marks a topic official, or not with `official: false`.',
  })
  async setTopicOfficial(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('official', () => Boolean, on('true to mark official, false to unmark.')) official: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    return topicOut(ctx, await discussion(ctx).topics.setOfficial(ctx.actor, id, official));
  }

  @Mutation(() => Topic, { nullable: true, description: "Replaces a topic's tags (admins, and the topic's author)." })
  async editTopicTags(
    @Arg('id', () => ID, { description: TOPIC_ID_DESCRIPTION }) topicArg: string,
    @Arg('tags', () => [String], { description: 'The new tags, in order.' }) tags: string[],
    @Ctx() ctx: GraphQLContext,
  ): Promise<TopicNode> {
    const id = id36Of(topicArg, 'Topic', 'id');
    return topicOut(ctx, await discussion(ctx).topics.setTags(ctx.actor, id, tags));
  }

  @Mutation(() => User, {
    nullable: true,
    description:
      'Admin: bans a user (their tokens stop working, their history is closed), or lifts the ban with `banned: false`.',
  })
  async banUser(
    @Arg('username', () => String, { description: 'The username, in any letter case.' }) username: string,
    @Arg('banned', () => Boolean, on('true to ban, false to unban.')) banned: boolean,
    @Ctx() ctx: GraphQLContext,
  ): Promise<UserNode> {
    const u = discussion(ctx).users;
    const v = await (banned ? u.ban(ctx.actor, username) : u.unban(ctx.actor, username));
    primeUser(ctx, v);
    return userNode(v);
  }
}
