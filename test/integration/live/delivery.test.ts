/**
 * GraphQL subscriptions through real WebSockets: two Agora instances on one real database; a
 * change made through either reaches subscribers connected to either, in order, once.
 */
import type { TopicView } from '../../../src/discussion';
import { Factory, TestUser } from '../../helpers/factories';
import { Instance, liveClient, LiveClient, skippedGaps, startSecondInstance, wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
let other: Instance;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let topic: TopicView;
const clients: LiveClient[] = [];

const ACTIVITY = `subscription($id: ID!, $after: String) { topicActivity(topicId: $id, after: $after) {
  cursor kind topicId commentId parentId depth
  topic { id: id36 voteCount commentCount voted: viewerHasVoted }
  comment {
    id: id36 renderedHtml: textHtml votes: voteCount voted: viewerHasVoted isMe: viewerIsAuthor author { username }
  }
  thread { depth isNew comment { id36 } }
} }`;

function client(url: string, token?: string): LiveClient {
  const c = liveClient(url, token);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  s = await startTestServer();
  other = await startSecondInstance(s);
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  topic = await f.topic(alice);
});
// Every event reached every instance's feed in order: none skipped a hole in the log.
afterEach(async () => {
  expect(await skippedGaps(s.url)).toBe(0);
  expect(await skippedGaps(other.url)).toBe(0);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await other.close();
  await s.close();
});

it('a comment posted through one instance reaches subscribers on the same and on the other instance', async () => {
  const here = client(wsUrlOf(s.url)).subscribe(ACTIVITY, { id: topic.id36 });
  const there = client(other.wsUrl).subscribe(ACTIVITY, { id: topic.id36 });
  await new Promise((r) => setTimeout(r, 300));
  const top = await f.comment(bob, topic, { markdown: 'hello *live*' });
  const reply = await f.comment(alice, topic, { markdown: 'a reply', parent: top });
  for (const sub of [here, there]) {
    const [a, b] = (await sub.got.count(2)).map((m) => m.data.topicActivity);
    expect(a).toMatchObject({
      kind: 'COMMENT_POSTED',
      topicId: topic.id36,
      commentId: top.id36,
      parentId: null,
      depth: 0,
    });
    expect(a.comment).toMatchObject({
      id: top.id36,
      renderedHtml: expect.stringContaining('<em>live</em>'),
      author: { username: 'bob' },
    });
    expect(b).toMatchObject({ kind: 'COMMENT_POSTED', commentId: reply.id36, parentId: top.id36, depth: 1 });
    expect(Number(b.cursor)).toBeGreaterThan(Number(a.cursor));
  }
});

it('every kind of change in a topic reaches its subscribers, in order, each once', async () => {
  const t = await f.topic(alice);
  const c = await f.comment(alice, t, { markdown: 'original' });
  // Let the other instance's feed read that comment's event first: it is not this test's subject.
  await new Promise((r) => setTimeout(r, 500));
  const sub = client(other.wsUrl, await bob.tokenNow()).subscribe(ACTIVITY, { id: t.id36 });
  await new Promise((r) => setTimeout(r, 300));
  const d = s.agora.services.discussion;
  const admin = await f.user(undefined, { admin: true });
  // Each message shows the posts as they are when it is sent, so each change waits for the one before
  // to arrive (a comment restored and deleted within one poll would reach bob only as deleted).
  const changes = [
    () => d.comments.edit(alice.actor, c.id36, 'edited text'),
    () => d.votes.vote(bob.actor, 'comment', c.id36),
    () => d.votes.vote(bob.actor, 'topic', t.id36),
    () => d.comments.remove(admin.actor, c.id36),
    () => d.comments.restore(admin.actor, c.id36),
    () => d.comments.delete(alice.actor, c.id36),
  ];
  for (const [i, change] of changes.entries()) {
    await change();
    await sub.got.count(i + 1);
  }
  const events = sub.got.messages.map((m) => m.data.topicActivity);
  expect(events.map((e) => e.kind)).toEqual([
    'COMMENT_EDITED',
    'COMMENT_VOTES_CHANGED',
    'TOPIC_VOTES_CHANGED',
    'COMMENT_REMOVED',
    'COMMENT_RESTORED',
    'COMMENT_DELETED',
  ]);
  expect(events[0].comment.renderedHtml).toContain('edited text');
  // voted is the subscriber's own (bob voted), and counts are current.
  expect(events[1].comment).toMatchObject({ votes: 1, voted: true, isMe: false });
  expect(events[2].topic).toMatchObject({ voteCount: 1, voted: true });
  // bob is neither the author nor an admin: a removal is announced by id only; a deletion hides the text from everyone.
  expect(events[3].comment).toBeNull();
  expect(events[4].comment).toMatchObject({ id: c.id36 });
  expect(events[5]).toMatchObject({ commentId: c.id36, comment: null });
  const cursors = events.map((e) => Number(e.cursor));
  expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
  await new Promise((r) => setTimeout(r, 500));
  expect(sub.got.messages).toHaveLength(6);
});

