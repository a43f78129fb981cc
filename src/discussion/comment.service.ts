/**
 * Comments: post (top level or a reply at any depth), edit and delete (author), remove and
 * restore (admin). Each state change is one atomic update on the comment that reports the state
 * before it, so the topic's comment_count moves exactly once per real transition.
 */
import type { Actor } from '../core/actor';
import { ForbiddenError } from '../core/errors';
import { settled } from '../core/settled';
import type { DiscussionDeps } from './deps';
import type { CommentDoc } from './models';
import {
  commentNotFound,
  historyClosed,
  loadComment,
  loadTopic,
  maySeeTopic,
  recomputeInterestingActivity,
} from './post-access';
import { isInteresting } from './rules/labels';
import { newCommentDocument } from './new-documents';
import { renderMarkdown } from './rules/markdown';
import { recordCommentChange, recordCommentPosted } from './live-events';
import type { Caller, CommentApi, PostRef } from './services';
import { commentView, EDIT_GRACE_MS, indexMarks } from './view-builders';
import { mayModerate, requireAdmin, Viewer } from './viewer';
import type { CommentView } from './views';
import { CommentTextInput, PostCommentInput } from './inputs/comment.input';
import { validateInput } from './inputs/validate';
import { countWrite } from './write-limits';

const topicLocked = () => new ForbiddenError('This topic is locked', 'TOPIC_LOCKED');

export class CommentService implements CommentApi {
  constructor(private readonly d: DiscussionDeps) {}

  async post(actor: Actor, input: PostCommentInput): Promise<CommentView> {
    const viewer = await this.d.viewers.require(actor);
    const { markdown } = validateInput(PostCommentInput, input);
    await countWrite(this.d, viewer, 'comment');
    const parentRef = input.parentId ?? null;
    // The new comment's id is drawn while its topic and parent are read, not after: one round trip
    // fewer per post. A post those reads refuse leaves its number unused (ids are unique and
    // increasing, not gapless). The refusals keep their order: the topic's first, then the parent's.
    const drawnId = this.d.comments.drawId();
    drawnId.catch(() => {}); // awaited by the insert, or before a refusal is answered
    try {
      return await this.postWithId(viewer, input, markdown, parentRef, drawnId);
    } catch (err) {
      // A refused post answers once its number is used up, so it leaves no command of its own in
      // flight: a post sent after the refusal's answer draws a later number.
      await drawnId.catch(() => {});
      throw err;
    }
  }

  private async postWithId(
    viewer: Viewer,
    input: PostCommentInput,
    markdown: string,
    parentRef: PostRef | null,
    drawnId: Promise<number>,
  ): Promise<CommentView> {
    const [topicRead, parentRead] = await Promise.allSettled([
      loadTopic(this.d, viewer, input.topicId, 'topicId'),
      parentRef === null ? null : loadComment(this.d, viewer, parentRef, 'parentId'),
    ]);
    const topic = settled(topicRead);
    if (topic.locked && !viewer.isAdmin) throw topicLocked();
    const parent = settled(parentRead);
    if (parent) {
      if (parent.topicId !== topic._id) throw commentNotFound();
      if (parent.removed && !viewer.isAdmin)
        throw new ForbiddenError('That comment has been removed', 'COMMENT_REMOVED');
    }
    const parentId = parent?._id ?? null;
    const depth = parent ? (await this.d.comments.depthOf(parent)) + 1 : 0;
    const now = this.d.clock.now();
    const doc = await this.d.comments.insertNew(
      newCommentDocument(
        {
          topic: { id: topic._id, authorId: topic.authorId },
          parentId,
          author: { id: viewer.userId, username: viewer.username },
          markdown,
          depth,
        },
        now,
      ),
      {
        drawnId,
        alongside: () => this.d.topics.commentPosted(topic._id, now),
        announce: (inserted, written) => recordCommentPosted(this.d, inserted, topic, parent, written),
      },
    );
    // Its place in the tree, which the poster's client needs to show it there (views.ts CommentView.depth).
    return { ...commentView(doc, { viewer, mark: undefined, previousVisit: null }), depth };
  }

  async edit(actor: Actor, ref: PostRef, markdown: string): Promise<CommentView> {
    const viewer = await this.d.viewers.require(actor);
    const text = validateInput(CommentTextInput, { markdown }).markdown;
    const comment = await loadComment(this.d, viewer, ref);
    if (comment.authorId !== viewer.userId)
      throw new ForbiddenError('Only the author can edit this comment', 'NOT_AUTHOR');
    if (comment.removed) throw new ForbiddenError('That comment has been removed', 'COMMENT_REMOVED');
    const topic = await this.d.topics.findById(comment.topicId);
    if (topic?.locked && !viewer.isAdmin) throw topicLocked();
    const now = this.d.clock.now();
    const edited = now.getTime() - comment.createdAt.getTime() > EDIT_GRACE_MS;
    const changes = { markdown: text, html: renderMarkdown(text), ...(edited ? { editedAt: now } : {}) };
    const updated = await this.d.comments.editText(comment._id, changes);
    if (!updated) throw commentNotFound();
    await this.d.topics.commentChanged(comment.topicId, now);
    await recordCommentChange(this.d, 'comment.edited', updated);
    return this.view(updated, viewer);
  }

  /** The author deletes: text erased, a placeholder stays while replies exist. */
  async delete(actor: Actor, ref: PostRef): Promise<void> {
    const viewer = await this.d.viewers.require(actor);
    const comment = await loadComment(this.d, viewer, ref);
    if (comment.authorId !== viewer.userId)
      throw new ForbiddenError('Only the author can delete this comment', 'NOT_AUTHOR');
    const before = await this.d.comments.markDeleted(comment._id);
    if (!before) return;
    await this.afterStateChange(before, { wasCounted: !before.removed, nowCounted: false });
    await recordCommentChange(this.d, 'comment.deleted', before);
  }

