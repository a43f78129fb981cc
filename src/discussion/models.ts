/**
 * The discussion domain's MongoDB documents and indexes. Only repositories use these models.
 *
 * Denormalized on purpose (FerretDB has no $lookup, and every listing must stay within a fixed
 * number of round trips): topics carry their author's username and group path; comments carry
 * their topic's author id (for `is_op`) and their label weight sums; a user's ignored topics live
 * on the user document, which token verification loads anyway.
 */
import { Schema } from 'mongoose';
import { retireIndexes, type Database } from '../db/connection';
import type { CommentOrder, HistoryVisibility } from './views';
import type { LabelWeights } from './rules/labels';

export interface CounterDoc {
  _id: string;
  seq: number;
}

export interface UserDoc {
  _id: number;
  username: string;
  /** Unique key: usernames are unique case-insensitively. */
  usernameLower: string;
  /** `scrypt$N$r$p$salt$hash` (base64). */
  passwordHash: string;
  isAdmin: boolean;
  banned: boolean;
  deleted: boolean;
  /** Incremented by "log out everywhere" and password changes; tokens carry it as `tv`. */
  tokenVersion: number;
  settings: {
    historyVisibility: HistoryVisibility;
    collapseOldComments: boolean;
    defaultCommentOrder: CommentOrder;
  };
  ignoredTopicIds: number[];
  createdAt: Date;
}

export interface GroupDoc {
  /** The path, e.g. `games.tabletop`. */
  _id: string;
  description: string;
  createdAt: Date;
}

export interface TopicDoc {
  _id: number;
  groupPath: string;
  authorId: number;
  authorUsername: string;
  title: string;
  markdown: string;
  html: string;
  link: string | null;
  wordCount: number;
  tags: string[];
  /** Every contiguous label run of every tag (tags.ts), for the `tag=` filter. */
  tagKeys: string[];
  createdAt: Date;
  editedAt: Date | null;
  voteCount: number;
  commentCount: number;
  /**
   * Comments posted here since the field exists (absent: none): it only rises, by one per post, in
   * the post's own `$inc`. Half of the comment cache's key (CommentRepository.forTopic); the comment
   * count cannot be, since a delete or removal lowers it again.
   */
  commentPosts?: number;
  lastActivityAt: Date;
  lastInterestingActivityAt: Date;
  official: boolean;
  locked: boolean;
  deleted: boolean;
  removed: boolean;
  /** !deleted && !removed, kept in the same atomic update: the listing's index prefix. */
  listed: boolean;
}

export interface CommentDoc {
  _id: number;
  topicId: number;
  parentId: number | null;
  authorId: number;
  authorUsername: string;
  topicAuthorId: number;
  markdown: string;
  html: string;
  createdAt: Date;
  editedAt: Date | null;
  voteCount: number;
  deleted: boolean;
  removed: boolean;
  labelWeights: LabelWeights;
  /** Counts towards the topic's last interesting activity (labels.ts isInteresting). */
  interesting: boolean;
  /**
   * How many ancestors it has (0 at top level). A comment never moves, so this is written once, at
   * its post, from its parent's; comments posted before it was stored have none
   * (CommentRepository.depthOf reads their place from the topic's parent links).
   */
  depth?: number;
}

export type MarkKind = 'topic' | 'comment';

/**
 * One user's relation to one post: vote, bookmark and (topics) the latest visit. One document per
 * (user, post) under a unique index, so "one vote per user per post" is a single atomic update,
 * and a page's viewer-specific fields come from one query.
 */
export interface MarkDoc {
  userId: number;
  kind: MarkKind;
  postId: number;
  /** The topic of the post (itself for topics): a topic page reads all its marks at once. */
  topicId: number;
  voted: boolean;
  votedAt: Date | null;
  bookmarked: boolean;
  bookmarkedAt: Date | null;
  visitAt: Date | null;
  visitCommentCount: number | null;
}

export interface LabelDoc {
  commentId: number;
  topicId: number;
  userId: number;
  label: string;
  weight: number;
  reason: string | null;
  createdAt: Date;
}