it('a mutation answered over HTTP by one instance reaches a subscriber of the other', async () => {
  const t = await f.topic(alice);
  const sub = client(wsUrlOf(s.url)).subscribe(ACTIVITY, { id: t.id36 });
  await new Promise((r) => setTimeout(r, 300));
  const res = await fetch(`${other.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await bob.tokenNow()}` },
    body: JSON.stringify({
      query: 'mutation($t: ID!) { postComment(topicId: $t, markdown: "over http") { comment { id36 } } }',
      variables: { t: t.id36 },
    }),
  });
  const body = (await res.json()) as { data: { postComment: { comment: { id36: string } } } };
  const [m] = await sub.got.count(1);
  const id36 = body.data.postComment.comment.id36;
  expect(m.data.topicActivity).toMatchObject({ kind: 'COMMENT_POSTED', commentId: id36, thread: { depth: 0 } });
});

it('comments posted at once through both instances reach every subscriber once each, in cursor order', async () => {
  const t = await f.topic(alice);
  const subs = [client(wsUrlOf(s.url)), client(other.wsUrl)].flatMap((c) => [
    c.subscribe(ACTIVITY, { id: t.id36 }),
    c.subscribe(ACTIVITY, { id: t.id36 }),
  ]);
  await new Promise((r) => setTimeout(r, 300));
  const ds = [s.agora.services.discussion, other.agora.services.discussion];
  const posted = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      ds[i % 2]!.comments.post(bob.actor, { topicId: t.id36, markdown: `burst ${i}` }),
    ),
  );
  for (const sub of subs) {
    const events = (await sub.got.count(20, 15_000)).map((m) => m.data.topicActivity);
    expect(new Set(events.map((e) => e.commentId))).toEqual(new Set(posted.map((c) => c.id36)));
    const cursors = events.map((e) => Number(e.cursor));
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const sub of subs) expect(sub.got.messages).toHaveLength(20);
});

it('a client resuming after a cursor gets what happened meanwhile, then live events, no gaps or repeats', async () => {
  const t = await f.topic(alice);
  const first = client(other.wsUrl);
  const sub = first.subscribe(ACTIVITY, { id: t.id36 });
  await new Promise((r) => setTimeout(r, 300));
  await f.comment(bob, t, { markdown: 'seen' });
  const [seen] = await sub.got.count(1);
  await first.dispose();
  const missed = [];
  for (let i = 0; i < 3; i++) missed.push(await f.comment(bob, t, { markdown: `missed ${i}` }));
  // Another topic's events in between are not this subscription's.
  await f.comment(bob, topic, { markdown: 'elsewhere' });
  const again = client(wsUrlOf(s.url)).subscribe(ACTIVITY, { id: t.id36, after: seen.data.topicActivity.cursor });
  const replayed = (await again.got.count(3)).map((m) => m.data.topicActivity.commentId);
  expect(replayed).toEqual(missed.map((c) => c.id36));
  const live = await f.comment(bob, t, { markdown: 'live again' });
  await again.got.count(4);
  expect(again.got.messages[3].data.topicActivity.commentId).toBe(live.id36);
  await new Promise((r) => setTimeout(r, 500));
  expect(again.got.messages).toHaveLength(4);
});

