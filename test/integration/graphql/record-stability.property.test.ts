/**
 * Property: a normalised record is the same wherever it appears. For random discussions (topics,
 * replies at any depth, votes, bookmarks, labels, deletions, removals), every Comment, Topic and
 * User read through every path that reaches it — a topic's threads in two orders (nested and
 * flat), a comment's parent, the listing, `topic(id:)`, a comment's topic, the user feeds and the
 * history, `node(id:)` and `nodes(ids:)` — has equal fields, for an anonymous and a logged-in viewer.
 */
import fc from 'fast-check';
import { SYSTEM } from '../../../src/discussion/services';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import { ok } from './helpers';

jest.setTimeout(300_000);

let s: TestServer;
let f: Factory;
let users: TestUser[];

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  users = [await f.user('Ann'), await f.user('ben'), await f.user('cat')];
  await f.group('tech');
});
afterAll(async () => s?.close());

const C =
  'id id36 textHtml markdown createdAt editedAt voteCount isRemoved isDeleted isExemplary isOp ' +
  'viewerIsAuthor viewerHasVoted viewerHasBookmarked author { id username }';
const T = `id id36 title textHtml markdown url commentsUrl voteCount commentCount newCommentCount
  viewerHasVoted viewerHasBookmarked viewerHasIgnored isOfficial isLocked tags lastVisitedAt isDeleted isRemoved
  createdAt editedAt author { id username } group { id path }`;
const U = 'id username joinedAt isAdmin';

type Action =
  | { kind: 'comment'; by: number; parent: number | null; text: string }
  | { kind: 'vote' | 'bookmark' | 'noise'; by: number; target: number }
  | { kind: 'delete' | 'remove'; target: number }
  | { kind: 'visit'; by: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('comment' as const),
      by: fc.nat(2),
      parent: fc.option(fc.nat(30), { nil: null }),
      text: fc.string({ minLength: 1, maxLength: 12 }),
    }),
  },
  fc.record({
    kind: fc.constantFrom('vote' as const, 'bookmark' as const, 'noise' as const),
    by: fc.nat(2),
    target: fc.nat(30),
  }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'remove' as const), target: fc.nat(30) }),
  fc.record({ kind: fc.constant('visit' as const), by: fc.nat(2) }),
);

/** Plays the actions through the services (failures such as voting on one's own comment are skipped). */
async function play(author: number, actions: Action[]): Promise<string> {
  const ds = f.d;
  const topic = await f.topic(users[author]!, {
    group: 'tech',
    title: 'Property topic',
    markdown: 'Some *text*',
    tags: ['prop'],
  });
  const comments: { id36: string; by: number }[] = [];
  for (const a of actions) {
    const pick = (i: number) => comments[i % Math.max(1, comments.length)];
    try {
      if (a.kind === 'comment') {
        const parent = a.parent === null || comments.length === 0 ? undefined : pick(a.parent)!.id36;
        const c = await f.comment(users[a.by]!, topic, { parent, markdown: a.text.trim() || 'x' });
        comments.push({ id36: c.id36, by: a.by });
      } else if (a.kind === 'visit') {
        await f.visit(users[a.by]!, topic);
      } else if (comments.length > 0) {
        const target = pick(a.target)!;
        if (a.kind === 'vote') await f.voteComment(users[a.by]!, target.id36);
        else if (a.kind === 'bookmark') await ds.bookmarks.bookmark(users[a.by]!.actor, 'comment', target.id36);
        else if (a.kind === 'noise') await f.label(users[a.by]!, target.id36, 'noise');
        else if (a.kind === 'delete') await ds.comments.delete(users[target.by]!.actor, target.id36);
        else await ds.comments.remove(SYSTEM, target.id36);
      }
    } catch {
      // a refused action (own comment, already deleted, …) changes nothing
    }
  }
  return topic.id36;
}

