/**
 * Concurrent writes against the real test database (FerretDB 1.24 on SQLite with Agora's patch
 * series by default, or mongod). Single-document updates are atomic on both (on FerretDB through
 * patch 0006, docs/embedded-database.md), so the domain writes as on MongoDB: ids come from one
 * `$inc` (the `_id` unique index still has the last word for a counter that fell behind), and
 * derived counts move with one `$inc` per real change, never recounted on the write path;
 * counts:verify recounts them on demand.
 */
import { ANONYMOUS } from '../../../src/core/actor';
import { SYSTEM } from '../../../src/discussion';
import type { CommentView, TopicView } from '../../../src/discussion';
import { exchangesOf, sentTogetherAfter, watchingCommands } from '../../helpers/exchanges';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TEST_JWT_SECRET, TestServer } from '../../helpers/server';
import { createAgora, withDatabaseName } from '../../../src/server';

jest.setTimeout(120_000);

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let crowd: TestUser[];
const kind = process.env.AGORA_TEST_DATABASE_KIND ?? 'external';

/** Settles every promise; the rejections' `code:reason`. */
async function outcomes<T>(ps: Promise<T>[]): Promise<{ ok: T[]; failed: string[] }> {
  const r = await Promise.allSettled(ps);
  return {
    ok: r.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : [])),
    failed: r.flatMap((x) =>
      x.status === 'rejected' ? [`${x.reason?.code ?? x.reason?.name}:${x.reason?.reason ?? x.reason?.message}`] : [],
    ),
  };
}

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  crowd = [];
  for (let i = 0; i < 50; i++) crowd.push(await f.user(`crowd${i}`));
  await f.group('test');
});
afterAll(async () => {
  await s?.close();
});

describe('what the database guarantees: atomic single-document updates', () => {
  it('50 parallel `$inc` updates of one document', async () => {
    const col = s.agora.db.conn.collection('scratch_inc');
    await col.insertOne({ _id: 'x' as never, n: 0, m: 0 });
    await Promise.all(Array.from({ length: 50 }, () => col.updateOne({ _id: 'x' as never }, { $inc: { n: 1 } })));
    await Promise.all(
      Array.from({ length: 50 }, () =>
        col.findOneAndUpdate({ _id: 'x' as never }, { $inc: { m: 1 } }, { returnDocument: 'after' }),
      ),
    );
    const doc = await col.findOne({ _id: 'x' as never });
    expect([doc?.n, doc?.m]).toEqual([50, 50]);
    await col.drop();
  });
});