const opts = { versionKey: false, id: false } as const;

const counterSchema = new Schema<CounterDoc>({ _id: String, seq: { type: Number, required: true } }, opts);

const userSchema = new Schema<UserDoc>(
  {
    _id: Number,
    username: { type: String, required: true },
    usernameLower: { type: String, required: true },
    passwordHash: { type: String, required: true },
    isAdmin: { type: Boolean, default: false },
    banned: { type: Boolean, default: false },
    deleted: { type: Boolean, default: false },
    tokenVersion: { type: Number, default: 0 },
    settings: {
      historyVisibility: { type: String, default: 'everyone' },
      collapseOldComments: { type: Boolean, default: true },
      defaultCommentOrder: { type: String, default: 'relevance' },
    },
    ignoredTopicIds: { type: [Number], default: [] },
    createdAt: { type: Date, required: true },
  },
  opts,
);
userSchema.index({ usernameLower: 1 }, { unique: true });

const groupSchema = new Schema<GroupDoc>(
  { _id: String, description: { type: String, default: '' }, createdAt: Date },
  opts,
);

const topicSchema = new Schema<TopicDoc>(
  {
    _id: Number,
    groupPath: String,
    authorId: Number,
    authorUsername: String,
    title: String,
    markdown: String,
    html: String,
    link: { type: String, default: null },
    wordCount: Number,
    tags: [String],
    tagKeys: [String],
    createdAt: Date,
    editedAt: { type: Date, default: null },
    voteCount: { type: Number, default: 0 },
    commentCount: { type: Number, default: 0 },
    commentPosts: { type: Number },
    lastActivityAt: Date,
    lastInterestingActivityAt: Date,
    official: { type: Boolean, default: false },
    locked: { type: Boolean, default: false },
    deleted: { type: Boolean, default: false },
    removed: { type: Boolean, default: false },
    listed: { type: Boolean, default: true },
  },
  opts,
);
/** The sort field of each listing order (docs/discussion-api.md §5.4). */
export const TOPIC_SORT_FIELDS = {
  activity: 'lastInterestingActivityAt',
  all_activity: 'lastActivityAt',
  votes: 'voteCount',
  comments: 'commentCount',
  new: 'createdAt',
} as const;
for (const field of Object.values(TOPIC_SORT_FIELDS)) {
  topicSchema.index({ listed: 1, [field]: -1, _id: -1 });
  topicSchema.index({ tagKeys: 1, listed: 1, [field]: -1, _id: -1 });
  // The `group` filter (GraphQL): one path, or a group and its subgroups ($in).
  topicSchema.index({ groupPath: 1, listed: 1, [field]: -1, _id: -1 });
}
// A user's history (topic.repository.ts byAuthor): everyone sees what is neither deleted nor removed,
// the author and admins what is not deleted. Equality fields first, so that no stored document is
// read to test them: on the embedded database that read is a parse of its JSON, which made the
// heavy user's history page slow with the flags tested row by row (bench/api.js, user history).
topicSchema.index({ authorId: 1, deleted: 1, removed: 1, createdAt: -1, _id: -1 });
topicSchema.index({ authorId: 1, deleted: 1, createdAt: -1, _id: -1 });
retireIndexes(topicSchema, ['authorId_1_createdAt_-1__id_-1']);

/**
 * A topic's comments version (comment-cache.ts): a new random value after every change of one of
 * its comments but a post (a post raises the topic's `commentPosts`, the key's other half:
 * CommentRepository.forTopic); no document until the first. A collection of its own, not a field
 * of the topic: an edit or a comment vote would otherwise rewrite the topic document and its 16
 * indexes (a topic update costs the embedded database several times this upsert's CPU; bench/api.js,
 * database CPU per write).
 */
export interface CommentVersionDoc {
  _id: number;
  v: string;
}
const commentVersionSchema = new Schema<CommentVersionDoc>({ _id: Number, v: String }, opts);

