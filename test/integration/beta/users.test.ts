/** The user endpoints (docs/discussion-api.md §7): access rules, mixed and single feeds, cursors, content. */
import { SYSTEM } from '../../../src/discussion';
import type { TopicView } from '../../../src/discussion';
import { BetaClient } from '../../helpers/beta-client';
import { PASSWORD, Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

const FEEDS = ['', '/topics', '/comments'];

beforeAll(async () => {
  s = await startTestServer({ PUBLIC_URL: 'https://example.org' });
  api = new BetaClient(s.url);
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  admin = await f.user('admin', { admin: true });
});
afterAll(async () => {
  await s?.close();
});

describe('lookup and access (7.1)', () => {
  it('matches the username case-insensitively and shows the stored case', async () => {
    const res = await api.get('/user/ALICE');
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ username: 'alice' });
  });

  it.each(['nobody', 'a', 'x'.repeat(40), 'bad name', '_a_', 'a'.repeat(1100)])(
    '%p → 404 User not found on all three paths',
    async (name) => {
      for (const feed of FEEDS) {
        const res = await api.get(`/user/${encodeURIComponent(name)}${feed}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual([{ message: 'User not found' }]);
      }
    },
  );

  it('banned → 403, deleted → 403, restricted history → 403 for anonymous only', async () => {
    await f.user('banned2');
    await f.d.users.ban(SYSTEM, 'banned2');
    const gone = await f.user('gone2');
    await f.d.users.deleteAccount(gone.actor, PASSWORD);
    const shy = await f.user('shy');
    await f.d.users.updateSettings(shy.actor, { historyVisibility: 'logged_in' });
    const token = await bob.tokenNow();
    for (const feed of FEEDS) {
      for (const auth of [undefined, token]) {
        expect((await api.get(`/user/banned2${feed}`, { token: auth })).body).toEqual([
          { message: 'This user is banned' },
        ]);
        expect((await api.get(`/user/gone2${feed}`, { token: auth })).body).toEqual([
          { message: 'This user has deleted their account' },
        ]);
      }
      const anon = await api.get(`/user/shy${feed}`);
      expect(anon.status).toBe(403);
      expect(anon.body).toEqual([{ message: "This user's history is only visible to logged-in users" }]);
      expect((await api.get(`/user/shy${feed}`, { token })).status).toBe(200);
    }
  });

  it('reports parameter errors before lookup and access, and ignores order', async () => {
    for (const feed of FEEDS) {
      const res = await api.get(`/user/nobody${feed}?limit=0&order=whatever`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual([
        { exception: 'ValidationError', message: '0 is less than the minimum of 1', field: 'limit' },
      ]);
      expect((await api.get(`/user/alice${feed}?order=whatever`)).status).toBe(200);
    }
  });

  it('refuses prefixed cursors on single feeds and bare ones on the mixed feed', async () => {
    const pattern = (field: string) => [
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field },
    ];
    for (const bad of ['1a', 'T-1a', 'x-1a', 't-0', 't_1a', 'c-', ''])
      expect((await api.get(`/user/alice?after=${bad}`)).body).toEqual(pattern('after'));
    for (const feed of ['/topics', '/comments']) {
      expect((await api.get(`/user/alice${feed}?before=t-1a`)).body).toEqual(pattern('before'));
      expect((await api.get(`/user/alice${feed}?before=1&after=1`)).body).toEqual([
        { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
      ]);
    }
    expect((await api.get('/user/alice?before=t-1&after=1')).body).toEqual([
      ...pattern('after'),
      { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
    ]);
  });
});

describe('feeds (7.2, 7.3)', () => {
  let carol: TestUser;
  let topics: TopicView[];
  const expectedMixed: string[] = [];

  beforeAll(async () => {
    carol = await f.user('carol');
    topics = [];
    // Topics and comments interleaved, several at the same instant to exercise the tie rules.
    for (let i = 0; i < 9; i++) {
      const at = new Date(Date.UTC(2026, 2, 1, 8 + Math.floor(i / 2))).toISOString();
      topics.push(await f.topic(carol, { title: `Carol ${i}`, at }));
      await f.comment(carol, topics[0]!, { at });
      await f.comment(carol, topics[i]!, { at });
    }
    f.at('2026-03-02T00:00:00.000Z');
    const all = (await api.get('/user/carol?limit=100')).body.history as {
      id: string;
      title?: string;
      created_at: string;
    }[];
    expectedMixed.push(...all.map((x) => `${x.title === undefined ? 'c' : 't'}-${x.id}`));
  }, 60_000);

  it('orders the mixed feed by created_at desc, comments before topics at equal times, then id desc', async () => {
    const res = await api.get('/user/carol?limit=100');
    const items = res.body.history as { id: string; title?: string; created_at: string }[];
    expect(items).toHaveLength(27);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      const ka = [a.created_at, a.title === undefined ? 1 : 0, parseInt(a.id, 36)] as const;
      const kb = [b.created_at, b.title === undefined ? 1 : 0, parseInt(b.id, 36)] as const;
      expect(ka[0] > kb[0] || (ka[0] === kb[0] && (ka[1] > kb[1] || (ka[1] === kb[1] && ka[2] > kb[2])))).toBe(true);
    }
    expect(res.body.pagination).toEqual({ num_items: 27, next_link: null, prev_link: null });
  });

  it('walks the mixed feed forwards and backwards with prefixed cursors', async () => {
    const forward: string[] = [];
    let res = await api.get('/user/CAROL?limit=4');
    expect(res.body.pagination.next_link).toMatch(
      /^https:\/\/example\.org\/api\/beta\/user\/carol\?limit=4&after=[tc]-[0-9a-z]+$/,
    );
    for (;;) {
      forward.push(
        ...res.body.history.map((x: { id: string; title?: string }) => `${x.title === undefined ? 'c' : 't'}-${x.id}`),
      );
      if (!res.body.pagination.next_link) break;
      res = await api.follow(res.body.pagination.next_link);
    }
    expect(forward).toEqual(expectedMixed);

    const backward: string[] = [];
    res = await api.get(`/user/carol?limit=4&before=${expectedMixed[expectedMixed.length - 1]}`);
    for (;;) {
      backward.unshift(
        ...res.body.history.map((x: { id: string; title?: string }) => `${x.title === undefined ? 'c' : 't'}-${x.id}`),
      );
      if (!res.body.pagination.prev_link) break;
      res = await api.follow(res.body.pagination.prev_link);
    }
    expect(backward).toEqual(expectedMixed.slice(0, -1));
  });

  it('walks the single feeds with bare cursors', async () => {
    for (const [feed, key, count] of [
      ['/topics', 'topics', 9],
      ['/comments', 'comments', 18],
    ] as const) {
      const seen: string[] = [];
      let res = await api.get(`/user/carol${feed}?limit=5`);
      for (;;) {
        seen.push(...res.body[key].map((x: { id: string }) => x.id));
        if (!res.body.pagination.next_link) break;
        expect(res.body.pagination.next_link).toMatch(
          new RegExp(`^https://example\\.org/api/beta/user/carol${feed}\\?limit=5&after=[0-9a-z]+$`),
        );
        res = await api.follow(res.body.pagination.next_link);
      }
      expect(seen).toHaveLength(count);
      expect(new Set(seen).size).toBe(count);
      const created = seen.map((id) => parseInt(id, 36));
      expect(
        expectedMixed
          .filter((x) => x.startsWith(feed === '/topics' ? 't-' : 'c-'))
          .map((x) => parseInt(x.slice(2), 36)),
      ).toEqual(created);
    }
  });

  it('positions on any existing item of the kind; an unknown one gives an empty page', async () => {
    const other = await f.topic(bob, { title: 'Bob', at: '2026-03-01T11:30:00.000Z' });
    f.at('2026-03-02T00:00:00.000Z');
    const res = await api.get(`/user/carol?after=t-${other.id36}`);
    expect(res.status).toBe(200);
    expect(res.body.history.every((x: { created_at: string }) => x.created_at <= '2026-03-01T11:30:00.000Z')).toBe(
      true,
    );
    for (const q of ['after=t-zzzzz', 'before=c-zzzzz']) {
      expect((await api.get(`/user/carol?${q}`)).body).toEqual({
        user: { username: 'carol' },
        history: [],
        pagination: { num_items: 0, next_link: null, prev_link: null },
      });
    }
    expect((await api.get('/user/carol/comments?after=zzzzz')).body.comments).toEqual([]);
  });

  it('each feed costs at most 6 database commands', async () => {
    const token = await bob.tokenNow();
    for (const auth of [undefined, token]) {
      for (const q of [
        '/user/carol',
        '/user/carol?limit=100',
        `/user/carol?limit=3&after=${expectedMixed[5]}`,
        `/user/carol?before=${expectedMixed[20]}`,
        '/user/carol/topics?limit=100',
        `/user/carol/comments?limit=2&after=${expectedMixed[1]!.slice(2)}`,
      ]) {
        const { result, commands } = await s.countCommands(() => api.get(q, { token: auth }));
        expect(result.status).toBe(200);
        expect(commands).toBeLessThanOrEqual(6);
      }
    }
  });
});

