/**
 * The discussion domain's use cases, as both front doors (REST /api/beta and GraphQL) call them.
 * Every method takes the caller first and does its own authorization; errors are the domain
 * vocabulary of core/errors (never HTTP errors). Every input is validated here, against the rules
 * of its class in inputs/ (a malformed post reference is a ValidationError on `id`).
 *
 * Naming: a contract here is `<Name>Api`; the class serving it is `<Name>Service` in
 * `<name>.service.ts` (as the files domain's classes are), two classes where one contract has a
 * read and a write side (TopicQueryService, TopicCommandService).
 */
import type { Actor } from '../core/actor';
import type { AccountView, CommentLabel, CommentView, GroupView, HistoryItem, Page, TokenResult } from './views';
import type { TopicView, TopicWithComments, UserHistory, UserView } from './views';
import type { ChangePasswordInput, CreateUserInput, LoginInput, RegisterInput } from './inputs/account.input';
import type { PostCommentInput } from './inputs/comment.input';
import type { EditTopicInput } from './inputs/edit-topic.input';
import type { CreateGroupInput } from './inputs/group.input';
import type { HistoryPageInput, PageInput } from './inputs/page.input';
import type { PostTopicInput } from './inputs/post-topic.input';
import type { SettingsInput } from './inputs/settings.input';
import type { TopicListInput } from './inputs/topic-list.input';
import type { TopicReadInput } from './inputs/topic-read.input';

/** The command line and start-up tasks act as the system: every admin check passes. */
export interface SystemActor {
  kind: 'system';
}
export const SYSTEM: SystemActor = Object.freeze({ kind: 'system' as const });
export type Caller = Actor | SystemActor;

/** The time source of the domain (clock.ts); read-only: fixtures bring a clock of their own. */
export interface Clock {
  now(): Date;
}

/** A topic or a comment, the two kinds of post users vote on and bookmark. */
export type PostKind = 'topic' | 'comment';
/** A post reference: id36 string or numeric id. */
export type PostRef = string | number;

export interface AuthApi {
  /**
   * The caller named by an Authorization header: anonymous when absent; throws UnauthenticatedError (reason
   * INVALID_TOKEN) when present but invalid.
   */
  actorFor(authorization: string | undefined): Promise<Actor>;
  /** Verifies a bare JWT; the actor it names or UnauthenticatedError (INVALID_TOKEN). */
  actorForToken(token: string): Promise<Actor>;
  /** Exchanges credentials for a token, counting the attempt against the login rate limit (TooManyRequestsError). */
  login(input: LoginInput): Promise<TokenResult>;
  /** Issues a fresh token for the logged-in caller (e.g. after registration). */
  issueToken(actor: Actor): Promise<TokenResult>;
  /** Revokes every token of the caller (increments the token version). */
  logoutEverywhere(actor: Actor): Promise<void>;
  /**
   * Changes the caller's password (revoking every older token) and returns a new token. A wrong
   * current password is a ValidationError on `currentPassword` (reason WRONG_PASSWORD), listed with
   * any problem of `newPassword`; the caller's token stays valid.
   */
  changePassword(actor: Actor, input: ChangePasswordInput): Promise<TokenResult>;
}

export interface UserApi {
  /** Self-registration (only while registration is open); returns the new account and a token. */
  register(actor: Actor, input: RegisterInput): Promise<TokenResult>;
  /** Creates an account as an admin or the system (command line). */
  create(caller: Caller, input: CreateUserInput): Promise<UserView>;
  /** The logged-in caller's account and settings. */
  me(actor: Actor): Promise<AccountView>;
  updateSettings(actor: Actor, patch: SettingsInput): Promise<AccountView>;
  /**
   * Marks the caller's account deleted after checking the password (wrong: ValidationError on `password`); its tokens
   * stop working.
   */
  deleteAccount(actor: Actor, password: string): Promise<void>;
  /** A user by username (case-insensitive); NotFoundError 'User not found'. */
  getByUsername(actor: Actor, username: string): Promise<UserView>;
  /** For DataLoaders: users by id, in the order asked, null where unknown. */
  findByIds(ids: readonly number[]): Promise<(UserView | null)[]>;
  ban(caller: Caller, username: string): Promise<UserView>;
  unban(caller: Caller, username: string): Promise<UserView>;
}