it('a malformed or unknown cursor is refused as bad input', async () => {
  const t = await f.topic(alice);
  for (const after of ['abc', '999999999']) {
    const sub = client(wsUrlOf(s.url)).subscribe(ACTIVITY, { id: t.id36, after });
    await sub.got.until(() => sub.got.errors.length > 0 || sub.got.messages.length > 0);
    const errors = sub.got.errors[0] ?? sub.got.messages[0].errors;
    expect(errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INVALID_CURSOR', field: 'after' });
  }
});

describe('new topics and replies', () => {
  const NEW_TOPICS =
    'subscription($g: String) { newTopics(group: $g) { kind cursor topic { id: id36 title group { path } } } }';
  const REPLIES =
    'subscription { myReplies { kind commentId parentId depth comment { id: id36 author { username } } ' +
    'topic { id: id36 } } }';

  it('new topics of the whole site, and of a group with its subgroups', async () => {
    await f.group('news');
    await f.group('news.local');
    await f.group('sports');
    // Topics posted by earlier tests must reach the feed before these subscriptions start.
    await new Promise((r) => setTimeout(r, 500));
    const all = client(other.wsUrl).subscribe(NEW_TOPICS, {});
    const news = client(other.wsUrl).subscribe(NEW_TOPICS, { g: '~News' });
    await new Promise((r) => setTimeout(r, 300));
    const a = await f.topic(bob, { group: 'news', title: 'in news' });
    const b = await f.topic(bob, { group: 'news.local', title: 'in news.local' });
    const c = await f.topic(bob, { group: 'sports', title: 'in sports' });
    expect((await all.got.count(3)).map((m) => m.data.newTopics.topic.id)).toEqual([a.id36, b.id36, c.id36]);
    expect((await news.got.count(2)).map((m) => m.data.newTopics.topic.id)).toEqual([a.id36, b.id36]);
    expect(news.got.messages[0].data.newTopics.kind).toBe('TOPIC_POSTED');
    await new Promise((r) => setTimeout(r, 500));
    expect(news.got.messages).toHaveLength(2);
  });

  it('an unknown group is NOT_FOUND', async () => {
    const sub = client(other.wsUrl).subscribe(NEW_TOPICS, { g: 'nope' });
    await sub.got.until(() => sub.got.messages.length > 0 || sub.got.errors.length > 0);
    expect((sub.got.errors[0] ?? sub.got.messages[0].errors)[0].extensions.code).toBe('NOT_FOUND');
  });

  it('own replies: answers to their comments, top-level comments on their topics, not their own', async () => {
    const carol = await f.user('carol');
    const t = await f.topic(carol);
    const sub = client(other.wsUrl, await carol.tokenNow()).subscribe(REPLIES);
    await new Promise((r) => setTimeout(r, 300));
    const onTopic = await f.comment(bob, t, { markdown: "top level on carol's topic" });
    const own = await f.comment(carol, t, { markdown: 'carol herself', parent: onTopic });
    const answer = await f.comment(bob, t, { markdown: 'answering carol', parent: own });
    await f.comment(bob, topic, { markdown: 'unrelated' });
    const got = (await sub.got.count(2)).map((m) => m.data.myReplies);
    expect(got.map((e) => e.commentId)).toEqual([onTopic.id36, answer.id36]);
    expect(got[1]).toMatchObject({
      kind: 'COMMENT_POSTED',
      parentId: own.id36,
      depth: 2,
      comment: { author: { username: 'bob' } },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(sub.got.messages).toHaveLength(2);
  });

  it('myReplies needs a logged-in viewer', async () => {
    const sub = client(other.wsUrl).subscribe(REPLIES);
    await sub.got.until(() => sub.got.messages.length > 0 || sub.got.errors.length > 0);
    expect((sub.got.errors[0] ?? sub.got.messages[0].errors)[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

it('a subscription starts after what was recorded before it, however far behind the poll is', async () => {
  // The other instance polls rarely: a comment recorded just before a subscription reaches it must
  // not be sent to that subscription (it happened before), the next one must.
  const slow = await startSecondInstance(s, { LIVE_POLL_INTERVAL_MS: '5000' });
  try {
    const keepAwake = client(slow.wsUrl).subscribe(ACTIVITY, { id: topic.id36 });
    await new Promise((r) => setTimeout(r, 300));
    const before = await f.comment(bob, topic, { markdown: 'before the subscription' });
    const sub = client(slow.wsUrl).subscribe(ACTIVITY, { id: topic.id36 });
    await new Promise((r) => setTimeout(r, 300));
    const after = await f.comment(bob, topic, { markdown: 'after the subscription' });
    const [first] = (await sub.got.count(1, 15_000)).map((m) => m.data.topicActivity);
    expect(first.commentId).toBe(after.id36);
    expect(sub.got.messages.map((m) => m.data.topicActivity.commentId)).not.toContain(before.id36);
    await keepAwake.got.count(2, 15_000);
  } finally {
    await slow.close();
  }
});

it("a new comment's thread.isNew follows the reads' rule: only after an earlier visit, never one's own", async () => {
  const t = await f.topic(alice);
  const bobToken = await bob.tokenNow();
  const sub = client(wsUrlOf(s.url), bobToken).subscribe(ACTIVITY, { id: t.id36 });
  await new Promise((r) => setTimeout(r, 300));
  const readIsNew = async (id36: string) => {
    const r = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bobToken}` },
      body: JSON.stringify({ query: `{ topic(id: "${t.id36}") { threads { nodes { isNew comment { id36 } } } } }` }),
    });
    const nodes = ((await r.json()) as any).data.topic.threads.nodes as { isNew: boolean; comment: { id36: string } }[];
    return nodes.find((n) => n.comment.id36 === id36)?.isNew;
  };
  // No visit of bob's yet: nothing is new to him, as a read says.
  const before = await f.comment(alice, t, { markdown: 'before any visit' });
  // After a visit: alice's next comment is new to bob, bob's own is not.
  await f.visit(bob, t);
  await new Promise((r) => setTimeout(r, 20));
  const after = await f.comment(alice, t, { markdown: 'after the visit' });
  const own = await f.comment(bob, t, { markdown: 'my own' });
  const got = (await sub.got.count(3)).map((m) => m.data.topicActivity.thread);
  expect(got.map((x) => [x.comment.id36, x.isNew])).toEqual([
    [before.id36, false],
    [after.id36, true],
    [own.id36, false],
  ]);
  for (const x of got) expect(x.isNew).toBe(await readIsNew(x.comment.id36));
});
