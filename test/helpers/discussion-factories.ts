/**
 * Test factories for the discussion domain: everything is created through the services (the same
 * code paths as the front doors), at chosen times, by freezing the domain clock.
 */
import type { Actor } from '../../src/core/actor';
import { SYSTEM } from '../../src/discussion';
import type { CommentLabel, CommentView, DiscussionServices, TopicView } from '../../src/discussion';
import type { TestServer } from './server';

export interface TestUser {
  id: number;
  username: string;
  password: string;
  actor: Actor;
  /** A token issued at the clock's current time. */
  token(): Promise<string>;
}

export const DEFAULT_PASSWORD = 'correct horse battery';

export class DiscussionFactory {
  readonly d: DiscussionServices;
  private groups = new Set<string>();
  private seq = 0;

  constructor(readonly server: TestServer) {
    this.d = server.agora.services.discussion;
  }

  /** Freezes the domain clock (ISO string or Date); null follows the real clock again. */
  at(time: string | Date | null): void {
    this.server.clock.set(time === null ? null : new Date(time));
  }

  async user(username?: string, opts: { admin?: boolean; password?: string } = {}): Promise<TestUser> {
    const name = username ?? `user${++this.seq}x`;
    const password = opts.password ?? DEFAULT_PASSWORD;
    const view = await this.d.users.create(SYSTEM, { username: name, password, isAdmin: opts.admin });
    const actor: Actor = { kind: 'user', userId: view.id, username: view.username, isAdmin: view.isAdmin };
    return {
      id: view.id,
      username: view.username,
      password,
      actor,
      token: async () => (await this.d.auth.issueToken(actor)).token,
    };
  }

  async group(path: string, description = ''): Promise<string> {
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
    const group = await this.group(opts.group ?? 'test');
    return this.d.topics.post(author.actor, {
      group,
      title: opts.title ?? `Topic ${++this.seq}`,
      markdown: opts.link ? undefined : (opts.markdown ?? 'Some text.'),
      link: opts.link,
      tags: opts.tags,
    });
  }

  async comment(
    author: TestUser,
    topic: TopicView | string,
    opts: { parent?: CommentView; markdown?: string; at?: string } = {},
  ): Promise<CommentView> {
    if (opts.at) this.at(opts.at);
    return this.d.comments.post(author.actor, {
      topicId: typeof topic === 'string' ? topic : topic.id36,
      parentId: opts.parent?.id36,
      markdown: opts.markdown ?? `Comment ${++this.seq}`,
    });
  }

  async voteTopic(voter: TestUser, topic: TopicView): Promise<void> {
    await this.d.votes.vote(voter.actor, 'topic', topic.id36);
  }

  async voteComment(voter: TestUser, comment: CommentView): Promise<void> {
    await this.d.votes.vote(voter.actor, 'comment', comment.id36);
  }

  private voterPool: TestUser[] = [];

  /** `count` voters (a pool of users who never post, reused across posts) vote on the post. */
  async votes(kind: 'topic' | 'comment', post: { id36: string }, count: number): Promise<void> {
    while (this.voterPool.length < count) this.voterPool.push(await this.user(`voter${this.voterPool.length}pool`));
    for (const u of this.voterPool.slice(0, count)) await this.d.votes.vote(u.actor, kind, post.id36);
  }

  async label(user: TestUser, comment: CommentView, label: CommentLabel, reason = 'because'): Promise<void> {
    await this.d.labels.label(user.actor, comment.id36, label, label === 'exemplary' ? reason : null);
  }

  async visit(user: TestUser, topic: TopicView, at?: string): Promise<void> {
    if (at) this.at(at);
    await this.d.visits.record(user.actor, topic.id36);
  }
}