export interface GroupApi {
  create(caller: Caller, input: CreateGroupInput): Promise<GroupView>;
  list(): Promise<GroupView[]>;
  /** NotFoundError 'Group not found'. */
  get(path: string): Promise<GroupView>;
}

/** The orders to build a topic's tree in (undefined: the viewer's preferred one), and whether with Markdown. */
export interface TreeOrders {
  orders: readonly (string | undefined)[];
  markdown: boolean;
}

/** A topic with its comment tree in several orders (`trees[i]` in `orders[i]`). */
export interface TopicInOrders {
  topic: TopicView;
  trees: CommentView[][];
}

export interface TopicApi {
  /** The topic listing (`GET /topics`): validated args, viewer-specific fields, keyset page. */
  list(actor: Actor, args: TopicListInput): Promise<Page<TopicView>>;
  /** One topic with its comment tree; records the viewer's visit unless told not to. */
  read(actor: Actor, topicId36: string, args?: Omit<TopicReadInput, 'id'>): Promise<TopicWithComments>;
  /**
   * One topic and its comment tree in each of `orders` (undefined: the viewer's preferred order) from
   * one read, for a client showing it; records no visit (`visits.record` does, when it was seen).
   */
  readInOrders(actor: Actor, topicId36: string, opts: TreeOrders): Promise<TopicInOrders>;
  /** One topic without comments (same visibility rules as read, no visit recorded). */
  get(actor: Actor, topic: PostRef): Promise<TopicView>;
  /** For DataLoaders: topics by id as the actor may see them, null where unknown or hidden. */
  findByIds(actor: Actor, ids: readonly number[]): Promise<(TopicView | null)[]>;
  post(actor: Actor, input: PostTopicInput): Promise<TopicView>;
  /** Author only (admins may change title, link and tags too, not the text). */
  edit(actor: Actor, topic: PostRef, input: EditTopicInput): Promise<TopicView>;
  /** Author only; the topic disappears for everyone. */
  delete(actor: Actor, topic: PostRef): Promise<void>;
  /** Admin actions. */
  remove(caller: Caller, topic: PostRef): Promise<TopicView>;
  restore(caller: Caller, topic: PostRef): Promise<TopicView>;
  setLocked(caller: Caller, topic: PostRef, locked: boolean): Promise<TopicView>;
  setOfficial(caller: Caller, topic: PostRef, official: boolean): Promise<TopicView>;
  /** Author or admin. */
  setTags(actor: Caller, topic: PostRef, tags: string[]): Promise<TopicView>;
}

export interface CommentApi {
  /** A top-level comment or a reply (any depth); not on locked topics (admins excepted). */
  post(actor: Actor, input: PostCommentInput): Promise<CommentView>;
  /** Author only; not on locked topics (admins excepted). */
  edit(actor: Actor, comment: PostRef, markdown: string): Promise<CommentView>;
  /** Author only; leaves a placeholder while replies exist. */
  delete(actor: Actor, comment: PostRef): Promise<void>;
  remove(caller: Caller, comment: PostRef): Promise<CommentView>;
  restore(caller: Caller, comment: PostRef): Promise<CommentView>;
  /** One comment as the actor may see it (feed shape: no children). */
  get(actor: Actor, comment: PostRef): Promise<CommentView>;
  /** For DataLoaders. */
  findByIds(actor: Actor, ids: readonly number[]): Promise<(CommentView | null)[]>;
  /**
   * Comments by id as the actor may see them wherever they appear (`node`, a comment's parent): in a
   * topic the actor may see, as its tree shows them (deleted ones, and removed ones the actor may not
   * moderate, as placeholders with no author and no text); in a topic hidden from the actor, as
   * their author's history shows them (not deleted, removed only to their author and admins, while
   * that history is open to the actor). Null where unknown or seen nowhere.
   */
  findByIdsAsShown(actor: Actor, ids: readonly number[]): Promise<(CommentView | null)[]>;
}

