/**
 * The events log's vocabulary: what the domain services record when they change something that a
 * live subscriber may see. Plain data only: nothing here knows about GraphQL or WebSockets.
 */

export type EventKind =
  | 'topic.posted'
  | 'topic.voted'
  | 'comment.posted'
  | 'comment.edited'
  | 'comment.deleted'
  | 'comment.removed'
  | 'comment.restored'
  | 'comment.voted'
  /** Every token of a user stopped working (log out everywhere, password change, ban, deletion). */
  | 'account.revoked';

/** What a service records. Ids are the numeric ids; the feed gives each event its sequence number. */
export interface EventInput {
  kind: EventKind;
  topicId?: number;
  commentId?: number;
  /** A new comment: the comment it answers (null at top level) and its depth in the tree (0 at top level). */
  parentId?: number | null;
  depth?: number;
  /** The group of a new topic (subscribers of a group and its subgroups match on it). */
  groupPath?: string;
  /** Who wrote the post the event is about. */
  authorId?: number;
  /**
   * A new comment: the user it answers (the parent comment's author, or the topic's author for a
   * top-level comment), unless that is its own author.
   */
  replyToUserId?: number | null;
  /** account.revoked: whose tokens. */
  userId?: number;
}

/** A recorded event: its position in the log (`seq`, the subscribers' cursor) and when it was written. */
export interface LiveEvent extends EventInput {
  seq: number;
  at: Date;
}

/**
 * What the domain services are given: one call per change, made in the same service call as the
 * change, after it (or beside its last writes, handed over as `after`) and before its answer.
 * An event is written once its change is done, those waiting together in one batch, and takes its
 * number then (event-writer.ts); `record` resolves once its event is written, `flushed()` once
 * everything recorded before it is.
 */
export interface EventRecorder {
  /** `after`: the change's writes still running; the event is written once they are done (event-writer.ts). */
  record(event: EventInput, after?: Promise<unknown>): Promise<void>;
  flushed(): Promise<void>;
}
