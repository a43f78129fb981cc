/**
 * GET /topics (docs/discussion-api.md §2.3, §5.1–5.5): validation, period, tag, orders, filtering, viewer fields.
 */
import { SYSTEM } from '../../../src/discussion';
import type { CommentView } from '../../../src/discussion';
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

const ids = (body: { topics: { id: string }[] }) => body.topics.map((t) => t.id);
const ORDER_LIST = "['activity', 'votes', 'comments', 'new', 'all_activity']";

describe('parameter validation (2.3)', () => {
  let s: TestServer;
  let api: BetaClient;
  beforeAll(async () => {
    s = await startTestServer();
    api = new BetaClient(s.url);
    const f = new Factory(s);
    await f.topic(await f.user('alice'));
  });
  afterAll(async () => {
    await s?.close();
  });

  const err = async (query: string) => {
    const res = await api.get(`/topics?${query}`);
    expect(res.status).toBe(400);
    return res.body;
  };

  it.each([
    ['limit=0', 'ValidationError', '0 is less than the minimum of 1'],
    ['limit=-05', 'ValidationError', '-5 is less than the minimum of 1'],
    ['limit=101', 'ValidationError', '101 is greater than the maximum of 100'],
    ['limit=0101', 'ValidationError', '101 is greater than the maximum of 100'],
    [
      'limit=99999999999999999999999999',
      'ValidationError',
      '99999999999999999999999999 is greater than the maximum of 100',
    ],
    ['limit=abc', 'ParameterValidationError', 'Failed to cast value to integer type: abc'],
    ['limit=1.5', 'ParameterValidationError', 'Failed to cast value to integer type: 1.5'],
    ['limit=', 'ParameterValidationError', 'Failed to cast value to integer type: '],
    ['limit=%2B5', 'ParameterValidationError', 'Failed to cast value to integer type: +5'],
    ['limit=1+', 'ParameterValidationError', 'Failed to cast value to integer type: 1 '],
  ])('%s', async (query, exception, message) => {
    expect(await err(query)).toEqual([{ exception, message, field: 'limit' }]);
  });

  it('accepts 1, 100 and leading zeros', async () => {
    for (const q of ['limit=1', 'limit=100', 'limit=007']) expect((await api.get(`/topics?${q}`)).status).toBe(200);
  });

  it.each(['0', '01', '-1', 't-1', 'a_b', '1.5', '', 'é', ' 1'])('cursor %p is malformed', async (value) => {
    for (const name of ['before', 'after']) {
      expect(await err(`${name}=${encodeURIComponent(value)}`)).toEqual([
        { exception: 'ValidationError', message: 'String does not match expected pattern.', field: name },
      ]);
    }
  });

  it('refuses both cursors whatever their values', async () => {
    expect(await err('before=1&after=2')).toEqual([
      { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
    ]);
    expect(await err('after=zz&before=')).toEqual([
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'before' },
      { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
    ]);
  });

  it.each([
    ['order=hot', "'hot' is not one of"],
    ['order=', "'' is not one of"],
    ['order=NEW', "'NEW' is not one of"],
    ["order=it's", `"it's" is not one of`],
    ['order=a%5Cb', "'a\\\\b' is not one of"],
    ['order=a%0Ab', "'a\\nb' is not one of"],
  ])('%s', async (query, start) => {
    expect(await err(query)).toEqual([
      { exception: 'ValidationError', message: `${start} ${ORDER_LIST}`, field: 'order' },
    ]);
  });

  it.each(['', 'ALL', '1w', '2 d', '4hx', '0h', '00d', '-1h', '1.5h'])('period=%p is invalid', async (value) => {
    expect(await err(`period=${encodeURIComponent(value)}`)).toEqual([
      { exception: 'ValidationError', message: 'Invalid time period', field: 'period' },
    ]);
  });

  it.each([
    ['a-b', 'Only letters, numbers, and spaces allowed.'],
    ['café', 'Only letters, numbers, and spaces allowed.'],
    ['', 'Only letters, numbers, and spaces allowed.'],
    ['a..b', 'Invalid path'],
    ['.a', 'Invalid path'],
    ['a.', 'Invalid path'],
    ['.', 'Invalid path'],
  ])('tag=%p', async (value, message) => {
    expect(await err(`tag=${encodeURIComponent(value)}`)).toEqual([
      { exception: 'ValidationError', message, field: 'tag' },
    ]);
  });

  it('lists every problem in the spec order, one per parameter', async () => {
    expect(await err('order=x&tag=a..b&period=1w&after=0&before=0&limit=0')).toEqual([
      { exception: 'ValidationError', message: '0 is less than the minimum of 1', field: 'limit' },
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'before' },
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'after' },
      { exception: 'ValidationError', message: 'Invalid time period', field: 'period' },
      { exception: 'ValidationError', message: 'Invalid path', field: 'tag' },
      { exception: 'ValidationError', message: `'x' is not one of ${ORDER_LIST}`, field: 'order' },
      { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
    ]);
  });

  it('uses the first occurrence, ignores unknown parameters, and matches names case-sensitively', async () => {
    expect((await api.get('/topics?limit=5&limit=abc')).status).toBe(200);
    expect(await err('limit=abc&limit=5')).toHaveLength(1);
    expect((await api.get('/topics?LIMIT=abc&Order=hot&foo=bar')).status).toBe(200);
  });
});

