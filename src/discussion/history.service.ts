/**
 * A user's history (docs/discussion-api.md §7): the mixed feed of topics and comments, and the topic-only
 * and comment-only feeds. At most six database commands per page: viewer, target user, cursor
 * item, topics, comments, the viewer's marks.
 */
import type { Actor } from '../core/actor';
import { settled } from '../core/settled';
import { DEFAULT_PAGE_SIZE } from './inputs/rules';
import { HistoryPageInput, PageInput } from './inputs/page.input';
import { validateInput } from './inputs/validate';
import type { DiscussionDeps } from './deps';
import { historyClosed } from './post-access';
import { Direction, EMPTY_PAGE_INFO, FeedAnchor, pageFromRows } from './keyset';
import type { CommentDoc, MarkDoc, TopicDoc, UserDoc } from './models';
import { formatMixedCursor, id36ToNumber, parseMixedCursor, toId36 } from './rules/id36';
import type { HistoryApi } from './services';
import type { UserService } from './user.service';
import { commentView, indexMarks, topicView, userView } from './view-builders';
import type { Viewer } from './viewer';
import type { CommentView, HistoryItem, Page, TopicView, UserHistory, UserView } from './views';

type Row = { kind: 'topic'; doc: TopicDoc } | { kind: 'comment'; doc: CommentDoc };

/** Display order of the mixed feed: created_at desc; at equal times comments first; then id desc. */
function compareRows(a: Row, b: Row): number {
  return (
    b.doc.createdAt.getTime() - a.doc.createdAt.getTime() ||
    (b.kind === 'comment' ? 1 : 0) - (a.kind === 'comment' ? 1 : 0) ||
    b.doc._id - a.doc._id
  );
}

export class HistoryService implements HistoryApi {
  constructor(
    private readonly d: DiscussionDeps,
    private readonly users: UserService,
  ) {}

  async history(actor: Actor, username: string, args: HistoryPageInput): Promise<UserHistory> {
    const input = validateInput(HistoryPageInput, args);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const before = input.before === undefined ? undefined : parseMixedCursor(input.before);
    const after = input.after === undefined ? undefined : parseMixedCursor(input.after);
    const { viewer, target, includeRemoved } = await this.access(actor, username);

    const cursor = after ?? before;
    const direction: Direction = after ? 'after' : before ? 'before' : 'first';
    let pos: FeedAnchor | undefined;
    if (cursor) {
      const anchor =
        cursor.id === null
          ? null
          : cursor.kind === 'topic'
            ? await this.d.topics.findById(cursor.id)
            : await this.d.comments.findById(cursor.id);
      if (!anchor) return { user: userView(target), page: { items: [], pageInfo: EMPTY_PAGE_INFO } };
      pos = { kind: cursor.kind, at: anchor.createdAt, id: anchor._id };
    }
    // includeRemoved: the viewer is the author or an admin, who also see the Markdown source.
    const query = {
      authorId: target._id,
      includeRemoved,
      direction,
      anchor: pos,
      take: limit + 1,
      withMarkdown: includeRemoved,
    };
    const [topics, comments] = await Promise.all([this.d.topics.byAuthor(query), this.d.comments.byAuthor(query)]);
    const rows: Row[] = [
      ...topics.map((doc) => ({ kind: 'topic' as const, doc })),
      ...comments.map((doc) => ({ kind: 'comment' as const, doc })),
    ];
    rows.sort(direction === 'before' ? (a, b) => compareRows(b, a) : compareRows);
    const page = pageFromRows(rows.slice(0, limit + 1), limit, direction, (r) => formatMixedCursor(r.kind, r.doc._id));

    const pageTopics = page.items.flatMap((r) => (r.kind === 'topic' ? [r.doc] : []));
    const pageComments = page.items.flatMap((r) => (r.kind === 'comment' ? [r.doc] : []));
    const marks = await this.marksFor(viewer, pageTopics, pageComments);
    const items: HistoryItem[] = page.items.map((r) =>
      r.kind === 'topic'
        ? { kind: 'topic', topic: this.topicItem(r.doc, viewer, marks) }
        : { kind: 'comment', comment: this.commentItem(r.doc, viewer, marks) },
    );
    return { user: userView(target), page: { items, pageInfo: page.pageInfo } };
  }