describe('feed content (7.2 example, 7.3)', () => {
  let dave: TestUser;
  let t1a: TopicView;
  beforeAll(async () => {
    dave = await f.user('dave');
    t1a = await f.topic(dave, { title: 'Dave topic', at: '2026-03-01T09:00:00.000Z' });
    await f.comment(dave, t1a, { markdown: 'Own reply', at: '2026-03-01T11:45:00.000Z' });
    f.at('2026-03-02T00:00:00.000Z');
  });

  it('shows the 7.2 example shape: newest comment then the topic, next link after the topic', async () => {
    const res = await api.get('/user/DAVE?limit=2');
    expect(res.body.history.map((x: { id: string }) => x.id)).toHaveLength(2);
    expect(res.body.history[0].topic_id).toBe(t1a.id36);
    expect(res.body.history[1].id).toBe(t1a.id36);
    expect(res.body.pagination).toEqual({ num_items: 2, next_link: null, prev_link: null });
    const one = await api.get('/user/DAVE?limit=1');
    expect(one.body.pagination.next_link).toBe(
      `https://example.org/api/beta/user/dave?limit=1&after=c-${res.body.history[0].id}`,
    );
  });

  it('gives feed comments depth 0, no children, no collapse, and viewer fields by viewer', async () => {
    const anon = (await api.get('/user/dave/comments')).body.comments[0];
    expect(anon).toMatchObject({
      depth: 0,
      collapsed: false,
      collapsed_individual: false,
      is_me: null,
      is_new: null,
      voted: null,
      bookmarked: null,
      is_op: true,
      author: 'dave',
    });
    expect('children' in anon).toBe(false);
    const token = await bob.tokenNow();
    await f.visit(bob, t1a, '2026-03-01T10:00:00.000Z');
    f.at('2026-03-02T00:00:00.000Z');
    await f.voteComment(bob, (await f.d.comments.get(bob.actor, anon.id))!);
    const mine = (await api.get('/user/dave/comments', { token })).body.comments[0];
    expect(mine).toMatchObject({ is_me: false, is_new: true, voted: true, bookmarked: false });
    const topic = (await api.get('/user/dave/topics', { token })).body.topics[0];
    // The visit was recorded after the comment existed, so it counted it (comment_count then = 1).
    expect(topic).toMatchObject({ last_visit_time: '2026-03-01T10:00:00.000Z', new_comment_count: 0, ignored: false });
  });

  it(`never shows deleted items; removed ones only to the user and admins, in full; comments whatever their \
topic`, async () => {
    const erin = await f.user('erin');
    const t = await f.topic(erin, { title: 'Erin topic' });
    const removed = await f.comment(erin, t, { markdown: 'Removed words' });
    const deleted = await f.comment(erin, t);
    const removedTopic = await f.topic(erin, { title: 'Erin removed topic' });
    await f.d.comments.remove(SYSTEM, removed.id36);
    await f.d.comments.delete(erin.actor, deleted.id36);
    await f.d.topics.remove(SYSTEM, removedTopic.id36);
    const elsewhere = await f.topic(alice, { title: 'Alice topic' });
    const onDeletedTopic = await f.comment(erin, elsewhere);
    await f.d.topics.delete(alice.actor, elsewhere.id36);

    const ids = async (token?: string) =>
      ((await api.get('/user/erin?limit=100', { token })).body.history as { id: string }[]).map((x) => x.id);
    for (const token of [undefined, await bob.tokenNow()]) {
      const seen = await ids(token);
      expect(seen).not.toContain(removed.id36);
      expect(seen).not.toContain(removedTopic.id36);
      expect(seen).not.toContain(deleted.id36);
      expect(seen).toContain(onDeletedTopic.id36);
    }
    for (const token of [await erin.tokenNow(), await admin.tokenNow()]) {
      const res = await api.get('/user/erin?limit=100', { token });
      const byId = Object.fromEntries((res.body.history as { id: string }[]).map((x) => [x.id, x]));
      expect(byId[removed.id36]).toMatchObject({
        is_removed: true,
        author: 'erin',
        rendered_html: '<p>Removed words</p>',
      });
      expect(byId[removedTopic.id36]).toBeDefined();
      expect(byId[deleted.id36]).toBeUndefined();
    }
  });
});
