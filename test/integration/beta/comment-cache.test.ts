/**
 * A topic's comments are cached per process (src/discussion/comment-cache.ts) and used only while
 * the topic's comments still have the version they were kept under. Here a second Agora instance on
 * the same database keeps the topic cached while the first one changes its comments in every way
 * the domain can; each change must show in the second instance's very next read.
 */
import { ANONYMOUS } from '../../../src/core/actor';
import { SYSTEM } from '../../../src/discussion';
import type { CommentView, DiscussionServices, TopicView } from '../../../src/discussion';
import { Agora, createAgora, withDatabaseName } from '../../../src/server';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TEST_JWT_SECRET, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
let f: Factory;
let other: Agora;
let ds2: DiscussionServices;
let alice: TestUser;
let bob: TestUser;
let topic: TopicView;
let first: CommentView;

const flat = (views: readonly CommentView[]): CommentView[] => views.flatMap((c) => [c, ...flat(c.children ?? [])]);
/** The second instance's view of the topic's comments, anonymous. */
const seen = async () => flat((await ds2.topics.read(ANONYMOUS, topic.id36)).comments);
const byId = async (id36: string) => (await seen()).find((c) => c.id36 === id36);

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s);
  other = await createAgora(s.config, {
    mongoUri: withDatabaseName(process.env.MONGODB_URI!, s.agora.db.conn.name),
    databaseKind: process.env.AGORA_TEST_DATABASE_KIND ?? 'external',
    jwtSecret: TEST_JWT_SECRET,
    processMetrics: false,
  });
  ds2 = other.services.discussion;
  alice = await f.user('alice');
  bob = await f.user('bob', { admin: true });
  topic = await f.topic(alice);
  first = await f.comment(alice, topic, { markdown: 'first' });
});
afterAll(async () => {
  await other.close();
  await s.close();
});

it('a second read of an unchanged topic takes its comments from the cache (one command fewer)', async () => {
  const topic2 = await f.topic(alice);
  await f.comment(bob, topic2);
  const cold = await s.countCommands(() => f.d.topics.read(ANONYMOUS, topic2.id36));
  const warm = await s.countCommands(() => f.d.topics.read(ANONYMOUS, topic2.id36));
  expect(cold.commands).toBe(3); // the topic and the comments' version, then the comments
  expect(warm.commands).toBe(2); // the topic and the version only
  expect(warm.result).toEqual(cold.result);
});

describe('every change made by another instance shows in the next read', () => {
  beforeEach(async () => {
    await seen(); // the second instance has the topic cached
  });

  it('a new comment and a reply', async () => {
    const c = await f.comment(bob, topic, { markdown: 'second' });
    expect((await seen()).map((x) => x.id36)).toContain(c.id36);
    const reply = await f.comment(alice, topic, { parent: c, markdown: 'reply' });
    expect((await byId(c.id36))?.children?.map((x) => x.id36)).toEqual([reply.id36]);
  });

  it('an edit', async () => {
    await f.d.comments.edit(alice.actor, first.id36, 'edited *now*');
    expect((await byId(first.id36))?.renderedHtml).toContain('<em>now</em>');
  });

  it('a vote and its withdrawal', async () => {
    const before = (await byId(first.id36))!.votes;
    await f.voteComment(bob, first);
    expect((await byId(first.id36))!.votes).toBe(before + 1);
    await f.d.votes.unvote(bob.actor, 'comment', first.id36);
    expect((await byId(first.id36))!.votes).toBe(before);
  });

  it('an exemplary label', async () => {
    await f.label(bob, first, 'exemplary');
    expect((await byId(first.id36))!.exemplary).toBe(true);
  });

  it('removal and restoration by an admin', async () => {
    const c = await f.comment(bob, topic, { markdown: 'to be removed' });
    expect((await byId(c.id36))?.isRemoved).toBe(false);
    await f.d.comments.remove(SYSTEM, c.id36);
    expect((await byId(c.id36))?.isRemoved).toBe(true);
    await f.d.comments.restore(SYSTEM, c.id36);
    expect((await byId(c.id36))?.isRemoved).toBe(false);
  });

  it('deletion by the author', async () => {
    const c = await f.comment(bob, topic, { markdown: 'to be deleted' });
    expect(await byId(c.id36)).toBeDefined();
    await f.d.comments.delete(bob.actor, c.id36);
    expect(await byId(c.id36)).toBeUndefined();
  });
});

it("a post writes no new version: the topic's count of posts, which the post raises, is part of the key", async () => {
  const versions = s.agora.db.conn.collection('comment_versions');
  const versionOf = async () => (await versions.findOne({ _id: Number(topic.id) as never }))?.v;
  const postsOf = async () =>
    (await s.agora.db.conn.collection('topics').findOne({ _id: Number(topic.id) as never }))!.commentPosts;
  await seen();
  const [before, posts] = [await versionOf(), await postsOf()];
  const c = await f.comment(bob, topic, { markdown: 'keyed by the count of posts' });
  expect(await versionOf()).toBe(before);
  expect(await postsOf()).toBe(posts + 1);
  expect((await seen()).map((x) => x.id36)).toContain(c.id36);
});

