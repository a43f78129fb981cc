/**
 * The one place tests create data: users, groups, topics, comments, votes, labels and visits through
 * the discussion services (the code paths both front doors call, never the door under test), and
 * stored files through a real HTTP upload. History is written at chosen times by freezing the
 * domain clock. Tests that test a creation itself (a service's refusals, concurrent posts) call the
 * services directly; everything that only sets the scene comes from here.
 */
import type { Actor } from '../../src/core/actor';
import { SYSTEM } from '../../src/discussion';
import type { CommentLabel, CommentView, DiscussionServices, TopicView, UserView } from '../../src/discussion';
import type { SettableClock } from '../../src/discussion/clock';
import { discussionModels } from '../../src/discussion/models';
import type { Agora } from '../../src/server';
import { JSON_ACCEPT, request } from '../integration/files/helpers';

export interface TestUser {
  id: number;
  username: string;
  password: string;
  actor: Actor;
  /** The account as the service returned it when it was created. */
  user: UserView;
  /** A token issued when the user was created (tests that move the clock issue a new one with tokenNow). */
  token: string;
  /** A token issued at the clock's current time. */
  tokenNow(): Promise<string>;
}

export const PASSWORD = 'correct horse battery';

/** What a factory writes to: a TestServer, or any running app with its URL (and a clock to move, if any). */
export interface FactoryTarget {
  agora: Agora;
  /** http://127.0.0.1:<port>, for stored files. */
  url: string;
  clock?: SettableClock;
}

export interface FactoryDefaults {
  /** The group of a topic whose call names none (created on first use); 'test' unless set. */
  group?: string;
}

export class Factory {
  readonly d: DiscussionServices;
  private readonly groups = new Set<string>();
  private readonly voterPool: TestUser[] = [];
  private seq = 0;

  constructor(
    readonly server: FactoryTarget,
    private readonly defaults: FactoryDefaults = {},
  ) {
    this.d = server.agora.services.discussion;
  }

  /** Freezes the domain clock (ISO string or Date); null follows the real clock again. */
  at(time: string | Date | null): void {
    if (!this.server.clock) throw new Error('this app has no settable clock');
    this.server.clock.set(time === null ? null : new Date(time));
  }

  /** A user created by the system (as the CLI does), with a token issued directly (no login attempt counted). */
  async user(username?: string, opts: { admin?: boolean; password?: string } = {}): Promise<TestUser> {
    const name = username ?? `user${++this.seq}x`;
    const password = opts.password ?? PASSWORD;
    const user = await this.d.users.create(SYSTEM, { username: name, password, isAdmin: opts.admin === true });
    const actor: Actor = { kind: 'user', userId: user.id, username: user.username, isAdmin: user.isAdmin };
    const tokenNow = async () => (await this.d.auth.issueToken(actor)).token;
    return { id: user.id, username: user.username, password, actor, user, token: await tokenNow(), tokenNow };
  }

  /** Creates the group once per factory; later calls with the same path only return it. */
  async group(path: string, description = `The ${path} group`): Promise<string> {
    if (!this.groups.has(path)) {
      await this.d.groups.create(SYSTEM, { path, description });
      this.groups.add(path);
    }
    return path;
  }

  async topic(
    author: TestUser,
    opts: { group?: string; title?: string; markdown?: string; link?: string; tags?: string[]; at?: string } = {},
  ): Promise<TopicView> {
    if (opts.at) this.at(opts.at);
    const group = await this.group(opts.group ?? this.defaults.group ?? 'test');
    return this.d.topics.post(author.actor, {
      group,
      title: opts.title ?? `Topic ${++this.seq}`,
      markdown: opts.link && opts.markdown === undefined ? undefined : (opts.markdown ?? 'Some text.'),
      link: opts.link,
      tags: opts.tags,
    });
  }

  async comment(
    author: TestUser,
    topic: TopicView | string,
    opts: { parent?: CommentView | string; markdown?: string; at?: string } = {},
  ): Promise<CommentView> {
    if (opts.at) this.at(opts.at);
    const parent = opts.parent;
    return this.d.comments.post(author.actor, {
      topicId: typeof topic === 'string' ? topic : topic.id36,
      parentId: typeof parent === 'string' ? parent : parent?.id36,
      markdown: opts.markdown ?? `Comment ${++this.seq}`,
    });
  }

