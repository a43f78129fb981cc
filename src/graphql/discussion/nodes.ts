/**
 * The plain objects the discussion's GraphQL types resolve from. Views of the services are mapped
 * once into objects whose property names are the GraphQL field names, so the hot types
 * (`simpleResolvers: true`) are served by graphql-js' default resolver without middleware; the
 * original view rides along under `view` for the few field resolvers that need it.
 */
import type { CommentView, GroupView, TopicView, UserView } from '../../discussion/views';
import type { DiscussionServiceSet } from '../../discussion/services';
import type { GraphQLContext } from '../context';
import { memo } from './loaders';

/** The discussion services with their full contract (services.ts). */
export function discussion(ctx: GraphQLContext): DiscussionServiceSet {
  return ctx.services.discussion as unknown as DiscussionServiceSet;
}

/** A user reference: the username is always known; the rest is loaded only when asked for. */
export interface UserNode {
  username: string;
  /** Known for topic authors and loaded users; comment views carry only the username. */
  userId?: number;
  view?: UserView;
}

export interface GroupNode {
  path: string;
  view?: GroupView;
}

export interface TopicNode {
  kind: 'topic';
  id: string;
  title: string;
  textHtml: string | null;
  url: string | null;
  commentsUrl: string;
  sourceSiteName: string | null;
  sourceSiteIcon: string | null;
  group: GroupNode;
  contentMetadata: string[];
  createdAt: Date;
  editedAt: Date | null;
  author: UserNode | null;
  voteCount: number;
  commentCount: number;
  newCommentCount: number | null;
  voted: boolean | null;
  bookmarked: boolean | null;
  ignored: boolean | null;
  official: boolean;
  locked: boolean;
  tags: string[];
  lastVisitTime: Date | null;
  isDeleted: boolean;
  isRemoved: boolean;
  view: TopicView;
}

export interface CommentNode {
  kind: 'comment';
  id: string;
  topicId: string;
  parentId: string | null;
  author: UserNode | null;
  renderedHtml: string | null;
  createdAt: Date;
  editedAt: Date | null;
  votes: number;
  isRemoved: boolean;
  isDeleted: boolean;
  exemplary: boolean | null;
  collapsed: boolean;
  collapsedIndividual: boolean;
  isOp: boolean | null;
  isMe: boolean | null;
  isNew: boolean | null;
  voted: boolean | null;
  bookmarked: boolean | null;
  depth: number;
  children: CommentNode[];
  view: CommentView;
  /** Inside a topic tree: the topic and the parent node, so neither is loaded again. */
  topic?: TopicNode;
  parent?: CommentNode | null;
}

/**
 * `{base}` of absolute URLs (behaviour spec 1.4): PUBLIC_URL when configured, else the request's
 * scheme and Host (X-Forwarded-* only with TRUST_PROXY, which Fastify's request.protocol/host honour).
 */
export function baseUrl(ctx: GraphQLContext): string {
  return memo(ctx, 'baseUrl', () => {
    const configured = ctx.config.publicUrl;
    if (configured) return configured;
    const rq = ctx.request;
    return `${rq.protocol}://${rq.host}`;
  });
}

export function userNode(view: UserView): UserNode {
  return { username: view.username, userId: view.id, view };
}

export function groupNode(view: GroupView): GroupNode {
  return { path: view.path, view };
}

export function topicNode(ctx: GraphQLContext, t: TopicView, deleted = false): TopicNode {
  return {
    kind: 'topic',
    id: t.id36,
    title: t.title,
    textHtml: t.textHtml,
    url: t.url,
    commentsUrl: `${baseUrl(ctx)}/~${t.groupPath}/${t.id36}/${t.slug}`,
    sourceSiteName: t.sourceSiteName,
    sourceSiteIcon: t.sourceSiteIcon ?? null,
    group: { path: t.groupPath },
    contentMetadata: t.contentMetadata,
    createdAt: t.createdAt,
    editedAt: t.editedAt,
    author: t.authorUsername ? { username: t.authorUsername, userId: t.authorId } : null,
    voteCount: t.voteCount,
    commentCount: t.commentCount,
    newCommentCount: t.newCommentCount,
    voted: t.voted,
    bookmarked: t.bookmarked,
    ignored: t.ignored,
    official: t.official,
    locked: t.locked,
    tags: t.tags,
    lastVisitTime: t.lastVisitTime,
    isDeleted: deleted || Boolean((t as TopicView & { isDeleted?: boolean }).isDeleted),
    isRemoved: t.isRemoved,
    view: t,
  };
}

/** One comment outside a tree (feeds, mutations): no children, depth 0. */
export function commentNode(c: CommentView, depth = c.depth): CommentNode {
  return {
    kind: 'comment',
    id: c.id36,
    topicId: c.topicId36,
    parentId: c.parentId === null ? null : c.parentId.toString(36),
    author: c.authorUsername === null ? null : { username: c.authorUsername },
    renderedHtml: c.renderedHtml,
    createdAt: c.createdAt,
    editedAt: c.editedAt,
    votes: c.votes,
    isRemoved: c.isRemoved,
    isDeleted: c.isDeleted,
    exemplary: c.exemplary,
    collapsed: c.collapsed,
    collapsedIndividual: c.collapsedIndividual,
    isOp: c.isOp,
    isMe: c.isMe,
    isNew: c.isNew,
    voted: c.voted,
    bookmarked: c.bookmarked,
    depth,
    children: [],
    view: c,
  };
}

/** A topic's comment tree as nested nodes (each knowing its topic and parent) and in flat display order. */
export interface CommentTree {
  roots: CommentNode[];
  flat: CommentNode[];
}

export function commentTree(topic: TopicNode, roots: readonly CommentView[]): CommentTree {
  const flat: CommentNode[] = [];
  // Iterative pre-order walk: a deep reply chain must not overflow the stack.
  const build = (views: readonly CommentView[], parent: CommentNode | null): CommentNode[] => views.map((v) => {
    const n = commentNode(v);
    n.topic = topic;
    n.parent = parent;
    return n;
  });
  const top = build(roots, null);
  const stack: CommentNode[] = [...top].reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    flat.push(n);
    n.children = build(n.view.children ?? [], n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return { roots: top, flat };
}