it("a post landing between a delete's new version and its count's decrement still shows", async () => {
  // The service's order for a delete is: the comment, then a new version, then the topic's count.
  // Replayed by hand around a real post, so the comment count comes back to a value already read
  // under the new version; the key's count of posts has still moved.
  const t = await f.topic(alice);
  const gone = await f.comment(alice, t, { markdown: 'to be deleted' });
  const comments = async () => flat((await ds2.topics.read(ANONYMOUS, t.id36)).comments).map((x) => x.id36);
  const db = s.agora.db.conn;
  await db.collection('comments').updateOne({ _id: Number(gone.id) as never }, { $set: { deleted: true } });
  await db
    .collection('comment_versions')
    .updateOne({ _id: Number(t.id) as never }, { $set: { v: 'after the delete' } }, { upsert: true });
  expect(await comments()).toEqual([]); // read and cached under the new version, the count still 1
  const posted = await f.comment(bob, t, { markdown: 'posted meanwhile' }); // the count: 2
  await db.collection('topics').updateOne({ _id: Number(t.id) as never }, { $inc: { commentCount: -1 } }); // 1 again
  expect(await comments()).toEqual([posted.id36]);
});

describe("a post keeps its topic cached in the process that made it, never another's post", () => {
  const ids = (views: readonly CommentView[]) => flat(views).map((c) => c.id36);

  it('the read after a post is served from the cache and shows it, with its place in the tree', async () => {
    const t = await f.topic(alice);
    const top = await f.comment(alice, t, { markdown: 'top' });
    const cold = await s.countCommands(() => f.d.topics.read(ANONYMOUS, t.id36));
    expect(cold.commands).toBe(3);
    const reply = await f.comment(bob, t, { parent: top, markdown: 'a reply' });
    const after = await s.countCommands(() => f.d.topics.read(ANONYMOUS, t.id36));
    expect(after.commands).toBe(2); // the topic and the version: the comments came from the cache
    expect(ids(after.result.comments)).toEqual([top.id36, reply.id36]);
    expect(after.result.comments[0]!.children?.map((c) => c.id36)).toEqual([reply.id36]);
    // What a reader with nothing cached gets, byte for byte.
    expect(JSON.stringify((await ds2.topics.read(ANONYMOUS, t.id36)).comments)).toBe(
      JSON.stringify(after.result.comments),
    );
  });

  it("another instance's post in between: the next read goes to the database and shows both", async () => {
    const t = await f.topic(alice);
    await f.comment(alice, t, { markdown: 'first' });
    await f.d.topics.read(ANONYMOUS, t.id36); // cached here
    const theirs = await ds2.comments.post(bob.actor, { topicId: t.id36, markdown: 'from the other instance' });
    const mine = await f.comment(alice, t, { markdown: 'from this one' });
    const next = await s.countCommands(() => f.d.topics.read(ANONYMOUS, t.id36));
    expect(next.commands).toBe(3);
    expect(ids(next.result.comments)).toEqual(expect.arrayContaining([theirs.id36, mine.id36]));
  });
});

it('counts:verify --fix setting a comment count back to an earlier value serves no older copy', async () => {
  const t = await f.topic(alice);
  await f.comment(alice, t);
  const topics = s.agora.db.conn.collection('topics');
  const comments = async () => flat((await ds2.topics.read(ANONYMOUS, t.id36)).comments).map((x) => x.id36);
  // A drifted count (2 for 1 comment), read and cached under it by the second instance.
  await topics.updateOne({ _id: Number(t.id) as never }, { $inc: { commentCount: 1 } });
  expect(await comments()).toHaveLength(1);
  // A post raises it to 3, unseen by the second instance; the fix sets the true count, 2, again.
  const c = await f.comment(bob, t);
  const report = await f.d.counts.verify(SYSTEM, { fix: true });
  expect(report.drift).toContainEqual(expect.objectContaining({ post: `topic ${t.id}` }));
  expect((await topics.findOne({ _id: Number(t.id) as never }))!.commentCount).toBe(2);
  expect(await comments()).toContain(c.id36);
});

it('cached comments keep the Markdown rules: the author sees it unless the read leaves it out', async () => {
  await seen();
  const mine = (args: { markdown?: boolean }) =>
    ds2.topics.read(alice.actor, topic.id36, { ...args, recordVisit: false });
  const withIt = flat((await mine({})).comments).find((c) => c.id36 === first.id36)!;
  const without = flat((await mine({ markdown: false })).comments).find((c) => c.id36 === first.id36)!;
  expect(withIt.markdown).toBe('edited *now*');
  expect(without.markdown).toBeNull();
  expect(without.renderedHtml).toBe(withIt.renderedHtml);
});

it('COMMENT_CACHE_SIZE=0 turns the cache off', async () => {
  const off = await startTestServer({ COMMENT_CACHE_SIZE: '0' });
  try {
    const g = new Factory(off);
    const t = await g.topic(await g.user('carol'));
    const a = await off.countCommands(() => g.d.topics.read(ANONYMOUS, t.id36));
    const b = await off.countCommands(() => g.d.topics.read(ANONYMOUS, t.id36));
    expect([a.commands, b.commands]).toEqual([3, 3]);
  } finally {
    await off.close();
  }
});

it('a comment change leaves the topic document alone (the version has a collection of its own)', async () => {
  const t = await f.topic(alice);
  const c = await f.comment(bob, t);
  const before = await s.agora.db.conn.collection('topics').findOne({ _id: Number(t.id) as never });
  await f.voteComment(alice, c);
  const after = await s.agora.db.conn.collection('topics').findOne({ _id: Number(t.id) as never });
  expect(after).toEqual(before);
  expect(await s.agora.db.conn.collection('comment_versions').countDocuments({ _id: Number(t.id) as never })).toBe(1);
});