describe('ids: concurrent creations all succeed with distinct ids', () => {
  it('20 parallel topic posts', async () => {
    const r = await outcomes(
      Array.from({ length: 20 }, (_, i) =>
        f.d.topics.post(crowd[i]!.actor, { group: 'test', title: `Parallel topic ${i}`, markdown: 'x' }),
      ),
    );
    expect(r.failed).toEqual([]);
    expect(new Set(r.ok.map((t) => t.id)).size).toBe(20);
    // Each id names the topic that was posted under it.
    for (const t of r.ok) expect((await f.d.topics.get(ANONYMOUS, t.id36)).title).toBe(t.title);
  });

  it('20 parallel comment posts on one topic (and the topic counts all of them)', async () => {
    const topic = await f.topic(alice);
    const r = await outcomes(
      Array.from({ length: 20 }, (_, i) =>
        f.d.comments.post(crowd[i]!.actor, { topicId: topic.id36, markdown: `Parallel comment ${i}` }),
      ),
    );
    expect(r.failed).toEqual([]);
    expect(new Set(r.ok.map((c) => c.id)).size).toBe(20);
    const read = await f.d.topics.read(ANONYMOUS, topic.id36);
    expect(read.comments.map((c) => c.id).sort((a, b) => a - b)).toEqual(r.ok.map((c) => c.id).sort((a, b) => a - b));
    expect(read.topic.commentCount).toBe(20);
  });

  it('20 parallel replies to one comment', async () => {
    const topic = await f.topic(alice);
    const parent = await f.comment(alice, topic);
    const r = await outcomes(
      Array.from({ length: 20 }, (_, i) =>
        f.d.comments.post(crowd[i]!.actor, { topicId: topic.id36, parentId: parent.id36, markdown: `Reply ${i}` }),
      ),
    );
    expect(r.failed).toEqual([]);
    expect(new Set(r.ok.map((c) => c.id)).size).toBe(20);
    expect((await f.d.topics.get(ANONYMOUS, topic.id36)).commentCount).toBe(21);
  });

  it('10 parallel user creations (admin/CLI) and 10 parallel registrations', async () => {
    const created = await outcomes(
      Array.from({ length: 10 }, (_, i) => f.d.users.create(SYSTEM, { username: `made${i}`, password: 'long enough' })),
    );
    expect(created.failed).toEqual([]);
    const registered = await outcomes(
      Array.from({ length: 10 }, (_, i) =>
        f.d.users.register(ANONYMOUS, { username: `reg${i}`, password: 'long enough' }),
      ),
    );
    expect(registered.failed).toEqual([]);
    const ids = [...created.ok.map((u) => u.id), ...registered.ok.map((r) => r.user.id)];
    expect(new Set(ids).size).toBe(20);
    // Every account is whole: it logs in and is found under its own name.
    for (const u of created.ok) expect((await f.d.users.getByUsername(ANONYMOUS, u.username)).id).toBe(u.id);
  });

  it('two parallel registrations of the same username: exactly one success and one Conflict', async () => {
    for (let round = 0; round < 5; round++) {
      const r = await outcomes([
        f.d.users.register(ANONYMOUS, { username: `same${round}`, password: 'long enough' }),
        f.d.users.register(ANONYMOUS, { username: `SAME${round}`, password: 'other enough' }),
      ]);
      expect(r.ok).toHaveLength(1);
      expect(r.failed).toEqual(['CONFLICT:USERNAME_TAKEN']);
    }
  });

  it('a counter that fell behind (or was reset) catches up instead of failing', async () => {
    const before = await f.topic(alice);
    await s.agora.db.conn.collection('discussion_counters').updateOne({ _id: 'topic' as never }, { $set: { seq: 1 } });
    const after = await f.topic(alice);
    expect(after.id).toBeGreaterThan(before.id);
    const next = await f.topic(alice);
    expect(next.id).toBe(after.id + 1);
  });

  it('a comment post draws its id while it reads its topic and parent; a refused post leaves a gap', async () => {
    const topic = await f.topic(alice);
    const parent = await f.comment(alice, topic);
    let reply!: CommentView;
    const log = await exchangesOf(s, async () => {
      reply = await f.comment(bob, topic, { parent });
    });
    // After the poster's own record, all three reads are sent before any of them is answered: one
    // round trip where there were three.
    expect(sentTogetherAfter(log, 'answered find users')).toEqual(
      ['sent find comments', 'sent find topics', 'sent findAndModify discussion_counters'].sort(),
    );
    expect(reply.parentId).toBe(parseInt(parent.id36, 36));
    expect(parseInt(reply.id36, 36)).toBe(parseInt(parent.id36, 36) + 1);

    // Refusals keep their order (the topic's, then the parent's) and use up a number.
    const other = await f.topic(alice);
    await expect(
      f.d.comments.post(bob.actor, { topicId: other.id36, parentId: parent.id36, markdown: 'elsewhere' }),
    ).rejects.toMatchObject({ reason: 'COMMENT_NOT_FOUND' });
    // A refusal is answered only once its number is drawn: no command of it is left in flight, so
    // the next post draws a later number.
    const seen: string[] = [];
    let seenAtRefusal: string[] = [];
    await watchingCommands(
      s,
      async () => {
        await expect(
          f.d.comments.post(bob.actor, { topicId: 'zzzzzz', parentId: 'zzzzzz', markdown: 'nowhere' }),
        ).rejects.toMatchObject({ reason: 'TOPIC_NOT_FOUND' });
        seenAtRefusal = [...seen];
      },
      (name) => seen.push(`sent ${name}`),
      (name) => seen.push(`answered ${name}`),
    );
    const count = (what: string) => seenAtRefusal.filter((l) => l === what).length;
    expect(count('sent findAndModify')).toBe(1);
    expect(count('answered findAndModify')).toBe(1);
    const next = await f.comment(bob, topic);
    expect(parseInt(next.id36, 36)).toBe(parseInt(reply.id36, 36) + 3);
  });

  it('allocates with one $inc when nothing collides (the fast path)', async () => {
    const commands: string[] = [];
    // Live events of earlier changes are all written first (src/events/event-writer.ts).
    await s.agora.eventsWritten();
    const unwatch = s.agora.db.watchCommands((name, command) => commands.push(`${name} ${String(command[name])}`));
    try {
      await f.d.topics.post(alice.actor, { group: 'test', title: 'Alone', markdown: 'x' });
      await s.agora.eventsWritten();
    } finally {
      unwatch();
    }
    expect(commands.filter((c) => c.endsWith('discussion_counters'))).toEqual(['findAndModify discussion_counters']);
    // Besides the topic, its live event (src/events), under a sequence of its own.
    expect(commands.filter((c) => c.startsWith('insert'))).toEqual(['insert topics', 'insert events']);
  });
});

