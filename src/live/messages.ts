/** What a subscription asks for, and what it is sent (domain views; src/graphql/subscriptions maps them). */
import type { CommentView, TopicView } from '../discussion/views';
import type { EventKind } from '../events';

export type Interest =
  /** Everything that happens in one topic. */
  | { kind: 'topic'; topicId: number }
  /** New topics of the whole site (null) or of a group and its subgroups. */
  | { kind: 'newTopics'; groupPath: string | null }
  /** New comments answering the user (replies to their comments, top-level comments on their topics). */
  | { kind: 'replies'; userId: number };

export interface LiveMessage {
  /** The event's position in the log: resuming `after` it delivers what came next. */
  cursor: string;
  kind: Exclude<EventKind, 'account.revoked'>;
  topicId: number;
  commentId: number | null;
  /** A new comment: its parent (null at top level) and depth (0 at top level); null for other kinds. */
  parentId: number | null;
  depth: number | null;
  /** The topic as the subscriber may see it now (never null: hidden topics send nothing). */
  topic: TopicView;
  /** The comment as the subscriber may see it now; null for a deletion, or a removal the subscriber may not see. */
  comment: CommentView | null;
}
