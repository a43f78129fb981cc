/**
 * The payload of every subscription: one event, with the topic and comment as the subscriber may
 * see them now. Kept apart from the query types so that it can follow them (thread nodes, global
 * ids) without touching the live machinery.
 */
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Comment, CommentThread } from '../discussion/comment.type';
import { Topic } from '../discussion/topic.type';
import type { CommentNode, ThreadNode, TopicNode } from '../discussion/nodes';

export enum LiveEventKind {
  TOPIC_POSTED = 'topic.posted',
  TOPIC_VOTES_CHANGED = 'topic.voted',
  COMMENT_POSTED = 'comment.posted',
  COMMENT_EDITED = 'comment.edited',
  COMMENT_DELETED = 'comment.deleted',
  COMMENT_REMOVED = 'comment.removed',
  COMMENT_RESTORED = 'comment.restored',
  COMMENT_VOTES_CHANGED = 'comment.voted',
}

registerEnumType(LiveEventKind, {
  name: 'LiveEventKind',
  description: 'What happened.',
  valuesConfig: {
    TOPIC_POSTED: { description: 'A new topic (`newTopics`).' },
    TOPIC_VOTES_CHANGED: { description: "The topic's `voteCount` changed." },
    COMMENT_POSTED: { description: 'A new comment: `parentId` and `depth` place it in the tree.' },
    COMMENT_EDITED: { description: "A comment's text changed." },
    COMMENT_DELETED: { description: 'Its author deleted a comment: `comment` is null (the text is gone).' },
    COMMENT_REMOVED: {
      description: 'An admin removed a comment: `comment` is null unless the subscriber is its author or an admin.',
    },
    COMMENT_RESTORED: { description: 'An admin restored a removed comment.' },
    COMMENT_VOTES_CHANGED: { description: "A comment's `votes` changed." },
  },
});

@ObjectType('LiveEvent', { simpleResolvers: true, description: 'One change, as the subscriber may see it.' })
export class LiveEventPayload {
  @Field(() => String, {
    description:
      "This event's position: pass it as `after` when subscribing again " +
      'to receive what happened since, without gaps or repeats.',
  })
  cursor!: string;

  @Field(() => LiveEventKind, { description: 'What happened.' })
  kind!: LiveEventKind;

  @Field(() => ID, { description: "The topic's id36." })
  topicId!: string;

  @Field(() => ID, { nullable: true, description: "The comment's id36; null for topic events." })
  commentId!: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'COMMENT_POSTED: the id36 of the comment it answers; null at top level and for other kinds.',
  })
  parentId!: string | null;

  @Field(() => Int, {
    nullable: true,
    description: 'COMMENT_POSTED: its depth in the tree (0 at top level); null for other kinds.',
  })
  depth!: number | null;

  @Field(() => Topic, { description: 'The topic as the subscriber may see it now.' })
  topic!: TopicNode;

  @Field(() => Comment, {
    nullable: true,
    description:
      'The comment as the subscriber may see it now; ' +
      'null for topic events, deletions, and removals the subscriber may not see.',
  })
  comment!: CommentNode | null;

  @Field(() => CommentThread, {
    nullable: true,
    description:
      'COMMENT_POSTED: the new comment as a thread node placed in the tree (its `depth`, no replies yet, ' +
      '`isNew` for the subscriber), the same shape `postComment` answers; null for other kinds and when ' +
      'the subscriber may not see the comment.',
  })
  thread!: ThreadNode | null;
}
