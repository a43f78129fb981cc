import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type';
import { DateTimeScalar } from './scalars';
import { User } from './user.type';
import type { CommentNode, ThreadNode, UserNode } from './nodes';

/**
 * A comment as a record: every field has one value for one viewer, wherever the comment is read
 * (a topic's threads, a feed, a mutation's answer, `node`). Its place in a tree (depth, replies,
 * collapsed, new since the last visit) is on CommentThread. Plain fields are served by the
 * default resolver (simpleResolvers); `topic`, `parent` and `markdown` are in comment.resolver.ts.
 */
@ObjectType('Comment', {
  implements: Node,
  simpleResolvers: true,
  description:
    'A comment on a topic, or a reply to another comment (any depth). Its place in a tree is on `CommentThread`.',
})
export class Comment {
  @Field(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the comment again.',
  })
  id!: string;

  @Field(() => String, {
    description:
      "The comment's REST id (base-36), as in `/api/beta` paths and cursors; arguments naming a comment accept it too.",
  })
  id36!: string;

  @Field(() => User, {
    nullable: true,
    description:
      'Who wrote the comment; null when hidden (deleted, or removed and the viewer is neither its author ' +
      'nor an admin).',
  })
  author!: UserNode | null;

  @Field(() => String, { nullable: true, description: 'The text rendered from Markdown to HTML; null when hidden.' })
  textHtml!: string | null;

  @Field(() => DateTimeScalar, { description: 'When the comment was posted.' })
  createdAt!: Date;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'The last edit made more than 5 minutes after posting; null if none.',
  })
  editedAt!: Date | null;

  @Field(() => Int, { description: 'Number of votes.' })
  voteCount!: number;

  @Field(() => Boolean, { description: 'Removed by an admin.' })
  isRemoved!: boolean;

  @Field(() => Boolean, { description: 'Deleted by its author (kept as a placeholder while it has replies).' })
  isDeleted!: boolean;

  @Field(() => Boolean, { nullable: true, description: 'The exemplary label is active; null when hidden.' })
  isExemplary!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Written by the topic's author; null when hidden." })
  isOp!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Viewer-specific: the viewer wrote the comment; null when anonymous.',
  })
  viewerIsAuthor!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Viewer-specific: the viewer voted for the comment; null when anonymous.',
  })
  viewerHasVoted!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Viewer-specific: the viewer bookmarked the comment; null when anonymous.',
  })
  viewerHasBookmarked!: boolean | null;
}

/**
 * A comment at its place in one read of a topic's tree. Not a Node: the same comment sits at
 * another place in another order, and its flags follow the viewer's previous visit.
 */
@ObjectType('CommentThread', {
  simpleResolvers: true,
  description:
    "A comment at its place in a topic's tree, as read in one order for one viewer: its depth, its " +
    'replies (pruned and ' +
    'sorted for this read), and the per-visit flags. The comment itself is the normalised `comment` record.',
})
export class CommentThread {
  @Field(() => Comment, { description: 'The comment (the same record wherever it appears).' })
  comment!: CommentNode;

  @Field(() => Int, { description: "Nesting level: 0 for a top-level comment, its parent's depth + 1 for a reply." })
  depth!: number;

  @Field(() => Boolean, {
    description: 'Shown collapsed with its replies (noise, or already seen on a previous visit).',
  })
  isCollapsed!: boolean;

  @Field(() => Boolean, { description: 'Shown collapsed by itself, its replies open.' })
  isCollapsedIndividually!: boolean;

  @Field(() => Boolean, {
    nullable: true,
    description:
      "Viewer-specific: posted by someone else since the viewer's previous visit to the topic (see " +
      '`visitTopic`); null when anonymous.',
  })
  isNew!: boolean | null;

  @Field(() => [CommentThread], {
    description: "The direct replies, in the tree's order; deleted comments without replies are pruned.",
  })
  replies!: ThreadNode[];
}
