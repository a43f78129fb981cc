/** docs/discussion-api.md §8: examples 1–4 reproduced field for field over real HTTP. */
import examples from '../../fixtures/beta-examples.json';
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
let bob: TestUser;

/** Makes the next ids of a sequence start at `next` (the examples use ids 1a… and 2s…). */
async function startSequenceAt(name: 'topic' | 'comment', next: number) {
  await s.agora.db.conn
    .collection('discussion_counters')
    .updateOne({ _id: name as never }, { $set: { seq: next - 1 } }, { upsert: true });
}

beforeAll(async () => {
  s = await startTestServer({
    JWT_SECRET: 'example-secret-not-for-production-0123',
    PUBLIC_URL: 'https://example.org',
  });
  api = new BetaClient(s.url);
  f = new Factory(s);
  f.at('2026-02-01T00:00:00.000Z');
  const alice = await f.user('alice');
  bob = await f.user('bob');
  const [carol, dave, erin, frank] = [
    await f.user('carol'),
    await f.user('dave'),
    await f.user('erin'),
    await f.user('frank'),
  ];
  const voters: TestUser[] = [];
  for (let i = 0; i < 12; i++) voters.push(await f.user(`voter${i}`));

  await startSequenceAt('topic', 46);
  await startSequenceAt('comment', 100);
  const t1a = await f.topic(alice, {
    group: 'games.tabletop',
    title: 'Which board games work well with two players?',
    markdown: 'Looking for suggestions, ideally games that play well with two.',
    tags: ['ask.recommendations', 'two player'],
    at: '2026-03-01T09:00:00.000Z',
  });
  expect(t1a.id36).toBe('1a');
  const c2s = await f.comment(carol, t1a, {
    markdown: 'Patchwork is excellent with two.',
    at: '2026-03-01T10:00:00.000Z',
  });
  f.at('2026-03-01T10:20:00.000Z');
  await f.d.comments.edit(carol.actor, c2s.id36, 'Patchwork is excellent with two.');
  const c2t = await f.comment(dave, t1a, { markdown: 'Monopoly, obviously.', at: '2026-03-01T11:00:00.000Z' });
  const c2u = await f.comment(erin, t1a, { markdown: 'Is this about card games too?', at: '2026-03-01T11:30:00.000Z' });
  const c2v = await f.comment(alice, t1a, {
    parent: c2s,
    markdown: 'Thanks, ordering it.',
    at: '2026-03-01T11:45:00.000Z',
  });
  await f.comment(bob, t1a, { parent: c2u, markdown: 'What was the question?', at: '2026-03-01T11:50:00.000Z' });
  f.at('2026-03-01T11:55:00.000Z');
  await f.d.comments.delete(erin.actor, c2u.id36);
  await f.visit(bob, t1a, '2026-03-01T12:00:00.000Z');
  const c2x = await f.comment(frank, t1a, {
    parent: c2v,
    markdown: 'Try the Jaipur too.',
    at: '2026-03-01T13:00:00.000Z',
  });
  expect([c2s.id36, c2t.id36, c2u.id36, c2v.id36, c2x.id36]).toEqual(['2s', '2t', '2u', '2v', '2x']);

  f.at('2026-03-01T14:00:00.000Z');
  for (const v of voters) await f.voteTopic(v, t1a);
  await f.voteComment(bob, c2s);
  for (const v of voters.slice(0, 3)) await f.voteComment(v, c2s);
  for (const v of voters.slice(0, 7)) await f.voteComment(v, c2t);
  for (const v of voters.slice(0, 2)) await f.voteComment(v, c2v);
  await f.voteComment(voters[0]!, c2x);
  await f.label(frank, c2s, 'exemplary', 'Concise and helpful');
  await f.label(frank, c2t, 'joke');
  await f.d.bookmarks.bookmark(bob.actor, 'topic', t1a.id36);

  const t1b = await f.topic(carol, {
    group: 'tech',
    title: "What's your backup strategy?",
    markdown: 'I use restic to an external drive. What do you use?',
    tags: ['ask.survey', 'backups'],
    at: '2026-03-02T07:00:00.000Z',
  });
  for (const v of voters.slice(0, 5)) await f.voteTopic(v, t1b);
  for (const u of [bob, dave, erin]) await f.comment(u, t1b, { at: '2026-03-02T07:30:00.000Z' });
  const t1c = await f.topic(dave, {
    group: 'music',
    title: "Live performance of 'Clair de Lune' on a restored Pleyel",
    link: 'https://www.youtube.com/watch?v=abc123xyz',
    tags: ['classical', 'piano'],
    at: '2026-03-02T08:15:00.000Z',
  });
  for (const v of voters.slice(0, 2)) await f.voteTopic(v, t1c);
  expect([t1b.id36, t1c.id36]).toEqual(['1b', '1c']);
  // "…and older items" of alice's history (7.2).
  await f.topic(alice, { group: 'games.tabletop', title: 'An older topic', at: '2026-02-28T09:00:00.000Z' });
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe('example 1: login and whoami', () => {
  it('issues exactly the token of the example and whoami names its user', async () => {
    f.at('2026-03-01T12:00:00.000Z');
    const login = await api.post('/login', { username: 'Bob', password: 'correct horse battery' });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
        'eyJzdWIiOiIyIiwidXNlcm5hbWUiOiJib2IiLCJpYXQiOjE3NzIzNjY0MDAsImV4cCI6MTc3NDk1ODQwMCwidHYiOjB9.' +
        'uGKlStqbxL7Ql_E2YPfbExrCHNHFNPo1jzlErs_wlnA',
    });
    const who = await api.get('/whoami', { token: login.body.token });
    expect(who.status).toBe(200);
    expect(who.body).toEqual({ msg: 'bob' });
    const bad = await api.get('/whoami', { token: 'x.y.z' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual([{ message: 'Invalid or expired token', exception: 'InvalidTokenError' }]);
  });
});

describe('example 2: listing, anonymous', () => {
  it('answers GET /topics?order=new&limit=2 field for field', async () => {
    f.at('2026-03-02T09:00:00.000Z');
    const res = await api.get('/topics?order=new&limit=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(examples.example2);
    expect(res.text).toBe(JSON.stringify(examples.example2));
  });
});

describe('example 3: topic with comments, logged in', () => {
  it('answers GET /topic/1a as bob at 16:00 field for field, then reflects the recorded visit', async () => {
    f.at('2026-03-01T16:00:00.000Z');
    const token = await bob.tokenNow();
    const res = await api.get('/topic/1a', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(examples.example3);
    expect(res.text).toBe(JSON.stringify(examples.example3));

    const again = await api.get('/topic/1a', { token });
    expect(again.body.topic.new_comment_count).toBe(0);
    expect(again.body.topic.last_visit_time).toBe('2026-03-01T16:00:00.000Z');
    const all: any[] = [];
    const stack = [...again.body.comments];
    while (stack.length) {
      const c = stack.pop();
      all.push(c);
      stack.push(...c.children);
    }
    expect(all).toHaveLength(6);
    for (const c of all) {
      expect(c.is_new).toBe(false);
      expect(c.collapsed).toBe(false);
      expect(c.collapsed_individual).toBe(false);
    }
  });
});

describe('the example of 7.2: a mixed history', () => {
  it('answers GET /user/ALICE?limit=2 with comment 2v, topic 1a and a next link after t-1a', async () => {
    f.at('2026-03-03T00:00:00.000Z');
    const res = await api.get('/user/ALICE?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ username: 'alice' });
    expect(
      res.body.history.map((x: { id: string; topic_id?: string }) => [
        x.id,
        x.topic_id === undefined ? 'topic' : 'comment',
      ]),
    ).toEqual([
      ['2v', 'comment'],
      ['1a', 'topic'],
    ]);
    expect(res.body.history[0]).toEqual({
      ...examples.example3.comments[0]!.children[0],
      depth: 0,
      collapsed: false,
      collapsed_individual: false,
      is_me: null,
      is_new: null,
      voted: null,
      bookmarked: null,
      children: undefined,
    });
    expect(Object.keys(res.body.history[0])).not.toContain('children');
    expect(res.body.pagination).toEqual({
      num_items: 2,
      next_link: 'https://example.org/api/beta/user/alice?limit=2&after=t-1a',
      prev_link: null,
    });
  });
});

describe('example 4: several validation errors', () => {
  it('lists every problem in the spec order', async () => {
    const res = await api.get('/topics?limit=abc&period=1w&order=hot');
    expect(res.status).toBe(400);
    expect(res.text).toBe(
      JSON.stringify([
        { exception: 'ParameterValidationError', message: 'Failed to cast value to integer type: abc', field: 'limit' },
        { exception: 'ValidationError', message: 'Invalid time period', field: 'period' },
        {
          exception: 'ValidationError',
          message: "'hot' is not one of ['activity', 'votes', 'comments', 'new', 'all_activity']",
          field: 'order',
        },
      ]),
    );
  });
});
