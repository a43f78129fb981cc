/**
 * A subscriber receives what the equivalent query shows that viewer, and nothing it would hide:
 * per viewer (anonymous, author, admin, a viewer who ignored the topic), through real sockets.
 */
import type { TopicView } from '../../../src/discussion';
import { Factory, TestUser } from '../../helpers/factories';
import { liveClient, LiveClient, skippedGaps, wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
let f: Factory;
let author: TestUser;
let admin: TestUser;
let other: TestUser;
let ignorer: TestUser;
const clients: LiveClient[] = [];

const ACTIVITY = `subscription($id: ID!) { topicActivity(topicId: $id) {
  kind commentId
  comment {
    id: id36 isRemoved renderedHtml: textHtml voted: viewerHasVoted bookmarked: viewerHasBookmarked
    isMe: viewerIsAuthor author { username }
  }
  topic { id: id36 voted: viewerHasVoted ignored: viewerHasIgnored }
} }`;

async function subscribeAs(user: TestUser | null, topicId36: string) {
  const c = liveClient(wsUrlOf(s.url), user ? await user.tokenNow() : undefined);
  clients.push(c);
  return c.subscribe(ACTIVITY, { id: topicId36 });
}
const settle = () => new Promise((r) => setTimeout(r, 400));

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s);
  author = await f.user('author');
  admin = await f.user('admin', { admin: true });
  other = await f.user('other');
  ignorer = await f.user('ignorer');
});
// Every event reached the feed in order: it skipped no hole in the log.
afterEach(async () => expect(await skippedGaps(s.url)).toBe(0));
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await s.close();
});

describe('a removed comment', () => {
  let topic: TopicView;
  beforeAll(async () => {
    topic = await f.topic(other);
  });

  it('is announced by id to anonymous viewers and others, and shown to its author and admins', async () => {
    const [anon, own, adm, someone] = await Promise.all([
      subscribeAs(null, topic.id36),
      subscribeAs(author, topic.id36),
      subscribeAs(admin, topic.id36),
      subscribeAs(other, topic.id36),
    ]);
    await settle();
    const c = await f.comment(author, topic, { markdown: 'to be removed' });
    // (Delivered after the removal, the new comment would already be hidden from anon and other.)
    for (const sub of [anon, own, adm, someone]) await sub.got.count(1);
    await s.agora.services.discussion.comments.remove(admin.actor, c.id36);
    for (const sub of [anon, own, adm, someone]) await sub.got.count(2);
    const removal = (sub: typeof anon) => sub.got.messages[1].data.topicActivity;
    expect(removal(anon)).toMatchObject({ kind: 'COMMENT_REMOVED', commentId: c.id36, comment: null });
    expect(removal(someone)).toMatchObject({ kind: 'COMMENT_REMOVED', comment: null });
    expect(removal(own).comment).toMatchObject({
      id: c.id36,
      isRemoved: true,
      isMe: true,
      renderedHtml: expect.stringContaining('to be removed'),
    });
    expect(removal(adm).comment).toMatchObject({ id: c.id36, isRemoved: true, isMe: false });
    // The new comment itself: isMe is the subscriber's own.
    expect(own.got.messages[0].data.topicActivity.comment.isMe).toBe(true);
    expect(anon.got.messages[0].data.topicActivity.comment.isMe).toBeNull();
  });

  it("a removed comment's later changes reach only its author and admins", async () => {
    const c = await f.comment(author, topic, { markdown: 'removed, then voted' });
    await s.agora.services.discussion.comments.remove(admin.actor, c.id36);
    const [anon, own, adm] = await Promise.all([
      subscribeAs(null, topic.id36),
      subscribeAs(author, topic.id36),
      subscribeAs(admin, topic.id36),
    ]);
    await settle();
    await s.agora.services.discussion.votes.vote(admin.actor, 'comment', c.id36);
    await own.got.count(1);
    await adm.got.count(1);
    expect(own.got.messages[0].data.topicActivity).toMatchObject({
      kind: 'COMMENT_VOTES_CHANGED',
      comment: { voted: false },
    });
    expect(adm.got.messages[0].data.topicActivity).toMatchObject({
      kind: 'COMMENT_VOTES_CHANGED',
      comment: { voted: true },
    });
    await settle();
    expect(anon.got.messages).toHaveLength(0);
  });
});

it('a deleted comment is announced without its text to everyone, its author included', async () => {
  const topic = await f.topic(other);
  const c = await f.comment(author, topic, { markdown: 'secret words' });
  const [anon, own, adm] = await Promise.all([
    subscribeAs(null, topic.id36),
    subscribeAs(author, topic.id36),
    subscribeAs(admin, topic.id36),
  ]);
  await settle();
  await s.agora.services.discussion.comments.delete(author.actor, c.id36);
  for (const sub of [anon, own, adm]) {
    const [m] = await sub.got.count(1);
    expect(m.data.topicActivity).toMatchObject({ kind: 'COMMENT_DELETED', commentId: c.id36, comment: null });
    expect(JSON.stringify(m)).not.toContain('secret words');
  }
});

it('a viewer who ignored the topic receives nothing from it, others do; unignoring resumes', async () => {
  const topic = await f.topic(other);
  const d = s.agora.services.discussion;
  await d.ignores.ignore(ignorer.actor, topic.id36);
  const [ign, anon] = await Promise.all([subscribeAs(ignorer, topic.id36), subscribeAs(null, topic.id36)]);
  await settle();
  await f.comment(author, topic, { markdown: 'while ignored' });
  await anon.got.count(1);
  await settle();
  expect(ign.got.messages).toHaveLength(0);
  await d.ignores.unignore(ignorer.actor, topic.id36);
  const back = await f.comment(author, topic, { markdown: 'after unignore' });
  const [m] = await ign.got.count(1);
  expect(m.data.topicActivity).toMatchObject({ commentId: back.id36, topic: { ignored: false } });
});

it("voted and bookmarked are the subscriber's own", async () => {
  const topic = await f.topic(other);
  const c = await f.comment(author, topic);
  const d = s.agora.services.discussion;
  await d.bookmarks.bookmark(admin.actor, 'comment', c.id36);
  const [voter, bystander] = await Promise.all([subscribeAs(admin, topic.id36), subscribeAs(ignorer, topic.id36)]);
  await settle();
  await d.votes.vote(admin.actor, 'comment', c.id36);
  expect((await voter.got.count(1))[0].data.topicActivity.comment).toMatchObject({ voted: true, bookmarked: true });
  expect((await bystander.got.count(1))[0].data.topicActivity.comment).toMatchObject({
    voted: false,
    bookmarked: false,
  });
});

it('a removed topic: others cannot subscribe (NOT_FOUND), and its activity stops reaching them', async () => {
  const topic = await f.topic(author);
  const d = s.agora.services.discussion;
  const [anon, own] = await Promise.all([subscribeAs(null, topic.id36), subscribeAs(author, topic.id36)]);
  await settle();
  await d.topics.remove(admin.actor, topic.id36);
  await f.comment(admin, topic, { markdown: 'after removal' });
  await own.got.count(1);
  await settle();
  expect(anon.got.messages).toHaveLength(0);
  const late = await subscribeAs(other, topic.id36);
  await late.got.until(() => late.got.errors.length > 0 || late.got.messages.length > 0);
  expect((late.got.errors[0] ?? late.got.messages[0].errors)[0].extensions.code).toBe('NOT_FOUND');
});
