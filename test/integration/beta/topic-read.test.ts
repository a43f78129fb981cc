/** GET /topic/{topic_id36} (docs/discussion-api.md §4, §6): lookup, tree, ordering, hidden content, collapsing. */
import { SYSTEM } from '../../../src/discussion';
import type { CommentView, TopicView } from '../../../src/discussion';
import { newCommentDocument } from '../../../src/discussion/new-documents';
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let admin: TestUser;

beforeAll(async () => {
  s = await startTestServer({ PUBLIC_URL: 'https://example.org' });
  api = new BetaClient(s.url);
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  carol = await f.user('carol');
  admin = await f.user('admin', { admin: true });
  f.at('2026-03-01T09:00:00.000Z');
});
afterAll(async () => {
  await s?.close();
});

type C = { id: string; children: C[]; [k: string]: unknown };
const flat = (roots: C[]): C[] => roots.flatMap((c) => [c, ...flat(c.children)]);
const shape = (roots: C[]): unknown => roots.map((c) => (c.children.length ? [c.id, shape(c.children)] : c.id));

describe('lookup (6, 2.3, 2.5)', () => {
  let topic: TopicView;
  beforeAll(async () => {
    topic = await f.topic(alice, { title: 'Lookup' });
  });

  it.each(['0', '01', '-1', 'a_b', 't-1', '%C3%A9', '1.5', '%20'])('%p is malformed → 400', async (id) => {
    const res = await api.get(`/topic/${id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'topic_id36' },
    ]);
  });

  it('reports topic_id36 before order, and ignores parameters it does not define', async () => {
    const res = await api.get('/topic/0?order=hot&limit=abc&after=0');
    expect(res.body).toEqual([
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'topic_id36' },
      {
        exception: 'ValidationError',
        message: "'hot' is not one of ['votes', 'newest', 'posted', 'relevance']",
        field: 'order',
      },
    ]);
    expect((await api.get(`/topic/${topic.id36}?limit=abc&after=0`)).status).toBe(200);
  });

  it('validates before looking up (400 for an unknown topic with a bad order)', async () => {
    expect((await api.get('/topic/zzzz?order=bad')).status).toBe(400);
  });

  it('an id of 1,100 characters is validated and looked up like any other (no generic 404)', async () => {
    const long = 'z'.repeat(1100);
    expect((await api.get(`/topic/${long}`)).body).toEqual([{ message: 'Topic not found' }]);
    expect((await api.get(`/topic/${long}?order=bad`)).status).toBe(400);
  });

  it.each(['zzzz', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ', '1000'])('unknown %p → 404', async (id) => {
    const res = await api.get(`/topic/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual([{ message: 'Topic not found' }]);
  });

  it('accepts the id in any letter case', async () => {
    expect((await api.get(`/topic/${topic.id36.toUpperCase()}`)).body.topic.id).toBe(topic.id36);
  });

  it('deleted → 404 for everyone, author and admins included', async () => {
    const t = await f.topic(alice, { title: 'Soon deleted' });
    await f.d.topics.delete(alice.actor, t.id36);
    for (const token of [undefined, await alice.tokenNow(), await admin.tokenNow()]) {
      const res = await api.get(`/topic/${t.id36}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual([{ message: 'Topic not found' }]);
    }
  });

  it('removed → 404 except for its author and admins, who get it in full', async () => {
    const t = await f.topic(alice, { title: 'Soon removed', markdown: 'Still here' });
    await f.d.topics.remove(SYSTEM, t.id36);
    expect((await api.get(`/topic/${t.id36}`)).status).toBe(404);
    expect((await api.get(`/topic/${t.id36}`, { token: await bob.tokenNow() })).status).toBe(404);
    for (const token of [await alice.tokenNow(), await admin.tokenNow()]) {
      const res = await api.get(`/topic/${t.id36}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.topic.text_html).toBe('<p>Still here</p>');
    }
  });
});

describe('topic fields (4.1–4.4)', () => {
  it('text topic: rendered text, words, comments_url with slug, group, edited_at after 5 minutes only', async () => {
    f.at('2026-03-01T09:00:00.000Z');
    const t = await f.topic(alice, {
      group: 'games.tabletop',
      title: 'Café & crème',
      markdown: 'One',
      tags: ['Two_Player', 'ask.survey'],
    });
    f.at('2026-03-01T09:05:00.000Z');
    await f.d.topics.edit(alice.actor, t.id36, { markdown: 'One' });
    let res = await api.get(`/topic/${t.id36}`);
    expect(res.body.topic).toEqual({
      id: t.id36,
      title: 'Café & crème',
      text_html: '<p>One</p>',
      url: null,
      comments_url: `https://example.org/~games.tabletop/${t.id36}/caf%C3%A9_cr%C3%A8me`,
      source_site_name: null,
      source_site_icon: null,
      group: '~games.tabletop',
      content_metadata: ['1 word'],
      created_at: '2026-03-01T09:00:00.000Z',
      edited_at: null,
      posted_by_user: 'alice',
      vote_count: 0,
      comment_count: 0,
      new_comment_count: null,
      voted: null,
      bookmarked: null,
      ignored: null,
      official: false,
      tags: ['two player', 'ask.survey'],
      last_visit_time: null,
    });
    f.at('2026-03-01T09:05:00.001Z');
    await f.d.topics.edit(alice.actor, t.id36, { markdown: 'One two' });
    await f.d.topics.setOfficial(SYSTEM, t.id36, true);
    res = await api.get(`/topic/${t.id36}`);
    expect(res.body.topic).toMatchObject({
      edited_at: '2026-03-01T09:05:00.001Z',
      content_metadata: ['2 words'],
      official: true,
    });
  });

  it('link topic: url and site name, no text, no metadata', async () => {
    const t = await f.topic(alice, { title: 'A link', link: 'https://www.example.com:8443/x?y=1' });
    const res = await api.get(`/topic/${t.id36}`);
    expect(res.body.topic).toMatchObject({
      text_html: null,
      url: 'https://www.example.com:8443/x?y=1',
      source_site_name: 'example.com',
      source_site_icon: null,
      content_metadata: [],
    });
  });

  it('text topic without text, and an empty slug', async () => {
    const t = await f.topic(alice, { title: '???', markdown: '' });
    const res = await api.get(`/topic/${t.id36}`);
    expect(res.body.topic).toMatchObject({
      text_html: null,
      content_metadata: [],
      comments_url: `https://example.org/~test/${t.id36}/`,
    });
  });
});

describe('the comment tree (6.1–6.4)', () => {
  let topic: TopicView;
  const c: Record<string, CommentView> = {};

  beforeAll(async () => {
    topic = await f.topic(alice, { title: 'Tree' });
    const at = (m: number) => `2026-03-01T10:${String(m).padStart(2, '0')}:00.000Z`;
    c.plain4 = await f.comment(bob, topic, { at: at(1) });
    c.joke7 = await f.comment(carol, topic, { at: at(2) });
    c.exemplary4 = await f.comment(bob, topic, { at: at(3) });
    c.plain7 = await f.comment(carol, topic, { at: at(4) });
    c.plain2 = await f.comment(bob, topic, { at: at(5) });
    c.exemplary1 = await f.comment(carol, topic, { at: at(6) });
    c.reply = await f.comment(alice, topic, { parent: c.plain4, at: at(7) });
    c.deletedLeaf = await f.comment(carol, topic, { parent: c.plain4, at: at(8) });
    c.deletedMid = await f.comment(bob, topic, { parent: c.plain2, at: at(9) });
    c.underDeleted = await f.comment(carol, topic, { parent: c.deletedMid, at: at(10) });
    c.removed = await f.comment(bob, topic, { parent: c.exemplary1, at: at(11) });
    c.deletedAboveRemoved = await f.comment(carol, topic, { parent: c.plain7, at: at(12) });
    c.removedUnderDeleted = await f.comment(bob, topic, { parent: c.deletedAboveRemoved, at: at(13) });
    f.at('2026-03-01T11:00:00.000Z');
    await f.votes('comment', c.plain4!, 4);
    await f.votes('comment', c.joke7!, 7);
    await f.votes('comment', c.exemplary4!, 4);
    await f.votes('comment', c.plain7!, 7);
    await f.votes('comment', c.plain2!, 2);
    await f.votes('comment', c.exemplary1!, 1);
    await f.label(alice, c.joke7!, 'joke');
    await f.label(alice, c.exemplary4!, 'exemplary');
    await f.label(alice, c.exemplary1!, 'exemplary');
    await f.d.comments.delete(carol.actor, c.deletedLeaf!.id36);
    await f.d.comments.delete(bob.actor, c.deletedMid!.id36);
    await f.d.comments.remove(SYSTEM, c.removed!.id36);
    await f.d.comments.delete(carol.actor, c.deletedAboveRemoved!.id36);
    await f.d.comments.remove(SYSTEM, c.removedUnderDeleted!.id36);
  }, 60_000);

  const id = (k: string) => c[k]!.id36;

  it('orders by relevance by default: the spec examples', async () => {
    const res = await api.get(`/topic/${topic.id36}`);
    // exemplary4 (8.0), plain7 (7), plain4 (4), joke7 (3), plain2 (2) tie exemplary1 (2.0) → earlier first
    expect(res.body.comments.map((x: C) => x.id)).toEqual([
      id('exemplary4'),
      id('plain7'),
      id('plain4'),
      id('joke7'),
      id('plain2'),
      id('exemplary1'),
    ]);
  });

  it.each([
    ['posted', ['plain4', 'joke7', 'exemplary4', 'plain7', 'plain2', 'exemplary1']],
    ['newest', ['exemplary1', 'plain2', 'plain7', 'exemplary4', 'joke7', 'plain4']],
    ['votes', ['joke7', 'plain7', 'plain4', 'exemplary4', 'plain2', 'exemplary1']],
    ['relevance', ['exemplary4', 'plain7', 'plain4', 'joke7', 'plain2', 'exemplary1']],
  ])('order=%s', async (order, expected) => {
    const res = await api.get(`/topic/${topic.id36}?order=${order}`);
    expect(res.body.comments.map((x: C) => x.id)).toEqual(expected.map(id));
  });

  it('prunes deleted comments without live descendants and keeps placeholders (removed counts as live)', async () => {
    const res = await api.get(`/topic/${topic.id36}?order=posted`);
    expect(shape(res.body.comments)).toEqual([
      [id('plain4'), [id('reply')]],
      id('joke7'),
      id('exemplary4'),
      [id('plain7'), [[id('deletedAboveRemoved'), [id('removedUnderDeleted')]]]],
      [id('plain2'), [[id('deletedMid'), [id('underDeleted')]]]],
      [id('exemplary1'), [id('removed')]],
    ]);
    const byId = Object.fromEntries(flat(res.body.comments).map((x) => [x.id, x]));
    expect(byId[id('underDeleted')]!.depth).toBe(2);
    expect(byId[id('deletedMid')]).toMatchObject({
      author: null,
      rendered_html: null,
      exemplary: null,
      is_op: null,
      is_deleted: true,
      is_removed: false,
    });
  });

  it('counts only comments neither deleted nor removed', async () => {
    const res = await api.get(`/topic/${topic.id36}`);
    expect(res.body.topic.comment_count).toBe(8);
  });

  it('hides removed comments from everyone but their author and admins; deleted ones from everyone', async () => {
    const pick = async (token?: string) => {
      const res = await api.get(`/topic/${topic.id36}`, { token });
      return Object.fromEntries(flat(res.body.comments).map((x) => [x.id, x]));
    };
    const hidden = {
      author: null,
      rendered_html: null,
      exemplary: null,
      is_op: null,
      is_removed: true,
      is_deleted: false,
    };
    expect((await pick())[id('removed')]).toMatchObject({
      ...hidden,
      is_me: null,
      voted: null,
      bookmarked: null,
      is_new: null,
    });
    expect((await pick(await carol.tokenNow()))[id('removed')]).toMatchObject({
      ...hidden,
      is_me: false,
      voted: false,
      bookmarked: false,
    });
    for (const token of [await bob.tokenNow(), await admin.tokenNow()]) {
      expect((await pick(token))[id('removed')]).toMatchObject({
        author: 'bob',
        rendered_html: expect.stringMatching(/^<p>/),
        exemplary: false,
        is_op: false,
        is_removed: true,
      });
    }
    const asBob = await pick(await bob.tokenNow());
    expect(asBob[id('removed')]!.is_me).toBe(true);
    expect(asBob[id('deletedMid')]).toMatchObject({ author: null, rendered_html: null, is_me: true, is_deleted: true });
    expect((await pick(await admin.tokenNow()))[id('deletedMid')]).toMatchObject({
      author: null,
      rendered_html: null,
      exemplary: null,
      is_op: null,
    });
  });

  it('marks exemplary and is_op', async () => {
    const res = await api.get(`/topic/${topic.id36}`);
    const byId = Object.fromEntries(flat(res.body.comments).map((x) => [x.id, x]));
    expect(byId[id('exemplary4')]!.exemplary).toBe(true);
    expect(byId[id('plain4')]!.exemplary).toBe(false);
    expect(byId[id('reply')]!.is_op).toBe(true);
    expect(byId[id('plain4')]!.is_op).toBe(false);
  });

  it('answers in at most 6 database commands however many comments there are', async () => {
    const big = await f.topic(alice, { title: 'Big' });
    let parent: CommentView | undefined;
    const users = [alice, bob, carol];
    for (let i = 0; i < 120; i++) {
      const cm = await f.comment(users[i % 3]!, big, { parent: i % 4 === 0 ? undefined : parent });
      if (i % 2 === 0) await f.voteComment(users[i % 3] === carol ? bob : carol, cm);
      parent = cm;
    }
    const token = await carol.tokenNow();
    for (const auth of [undefined, token]) {
      for (const q of ['', '?order=votes', '?order=newest']) {
        const { result, commands } = await s.countCommands(() => api.get(`/topic/${big.id36}${q}`, { token: auth }));
        expect(result.status).toBe(200);
        expect(flat(result.body.comments)).toHaveLength(120);
        expect(commands).toBeLessThanOrEqual(6);
      }
    }
  }, 60_000);
});

describe('collapsing and is_new (6.5, 4.5)', () => {
  it('collapses active noise for every viewer except its author', async () => {
    const t = await f.topic(alice, { title: 'Noise' });
    const noisy = await f.comment(bob, t);
    const quiet = await f.comment(carol, t);
    await f.label(alice, noisy, 'noise');
    const get = async (token?: string) =>
      Object.fromEntries(((await api.get(`/topic/${t.id36}`, { token })).body.comments as C[]).map((x) => [x.id, x]));
    expect((await get())[noisy.id36]).toMatchObject({ collapsed: true, collapsed_individual: false });
    expect((await get(await carol.tokenNow()))[noisy.id36]).toMatchObject({ collapsed: true });
    expect((await get(await bob.tokenNow()))[noisy.id36]).toMatchObject({ collapsed: false });
    expect((await get())[quiet.id36]).toMatchObject({ collapsed: false, collapsed_individual: false, is_new: null });
    // Relevance puts active noise last.
    expect(((await api.get(`/topic/${t.id36}`)).body.comments as C[]).map((x) => x.id)).toEqual([
      quiet.id36,
      noisy.id36,
    ]);
  });

  it('opens new comments and their parents, collapses old threads, and respects the setting', async () => {
    f.at('2026-03-05T10:00:00.000Z');
    const t = await f.topic(alice, { title: 'Collapse' });
    const old1 = await f.comment(bob, t);
    const old2 = await f.comment(carol, t);
    const mineOld = await f.comment(alice, t);
    await f.visit(alice, t, '2026-03-05T11:00:00.000Z');
    const fresh = await f.comment(carol, t, { parent: old1, at: '2026-03-05T12:00:00.000Z' });
    const ownNew = await f.comment(alice, t, { parent: old2, at: '2026-03-05T12:01:00.000Z' });
    f.at('2026-03-05T13:00:00.000Z');
    const token = await alice.tokenNow();
    const res = await api.get(`/topic/${t.id36}?order=posted`, { token });
    const byId = Object.fromEntries(flat(res.body.comments).map((x) => [x.id, x]));
    expect(byId[old1.id36]).toMatchObject({ collapsed: false, collapsed_individual: false, is_new: false });
    expect(byId[fresh.id36]).toMatchObject({ collapsed: false, collapsed_individual: false, is_new: true });
    expect(byId[old2.id36]).toMatchObject({ collapsed: true, is_new: false });
    expect(byId[ownNew.id36]).toMatchObject({ is_new: false, is_me: true });
    expect(byId[mineOld.id36]).toMatchObject({ collapsed: true });
    expect(res.body.topic).toMatchObject({ new_comment_count: 2, last_visit_time: '2026-03-05T11:00:00.000Z' });

    await f.d.users.updateSettings(alice.actor, { collapseOldComments: false });
    f.at('2026-03-05T13:30:00.000Z');
    await f.comment(bob, t);
    const off = await api.get(`/topic/${t.id36}`, { token: await alice.tokenNow() });
    expect(flat(off.body.comments).every((x) => x.collapsed === false && x.collapsed_individual === false)).toBe(true);
    expect(flat(off.body.comments).filter((x) => x.is_new).length).toBe(1);
  });
});

describe('a 5,000-comment reply chain', () => {
  it('is served in full, nested 5,000 deep, within 6 commands', async () => {
    const t = await f.topic(alice, { title: 'Deep' });
    // Inserted directly: posting 5,000 replies one by one would only slow the test down.
    const base = 50_000_000;
    const docs = Array.from({ length: 5000 }, (_, i) => ({
      _id: base + i,
      ...newCommentDocument(
        {
          topic: { id: t.id, authorId: alice.id },
          parentId: i === 0 ? null : base + i - 1,
          author: { id: bob.id, username: 'bob' },
          markdown: `Reply ${i}`,
          depth: i,
        },
        new Date(Date.UTC(2026, 2, 1, 12, 0, i)),
      ),
    }));
    await s.agora.db.conn.collection('comments').insertMany(docs as never[]);
    const token = await carol.tokenNow();
    for (const auth of [undefined, token]) {
      const { result, commands } = await s.countCommands(() => api.get(`/topic/${t.id36}`, { token: auth }));
      expect(result.status).toBe(200);
      expect(commands).toBeLessThanOrEqual(6);
      let node = result.body.comments[0];
      let depth = 0;
      while (node.children.length > 0) {
        node = node.children[0];
        depth++;
      }
      expect(depth).toBe(4999);
      expect(node.depth).toBe(4999);
    }
  }, 60_000);
});

describe('Markdown source never leaves through REST', () => {
  it('no endpoint shows a `markdown` key, not even to the author or an admin', async () => {
    const t = await f.topic(alice, { title: 'Source stays inside', markdown: 'SECRET *source* text' });
    const c = await f.comment(alice, t, { markdown: 'SECRET comment *source*' });
    const aliceToken = await alice.tokenNow();
    const adminToken = await admin.tokenNow();
    const paths = [
      `/topic/${t.id36}`,
      '/topics?order=new',
      '/user/alice',
      '/user/alice/topics',
      '/user/alice/comments',
    ];
    for (const token of [undefined, aliceToken, adminToken]) {
      for (const path of paths) {
        const r = await api.get(path, { token });
        expect([path, r.status]).toEqual([path, 200]);
        // The rendered HTML is shown; the source's asterisks never are.
        expect([path, r.text.includes('"markdown"'), r.text.includes('*source*')]).toEqual([path, false, false]);
      }
    }
    // The service does give it to the author (GraphQL), so the check above is not vacuous.
    const read = await f.d.topics.read(alice.actor, t.id36, { recordVisit: false });
    expect(read.topic.markdown).toBe('SECRET *source* text');
    expect(read.comments.find((x) => x.id === c.id)?.markdown).toBe('SECRET comment *source*');
    // …unless the caller says it will not show it (REST), and never to others.
    expect(
      (await f.d.topics.read(alice.actor, t.id36, { recordVisit: false, markdown: false })).comments.find(
        (x) => x.id === c.id,
      )?.markdown,
    ).toBeNull();
    const asBob = await f.d.topics.read(bob.actor, t.id36, { recordVisit: false });
    expect([asBob.topic.markdown, asBob.comments.find((x) => x.id === c.id)?.markdown]).toEqual([null, null]);
  });
});
