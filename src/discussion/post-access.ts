/**
 * Loading a topic or comment on behalf of a caller, with the visibility rules every use case
 * shares: unknown or deleted → not found; removed → not found unless the caller is its author or
 * an admin. Also keeps a topic's activity times right after comment state changes.
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import type { CommentDoc, TopicDoc, UserDoc } from './models';
import { parsePostRef } from './rules/id36';
import { PATTERN_MESSAGE } from './inputs/rules';
import { isInteresting } from './rules/labels';
import type { Caller, PostRef } from './services';
import { mayModerate, Viewer } from './viewer';

export const topicNotFound = () => new NotFoundError('Topic not found', 'TOPIC_NOT_FOUND');
export const commentNotFound = () => new NotFoundError('Comment not found', 'COMMENT_NOT_FOUND');

/**
 * The numeric id of a reference; ValidationError on `field` when malformed, null when it names
 * nothing. `field` is `id` for the post a use case acts on, the input's name where there are several.
 */
export function refToId(ref: PostRef, field: string): number | null {
  const id = parsePostRef(ref);
  if (id === undefined) throw new ValidationError([{ field, message: PATTERN_MESSAGE }]);
  return id;
}

export async function loadTopic(
  d: DiscussionDeps,
  who: Caller | Viewer | null,
  ref: PostRef,
  field = 'id',
): Promise<TopicDoc> {
  const id = refToId(ref, field);
  return visibleTopic(who, id === null ? null : await d.topics.findById(id));
}

/** The topic when `who` may see it (loadTopic's rules, for a document already read); NotFound otherwise. */
export function visibleTopic(who: Caller | Viewer | null, topic: TopicDoc | null): TopicDoc {
  if (!maySeeTopic(who, topic)) throw topicNotFound();
  return topic!;
}

/** loadTopic's rules as a test: known, not deleted, and not removed unless `who` is its author or an admin. */
export function maySeeTopic(who: Caller | Viewer | null, topic: TopicDoc | null): boolean {
  return !!topic && !topic.deleted && (!topic.removed || mayModerate(who, topic.authorId));
}

/**
 * Why `viewer` may not read `target`'s history (7.1), or null when it may: a banned user, a deleted
 * account, or a history shown only to logged-in users while the viewer is anonymous.
 */
export function historyClosed(target: UserDoc, viewer: Viewer | null): ForbiddenError | null {
  if (target.banned) return new ForbiddenError('This user is banned', 'USER_BANNED');
  if (target.deleted) return new ForbiddenError('This user has deleted their account', 'USER_DELETED');
  if (target.settings?.historyVisibility === 'logged_in' && !viewer) {
    return new ForbiddenError("This user's history is only visible to logged-in users", 'HISTORY_RESTRICTED');
  }
  return null;
}

export async function loadComment(
  d: DiscussionDeps,
  who: Caller | Viewer | null,
  ref: PostRef,
  field = 'id',
): Promise<CommentDoc> {
  const id = refToId(ref, field);
  return visibleComment(who, id === null ? null : await d.comments.findById(id));
}

/** The comment when `who` may see it (loadComment's rules, for a document already read); NotFound otherwise. */
export function visibleComment(who: Caller | Viewer | null, comment: CommentDoc | null): CommentDoc {
  if (!comment || comment.deleted) throw commentNotFound();
  if (comment.removed && !mayModerate(who, comment.authorId)) throw commentNotFound();
  return comment;
}

/** Recomputes a topic's last interesting activity from its interesting comments (5.4). */
export async function recomputeInterestingActivity(d: DiscussionDeps, topicId: number): Promise<void> {
  const topic = await d.topics.findById(topicId);
  if (!topic) return;
  const latest = await d.comments.latestInterestingAt(topicId);
  const at = latest && latest.getTime() > topic.createdAt.getTime() ? latest : topic.createdAt;
  if (at.getTime() !== topic.lastInterestingActivityAt.getTime()) {
    await d.topics.setLastInterestingActivity(topicId, at);
  }
}

/**
 * After a comment's votes, labels or state changed: stores whether it is interesting now and,
 * when that changed, recomputes its topic's last interesting activity.
 */
export async function refreshInteresting(d: DiscussionDeps, comment: CommentDoc): Promise<CommentDoc> {
  const now = isInteresting({
    deleted: comment.deleted,
    removed: comment.removed,
    labelWeights: comment.labelWeights,
    votes: comment.voteCount,
  });
  if (now === comment.interesting) return comment;
  const updated = (await d.comments.setInteresting(comment._id, now)) ?? comment;
  await recomputeInterestingActivity(d, comment.topicId);
  return updated;
}