describe('period (5.2)', () => {
  let s: TestServer;
  let api: BetaClient;
  let t: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    api = new BetaClient(s.url);
    const f = new Factory(s);
    const a = await f.user('alice');
    t = {
      old: (await f.topic(a, { at: '1990-01-01T00:00:00.000Z' })).id36,
      d3: (await f.topic(a, { at: '2026-02-26T12:00:00.000Z' })).id36,
      h4exact: (await f.topic(a, { at: '2026-03-01T08:00:00.000Z' })).id36,
      h3: (await f.topic(a, { at: '2026-03-01T09:00:00.000Z' })).id36,
    };
    f.at('2026-03-01T12:00:00.000Z');
  });
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ['all', ['h3', 'h4exact', 'd3', 'old']],
    ['4h', ['h3']],
    ['04h', ['h3']],
    ['4H', ['h3']],
    ['5h', ['h3', 'h4exact']],
    ['3d', ['h3', 'h4exact']],
    ['4D', ['h3', 'h4exact', 'd3']],
    ['36500d', ['h3', 'h4exact', 'd3', 'old']],
    ['999999999999h', ['h3', 'h4exact', 'd3', 'old']],
  ])('period=%s', async (period, expected) => {
    const res = await api.get(`/topics?order=new&period=${period}`);
    expect(ids(res.body)).toEqual(expected.map((k) => t[k]));
  });
});

