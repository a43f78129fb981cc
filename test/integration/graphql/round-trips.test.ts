/**
 * Round trips bounded with per-request DataLoaders (issue 4), counted with the MongoDB command
 * counter over the whole HTTP request (token verification included).
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import { gql } from './helpers';

import type { TopicView } from '../../../src/discussion/views';
import { newCommentDocument } from '../../../src/discussion/new-documents';

jest.setTimeout(300_000);

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let viewer: TestUser;
let big: TopicView;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  // Sequentially, so ids and times follow the order of creation.
  alice = await f.user('alice');
  bob = await f.user('bob');
  viewer = await f.user('viewer');
  for (const g of ['tech', 'music', 'games.tabletop']) await f.group(g);
  const ds = f.d;
  // 120 topics by two authors in three groups; the viewer votes and bookmarks some.
  const topics: TopicView[] = [];
  for (let i = 0; i < 120; i++) {
    topics.push(
      await f.topic(i % 2 ? alice : bob, {
        group: ['tech', 'music', 'games.tabletop'][i % 3]!,
        title: `Topic ${i}`,
        tags: [`tag${i % 5}`],
      }),
    );
  }
  for (const t of topics.slice(0, 30)) {
    await f.voteTopic(viewer, t);
    await ds.bookmarks.bookmark(viewer.actor, 'topic', t.id36);
  }
  // alice's history: her 60 topics plus 60 comments spread over bob's topics.
  for (const t of topics.filter((_, i) => i % 2 === 0).slice(0, 60))
    await f.comment(alice, t, { markdown: `On ${t.title}` });
  // One topic with 1,000 comments in a tree (every third a reply), by several authors (not alice,
  // whose history must stay a mix of topics and comments).
  // Inserted directly, as the service would store them: posting 1,000 comments one by one only
  // slows the test down.
  big = await f.topic(bob, { title: 'Big thread' });
  const authors = [bob, viewer, bob];
  const base = 1_000_000;
  const parentOf = (i: number) => (i % 3 === 2 ? Math.floor(i / 2) : null);
  // A parent comes before its replies, so its depth is known when theirs is taken.
  const depths: number[] = [];
  for (let i = 0; i < 1000; i++) depths.push(parentOf(i) === null ? 0 : depths[parentOf(i)!]! + 1);
  const docs = Array.from({ length: 1000 }, (_, i) => ({
    _id: base + i,
    ...newCommentDocument(
      {
        topic: { id: big.id, authorId: bob.user.id },
        parentId: parentOf(i) === null ? null : base + parentOf(i)!,
        author: { id: authors[i % 3]!.user.id, username: authors[i % 3]!.user.username },
        markdown: `Comment ${i}`,
        depth: depths[i]!,
      },
      new Date(big.createdAt.getTime() + (i + 1) * 1000),
    ),
  }));
  await s.agora.db.conn.collection('comments').insertMany(docs as never[]);
  await s.agora.db.conn.collection('topics').updateOne({ _id: big.id as never }, { $set: { commentCount: 1000 } });
  for (const c of docs.slice(0, 50)) if (c.authorUsername !== 'viewer') await f.voteComment(viewer, c._id.toString(36));
});
afterAll(async () => s?.close());

async function measure(query: string, token?: string) {
  const { result, commands } = await s.countCommands(() => gql(s, query, {}, token));
  expect(result.body.errors).toBeUndefined();
  return { data: result.body.data, commands };
}

const TOPICS_Q =
  '{ topics(first: 100) { edges { node { author { username } group { path } viewerHasVoted ' +
  'viewerHasBookmarked commentCount } } } }';

describe('topics(first: 100) with author, group, voted, bookmarked, commentCount', () => {
  it.each([
    ['anonymous', false],
    ['logged in', true],
  ])('uses at most 5 database commands (%s)', async (_label, logged) => {
    const { data, commands } = await measure(TOPICS_Q, logged ? viewer.token : undefined);
    expect(data.topics.edges).toHaveLength(100);
    expect(data.topics.edges.some((e: any) => e.node.viewerHasVoted === true)).toBe(logged);
    console.info(`topics(first: 100), ${_label}: ${commands} commands`);
    expect(commands).toBeLessThanOrEqual(5);
  });
});

describe('topics(first: 100, group:) filters in the query: full pages, still at most 5 commands', () => {
  it.each([
    ['anonymous', false],
    ['logged in', true],
  ])('a group with its subgroups, then the page after a cursor (%s)', async (_label, logged) => {
    const token = logged ? viewer.token : undefined;
    // `games` has no topics of its own: every one is in its subgroup games.tabletop (40 of 120).
    const first = await measure(
      '{ topics(first: 25, group: "games", order: NEW) { edges { node { group { path } author { username ' +
        '} viewerHasVoted } } pageInfo { endCursor hasNextPage } } }',
      token,
    );
    expect(first.data.topics.edges).toHaveLength(25);
    expect(first.data.topics.edges.every((e: any) => e.node.group.path === 'games.tabletop')).toBe(true);
    expect(first.data.topics.pageInfo.hasNextPage).toBe(true);
    expect(first.commands).toBeLessThanOrEqual(5);
    const next = await measure(
      `{ topics(first: 100, group: "~Games.Tabletop", order: NEW, after: ` +
        `"${first.data.topics.pageInfo.endCursor}") { edges { node { group { path } author { username } ` +
        `viewerHasVoted viewerHasBookmarked commentCount } } pageInfo { hasNextPage } } }`,
      token,
    );
    expect(next.data.topics.edges).toHaveLength(15);
    expect(next.data.topics.pageInfo.hasNextPage).toBe(false);
    console.info(`topics(group:, after:), ${_label}: ${first.commands} then ${next.commands} commands`);
    expect(next.commands).toBeLessThanOrEqual(5);
  });
});

describe(`topic(id) { threads { descendants { author viewerHasVoted viewerHasBookmarked } } } over 1,000 \
comments`, () => {
  it.each([
    ['anonymous', false],
    ['logged in', true],
  ])('uses at most 6 database commands (%s)', async (_label, logged) => {
    const sel = 'comment { author { username } viewerHasVoted viewerHasBookmarked }';
    const { data, commands } = await measure(
      `{ topic(id: "${big.id36}") { threads(first: 1000) { nodes { ${sel} descendants { ${sel} } } } } }`,
      logged ? viewer.token : undefined,
    );
    expect(data.topic.threads.nodes.flatMap((t: any) => [t, ...t.descendants])).toHaveLength(1000);
    console.info(`threads of 1,000 comments, ${_label}: ${commands} commands`);
    expect(commands).toBeLessThanOrEqual(6);
  });

  it('the nested tree with topic and parent on every comment needs no extra commands', async () => {
    const { data, commands } = await measure(
      `{ topic(id: "${big.id36}") { threads(first: 1000) { nodes { comment { id topic { id } parent { id ` +
        `} } replies { comment { id parent { id } topic { title } } } } } } }`,
      viewer.token,
    );
    expect(data.topic.threads.nodes.length).toBeGreaterThan(0);
    console.info(`nested tree with topic/parent: ${commands} commands`);
    expect(commands).toBeLessThanOrEqual(6);
  });
});

describe('the cost estimate of a topic named by id', () => {
  it.each([
    ['anonymous', false],
    ['logged in', true],
  ])(
    'costs no read of its own once a read saw the topic: the same commands as REST GET /topic/{id} (%s)',
    async (_label, logged) => {
      const q = `{ topic(id: "${big.id36}") { title threads(first: 10) { nodes { comment { id } } } } }`;
      const token = logged ? viewer.token : undefined;
      await measure(q, token);
      const { commands } = await measure(q, token);
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      // Read to the end: an unread body keeps its socket paused (and open) after the server closes.
      await (await fetch(`${s.url}/api/beta/topic/${big.id36}`, { headers })).text();
      const rest = await s.countCommands(async () => {
        const r = await fetch(`${s.url}/api/beta/topic/${big.id36}`, { headers });
        expect(r.status).toBe(200);
        return r.text();
      });
      console.info(`topic(id) ${_label}: GraphQL ${commands}, REST ${rest.commands} commands`);
      expect(commands).toBeLessThanOrEqual(rest.commands);
    },
  );
});

describe('user { history(first: 100) } with fragments on the union', () => {
  const Q =
    '{ user(username: "alice") { history(first: 100) { edges { node { ... on Topic { group { path } } ' +
    '... on Comment { topic { title } } } } } } }';
  it.each([
    ['anonymous', false],
    ['logged in', true],
  ])('uses at most 6 database commands (%s)', async (_label, logged) => {
    const { data, commands } = await measure(Q, logged ? viewer.token : undefined);
    const nodes = data.user.history.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(100);
    expect(nodes.some((n: any) => n.group) && nodes.some((n: any) => n.topic)).toBe(true);
    console.info(`history(first: 100), ${_label}: ${commands} commands`);
    expect(commands).toBeLessThanOrEqual(6);
  });
});

describe('writes as the bench measures them (voteTopic, postComment), each with its live event', () => {
  it('voteTopic { voteCount viewerHasVoted } costs 5 commands: answered from what its writes returned', async () => {
    const t = await f.topic(alice, { title: 'Voted on' });
    const Q = (on: boolean) => `mutation { voteTopic(id: "${t.id36}", vote: ${on}) { voteCount viewerHasVoted } }`;
    for (const [on, voteCount] of [
      [true, 1],
      [false, 0],
      [true, 1],
    ] as const) {
      const { data, commands } = await measure(Q(on), viewer.token);
      expect(data.voteTopic).toEqual({ voteCount, viewerHasVoted: on });
      console.info(`voteTopic(vote: ${on}): ${commands} commands`);
      // The viewer, the topic, the mark's findAndModify, the topic's $inc, and the live event's
      // insert, which takes its number (src/events/event-log.ts). With the topic and the mark read
      // again for the answer, it took 8; with the event's number taken by a command of its own, 6.
      expect(commands).toBe(5);
    }
    // Idempotent: nothing changes, nothing is recorded; the answer reads the viewer's mark.
    const again = await measure(Q(true), viewer.token);
    expect(again.data.voteTopic).toEqual({ voteCount: 1, viewerHasVoted: true });
    expect(again.commands).toBe(4);
  });

  it('postComment costs 6 commands', async () => {
    const t = await f.topic(alice, { title: 'Commented on' });
    const { data, commands } = await measure(
      `mutation { postComment(topicId: "${t.id36}", markdown: "counted") { comment { id36 } } }`,
      viewer.token,
    );
    expect(data.postComment.comment.id36).toMatch(/^[0-9a-z]+$/);
    // The viewer, the topic, the comment's id and insert, the topic's $inc, then the live event's
    // insert, which takes its number. No new version of the topic's comments: the count of posts the $inc
    // raises is part of the comment cache's key (CommentRepository.forTopic).
    expect(commands).toBe(6);
  });

  it('a reply costs 7 commands at any depth: 8 below comments stored before depths were', async () => {
    const t = await f.topic(alice, { title: 'Deep replies' });
    // Two chains of 60 comments: one as posts store them now, one without `depth`, as comments
    // posted before it was stored are (CommentRepository.depthOf).
    const chain = (base: number, stored: boolean) =>
      Array.from({ length: 60 }, (_, i) => {
        const { depth, ...doc } = newCommentDocument(
          {
            topic: { id: t.id, authorId: alice.user.id },
            parentId: i === 0 ? null : base + i - 1,
            author: { id: bob.user.id, username: bob.user.username },
            markdown: `Level ${i}`,
            depth: i,
          },
          new Date(t.createdAt.getTime() + (i + 1) * 1000),
        );
        return { _id: base + i, ...doc, ...(stored ? { depth } : {}) };
      });
    const docs = [...chain(2_000_000, true), ...chain(3_000_000, false)];
    await s.agora.db.conn.collection('comments').insertMany(docs as never[]);
    await s.agora.db.conn.collection('topics').updateOne({ _id: t.id as never }, { $set: { commentCount: 120 } });
    const reply = (parent: number) =>
      measure(
        `mutation { postComment(topicId: "${t.id36}", parentId: "${parent.toString(36)}", markdown: "deep") ` +
          '{ depth comment { id36 } } }',
        viewer.token,
      );
    const stored = (id36: string) =>
      s.agora.db.conn.collection('comments').findOne({ _id: parseInt(id36, 36) as never });
    const events = s.agora.db.conn.collection('events');
    for (const [parent, depth, expected] of [
      [2_000_000, 1, 7],
      [2_000_059, 60, 7],
      [3_000_000, 1, 7], // a top-level parent: its depth is 0 without reading anything
      [3_000_030, 31, 8],
      [3_000_059, 60, 8],
    ] as const) {
      const { data, commands } = await reply(parent);
      expect(data.postComment.depth).toBe(depth);
      const id = parseInt(data.postComment.comment.id36, 36);
      expect((await stored(data.postComment.comment.id36))?.depth).toBe(depth);
      expect(await events.findOne({ kind: 'comment.posted', commentId: id })).toMatchObject({
        parentId: parent,
        depth,
      });
      // postComment's 6 and the parent; below an old comment, its topic's parent links too. Each
      // level walked cost one read before (two more for the answer's depth, through GraphQL).
      expect(commands).toBe(expected);
    }
  });

  it('voteComment answers the comment from its $inc: one command fewer than reading it again', async () => {
    const t = await f.topic(alice, { title: 'Comment voted on' });
    const c = await f.comment(alice, t, { markdown: 'vote for me' });
    const { data, commands } = await measure(
      `mutation { voteComment(id: "${c.id36}") { voteCount viewerHasVoted } }`,
      viewer.token,
    );
    expect(data.voteComment).toEqual({ voteCount: 1, viewerHasVoted: true });
    // The viewer, the comment, the mark, the comment's $inc, its comments' version, the viewer's
    // marks for the answer, the live event (1). It took 9 with the comment read again, 8 with the
    // event's number taken by a command of its own.
    expect(commands).toBe(7);
  });
});

describe('loaders batch and never cross requests', () => {
  it('joinedAt/isAdmin of 100 topic authors cost one more command, not one per topic', async () => {
    const plain = await measure(TOPICS_Q, viewer.token);
    const withUsers = await measure(
      '{ topics(first: 100) { edges { node { author { username joinedAt isAdmin } group { path description } } } } }',
      viewer.token,
    );
    expect(withUsers.commands).toBeLessThanOrEqual(plain.commands + 2);
  });

  it('two requests each see their own viewer-specific values', async () => {
    const q = `{ topics(first: 5, order: NEW) { edges { node { id viewerHasVoted } } } }`;
    const [a, b] = await Promise.all([gql(s, q, {}, viewer.token), gql(s, q)]);
    expect(b.body.data.topics.edges.every((e: any) => e.node.viewerHasVoted === null)).toBe(true);
    expect(a.body.data.topics.edges.every((e: any) => typeof e.node.viewerHasVoted === 'boolean')).toBe(true);
  });
});