const commentSchema = new Schema<CommentDoc>(
  {
    _id: Number,
    topicId: Number,
    parentId: { type: Number, default: null },
    authorId: Number,
    authorUsername: String,
    topicAuthorId: Number,
    markdown: String,
    html: String,
    createdAt: Date,
    editedAt: { type: Date, default: null },
    voteCount: { type: Number, default: 0 },
    deleted: { type: Boolean, default: false },
    removed: { type: Boolean, default: false },
    labelWeights: {
      exemplary: { type: Number, default: 0 },
      noise: { type: Number, default: 0 },
      offtopic: { type: Number, default: 0 },
      joke: { type: Number, default: 0 },
      malice: { type: Number, default: 0 },
    },
    interesting: { type: Boolean, default: true },
    // No default: absent on comments posted before it was stored (CommentDoc.depth).
    depth: Number,
  },
  opts,
);
commentSchema.index({ topicId: 1, _id: 1 });
commentSchema.index({ topicId: 1, interesting: 1, createdAt: -1 });
// counts:verify's recount of comment counts (count.service.ts); no write path reads it.
commentSchema.index({ topicId: 1, deleted: 1, removed: 1 });
// A user's history (comment.repository.ts byAuthor), as the topics' above.
commentSchema.index({ authorId: 1, deleted: 1, removed: 1, createdAt: -1, _id: -1 });
commentSchema.index({ authorId: 1, deleted: 1, createdAt: -1, _id: -1 });
retireIndexes(commentSchema, ['authorId_1_createdAt_-1__id_-1']);

/** A mark's flags before anything was set (the schema's defaults, and a new mark's `$setOnInsert`). */
export const MARK_DEFAULTS = {
  voted: false,
  votedAt: null,
  bookmarked: false,
  bookmarkedAt: null,
  visitAt: null,
  visitCommentCount: null,
} as const satisfies Partial<MarkDoc>;

const markSchema = new Schema<MarkDoc>(
  {
    userId: Number,
    kind: String,
    postId: Number,
    topicId: Number,
    voted: { type: Boolean, default: MARK_DEFAULTS.voted },
    votedAt: { type: Date, default: MARK_DEFAULTS.votedAt },
    bookmarked: { type: Boolean, default: MARK_DEFAULTS.bookmarked },
    bookmarkedAt: { type: Date, default: MARK_DEFAULTS.bookmarkedAt },
    visitAt: { type: Date, default: MARK_DEFAULTS.visitAt },
    visitCommentCount: { type: Number, default: MARK_DEFAULTS.visitCommentCount },
  },
  opts,
);
markSchema.index({ userId: 1, kind: 1, postId: 1 }, { unique: true });
markSchema.index({ userId: 1, topicId: 1 });
// counts:verify's recount of votes (count.service.ts); no write path reads it.
markSchema.index({ kind: 1, postId: 1, voted: 1 });

const labelSchema = new Schema<LabelDoc>(
  {
    commentId: Number,
    topicId: Number,
    userId: Number,
    label: String,
    weight: Number,
    reason: { type: String, default: null },
    createdAt: Date,
  },
  opts,
);
labelSchema.index({ commentId: 1, userId: 1, label: 1 }, { unique: true });

/** Compiles (once per connection) every model of the domain. */
export function discussionModels(db: Database) {
  return {
    Counter: db.model<CounterDoc>('DiscussionCounter', counterSchema, 'discussion_counters'),
    User: db.model<UserDoc>('DiscussionUser', userSchema, 'users'),
    Group: db.model<GroupDoc>('DiscussionGroup', groupSchema, 'groups'),
    Topic: db.model<TopicDoc>('DiscussionTopic', topicSchema, 'topics'),
    Comment: db.model<CommentDoc>('DiscussionComment', commentSchema, 'comments'),
    CommentVersion: db.model<CommentVersionDoc>('DiscussionCommentVersion', commentVersionSchema, 'comment_versions'),
    Mark: db.model<MarkDoc>('DiscussionMark', markSchema, 'marks'),
    Label: db.model<LabelDoc>('DiscussionLabel', labelSchema, 'labels'),
  };
}
export type DiscussionModels = ReturnType<typeof discussionModels>;
