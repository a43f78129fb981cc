/**
 * What the discussion services return: plain camelCase objects shared by both front doors.
 * Viewer-specific fields are `null` for an anonymous caller and concrete values for a logged-in
 * one; hidden content (docs/discussion-api.md §6.4) is already nulled here, so a presenter or a GraphQL
 * type only renames and formats — it never decides what a viewer may see.
 */

/** The labels a user can put on a comment (docs/discussion-api.md §6.3). */
export const COMMENT_LABELS = ['exemplary', 'noise', 'offtopic', 'joke', 'malice'] as const;
export type CommentLabel = (typeof COMMENT_LABELS)[number];

/** Orders of the topic listing (`GET /topics`), in the order of docs/discussion-api.md §5.1. */
export const TOPIC_ORDERS = ['activity', 'votes', 'comments', 'new', 'all_activity'] as const;
export type TopicOrder = (typeof TOPIC_ORDERS)[number];

/** Orders of a topic's comment tree, in the order of docs/discussion-api.md §2.3's `<list>`. */
export const COMMENT_ORDERS = ['votes', 'newest', 'posted', 'relevance'] as const;
export type CommentOrder = (typeof COMMENT_ORDERS)[number];

export type HistoryVisibility = 'everyone' | 'logged_in';

export interface UserSettings {
  /** Who may read the user's history (`/user/{name}` feeds). Default 'everyone'. */
  historyVisibility: HistoryVisibility;
  /** Collapse comments already seen on a previous visit (6.5). Default true. */
  collapseOldComments: boolean;
  /** Comment order used when a request names none. Default 'relevance'. */
  defaultCommentOrder: CommentOrder;
}

/** A user as others see them. */
export interface UserView {
  id: number;
  /** As stored at registration (its letter case). */
  username: string;
  createdAt: Date;
  isAdmin: boolean;
  isBanned: boolean;
  isDeleted: boolean;
}

/** The logged-in user's own account, settings included. */
export interface AccountView extends UserView {
  settings: UserSettings;
}

export interface GroupView {
  /** `tech`, `games.tabletop` (shown as `~tech`). */
  path: string;
  description: string;
  createdAt: Date;
}

export interface TopicView {
  id: number;
  /** Base-36 form of `id` (lowercase). */
  id36: string;
  title: string;
  /**
   * The stored Markdown source of a text topic, for the viewer who may edit or moderate it: its
   * author and admins. null for everyone else (anonymous included) and for link topics (whose
   * text is not shown, like `textHtml`). Never part of REST output.
   */
  markdown: string | null;
  /** URL path segment derived from the title (4.2), already percent-encoded; may be ''. */
  slug: string;
  /** Rendered Markdown; null for link topics and for text topics without text. */
  textHtml: string | null;
  /** The link of a link topic; null for text topics. */
  url: string | null;
  /** Link topics: the site name (4.3); text topics: null. */
  sourceSiteName: string | null;
  /** Always null (no icons are served). */
  sourceSiteIcon: null;
  /** Group path without the `~`. */
  groupPath: string;
  /** `["N words"]` for text topics with words, else []. */
  contentMetadata: string[];
  /** Words in the rendered text; null for link topics. */
  wordCount: number | null;
  createdAt: Date;
  /** Last edit made more than 5 minutes after createdAt; null if none. */
  editedAt: Date | null;
  authorId: number;
  authorUsername: string;
  voteCount: number;
  /** Comments neither deleted nor removed. */
  commentCount: number;
  /** Viewer-specific: comments since the viewer's previous visit; null without a visit (or anonymous). */
  newCommentCount: number | null;
  voted: boolean | null;
  bookmarked: boolean | null;
  ignored: boolean | null;
  official: boolean;
  locked: boolean;
  /** Only ever true for the author or an admin (others get not-found). */
  isRemoved: boolean;
  /** Lowercase, words separated by spaces, hierarchy by '.'. */
  tags: string[];
  /** Viewer-specific: the viewer's previous visit; null without one (or anonymous). */
  lastVisitTime: Date | null;
  lastActivityAt: Date;
  lastInterestingActivityAt: Date;
}

export interface CommentView {
  id: number;
  id36: string;
  topicId: number;
  topicId36: string;
  parentId: number | null;
  /** null when hidden (6.4). */
  authorUsername: string | null;
  renderedHtml: string | null;
  /**
   * The stored Markdown source, for the comment's author and admins only; null for everyone else,
   * for deleted comments (their text is erased), and in a topic tree read with
   * `TopicReadArgs.markdown: false`. Never part of REST output.
   */
  markdown: string | null;
  createdAt: Date;
  editedAt: Date | null;
  votes: number;
  isRemoved: boolean;
  isDeleted: boolean;
  /** Active exemplary label; null when hidden. */
  exemplary: boolean | null;
  /** Collapse state (6.5); both false outside a topic tree. */
  collapsed: boolean;
  collapsedIndividual: boolean;
  /** Comment author = topic author; null when hidden. */
  isOp: boolean | null;
  /** Viewer-specific. */
  isMe: boolean | null;
  isNew: boolean | null;
  voted: boolean | null;
  bookmarked: boolean | null;
  /** 0 for top-level comments and in feeds; a just-posted comment's is its place in its tree. */
  depth: number;
  /** Ordered replies inside a topic tree; null outside one (feeds). */
  children: CommentView[] | null;
}

/** Where a page sits in its sequence (docs/discussion-api.md §5.6 decides when each is true). */
export interface PageInfo {
  hasNext: boolean;
  hasPrev: boolean;
  /** Cursor of the first / last item (`after=` / `before=` value), null on an empty page. */
  firstCursor: string | null;
  lastCursor: string | null;
}

export interface Page<T> {
  items: T[];
  pageInfo: PageInfo;
}

export type HistoryItem = { kind: 'topic'; topic: TopicView } | { kind: 'comment'; comment: CommentView };

export interface TopicWithComments {
  topic: TopicView;
  /** Top-level comments, replies nested in `children`, pruned, ordered and collapsed. */
  comments: CommentView[];
}

export interface UserHistory {
  user: UserView;
  page: Page<HistoryItem>;
}

export interface TokenResult {
  token: string;
  /** Unix seconds. */
  expiresAt: number;
  user: UserView;
}
