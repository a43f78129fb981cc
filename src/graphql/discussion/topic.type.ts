import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type';
import { DateTimeScalar } from './scalars';
import { Group } from './group.type';
import { User } from './user.type';
import type { GroupNode, UserNode } from './nodes';

/**
 * A topic. Plain fields come straight from the mapped node (simpleResolvers: no middleware per
 * field); `markdown` and `threads` are resolved in topic.resolver.ts.
 */
@ObjectType('Topic', {
  implements: Node,
  simpleResolvers: true,
  description: 'A topic: a text post or a link, posted in a group, with a tree of comments.',
})
export class Topic {
  @Field(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the topic again.',
  })
  id!: string;

  @Field(() => String, {
    description:
      "The topic's REST id (base-36), as in `/api/beta` URLs and cursors; arguments naming a topic accept it too.",
  })
  id36!: string;

  @Field(() => String, { description: 'The title.' })
  title!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The text rendered from Markdown to HTML; null for link topics and text topics without text.',
  })
  textHtml!: string | null;

  @Field(() => String, { nullable: true, description: 'The link of a link topic; null for text topics.' })
  url!: string | null;

  @Field(() => String, { description: "Absolute URL of the topic's page: `{base}/~{group}/{id}/{slug}`." })
  commentsUrl!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Link topics: the name of the linked site (`YouTube`, or the host); text topics: null.',
  })
  sourceSiteName!: string | null;

  @Field(() => String, { nullable: true, description: 'Icon of the linked site; always null (no icons are served).' })
  sourceSiteIcon!: string | null;

  @Field(() => Group, { description: 'The group the topic is posted in.' })
  group!: GroupNode;

  @Field(() => [String], {
    description: 'Facts about the content: `["N words"]` for text topics with words, else empty.',
  })
  contentMetadata!: string[];

  @Field(() => DateTimeScalar, { description: 'When the topic was posted.' })
  createdAt!: Date;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'The last edit made more than 5 minutes after posting; null if none.',
  })
  editedAt!: Date | null;

  @Field(() => User, { nullable: true, description: 'Who posted the topic.' })
  author!: UserNode | null;

  @Field(() => Int, { description: 'Number of votes.' })
  voteCount!: number;

  @Field(() => Int, { description: 'Number of comments that are neither deleted nor removed.' })
  commentCount!: number;

  @Field(() => Int, {
    nullable: true,
    description:
      "Viewer-specific: comments added since the viewer's previous visit; null without a visit or when anonymous.",
  })
  newCommentCount!: number | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Viewer-specific: the viewer voted for the topic; null when anonymous.',
  })
  viewerHasVoted!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Viewer-specific: the viewer bookmarked the topic; null when anonymous.',
  })
  viewerHasBookmarked!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'Viewer-specific: the viewer ignores the topic (ignored topics are left out of the listing); null ' +
      'when anonymous.',
  })
  viewerHasIgnored!: boolean | null;

  @Field(() => Boolean, { description: 'Marked official by an admin.' })
  isOfficial!: boolean;

  @Field(() => Boolean, { description: 'Locked by an admin: no new comments or edits (admins excepted).' })
  isLocked!: boolean;

  @Field(() => [String], {
    description: 'Tags in entry order: lowercase, words separated by spaces, hierarchy by `.` (`ask.survey`).',
  })
  tags!: string[];

  @Field(() => DateTimeScalar, {
    nullable: true,
    description:
      "Viewer-specific: the viewer's previous visit to the topic (recorded by `visitTopic` and by REST " +
      'reads); null without one or when anonymous.',
  })
  lastVisitedAt!: Date | null;

  @Field(() => Boolean, {
    description: 'Deleted by its author (only ever true in the answer of `deleteTopic`: deleted topics are not found).',
  })
  isDeleted!: boolean;

  @Field(() => Boolean, { description: 'Removed by an admin (only its author and admins still see it).' })
  isRemoved!: boolean;
}