describe('derived counts stay exact under concurrency', () => {
  it('50 parallel votes by different users on one topic give vote_count 50; 50 parallel unvotes give 0', async () => {
    const topic = await f.topic(alice);
    const r = await outcomes(crowd.map((u) => f.d.votes.vote(u.actor, 'topic', topic.id36)));
    expect(r.failed).toEqual([]);
    expect((await f.d.topics.get(ANONYMOUS, topic.id36)).voteCount).toBe(50);
    expect(Math.max(...r.ok.map((x) => x.voteCount))).toBe(50);
    const down = await outcomes(crowd.map((u) => f.d.votes.unvote(u.actor, 'topic', topic.id36)));
    expect(down.failed).toEqual([]);
    expect((await f.d.topics.get(ANONYMOUS, topic.id36)).voteCount).toBe(0);
  });

  it('one user putting the same label twice at once: one success, one Conflict', async () => {
    const topic = await f.topic(alice);
    const comment = await f.comment(alice, topic);
    const r = await outcomes([
      f.d.labels.label(bob.actor, comment.id36, 'joke'),
      f.d.labels.label(bob.actor, comment.id36, 'joke'),
    ]);
    expect(r.ok).toHaveLength(1);
    expect(r.failed).toEqual(['CONFLICT:ALREADY_LABELLED']);
    expect(
      (await s.agora.db.conn.collection('comments').findOne({ _id: comment.id as never }))?.labelWeights.joke,
    ).toBe(1);
  });

  it('one user voting twice at once counts once', async () => {
    const topic = await f.topic(alice);
    await outcomes(Array.from({ length: 5 }, () => f.d.votes.vote(bob.actor, 'topic', topic.id36)));
    expect((await f.d.topics.get(ANONYMOUS, topic.id36)).voteCount).toBe(1);
  });

  it('votes and comments at once on one topic keep both counts', async () => {
    const topic = await f.topic(alice);
    const r = await outcomes<unknown>([
      ...crowd.slice(0, 25).map((u) => f.d.votes.vote(u.actor, 'topic', topic.id36)),
      ...crowd.slice(25).map((u, i) => f.d.comments.post(u.actor, { topicId: topic.id36, markdown: `c${i}` })),
    ]);
    expect(r.failed).toEqual([]);
    const t = await f.d.topics.get(ANONYMOUS, topic.id36);
    expect([t.voteCount, t.commentCount]).toEqual([25, 25]);
  });

  it('parallel deletes and removals of comments keep comment_count', async () => {
    const topic = await f.topic(alice);
    const comments: CommentView[] = [];
    for (let i = 0; i < 20; i++) comments.push(await f.comment(crowd[i]!, topic));
    const r = await outcomes<unknown>([
      ...comments.slice(0, 10).map((c, i) => f.d.comments.delete(crowd[i]!.actor, c.id36)),
      // The same removal twice at once must count once.
      ...comments
        .slice(10, 15)
        .flatMap((c) => [f.d.comments.remove(SYSTEM, c.id36), f.d.comments.remove(SYSTEM, c.id36)]),
    ]);
    expect(r.failed).toEqual([]);
    expect((await f.d.topics.get(ANONYMOUS, topic.id36)).commentCount).toBe(5);
  });

  it('50 parallel votes on one comment, and 20 parallel labels', async () => {
    const topic = await f.topic(alice);
    const comment = await f.comment(alice, topic);
    const votes = await outcomes(crowd.map((u) => f.d.votes.vote(u.actor, 'comment', comment.id36)));
    expect(votes.failed).toEqual([]);
    const labels = await outcomes(
      crowd.slice(0, 20).map((u, i) => f.d.labels.label(u.actor, comment.id36, i % 2 ? 'joke' : 'exemplary', 'good')),
    );
    expect(labels.failed).toEqual([]);
    const doc = await s.agora.db.conn.collection('comments').findOne({ _id: comment.id as never });
    expect(doc?.voteCount).toBe(50);
    expect(doc?.labelWeights).toMatchObject({ exemplary: 10, joke: 10, noise: 0 });
    const unlabel = await outcomes(
      crowd.slice(0, 20).map((u, i) => f.d.labels.unlabel(u.actor, comment.id36, i % 2 ? 'joke' : 'exemplary')),
    );
    expect(unlabel.failed).toEqual([]);
    const after = await s.agora.db.conn.collection('comments').findOne({ _id: comment.id as never });
    expect(after?.labelWeights).toMatchObject({ exemplary: 0, joke: 0 });
    expect((await f.d.comments.get(ANONYMOUS, comment.id36)).votes).toBe(50);
  });

  it('two app instances on one database (no shared process state) keep counts and ids exact', async () => {
    const other = await createAgora(s.config, {
      mongoUri: withDatabaseName(process.env.MONGODB_URI!, s.agora.db.conn.name),
      databaseKind: kind,
      jwtSecret: TEST_JWT_SECRET,
      processMetrics: false,
    });
    try {
      const ds = [f.d, other.services.discussion];
      const topic = await f.topic(alice);
      const r = await outcomes<unknown>([
        ...crowd.slice(0, 30).map((u, i) => ds[i % 2]!.votes.vote(u.actor, 'topic', topic.id36)),
        ...crowd
          .slice(30)
          .map((u, i) =>
            ds[i % 2]!.comments.post(u.actor, { topicId: topic.id36, markdown: `from instance ${i % 2}` }),
          ),
        ...crowd
          .slice(30)
          .map((u, i) => ds[i % 2]!.topics.post(u.actor, { group: 'test', title: `Instance ${i % 2}`, markdown: 'x' })),
      ]);
      expect(r.failed).toEqual([]);
      const t = await f.d.topics.get(ANONYMOUS, topic.id36);
      expect([t.voteCount, t.commentCount]).toEqual([30, 20]);
      const posts = r.ok.filter(
        (x): x is { id: number; topicId?: number } => typeof x === 'object' && x !== null && 'id36' in x,
      );
      const ids = posts.map((x) => (x.topicId === undefined ? `t${x.id}` : `c${x.id}`));
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    } finally {
      await other.close();
    }
  });

  it('a change costs its own writes and no recount: the commands of a vote, a label and a comment post', async () => {
    const topic = await f.topic(alice);
    const comment = await f.comment(alice, topic);
    await f.d.topics.get(bob.actor, topic.id36); // the viewer's lookups, as a first request would
    const { commands: topicVote } = await s.countCommands(() => f.d.votes.vote(bob.actor, 'topic', topic.id36));
    const { commands: commentVote } = await s.countCommands(() => f.d.votes.vote(bob.actor, 'comment', comment.id36));
    const { commands: label } = await s.countCommands(() => f.d.labels.label(bob.actor, comment.id36, 'joke'));
    const { commands: post } = await s.countCommands(() =>
      f.d.comments.post(bob.actor, { topicId: topic.id36, markdown: 'counted once' }),
    );
    // With the recount (settling) they took 6, 7, 8 and 8: it read the post and its sources again.
    // Votes and posts also record their live event (src/discussion/live-events.ts): its insert, which
    // takes its sequence number (src/events/event-log.ts), 1 command; a label records none. A post
    // writes no new version of its topic's comments (the comment cache's key includes the topic's
    // count of posts, which it raises).
    const LIVE_EVENT = 1;
    expect({ topicVote, commentVote, label, post }).toEqual({
      topicVote: 3 + LIVE_EVENT,
      commentVote: 4 + LIVE_EVENT,
      label: 5,
      post: 4 + LIVE_EVENT,
    });
  });

  it(`a count corrupted by hand stays as it is on the next change, and counts:verify reports and fixes \
it`, async () => {
    const topic: TopicView = await f.topic(alice);
    const comment = await f.comment(alice, topic);
    await f.voteTopic(bob, topic);
    const topics = s.agora.db.conn.collection('topics');
    await topics.updateOne({ _id: topic.id as never }, { $set: { voteCount: 7, commentCount: 3 } });
    await s.agora.db.conn
      .collection('comments')
      .updateOne({ _id: comment.id as never }, { $set: { 'labelWeights.joke': 2 } });
    await f.voteTopic(crowd[0]!, topic);
    const t = await f.d.topics.get(ANONYMOUS, topic.id36);
    expect([t.voteCount, t.commentCount]).toEqual([8, 3]); // one $inc, no recount

    const found = await f.d.counts.verify(SYSTEM, { fix: false });
    expect(found.drift).toEqual(
      expect.arrayContaining([
        {
          post: `topic ${topic.id}`,
          stored: { voteCount: 8, commentCount: 3 },
          counted: { voteCount: 2, commentCount: 1 },
        },
        expect.objectContaining({
          post: `comment ${comment.id}`,
          counted: expect.objectContaining({ labelWeights: expect.objectContaining({ joke: 0 }) }),
        }),
      ]),
    );
    expect(found.fixed).toBe(0);
    const fixed = await f.d.counts.verify(SYSTEM, { fix: true });
    expect(fixed.fixed).toBe(fixed.drifted);
    expect((await f.d.counts.verify(SYSTEM, { fix: false })).drifted).toBe(0);
    const healed = await f.d.topics.get(ANONYMOUS, topic.id36);
    expect([healed.voteCount, healed.commentCount]).toEqual([2, 1]);
  });
});

describe('visits', () => {
  it(`one user's parallel first reads of a topic all succeed and leave one visit mark (upsert race on the \
unique index)`, async () => {
    const topic: TopicView = await f.topic(alice);
    await f.comment(alice, topic);
    const r = await outcomes(Array.from({ length: 20 }, () => f.d.topics.read(bob.actor, topic.id36)));
    expect(r.failed).toEqual([]);
    expect(
      await s.agora.db.conn.collection('marks').countDocuments({ userId: bob.id, kind: 'topic', postId: topic.id }),
    ).toBe(1);
  });
});
