import { Field, ID, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars';
import { User } from './user.type';
import type { CommentNode, UserNode } from './nodes';

/**
 * Cost of `children` for the cost limit: every comment of a tree appears once, whatever the
 * nesting, so the topic's comment estimate (topic.resolver.ts) already counts them; a nested
 * selection costs its fields once per level (linear in depth), not a product of fan-outs.
 */
export const CHILDREN_COST_FACTOR = 1;

/**
 * A comment. A 5,000-comment tree resolves 100,000 fields: every plain field is served by the
 * default resolver (simpleResolvers); `topic`, `parent` and `markdown` are resolved in comment.resolver.ts.
 */
@ObjectType('Comment', { simpleResolvers: true, description: 'A comment on a topic, or a reply to another comment (any depth).' })
export class Comment {
  @Field(() => ID, { description: 'The comment\'s id36.' })
  id!: string;

  @Field(() => ID, { description: 'The id36 of the comment\'s topic (REST `topic_id`).' })
  topicId!: string;

  @Field(() => ID, { nullable: true, description: 'The id36 of the comment this one replies to; null for a top-level comment.' })
  parentId!: string | null;

  @Field(() => User, { nullable: true, description: 'Who wrote the comment; null when hidden (deleted, or removed and the viewer is neither its author nor an admin).' })
  author!: UserNode | null;

  @Field(() => String, { nullable: true, description: 'The text rendered from Markdown; null when hidden.' })
  renderedHtml!: string | null;

  @Field(() => DateTimeScalar, { description: 'When the comment was posted.' })
  createdAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true, description: 'The last edit made more than 5 minutes after posting; null if none.' })
  editedAt!: Date | null;

  @Field(() => Int, { description: 'Number of votes.' })
  votes!: number;

  @Field(() => Boolean, { description: 'Removed by an admin.' })
  isRemoved!: boolean;

  @Field(() => Boolean, { description: 'Deleted by its author (kept as a placeholder while it has replies).' })
  isDeleted!: boolean;

  @Field(() => Boolean, { nullable: true, description: 'The exemplary label is active; null when hidden.' })
  exemplary!: boolean | null;

  @Field(() => Boolean, { description: 'Shown collapsed with its replies (noise, or already seen on a previous visit). Always false outside a topic\'s tree.' })
  collapsed!: boolean;

  @Field(() => Boolean, { description: 'Shown collapsed by itself, its replies open. Always false outside a topic\'s tree.' })
  collapsedIndividual!: boolean;

  @Field(() => Boolean, { nullable: true, description: 'Written by the topic\'s author; null when hidden.' })
  isOp!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Viewer-specific: written by the viewer; null when anonymous.' })
  isMe!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Viewer-specific: posted by someone else since the viewer\'s previous visit to the topic; null when anonymous.' })
  isNew!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Viewer-specific: the viewer voted for the comment; null when anonymous.' })
  voted!: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Viewer-specific: the viewer bookmarked the comment; null when anonymous.' })
  bookmarked!: boolean | null;

  @Field(() => Int, { description: 'Nesting level in the topic\'s tree: 0 for top-level comments (and outside a tree), parent\'s depth + 1 for replies.' })
  depth!: number;

  @Field(() => [Comment], {
    description: 'Replies, in the tree\'s order (only inside a topic\'s `comments` tree; empty elsewhere).',
    complexity: ({ childComplexity }) => 1 + CHILDREN_COST_FACTOR * childComplexity,
  })
  children!: CommentNode[];
}
