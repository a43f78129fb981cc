/**
 * What the discussion services record in the live events log (src/events), one call per change,
 * made by the service that makes it, after the change and before its answer (or beside the change's
 * last writes, given as `after`: the event is written once they are done, and takes its number then);
 * events waiting together go in one batch (src/events/event-writer.ts). Only facts the subscriber
 * side cannot read back later are recorded (a new comment's depth and whom it answers); what a
 * viewer may see of a post is decided at delivery by this domain's own read services, as for any
 * query.
 */
import type { DiscussionDeps } from './deps';
import type { CommentDoc, TopicDoc } from './models';

type CommentChange = 'comment.edited' | 'comment.deleted' | 'comment.removed' | 'comment.restored' | 'comment.voted';

/** A new comment: its place in the tree and whom it answers (`parent`: its parent, as the post loaded it). */
export function recordCommentPosted(
  d: DiscussionDeps,
  c: CommentDoc,
  topic: Pick<TopicDoc, 'authorId' | 'groupPath'>,
  parent: CommentDoc | null,
  after?: Promise<unknown>,
): Promise<void> {
  const replyTo = c.parentId === null ? topic.authorId : (parent?.authorId ?? null);
  return d.events.record(
    {
      kind: 'comment.posted',
      topicId: c.topicId,
      commentId: c._id,
      parentId: c.parentId,
      // Written on the comment by its post (CommentDoc.depth).
      depth: c.depth ?? 0,
      groupPath: topic.groupPath,
      authorId: c.authorId,
      replyToUserId: replyTo === c.authorId ? null : replyTo,
    },
    after,
  );
}

export function recordCommentChange(
  d: DiscussionDeps,
  kind: CommentChange,
  c: Pick<CommentDoc, '_id' | 'topicId' | 'authorId'>,
  after?: Promise<unknown>,
): Promise<void> {
  return d.events.record({ kind, topicId: c.topicId, commentId: c._id, authorId: c.authorId }, after);
}

export function recordTopicPosted(
  d: DiscussionDeps,
  t: Pick<TopicDoc, '_id' | 'groupPath' | 'authorId'>,
): Promise<void> {
  return d.events.record({ kind: 'topic.posted', topicId: t._id, groupPath: t.groupPath, authorId: t.authorId });
}

export function recordTopicVoted(
  d: DiscussionDeps,
  t: Pick<TopicDoc, '_id' | 'authorId'>,
  after?: Promise<unknown>,
): Promise<void> {
  return d.events.record({ kind: 'topic.voted', topicId: t._id, authorId: t.authorId }, after);
}

/** Every token of the user stopped working: each instance ends that user's subscriptions. */
export function recordAccountRevoked(d: DiscussionDeps, userId: number): Promise<void> {
  return d.events.record({ kind: 'account.revoked', userId });
}
