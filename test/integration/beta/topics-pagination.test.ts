/** GET /topics pagination (docs/discussion-api.md §5.6): the worked example, links, and 120-topic walks. */
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

const ids = (body: { topics: { id: string }[] }) => body.topics.map((t) => t.id);

describe('the worked example of 5.6', () => {
  let s: TestServer;
  let api: BetaClient;
  beforeAll(async () => {
    s = await startTestServer({ PUBLIC_URL: 'https://example.org' });
    api = new BetaClient(s.url);
    const f = new Factory(s);
    const alice = await f.user('alice');
    await s.agora.db.conn
      .collection('discussion_counters')
      .updateOne({ _id: 'topic' as never }, { $set: { seq: 45 } }, { upsert: true });
    for (let i = 0; i < 5; i++) await f.topic(alice, { at: `2026-03-01T1${i}:00:00.000Z` });
    f.at('2026-03-02T00:00:00.000Z');
  });
  afterAll(async () => {
    await s?.close();
  });

  const L = 'https://example.org/api/beta/topics?limit=2&order=new';
  it.each([
    ['order=new&limit=2', ['1e', '1d'], `${L}&after=1d`, null],
    ['order=new&limit=2&after=1d', ['1c', '1b'], `${L}&after=1b`, `${L}&before=1c`],
    ['order=new&limit=2&after=1b', ['1a'], null, `${L}&before=1a`],
    ['order=new&limit=2&before=1c', ['1e', '1d'], `${L}&after=1d`, null],
    ['order=new&limit=2&before=1d', ['1e'], `${L}&after=1e`, null],
    ['order=new&limit=2&after=1a', [], null, null],
    ['order=new&limit=2&after=zzzz', [], null, null],
    ['order=new&limit=2&before=1e', [], null, null],
    ['order=new&limit=2&after=ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ', [], null, null],
  ])('%s', async (query, topics, next, prev) => {
    const res = await api.get(`/topics?${query}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(topics);
    expect(res.body.pagination).toEqual({ num_items: topics.length, next_link: next, prev_link: prev });
  });

  it('accepts cursors in any letter case', async () => {
    const res = await api.get('/topics?order=new&limit=2&after=1D');
    expect(ids(res.body)).toEqual(['1c', '1b']);
  });

  it('writes only the given parameters, in the spec order, with their received values', async () => {
    const res = await api.get('/topics?after=1e&order=new&foo=bar&limit=2&limit=3');
    expect(res.body.pagination.next_link).toBe('https://example.org/api/beta/topics?limit=2&order=new&after=1c');
    const noParams = await api.get('/topics?limit=1');
    expect(noParams.body.pagination.next_link).toMatch(
      /^https:\/\/example\.org\/api\/beta\/topics\?limit=1&after=[0-9a-z]+$/,
    );
    const period = await api.get('/topics?limit=1&period=all&order=new&limit=9');
    expect(period.body.pagination.next_link).toBe(
      'https://example.org/api/beta/topics?limit=1&period=all&order=new&after=1e',
    );
  });
});

describe('links with encoded values and a derived base URL', () => {
  let s: TestServer;
  let api: BetaClient;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: 'true' });
    api = new BetaClient(s.url);
    const f = new Factory(s);
    const alice = await f.user('alice');
    for (let i = 0; i < 12; i++)
      await f.topic(alice, { tags: ['misc.hello world'], at: `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z` });
    f.at('2026-03-02T00:00:00.000Z');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('encodes as application/x-www-form-urlencoded (space → +)', async () => {
    const res = await api.get('/topics?tag=hello%20world&period=2D&limit=10', {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.org' },
    });
    expect(res.body.topics).toHaveLength(10);
    expect(res.body.pagination.next_link).toBe(
      `https://example.org/api/beta/topics?limit=10&period=2D&tag=hello+world&after=${res.body.topics[9].id}`,
    );
    const plus = await api.get('/topics?tag=Hello+World&limit=10', {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.org' },
    });
    expect(plus.body.pagination.next_link).toBe(
      `https://example.org/api/beta/topics?limit=10&tag=Hello+World&after=${plus.body.topics[9].id}`,
    );
  });

  it('derives the base from the Host header without PUBLIC_URL', async () => {
    const res = await api.get('/topics?limit=1');
    expect(res.body.pagination.next_link.startsWith(`${s.url}/api/beta/topics?limit=1&after=`)).toBe(true);
    expect(res.body.topics[0].comments_url.startsWith(`${s.url}/~test/`)).toBe(true);
  });
});