describe('tag (5.3)', () => {
  let s: TestServer;
  let api: BetaClient;
  const tagged: Record<string, string> = {};
  beforeAll(async () => {
    s = await startTestServer();
    api = new BetaClient(s.url);
    const f = new Factory(s);
    const a = await f.user('alice');
    for (const tag of [
      'ask',
      'ask.survey',
      'foo.ask',
      'asking',
      'ask me',
      'surveys',
      'ask.survey.x',
      'meta.ask.survey',
      'survey.ask',
      'hello world',
      'misc.hello world',
      'hello',
    ]) {
      tagged[tag] = (await f.topic(a, { tags: [tag] })).id36;
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ['ask', ['ask', 'ask.survey', 'foo.ask', 'ask.survey.x', 'meta.ask.survey', 'survey.ask']],
    ['survey', ['ask.survey', 'ask.survey.x', 'meta.ask.survey', 'survey.ask']],
    ['ask.survey', ['ask.survey', 'ask.survey.x', 'meta.ask.survey']],
    ['hello world', ['hello world', 'misc.hello world']],
    ['Hello_World', ['hello world', 'misc.hello world']],
    ['HELLO', ['hello']],
    ['nothing', []],
  ])('tag=%p', async (tag, expected) => {
    const res = await api.get(`/topics?order=new&tag=${encodeURIComponent(tag)}`);
    expect(new Set(ids(res.body))).toEqual(new Set(expected.map((k) => tagged[k])));
  });

  it('shows tags lowercase with spaces, in entry order', async () => {
    const res = await api.get(`/topics?tag=misc`);
    expect(res.body.topics[0].tags).toEqual(['misc.hello world']);
  });
});

describe('orders (5.4) and which topics are listed (5.5)', () => {
  let s: TestServer;
  let api: BetaClient;
  let f: Factory;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let admin: TestUser;
  const t: Record<string, string> = {};
  let noisy: CommentView;

  beforeAll(async () => {
    s = await startTestServer();
    api = new BetaClient(s.url);
    f = new Factory(s);
    alice = await f.user('alice');
    bob = await f.user('bob');
    carol = await f.user('carol');
    admin = await f.user('admin', { admin: true });
    // A: oldest, most votes. B: noise-labelled comment latest. C: newest topic. D: most comments.
    const A = await f.topic(alice, { title: 'A', at: '2026-03-01T01:00:00.000Z' });
    const B = await f.topic(alice, { title: 'B', at: '2026-03-01T02:00:00.000Z' });
    const D = await f.topic(alice, { title: 'D', at: '2026-03-01T03:00:00.000Z' });
    const C = await f.topic(alice, { title: 'C', at: '2026-03-01T04:00:00.000Z' });
    Object.assign(t, { A: A.id36, B: B.id36, C: C.id36, D: D.id36 });
    await f.votes('topic', A, 3);
    await f.votes('topic', D, 1);
    await f.comment(bob, D, { at: '2026-03-01T05:00:00.000Z' });
    await f.comment(carol, D, { at: '2026-03-01T05:10:00.000Z' });
    noisy = await f.comment(bob, B, { at: '2026-03-01T06:00:00.000Z' });
    await f.label(carol, noisy, 'noise');
  });
  afterAll(async () => {
    await s?.close();
  });

  it.each([
    ['new', ['C', 'D', 'B', 'A']],
    ['votes', ['A', 'D', 'C', 'B']],
    ['comments', ['D', 'B', 'C', 'A']],
    // B's only comment carries an active noise label: its interesting activity stays at 02:00.
    ['activity', ['D', 'C', 'B', 'A']],
    ['all_activity', ['B', 'D', 'C', 'A']],
  ])('order=%s', async (order, expected) => {
    const res = await api.get(`/topics?order=${order}`);
    expect(ids(res.body)).toEqual(expected.map((k) => t[k]));
  });

  it('defaults to activity', async () => {
    expect(ids((await api.get('/topics')).body)).toEqual(['D', 'C', 'B', 'A'].map((k) => t[k]));
  });

  it('activity follows label activity: malice and offtopic take comments out, votes can deactivate noise', async () => {
    const E = await f.topic(alice, { title: 'E', at: '2026-03-01T07:00:00.000Z' });
    const c1 = await f.comment(bob, E, { at: '2026-03-01T09:00:00.000Z' });
    const c2 = await f.comment(carol, E, { at: '2026-03-01T08:00:00.000Z' });
    const act = async () => (await api.get('/topics?order=activity&limit=1')).body.topics[0].id;
    expect(await act()).toBe(E.id36);
    const F = await f.topic(alice, { title: 'F', at: '2026-03-01T08:30:00.000Z' });
    expect(await act()).toBe(E.id36); // E's 09:00 comment beats F at 08:30
    await f.label(carol, c1, 'malice');
    expect(await act()).toBe(F.id36); // E falls back to 08:00
    await f.label(bob, c2, 'offtopic');
    // E back to its own 07:00
    expect(ids((await api.get('/topics?order=activity&limit=4')).body)).toEqual([F.id36, E.id36, t.D, t.C]);
    // Five votes deactivate B's single noise label: its 06:00 comment counts again.
    await f.votes('comment', noisy, 5);
    expect(ids((await api.get('/topics?order=activity&limit=4')).body)).toEqual([F.id36, E.id36, t.B, t.D]);
  });

  it(`never lists deleted or removed topics, for any viewer; the author and admins still read removed \
ones`, async () => {
    const gone = await f.topic(bob, { title: 'deleted', at: '2026-03-01T10:00:00.000Z' });
    const removed = await f.topic(bob, { title: 'removed', at: '2026-03-01T10:01:00.000Z' });
    await f.d.topics.delete(bob.actor, gone.id36);
    await f.d.topics.remove(SYSTEM, removed.id36);
    for (const token of [undefined, await bob.tokenNow(), await admin.tokenNow()]) {
      const listed = ids((await api.get('/topics?order=new&limit=100', { token })).body);
      expect(listed).not.toContain(gone.id36);
      expect(listed).not.toContain(removed.id36);
    }
    expect((await api.get(`/topic/${removed.id36}`, { token: await bob.tokenNow() })).status).toBe(200);
    expect((await api.get(`/topic/${removed.id36}`, { token: await admin.tokenNow() })).status).toBe(200);
    expect((await api.get(`/topic/${removed.id36}`)).status).toBe(404);
    // They still serve as cursors: they only supply a position.
    const after = await api.get(`/topics?order=new&after=${gone.id36}`);
    expect(ids(after.body)[0]).not.toBe(removed.id36);
    expect(after.body.topics.length).toBeGreaterThan(0);
  });

  it('hides topics the viewer ignored from that viewer only; a cursor outside the filters still works', async () => {
    const ignored = t.C!;
    await f.d.ignores.ignore(carol.actor, ignored);
    const carolToken = await carol.tokenNow();
    const mine = await api.get('/topics?order=new&limit=100', { token: carolToken });
    expect(ids(mine.body)).not.toContain(ignored);
    expect(mine.body.topics.every((x: { ignored: boolean }) => x.ignored === false)).toBe(true);
    expect(ids((await api.get('/topics?order=new&limit=100')).body)).toContain(ignored);
    const read = await api.get(`/topic/${ignored}`, { token: carolToken });
    expect(read.status).toBe(200);
    expect(read.body.topic.ignored).toBe(true);
    const fromIgnored = await api.get(`/topics?order=new&after=${ignored}`, { token: carolToken });
    expect(ids(fromIgnored.body)[0]).toBe(t.D);
    await f.d.ignores.unignore(carol.actor, ignored);
    expect(ids((await api.get('/topics?order=new&limit=100', { token: carolToken })).body)).toContain(ignored);
  });
});

describe('viewer-specific fields (1.5, 4.1, 4.7)', () => {
  let s: TestServer;
  let api: BetaClient;
  let f: Factory;
  let alice: TestUser;
  let bob: TestUser;
  let topic: string;

  beforeAll(async () => {
    s = await startTestServer();
    api = new BetaClient(s.url);
    f = new Factory(s);
    alice = await f.user('alice');
    bob = await f.user('bob');
    f.at('2026-03-01T10:00:00.000Z');
    const t = await f.topic(alice, { title: 'Viewer fields', markdown: 'Tell me *yours* please' });
    topic = t.id36;
    await f.comment(alice, t);
    await f.comment(alice, t);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('are null for anonymous viewers', async () => {
    const x = (await api.get('/topics')).body.topics[0];
    expect(x).toMatchObject({
      new_comment_count: null,
      voted: null,
      bookmarked: null,
      ignored: null,
      last_visit_time: null,
    });
    expect(x.content_metadata).toEqual(['4 words']);
  });

  it('are concrete for logged-in viewers; new_comment_count needs a visit', async () => {
    const token = await bob.tokenNow();
    const before = (await api.get('/topics', { token })).body.topics[0];
    expect(before).toMatchObject({
      new_comment_count: null,
      voted: false,
      bookmarked: false,
      ignored: false,
      last_visit_time: null,
    });

    f.at('2026-03-01T11:00:00.000Z');
    await f.voteTopic(bob, await f.d.topics.get(bob.actor, topic));
    await f.d.bookmarks.bookmark(bob.actor, 'topic', topic);
    expect((await api.get(`/topic/${topic}`, { token })).status).toBe(200); // records the visit (2 comments)
    const after = (await api.get('/topics', { token })).body.topics[0];
    expect(after).toMatchObject({
      new_comment_count: 0,
      voted: true,
      bookmarked: true,
      ignored: false,
      last_visit_time: '2026-03-01T11:00:00.000Z',
      vote_count: 1,
    });

    f.at('2026-03-01T12:00:00.000Z');
    await f.comment(alice, topic);
    await f.comment(alice, topic);
    const later = (await api.get('/topics', { token })).body.topics[0];
    expect(later).toMatchObject({
      comment_count: 4,
      new_comment_count: 2,
      last_visit_time: '2026-03-01T11:00:00.000Z',
    });

    // Removing comments can bring the count below the visit's: never negative.
    const tree = (await api.get(`/topic/${topic}`)).body.comments;
    for (const c of tree) await f.d.comments.remove(SYSTEM, c.id);
    const none = (await api.get('/topics', { token })).body.topics[0];
    expect(none).toMatchObject({ comment_count: 0, new_comment_count: 0 });
  });
});
