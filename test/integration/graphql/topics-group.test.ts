/**
 * `topics(group:)`: the topic service filters by group in its query (so pages are full), a group
 * lists its subgroups too (`games` → `games.tabletop`), unknown groups give an empty page and an
 * invalid path is BAD_USER_INPUT on `group`. REST /topics has no such parameter and ignores it.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import type { TopicView } from '../../../src/discussion/views';
import { Factory, TestUser } from '../../helpers/factories';
import { fails, ok, rest } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
const byGroup = new Map<string, TopicView[]>();

const ids = (d: any): string[] => d.topics.edges.map((e: any) => e.node.id36);
/** Newest first, as order: NEW lists them. */
const newest = (...groups: string[]): string[] =>
  groups
    .flatMap((g) => byGroup.get(g) ?? [])
    .sort((a, b) => b.id - a.id)
    .map((t) => t.id36);

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  for (const g of ['tech', 'games', 'games.tabletop', 'games.tabletop.chess', 'games_extra', 'gamesx'])
    await f.group(g);
  // Interleaved so that a page of one group would be mostly other groups' topics if filtered after the query.
  const order = [
    'tech',
    'games.tabletop',
    'tech',
    'games',
    'gamesx',
    'tech',
    'games.tabletop.chess',
    'games_extra',
    'tech',
    'tech',
    'games.tabletop',
    'tech',
  ];
  for (const [i, g] of order.entries()) {
    f.at(new Date(Date.UTC(2026, 2, 1, 12, i)));
    const t = await f.topic(alice, { group: g, title: `${g} ${i}` });
    byGroup.set(g, [...(byGroup.get(g) ?? []), t]);
  }
  f.at(null);
});
afterAll(async () => s?.close());

it('lists a group and its subgroups, not groups that only share a prefix', async () => {
  expect(ids(await ok(s, '{ topics(group: "games", order: NEW) { edges { node { id36 } } } }'))).toEqual(
    newest('games', 'games.tabletop', 'games.tabletop.chess'),
  );
  expect(ids(await ok(s, '{ topics(group: "games.tabletop", order: NEW) { edges { node { id36 } } } }'))).toEqual(
    newest('games.tabletop', 'games.tabletop.chess'),
  );
  expect(ids(await ok(s, '{ topics(group: "games.tabletop.chess", order: NEW) { edges { node { id36 } } } }'))).toEqual(
    newest('games.tabletop.chess'),
  );
  expect(ids(await ok(s, '{ topics(group: "gamesx", order: NEW) { edges { node { id36 } } } }'))).toEqual(
    newest('gamesx'),
  );
});

it('accepts the path with ~ and in any case', async () => {
  expect(ids(await ok(s, '{ topics(group: "~Tech", order: NEW) { edges { node { id36 } } } }'))).toEqual(
    newest('tech'),
  );
});

it('fills every page from the group (the filter is in the query, not applied to a page afterwards)', async () => {
  const seen: string[] = [];
  const sizes: number[] = [];
  let after: string | null = null;
  for (let i = 0; i < 10; i++) {
    const d: any = await ok(
      s,
      'query($a: String) { topics(group: "tech", order: NEW, first: 2, after: $a) { edges { node { id36 ' +
        'group { path } } } pageInfo { hasNextPage hasPreviousPage endCursor } } }',
      { a: after },
    );
    expect(d.topics.edges.every((e: any) => e.node.group.path === 'tech')).toBe(true);
    sizes.push(d.topics.edges.length);
    seen.push(...ids(d));
    if (!d.topics.pageInfo.hasNextPage) break;
    after = d.topics.pageInfo.endCursor;
  }
  expect(seen).toEqual(newest('tech'));
  expect(sizes).toEqual([2, 2, 2]);
  // Backwards from the last one.
  const back = await ok(
    s,
    `{ topics(group: "tech", order: NEW, last: 2, before: "${seen[5]}") { edges { node { id36 } } ` +
      `pageInfo { hasPreviousPage } } }`,
  );
  expect(ids(back)).toEqual(seen.slice(3, 5));
  expect(back.topics.pageInfo.hasPreviousPage).toBe(true);
});

it('combines with tag, period and every order', async () => {
  const t = await f.topic(alice, { group: 'games.tabletop', title: 'Tagged', tags: ['ask.rules'] });
  byGroup.set('games.tabletop', [...byGroup.get('games.tabletop')!, t]);
  expect(ids(await ok(s, '{ topics(group: "games", tag: "ask") { edges { node { id36 } } } }'))).toEqual([t.id36]);
  expect(ids(await ok(s, '{ topics(group: "tech", tag: "ask") { edges { node { id36 } } } }'))).toEqual([]);
  expect(ids(await ok(s, '{ topics(group: "games", period: "1h") { edges { node { id36 } } } }'))).toEqual([t.id36]);
  for (const order of ['ACTIVITY', 'VOTES', 'COMMENTS', 'NEW', 'ALL_ACTIVITY']) {
    const d = await ok(s, `{ topics(group: "games.tabletop", order: ${order}) { edges { node { id36 } } } }`);
    expect(ids(d).sort()).toEqual(newest('games.tabletop', 'games.tabletop.chess').sort());
  }
});

it('gives an empty page for an unknown group', async () => {
  const d = await ok(
    s,
    '{ topics(group: "nope") { edges { node { id36 } } pageInfo { hasNextPage hasPreviousPage ' +
      'startCursor endCursor } } }',
  );
  expect(d.topics).toEqual({
    edges: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  });
  expect(ids(await ok(s, '{ topics(group: "tech.unknown") { edges { node { id36 } } } }'))).toEqual([]);
});

it.each(['', '~', 'a..b', '.games', 'games.', 'Games Tabletop', 'games__x', 'x'.repeat(65)])(
  'refuses the invalid path %p with BAD_USER_INPUT on group',
  async (group) => {
    const e = await fails(s, 'query($g: String) { topics(group: $g) { edges { node { id36 } } } }', { g: group });
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'group' });
  },
);

it("is the service's filter: TopicListArgs.group, validated with the other arguments", async () => {
  const page = await f.d.topics.list(alice.actor, { group: 'games', order: 'new', limit: 1 });
  expect(page.items.map((t) => t.id36)).toEqual(newest('games', 'games.tabletop', 'games.tabletop.chess').slice(0, 1));
  expect(page.pageInfo.hasNext).toBe(true);
  const err = await f.d.topics.list(alice.actor, { group: 'a..b', limit: 0 }).catch((e) => e);
  expect(err.issues.map((i: { field: string }) => i.field)).toEqual(['limit', 'group']);
});

it('REST /topics has no group parameter: it is ignored (unknown parameters, spec 1.1)', async () => {
  const all = await rest(s, '/topics?order=new&limit=100');
  const withGroup = await rest(s, '/topics?order=new&limit=100&group=tech');
  expect(withGroup.status).toBe(200);
  expect(withGroup.body.topics.map((t: any) => t.id)).toEqual(all.body.topics.map((t: any) => t.id));
  expect(new Set(all.body.topics.map((t: any) => t.group)).size).toBeGreaterThan(1);
  expect((await rest(s, '/topics?group=a..b')).status).toBe(200);
});