describe('walking 120 topics', () => {
  let s: TestServer;
  let api: BetaClient;
  let f: Factory;
  let viewer: TestUser;
  let token: string;
  const ORDERS = ['activity', 'votes', 'comments', 'new', 'all_activity'];

  beforeAll(async () => {
    s = await startTestServer({ PUBLIC_URL: 'https://example.org' });
    api = new BetaClient(s.url);
    f = new Factory(s);
    const alice = await f.user('alice');
    viewer = await f.user('viewer');
    const voters: TestUser[] = [];
    for (let i = 0; i < 3; i++) voters.push(await f.user(`voter${i}`));
    const topics = [];
    for (let i = 0; i < 120; i++) {
      // Several topics share each timestamp, vote count and comment count: ties everywhere.
      topics.push(await f.topic(alice, { at: new Date(Date.UTC(2026, 2, 1, 0, Math.floor(i / 3))).toISOString() }));
    }
    f.at('2026-03-02T00:00:00.000Z');
    for (let i = 0; i < 120; i++) {
      for (let v = 0; v < i % 4 && v < voters.length; v++) await f.voteTopic(voters[v]!, topics[i]!);
      if (i % 5 === 0)
        await f.comment(voters[0]!, topics[i]!, { at: new Date(Date.UTC(2026, 2, 2, i % 7)).toISOString() });
    }
    f.at('2026-03-03T00:00:00.000Z');
    token = await viewer.tokenNow();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  async function walk(first: string, link: 'next_link' | 'prev_link', auth?: string): Promise<string[][]> {
    const pages: string[][] = [];
    let res = await api.get(first, { token: auth });
    pages.push(ids(res.body));
    while (res.body.pagination[link]) {
      res = await api.follow(res.body.pagination[link], { token: auth });
      expect(res.status).toBe(200);
      pages.push(ids(res.body));
      expect(pages.length).toBeLessThan(100);
    }
    return pages;
  }

  it.each(ORDERS)('order=%s: forwards and backwards with no duplicates or gaps', async (order) => {
    const all = (await api.get(`/topics?order=${order}&limit=100`)).body;
    const rest = (await api.follow(all.pagination.next_link)).body;
    const expected = [...ids(all), ...ids(rest)];
    expect(expected).toHaveLength(120);
    expect(new Set(expected).size).toBe(120);

    const forward = await walk(`/topics?order=${order}&limit=7`, 'next_link');
    expect(forward.flat()).toEqual(expected);
    expect(forward.every((p, i) => p.length === (i < forward.length - 1 ? 7 : 120 % 7))).toBe(true);

    // Backwards from the last item: prev_link pages come back in display order.
    const last = expected[expected.length - 1]!;
    const backward = await walk(`/topics?order=${order}&limit=7&before=${last}`, 'prev_link');
    expect(backward.reverse().flat()).toEqual(expected.slice(0, -1));
  });

  it('walks the same way for a logged-in viewer', async () => {
    const forward = await walk('/topics?order=votes&limit=11', 'next_link', token);
    expect(forward.flat()).toHaveLength(120);
    expect(new Set(forward.flat()).size).toBe(120);
  });

  it('every page costs at most 4 database commands, whatever the limit and the viewer', async () => {
    await f.d.ignores.ignore(viewer.actor, (await api.get('/topics?limit=1')).body.topics[0].id);
    const second = (await api.get('/topics?order=votes&limit=3')).body.topics[2].id;
    for (const auth of [undefined, token]) {
      for (const q of [
        'limit=1',
        'limit=100',
        `limit=100&after=${second}`,
        `limit=50&before=${second}&order=votes`,
        'order=new&tag=test&period=4h',
        'order=comments&limit=100',
      ]) {
        const { result, commands } = await s.countCommands(() => api.get(`/topics?${q}`, { token: auth }));
        expect(result.status).toBe(200);
        expect([q, auth ? 'viewer' : 'anonymous', commands]).toEqual([
          q,
          auth ? 'viewer' : 'anonymous',
          expect.any(Number),
        ]);
        expect(commands).toBeLessThanOrEqual(4);
      }
    }
  });
});