export interface VoteApi {
  /** One vote per user per post, never on one's own post; idempotent. */
  vote(actor: Actor, kind: PostKind, post: PostRef): Promise<{ voted: boolean; voteCount: number }>;
  unvote(actor: Actor, kind: PostKind, post: PostRef): Promise<{ voted: boolean; voteCount: number }>;
  /**
   * vote (on) or unvote on a topic, answering the topic as the voter sees it now, from what the
   * change itself returned (no second read of the topic or of the viewer's mark).
   */
  voteTopic(actor: Actor, topic: PostRef, on: boolean): Promise<TopicView>;
  /** The same for a comment, answering it in feed shape. */
  voteComment(actor: Actor, comment: PostRef, on: boolean): Promise<CommentView>;
}

export interface BookmarkApi {
  bookmark(actor: Actor, kind: PostKind, post: PostRef): Promise<{ bookmarked: boolean }>;
  unbookmark(actor: Actor, kind: PostKind, post: PostRef): Promise<{ bookmarked: boolean }>;
}

export interface IgnoreApi {
  /** Hides a topic from the caller's listings (it stays readable, `ignored: true`). */
  ignore(actor: Actor, topic: PostRef): Promise<{ ignored: boolean }>;
  unignore(actor: Actor, topic: PostRef): Promise<{ ignored: boolean }>;
}

export interface LabelApi {
  /** Each label at most once per user per comment, never on one's own; exemplary needs a reason. */
  label(actor: Actor, comment: PostRef, label: CommentLabel, reason?: string | null): Promise<CommentView>;
  unlabel(actor: Actor, comment: PostRef, label: CommentLabel): Promise<CommentView>;
}

export interface VisitApi {
  /** Records (now, current comment_count) as the caller's latest visit to the topic. */
  record(actor: Actor, topic: PostRef): Promise<void>;
}

export interface HistoryApi {
  /** `/user/{name}`: mixed feed of topics and comments (cursors `t-`/`c-`). */
  history(actor: Actor, username: string, args: HistoryPageInput): Promise<UserHistory>;
  topics(actor: Actor, username: string, args: PageInput): Promise<{ user: UserView; page: Page<TopicView> }>;
  comments(actor: Actor, username: string, args: PageInput): Promise<{ user: UserView; page: Page<CommentView> }>;
}

export type { HistoryItem };

/** Everything the discussion module offers (`services.discussion`). */
/** What `counts:verify` found: posts read, posts whose stored counts differ from their sources. */
export interface CountReport {
  topics: number;
  comments: number;
  drifted: number;
  /** Drifted posts whose counts were set (with fix). */
  fixed: number;
  /** The first drifted posts, with their stored and recounted values. */
  drift: { post: string; stored: Record<string, unknown>; counted: Record<string, unknown> }[];
}

/** The recount of derived counts (count.service.ts): an admin check, never on the write path. */
export interface CountApi {
  verify(caller: Caller, opts: { fix: boolean }): Promise<CountReport>;
}

export interface DiscussionServiceSet {
  clock: Clock;
  /**
   * The same services over the same data, reading time from `clock`: for fixtures that write
   * history at chosen times (the demo seed) while this set keeps serving at the real time.
   */
  withClock(clock: Clock): DiscussionServiceSet;
  auth: AuthApi;
  users: UserApi;
  groups: GroupApi;
  topics: TopicApi;
  comments: CommentApi;
  votes: VoteApi;
  bookmarks: BookmarkApi;
  ignores: IgnoreApi;
  labels: LabelApi;
  visits: VisitApi;
  history: HistoryApi;
  counts: CountApi;
}
