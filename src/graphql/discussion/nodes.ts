/**
 * The plain objects the discussion's GraphQL types resolve from. Views of the services are mapped
 * once into objects whose property names are the GraphQL field names, so the hot types
 * (`simpleResolvers: true`) are served by graphql-js' default resolver without middleware; the
 * original view rides along under `view` for the few field resolvers that need it.
 */
import type { CommentView, GroupView, TopicView, UserView } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { toGlobalId } from '../node/global-id';
import { baseUrl } from './request-scope';

/** A user reference: the username is always known; the rest is loaded only when asked for. */
export interface UserNode {
  kind: 'user';
  username: string;
  /** Known for topic authors and loaded users; comment views carry only the username. */
  userId?: number;
  view?: UserView;
}

export interface GroupNode {
  kind: 'group';
  path: string;
  view?: GroupView;
}

export interface TopicNode {
  kind: 'topic';
  /** The global id (node/global-id.ts). */
  id: string;
  id36: string;
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
  viewerHasVoted: boolean | null;
  viewerHasBookmarked: boolean | null;
  viewerHasIgnored: boolean | null;
  isOfficial: boolean;
  isLocked: boolean;
  tags: string[];
  lastVisitedAt: Date | null;
  isDeleted: boolean;
  isRemoved: boolean;
  view: TopicView;
}

/**
 * A comment as a record: only values that are the same wherever the comment is read (a tree, a
 * feed, a mutation's answer, `node`). Its place in a tree lives on ThreadNode.
 */
export interface CommentNode {
  kind: 'comment';
  /** The global id (node/global-id.ts). */
  id: string;
  id36: string;
  author: UserNode | null;
  textHtml: string | null;
  createdAt: Date;
  editedAt: Date | null;
  voteCount: number;
  isRemoved: boolean;
  isDeleted: boolean;
  isExemplary: boolean | null;
  isOp: boolean | null;
  viewerIsAuthor: boolean | null;
  viewerHasVoted: boolean | null;
  viewerHasBookmarked: boolean | null;
  view: CommentView;
  /** Inside a topic tree: the topic and the parent record, so neither is loaded again. */
  topic?: TopicNode;
  parent?: CommentNode | null;
}

/** A comment at its place in one read of a topic's tree (one order, one viewer's previous visit). */
export interface ThreadNode {
  comment: CommentNode;
  depth: number;
  isCollapsed: boolean;
  isCollapsedIndividually: boolean;
  isNew: boolean | null;
  replies: ThreadNode[];
}

export function userNode(view: UserView): UserNode {
  return { kind: 'user', username: view.username, userId: view.id, view };
}

export function userRef(username: string, userId?: number): UserNode {
  return userId === undefined ? { kind: 'user', username } : { kind: 'user', username, userId };
}

export function groupNode(view: GroupView): GroupNode {
  return { kind: 'group', path: view.path, view };
}

export function topicNode(ctx: GraphQLContext, t: TopicView, deleted = false): TopicNode {
  return {
    kind: 'topic',
    id: toGlobalId('Topic', t.id36),
    id36: t.id36,
    title: t.title,
    textHtml: t.textHtml,
    url: t.url,
    commentsUrl: `${baseUrl(ctx)}/~${t.groupPath}/${t.id36}/${t.slug}`,
    sourceSiteName: t.sourceSiteName,
    sourceSiteIcon: t.sourceSiteIcon ?? null,
    group: { kind: 'group', path: t.groupPath },
    contentMetadata: t.contentMetadata,
    createdAt: t.createdAt,
    editedAt: t.editedAt,
    author: t.authorUsername ? userRef(t.authorUsername, t.authorId) : null,
    voteCount: t.voteCount,
    commentCount: t.commentCount,
    newCommentCount: t.newCommentCount,
    viewerHasVoted: t.voted,
    viewerHasBookmarked: t.bookmarked,
    viewerHasIgnored: t.ignored,
    isOfficial: t.official,
    isLocked: t.locked,
    tags: t.tags,
    lastVisitedAt: t.lastVisitTime,
    isDeleted: deleted || Boolean((t as TopicView & { isDeleted?: boolean }).isDeleted),
    isRemoved: t.isRemoved,
    view: t,
  };
}

/** A comment record (any source: tree, feed, mutation); tree-only values stay on the view. */
export function commentNode(c: CommentView): CommentNode {
  return {
    kind: 'comment',
    id: toGlobalId('Comment', c.id36),
    id36: c.id36,
    author: c.authorUsername === null ? null : userRef(c.authorUsername),
    textHtml: c.renderedHtml,
    createdAt: c.createdAt,
    editedAt: c.editedAt,
    voteCount: c.votes,
    isRemoved: c.isRemoved,
    isDeleted: c.isDeleted,
    isExemplary: c.exemplary,
    isOp: c.isOp,
    viewerIsAuthor: c.isMe,
    viewerHasVoted: c.voted,
    viewerHasBookmarked: c.bookmarked,
    view: c,
  };
}

/** A topic's comment tree as thread nodes, each comment knowing its topic and parent. */
export function threadTree(topic: TopicNode, roots: readonly CommentView[]): ThreadNode[] {
  const make = (v: CommentView, parent: CommentNode | null): ThreadNode => {
    const comment = commentNode(v);
    comment.topic = topic;
    comment.parent = parent;
    return {
      comment,
      depth: v.depth,
      isCollapsed: v.collapsed,
      isCollapsedIndividually: v.collapsedIndividual,
      isNew: v.isNew,
      replies: [],
    };
  };
  const top = roots.map((v) => make(v, null));
  // Iterative walk: a deep reply chain must not overflow the stack.
  const stack: ThreadNode[] = [...top];
  while (stack.length > 0) {
    const t = stack.pop()!;
    const children = t.comment.view.children ?? [];
    if (children.length === 0) continue;
    t.replies = children.map((v) => make(v, t.comment));
    for (const r of t.replies) stack.push(r);
  }
  return top;
}

/** Every thread below `t` (not `t` itself), in display order: depth-first, replies in the tree's order. */
export function descendantsOf(t: ThreadNode): ThreadNode[] {
  const out: ThreadNode[] = [];
  const stack: ThreadNode[] = [];
  for (let i = t.replies.length - 1; i >= 0; i--) stack.push(t.replies[i]!);
  while (stack.length > 0) {
    const n = stack.pop()!;
    out.push(n);
    for (let i = n.replies.length - 1; i >= 0; i--) stack.push(n.replies[i]!);
  }
  return out;
}
