/** Relay connections (edges { cursor node }, pageInfo) of topics, comments, threads and the mixed history. */
import { Field, ObjectType } from 'type-graphql';
import { Comment, CommentThread } from './comment.type';
import { HistoryItem } from './history.type';
import type { CommentNode, ThreadNode, TopicNode } from './nodes';
import { Topic } from './topic.type';

@ObjectType('PageInfo', {
  simpleResolvers: true,
  description: 'Where a page sits in its sequence (the REST `next_link`/`prev_link` rules).',
})
export class PageInfo {
  @Field(() => Boolean, { description: 'More items follow: pass `endCursor` as `after` (REST `next_link` is set).' })
  hasNextPage!: boolean;

  @Field(() => Boolean, {
    description: 'Items precede this page: pass `startCursor` as `before` (REST `prev_link` is set).',
  })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first item; null on an empty page.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last item; null on an empty page.' })
  endCursor!: string | null;
}

@ObjectType('TopicEdge', { simpleResolvers: true, description: 'A topic in a connection.' })
export class TopicEdge {
  @Field(() => String, { description: "The topic's cursor: its id36 (the REST `after`/`before` value)." })
  cursor!: string;

  @Field(() => Topic, { description: 'The topic.' })
  node!: TopicNode;
}

@ObjectType('TopicConnection', { simpleResolvers: true, description: 'A page of topics.' })
export class TopicConnection {
  @Field(() => [TopicEdge], { description: 'The topics of this page, each with its cursor.' })
  edges!: { cursor: string; node: TopicNode }[];

  @Field(() => [Topic], {
    description: "The topics of this page (the edges' nodes, for clients that need no cursors).",
  })
  nodes!: TopicNode[];

  @Field(() => PageInfo, { description: 'Cursors and whether more pages exist.' })
  pageInfo!: PageInfo;
}

@ObjectType('CommentEdge', { simpleResolvers: true, description: 'A comment in a connection.' })
export class CommentEdge {
  @Field(() => String, { description: "The comment's cursor: its id36 (the REST `after`/`before` value)." })
  cursor!: string;

  @Field(() => Comment, { description: 'The comment.' })
  node!: CommentNode;
}

@ObjectType('CommentConnection', { simpleResolvers: true, description: 'A page of comments.' })
export class CommentConnection {
  @Field(() => [CommentEdge], { description: 'The comments of this page, each with its cursor.' })
  edges!: { cursor: string; node: CommentNode }[];

  @Field(() => [Comment], { description: "The comments of this page (the edges' nodes)." })
  nodes!: CommentNode[];

  @Field(() => PageInfo, { description: 'Cursors and whether more pages exist.' })
  pageInfo!: PageInfo;
}

@ObjectType('HistoryEdge', { simpleResolvers: true, description: "A topic or a comment in a user's history." })
export class HistoryEdge {
  @Field(() => String, {
    description: "The item's cursor: `t-<id36>` for a topic, `c-<id36>` for a comment (the REST values).",
  })
  cursor!: string;

  @Field(() => HistoryItem, { description: 'The topic or comment.' })
  node!: TopicNode | CommentNode;
}

@ObjectType('HistoryConnection', {
  simpleResolvers: true,
  description: "A page of a user's history: topics and comments, newest first.",
})
export class HistoryConnection {
  @Field(() => [HistoryEdge], { description: 'The items of this page, each with its cursor.' })
  edges!: { cursor: string; node: TopicNode | CommentNode }[];

  @Field(() => [HistoryItem], { description: "The items of this page (the edges' nodes)." })
  nodes!: (TopicNode | CommentNode)[];

  @Field(() => PageInfo, { description: 'Cursors and whether more pages exist.' })
  pageInfo!: PageInfo;
}

@ObjectType('CommentThreadEdge', {
  simpleResolvers: true,
  description: 'A top-level comment of a topic, with its replies.',
})
export class CommentThreadEdge {
  @Field(() => String, {
    description: "The cursor: the top-level comment's id36 (pass it as `after`/`before` in the same order).",
  })
  cursor!: string;

  @Field(() => CommentThread, { description: 'The top-level comment at its place, its replies below it.' })
  node!: ThreadNode;
}

@ObjectType('CommentThreadConnection', {
  simpleResolvers: true,
  description: "A page of a topic's top-level comments, each with all its replies.",
})
export class CommentThreadConnection {
  @Field(() => [CommentThreadEdge], { description: 'The threads of this page, each with its cursor.' })
  edges!: { cursor: string; node: ThreadNode }[];

  @Field(() => [CommentThread], { description: "The threads of this page (the edges' nodes)." })
  nodes!: ThreadNode[];

  @Field(() => PageInfo, { description: 'Cursors and whether more pages exist.' })
  pageInfo!: PageInfo;
}