  async voteTopic(voter: TestUser, topic: TopicView | string): Promise<void> {
    await this.d.votes.vote(voter.actor, 'topic', typeof topic === 'string' ? topic : topic.id36);
  }

  async voteComment(voter: TestUser, comment: CommentView | string): Promise<void> {
    await this.d.votes.vote(voter.actor, 'comment', typeof comment === 'string' ? comment : comment.id36);
  }

  /** `count` voters (a pool of users who never post, reused across posts) vote on the post. */
  async votes(kind: 'topic' | 'comment', post: { id36: string }, count: number): Promise<void> {
    while (this.voterPool.length < count) this.voterPool.push(await this.user(`voter${this.voterPool.length}pool`));
    for (const u of this.voterPool.slice(0, count)) await this.d.votes.vote(u.actor, kind, post.id36);
  }

  async label(user: TestUser, comment: CommentView | string, label: CommentLabel, reason = 'because'): Promise<void> {
    const id36 = typeof comment === 'string' ? comment : comment.id36;
    await this.d.labels.label(user.actor, id36, label, label === 'exemplary' ? reason : null);
  }

  async visit(user: TestUser, topic: TopicView | string, at?: string): Promise<void> {
    if (at) this.at(at);
    await this.d.visits.record(user.actor, typeof topic === 'string' ? topic : topic.id36);
  }

  /** A stored file, uploaded over real HTTP (PUT, JSON preferred); the upload's JSON (a non-200 fails the test). */
  async upload(name: string, body: string | Buffer, headers: Record<string, string> = {}) {
    const r = await request(this.server.url, 'PUT', `/upload/${name}`, {
      headers: { ...JSON_ACCEPT, ...headers },
      body,
    });
    if (r.status !== 200) throw new Error(`upload failed: ${r.status} ${r.text}`);
    return r.json();
  }

  /**
   * `count` comments by `author` on `topic`, written in bulk through the app's models (posting each
   * through the services takes minutes on FerretDB at this size): a tenth top-level, each followed by
   * a chain of replies, depth stored; the topic's counts raised as posts raise them.
   */
  async bulkComments(author: TestUser, topic: TopicView, count: number): Promise<void> {
    const m = discussionModels(this.server.agora.db);
    const counter = await m.Counter.findOneAndUpdate(
      { _id: 'comment' },
      { $inc: { seq: count } },
      { upsert: true, returnDocument: 'after' },
    ).lean();
    const first = counter!.seq - count + 1;
    const at = new Date();
    const docs = [];
    for (let i = 0; i < count; i++) {
      const top = i % 10 === 0;
      docs.push({
        _id: first + i,
        topicId: topic.id,
        parentId: top ? null : first + i - 1,
        depth: i % 10,
        authorId: author.id,
        authorUsername: author.username,
        topicAuthorId: topic.authorId,
        markdown: `Bulk comment ${i}`,
        html: `<p>Bulk comment ${i}</p>`,
        createdAt: new Date(at.getTime() + i),
        editedAt: null,
        voteCount: 0,
        deleted: false,
        removed: false,
        labelWeights: { exemplary: 0, noise: 0, offtopic: 0, joke: 0, malice: 0 },
        interesting: false,
      });
    }
    for (let i = 0; i < docs.length; i += 2000) await m.Comment.insertMany(docs.slice(i, i + 2000), { lean: true });
    await m.Topic.updateOne({ _id: topic.id }, { $inc: { commentCount: count, commentPosts: count } });
  }

  /** Sets a stored file's expiry directly in the database (to test expiry without waiting). */
  async setExpiry(filename: string, expiry: number): Promise<void> {
    await this.server.agora.db.conn.collection('files').updateOne({ filename }, { $set: { expiry } });
    // A file's expiry never changes while its bytes stay (an overwrite brings new bytes), so the
    // server's metadata cache (src/files/metadata-cache.ts) may hold the old one: this stands for time
    // passing, which the cached copy would see as well.
    this.forgetCached(filename);
  }

  /**
   * Drops a file from the server's metadata cache, as for a record this process has never read: for tests
   * that edit a record directly in the database to stand for one written before (by an older version).
   */
  forgetCached(filename: string): void {
    const files = this.server.agora.services.files.files as unknown as { cache?: { delete(name: string): void } };
    files.cache?.delete(filename);
  }
}