  async remove(caller: Caller, ref: PostRef): Promise<CommentView> {
    requireAdmin(caller);
    const comment = await loadComment(this.d, caller, ref);
    const before = await this.d.comments.markRemoved(comment._id);
    if (before) await this.afterStateChange(before, { wasCounted: !before.deleted, nowCounted: false });
    if (before) await recordCommentChange(this.d, 'comment.removed', before);
    return this.viewFor(caller, comment._id);
  }

  async restore(caller: Caller, ref: PostRef): Promise<CommentView> {
    requireAdmin(caller);
    const comment = await loadComment(this.d, caller, ref);
    const interesting = isInteresting({
      deleted: comment.deleted,
      removed: false,
      labelWeights: comment.labelWeights,
      votes: comment.voteCount,
    });
    const before = await this.d.comments.markRestored(comment._id, interesting);
    if (before) await this.afterStateChange(before, { wasCounted: false, nowCounted: !before.deleted });
    if (before) await recordCommentChange(this.d, 'comment.restored', before);
    return this.viewFor(caller, comment._id);
  }

  /** Keeps the topic's count and activity times right after a delete/remove/restore. */
  private async afterStateChange(before: CommentDoc, t: { wasCounted: boolean; nowCounted: boolean }): Promise<void> {
    const now = this.d.clock.now();
    const delta = (t.nowCounted ? 1 : 0) - (t.wasCounted ? 1 : 0);
    await this.d.topics.commentChanged(before.topicId, now, delta);
    await recomputeInterestingActivity(this.d, before.topicId);
  }

  async get(actor: Actor, ref: PostRef): Promise<CommentView> {
    const viewer = await this.d.viewers.of(actor);
    const comment = await loadComment(this.d, viewer, ref);
    return this.view(comment, viewer);
  }

  async findByIds(actor: Actor, ids: readonly number[]): Promise<(CommentView | null)[]> {
    return this.viewsByIds(actor, ids, false);
  }

  async findByIdsAsShown(actor: Actor, ids: readonly number[]): Promise<(CommentView | null)[]> {
    return this.viewsByIds(actor, ids, true);
  }

  /** Feed-shape views; hidden comments are left out, or (placeholders) shown where the actor may see them. */
  private async viewsByIds(
    actor: Actor,
    ids: readonly number[],
    placeholders: boolean,
  ): Promise<(CommentView | null)[]> {
    const viewer = await this.d.viewers.of(actor);
    const found = await this.d.comments.findByIds(ids);
    const docs = placeholders
      ? await this.seenAnywhere(viewer, found)
      : found.filter((c) => !c.deleted && (!c.removed || mayModerate(viewer, c.authorId)));
    const marks =
      viewer && docs.length > 0
        ? indexMarks(
            await this.d.marks.forPosts(
              viewer.userId,
              docs.map((c) => c.topicId),
              docs.map((c) => c._id),
            ),
          )
        : null;
    const byId = new Map(
      docs.map((c) => [
        c._id,
        commentView(c, {
          viewer,
          mark: marks?.comment.get(c._id),
          previousVisit: marks?.topic.get(c.topicId)?.visitAt ?? null,
        }),
      ]),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * The comments `viewer` sees somewhere: those of a topic it may see (its tree shows them all, some
   * as placeholders), and those its authors' histories show it although their topic is hidden
   * (7.3: a comment appears there whatever its topic's state; never deleted, removed only to its
   * author and admins, and only while that history is open to the viewer, 7.1).
   */
  private async seenAnywhere(viewer: Viewer | null, found: readonly CommentDoc[]): Promise<CommentDoc[]> {
    if (found.length === 0) return [];
    const topicIds = [...new Set(found.map((c) => c.topicId))];
    const topics = new Map((await this.d.topics.findByIds(topicIds)).map((t) => [t._id, t]));
    const inTree = (c: CommentDoc) => maySeeTopic(viewer, topics.get(c.topicId) ?? null);
    const elsewhere = found.filter((c) => !inTree(c) && !c.deleted && (!c.removed || mayModerate(viewer, c.authorId)));
    if (elsewhere.length === 0) return found.filter(inTree);
    const authorIds = [...new Set(elsewhere.map((c) => c.authorId))];
    const authors = new Map((await this.d.users.findByIds(authorIds)).map((u) => [u._id, u]));
    const inHistory = new Set(
      elsewhere.filter((c) => {
        const author = authors.get(c.authorId);
        return author !== undefined && historyClosed(author, viewer) === null;
      }),
    );
    return found.filter((c) => inTree(c) || inHistory.has(c));
  }

  private async viewFor(caller: Caller, id: number): Promise<CommentView> {
    const comment = await this.d.comments.findById(id);
    if (!comment) throw commentNotFound();
    const viewer = caller.kind === 'user' ? await this.d.viewers.of(caller) : null;
    return this.view(comment, viewer);
  }

  /** A comment in feed shape for one viewer. */
  async view(comment: CommentDoc, viewer: Viewer | null): Promise<CommentView> {
    if (!viewer) return commentView(comment, { viewer: null, mark: undefined, previousVisit: null });
    const marks = indexMarks(await this.d.marks.forPosts(viewer.userId, [comment.topicId], [comment._id]));
    return commentView(comment, {
      viewer,
      mark: marks.comment.get(comment._id),
      previousVisit: marks.topic.get(comment.topicId)?.visitAt ?? null,
    });
  }
}
