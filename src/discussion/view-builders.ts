/**
 * Documents → views for one viewer: viewer-specific fields null for anonymous callers,
 * hidden-content rules (docs/discussion-api.md §6.4) applied, derived fields (slug, site name, word count)
 * computed. Whitelists: nothing is spread from a document.
 */
import type { CommentDoc, GroupDoc, MarkDoc, TopicDoc, UserDoc } from './models';
import { isLabelActive } from './rules/labels';
import { toId36 } from './rules/id36';
import { contentMetadata, slugOf, sourceSiteName } from './rules/text';
import type { CollapseState } from './rules/comment-tree';
import { mayModerate, Viewer } from './viewer';
import type { AccountView, CommentView, GroupView, TopicView, UserView } from './views';

/** An edit counts only when made more than 5 minutes (strictly) after posting. */
export const EDIT_GRACE_MS = 5 * 60 * 1000;

export function topicView(t: TopicDoc, viewer: Viewer | null, mark: MarkDoc | undefined): TopicView {
  const isLink = t.link !== null && t.link !== undefined;
  const visitAt = mark?.visitAt ?? null;
  return {
    id: t._id,
    id36: toId36(t._id),
    title: t.title,
    markdown: !isLink && mayModerate(viewer, t.authorId) ? (t.markdown ?? '') : null,
    slug: slugOf(t.title),
    textHtml: isLink || !t.html ? null : t.html,
    url: isLink ? t.link : null,
    sourceSiteName: isLink ? sourceSiteName(t.link!) : null,
    sourceSiteIcon: null,
    groupPath: t.groupPath,
    contentMetadata: isLink ? [] : contentMetadata(t.wordCount),
    wordCount: isLink ? null : t.wordCount,
    createdAt: t.createdAt,
    editedAt: t.editedAt ?? null,
    authorId: t.authorId,
    authorUsername: t.authorUsername,
    voteCount: t.voteCount,
    commentCount: t.commentCount,
    newCommentCount: viewer && visitAt ? Math.max(t.commentCount - (mark?.visitCommentCount ?? 0), 0) : null,
    voted: viewer ? mark?.voted === true : null,
    bookmarked: viewer ? mark?.bookmarked === true : null,
    ignored: viewer ? viewer.ignoredTopicIds.has(t._id) : null,
    official: t.official,
    locked: t.locked,
    isRemoved: t.removed,
    tags: [...t.tags],
    lastVisitTime: viewer ? visitAt : null,
    lastActivityAt: t.lastActivityAt,
    lastInterestingActivityAt: t.lastInterestingActivityAt,
  };
}

export interface CommentContext {
  viewer: Viewer | null;
  mark: MarkDoc | undefined;
  /** The viewer's previous visit to the comment's topic. */
  previousVisit: Date | null;
  /** Inside a topic tree: depth, collapse state and (already built) children. */
  tree?: { depth: number; state: CollapseState; children: CommentView[] };
}

/**
 * Whether a comment is new to a viewer (4.5 `is_new`): the viewer has a previous visit to its
 * topic, it was posted after that visit, it is not deleted and not the viewer's own; null when
 * anonymous. The one rule of reads, feeds and live events (which carry the view built here).
 */
export function isNewFor(
  viewer: Viewer | null,
  c: Pick<CommentDoc, 'createdAt' | 'deleted' | 'authorId'>,
  previousVisit: Date | null,
): boolean | null {
  if (!viewer) return null;
  return (
    previousVisit !== null &&
    c.createdAt.getTime() > previousVisit.getTime() &&
    !c.deleted &&
    c.authorId !== viewer.userId
  );
}

export function commentView(c: CommentDoc, ctx: CommentContext): CommentView {
  const { viewer } = ctx;
  const hidden = c.deleted || (c.removed && !mayModerate(viewer, c.authorId));
  const state = ctx.tree?.state ?? 'none';
  return {
    id: c._id,
    id36: toId36(c._id),
    topicId: c.topicId,
    topicId36: toId36(c.topicId),
    parentId: c.parentId ?? null,
    authorUsername: hidden ? null : c.authorUsername,
    renderedHtml: hidden ? null : c.html,
    // Absent when the read left the text out (trees read for REST).
    markdown: !c.deleted && mayModerate(viewer, c.authorId) ? (c.markdown ?? null) : null,
    createdAt: c.createdAt,
    editedAt: c.editedAt ?? null,
    votes: c.voteCount,
    isRemoved: c.removed,
    isDeleted: c.deleted,
    exemplary: hidden ? null : isLabelActive('exemplary', c.labelWeights, c.voteCount),
    collapsed: state === 'full',
    collapsedIndividual: state === 'individual',
    isOp: hidden ? null : c.authorId === c.topicAuthorId,
    isMe: viewer ? c.authorId === viewer.userId : null,
    isNew: isNewFor(viewer, c, ctx.previousVisit),
    voted: viewer ? ctx.mark?.voted === true : null,
    bookmarked: viewer ? ctx.mark?.bookmarked === true : null,
    depth: ctx.tree?.depth ?? 0,
    children: ctx.tree ? ctx.tree.children : null,
  };
}

export function userView(u: UserDoc): UserView {
  return {
    id: u._id,
    username: u.username,
    createdAt: u.createdAt,
    isAdmin: u.isAdmin,
    isBanned: u.banned,
    isDeleted: u.deleted,
  };
}

export function accountView(u: UserDoc): AccountView {
  return {
    ...userView(u),
    settings: {
      historyVisibility: u.settings?.historyVisibility ?? 'everyone',
      collapseOldComments: u.settings?.collapseOldComments ?? true,
      defaultCommentOrder: u.settings?.defaultCommentOrder ?? 'relevance',
    },
  };
}

export function groupView(g: GroupDoc): GroupView {
  return { path: g._id, description: g.description ?? '', createdAt: g.createdAt };
}

/** Marks indexed by kind and post id. */
export function indexMarks(marks: readonly MarkDoc[]): { topic: Map<number, MarkDoc>; comment: Map<number, MarkDoc> } {
  const topic = new Map<number, MarkDoc>();
  const comment = new Map<number, MarkDoc>();
  for (const m of marks) (m.kind === 'topic' ? topic : comment).set(m.postId, m);
  return { topic, comment };
}
