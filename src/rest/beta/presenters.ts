/**
 * /api/beta presenters: explicit whitelists that rename the domain's views to the API's field
 * names, in the order of its field tables (docs/discussion-api.md §4), and format timestamps (1.3).
 */
import type { CommentView, PageInfo, TopicView } from '../../discussion/views';
import { isoTime } from '../../core/iso-time';
import { pageLink } from './request';

const iso = (d: Date | null): string | null => (d ? isoTime(d) : null);

export function presentTopic(t: TopicView, base: string) {
  return {
    id: t.id36,
    title: t.title,
    text_html: t.textHtml,
    url: t.url,
    comments_url: `${base}/~${t.groupPath}/${t.id36}/${t.slug}`,
    source_site_name: t.sourceSiteName,
    source_site_icon: t.sourceSiteIcon,
    group: `~${t.groupPath}`,
    content_metadata: t.contentMetadata,
    created_at: iso(t.createdAt),
    edited_at: iso(t.editedAt),
    posted_by_user: t.authorUsername,
    vote_count: t.voteCount,
    comment_count: t.commentCount,
    new_comment_count: t.newCommentCount,
    voted: t.voted,
    bookmarked: t.bookmarked,
    ignored: t.ignored,
    official: t.official,
    tags: t.tags,
    last_visit_time: iso(t.lastVisitTime),
  };
}

type PresentedComment = ReturnType<typeof presentCommentFields> & { children?: PresentedComment[] };

export function presentCommentFields(c: CommentView) {
  return {
    id: c.id36,
    topic_id: c.topicId36,
    author: c.authorUsername,
    rendered_html: c.renderedHtml,
    created_at: iso(c.createdAt),
    edited_at: iso(c.editedAt),
    votes: c.votes,
    is_removed: c.isRemoved,
    is_deleted: c.isDeleted,
    exemplary: c.exemplary,
    collapsed: c.collapsed,
    collapsed_individual: c.collapsedIndividual,
    is_op: c.isOp,
    is_me: c.isMe,
    is_new: c.isNew,
    voted: c.voted,
    bookmarked: c.bookmarked,
    depth: c.depth,
  };
}

/** A comment outside a tree (feeds): depth 0, not collapsed, no `children` key. */
export function presentFeedComment(c: CommentView): PresentedComment {
  return { ...presentCommentFields(c), depth: 0, collapsed: false, collapsed_individual: false };
}

/**
 * The JSON text of a topic's comment tree (each comment's fields, then `children` at every level),
 * produced directly: each comment's own fields go
 * through the native JSON.stringify (flat, so no recursion), `children` are spliced in from an
 * explicit stack. Same text as serializing the presented tree, without building it and without a
 * generic walk over every key (bench/comment-tree.js and bench/api.js time the 5,000-comment tree).
 */
export function presentCommentTreeJson(roots: readonly CommentView[]): string {
  const out: string[] = ['['];
  const stack: { list: readonly CommentView[]; i: number }[] = [{ list: roots, i: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.list.length) {
      stack.pop();
      // Closes a children array, and the comment that holds it (the top-level list has none).
      out.push(stack.length > 0 ? ']}' : ']');
      continue;
    }
    const view = top.list[top.i++]!;
    if (top.i > 1) out.push(',');
    const own = JSON.stringify(presentCommentFields(view));
    out.push(own.slice(0, -1), ',"children":[');
    stack.push({ list: view.children ?? [], i: 0 });
  }
  return out.join('');
}

/** `pagination` (4.6, 5.6): links only when the page says a neighbour exists. */
export function presentPagination(
  count: number,
  info: PageInfo,
  endpoint: string,
  given: [string, string | undefined][],
) {
  return {
    num_items: count,
    next_link: info.hasNext && info.lastCursor ? pageLink(endpoint, given, ['after', info.lastCursor]) : null,
    prev_link: info.hasPrev && info.firstCursor ? pageLink(endpoint, given, ['before', info.firstCursor]) : null,
  };
}