  async topics(actor: Actor, username: string, args: PageInput): Promise<{ user: UserView; page: Page<TopicView> }> {
    const { limit, cursor, direction } = this.singleArgs(args);
    const { viewer, target, includeRemoved } = await this.access(actor, username);
    let anchor: FeedAnchor | undefined;
    if (cursor) {
      const t = cursor.id === null ? null : await this.d.topics.findById(cursor.id);
      if (!t) return { user: userView(target), page: { items: [], pageInfo: EMPTY_PAGE_INFO } };
      anchor = { kind: 'topic', at: t.createdAt, id: t._id };
    }
    const take = limit + 1;
    const rows = await this.d.topics.byAuthor({ authorId: target._id, includeRemoved, direction, anchor, take });
    const page = pageFromRows(rows, limit, direction, (t) => toId36(t._id));
    const marks = await this.marksFor(viewer, page.items, []);
    return {
      user: userView(target),
      page: { items: page.items.map((t) => this.topicItem(t, viewer, marks)), pageInfo: page.pageInfo },
    };
  }

  async comments(
    actor: Actor,
    username: string,
    args: PageInput,
  ): Promise<{ user: UserView; page: Page<CommentView> }> {
    const { limit, cursor, direction } = this.singleArgs(args);
    const { viewer, target, includeRemoved } = await this.access(actor, username);
    let anchor: FeedAnchor | undefined;
    if (cursor) {
      const c = cursor.id === null ? null : await this.d.comments.findById(cursor.id);
      if (!c) return { user: userView(target), page: { items: [], pageInfo: EMPTY_PAGE_INFO } };
      anchor = { kind: 'comment', at: c.createdAt, id: c._id };
    }
    const take = limit + 1;
    const rows = await this.d.comments.byAuthor({
      authorId: target._id,
      includeRemoved,
      direction,
      anchor,
      take,
      withMarkdown: includeRemoved,
    });
    const page = pageFromRows(rows, limit, direction, (c) => toId36(c._id));
    const marks = await this.marksFor(viewer, [], page.items);
    return {
      user: userView(target),
      page: { items: page.items.map((c) => this.commentItem(c, viewer, marks)), pageInfo: page.pageInfo },
    };
  }

  private singleArgs(args: PageInput) {
    const input = validateInput(PageInput, args);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const before = input.before === undefined ? undefined : { id: id36ToNumber(input.before) };
    const after = input.after === undefined ? undefined : { id: id36ToNumber(input.after) };
    const direction: Direction = after ? 'after' : before ? 'before' : 'first';
    return { limit, cursor: after ?? before, direction };
  }

  /** 7.1: the target exists, is neither banned nor deleted, and lets this viewer read its history. */
  private async access(
    actor: Actor,
    username: string,
  ): Promise<{ viewer: Viewer | null; target: UserDoc; includeRemoved: boolean }> {
    // Both lookups at once; a token error still comes before an unknown user, as if in sequence.
    const [viewerRead, targetRead] = await Promise.allSettled([this.d.viewers.of(actor), this.users.find(username)]);
    const viewer = settled(viewerRead);
    const target = settled(targetRead);
    const closed = historyClosed(target, viewer);
    if (closed) throw closed;
    const includeRemoved = viewer !== null && (viewer.userId === target._id || viewer.isAdmin);
    return { viewer, target, includeRemoved };
  }

  private async marksFor(viewer: Viewer | null, topics: readonly TopicDoc[], comments: readonly CommentDoc[]) {
    if (!viewer || (topics.length === 0 && comments.length === 0)) return null;
    const topicIds = [...topics.map((t) => t._id), ...comments.map((c) => c.topicId)];
    return indexMarks(
      await this.d.marks.forPosts(
        viewer.userId,
        topicIds,
        comments.map((c) => c._id),
      ),
    );
  }

  private topicItem(t: TopicDoc, viewer: Viewer | null, marks: { topic: Map<number, MarkDoc> } | null): TopicView {
    return topicView(t, viewer, marks?.topic.get(t._id));
  }

  private commentItem(
    c: CommentDoc,
    viewer: Viewer | null,
    marks: { topic: Map<number, MarkDoc>; comment: Map<number, MarkDoc> } | null,
  ): CommentView {
    return commentView(c, {
      viewer,
      mark: marks?.comment.get(c._id),
      previousVisit: marks?.topic.get(c.topicId)?.visitAt ?? null,
    });
  }
}