/** Every object of `value` whose __typename is one of the records, collected by id. */
function collect(value: unknown, into: Map<string, unknown[]>): void {
  if (Array.isArray(value)) return value.forEach((v) => collect(v, into));
  if (value === null || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  if (
    typeof o.__typename === 'string' &&
    ['Topic', 'Comment', 'User'].includes(o.__typename) &&
    typeof o.id === 'string'
  ) {
    // Only the scalar fields a record shows at every path it was read through (the shared selection).
    const flat = Object.fromEntries(
      Object.entries(o).filter(([, v]) => v === null || typeof v !== 'object' || Array.isArray(v)),
    );
    const list = into.get(o.id) ?? [];
    list.push(flat);
    into.set(o.id, list);
  }
  for (const v of Object.values(o)) collect(v, into);
}

async function readEverywhere(topicId36: string, token?: string): Promise<Map<string, unknown[]>> {
  const seen = new Map<string, unknown[]>();
  const q = async (query: string, variables: Record<string, unknown> = {}) =>
    collect(await ok(s, query, variables, token), seen);
  const withTypes = (sel: string) => `__typename ${sel}`;
  const CC = withTypes(`${C} author { __typename ${U} } parent { __typename ${C} }`);
  for (const order of ['RELEVANCE', 'NEWEST']) {
    await q(
      `query($id: ID!) { topic(id: $id) { __typename ${T} threads(first: 1000, order: ${order}) { nodes ` +
        `{ comment { ${CC} } descendants { comment { ${CC} } } } } } }`,
      { id: topicId36 },
    );
    await q(
      `query($id: ID!) { topic(id: $id) { threads(order: ${order}) { nodes {
        comment { ${withTypes(C)} topic { __typename ${T} } }
        replies { comment { ${withTypes(C)} }
          replies { comment { ${withTypes(C)} } replies { comment { ${withTypes(C)} } } } } } } } }`,
      { id: topicId36 },
    );
  }
  await q(`{ topics(first: 100) { nodes { __typename ${T} author { __typename ${U} } } } }`);
  for (const u of users) {
    await q(
      `query($u: String!) { user(username: $u) { __typename ${U}
      comments(first: 100) { nodes { ${withTypes(C)} topic { __typename ${T} } } }
      topics(first: 100) { nodes { __typename ${T} } }
      history(first: 100) { nodes { __typename ... on Topic { ${T} } ... on Comment { ${C} } } } } }`,
      { u: u.user.username.toUpperCase() },
    );
  }
  const ids = [...seen.keys()];
  await q(
    `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Topic { ${T} } ... on Comment { ${C} } ` +
      `... on User { ${U} } } }`,
    { ids: ids.slice(0, 100) },
  );
  for (const id of ids.slice(0, 10))
    await q(
      `query($id: ID!) { node(id: $id) { __typename ... on Topic { ${T} } ... on Comment { ${C} } ... on ` +
        `User { ${U} } } }`,
      { id },
    );
  return seen;
}

it('every Comment, Topic and User has the same fields through every path, anonymous and logged in', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(2),
      fc.array(action, { minLength: 3, maxLength: 25 }),
      fc.nat(3),
      async (author, actions, who) => {
        const topicId36 = await play(author, actions);
        const token = who === 3 ? undefined : users[who]!.token;
        const seen = await readEverywhere(topicId36, token);
        for (const [id, reads] of seen) {
          // Each read holds a subset of the fields; every field two reads share is equal.
          const merged: Record<string, unknown> = {};
          for (const r of reads as Record<string, unknown>[]) {
            for (const [k, v] of Object.entries(r)) {
              if (k in merged) expect([id, k, v]).toEqual([id, k, merged[k]]);
              else merged[k] = v;
            }
          }
        }
        expect(seen.size).toBeGreaterThan(3);
        // Not vacuous: the topic and its author are read through many paths.
        expect(seen.get(Buffer.from(`Topic:${topicId36}`).toString('base64'))!.length).toBeGreaterThanOrEqual(5);
      },
    ),
    { numRuns: 8 },
  );
});
