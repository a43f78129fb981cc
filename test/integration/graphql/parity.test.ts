/**
 * Parity: the same scenarios through /api/beta and /graphql give the same values field for field,
 * after renaming (REST `text_html` ↔ GraphQL `textHtml`, `posted_by_user` ↔ `author.username`,
 * `group` ↔ `"~" + group.path`, …), records compared through `id36`; a REST comment's tree values
 * (depth, collapsed, is_new, children) are its GraphQL CommentThread's. A logged-in REST topic read
 * records a visit (GraphQL's `visitTopic` does), so those reads run on two servers holding
 * identical data (built with a frozen clock): REST on one, GraphQL on the other.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { SYSTEM } from '../../../src/discussion/services';
import { Factory, TestUser } from '../../helpers/factories';
import { gql, ok, rest } from './helpers';

jest.setTimeout(120_000);

const TOPIC = `id id36 title textHtml url commentsUrl sourceSiteName sourceSiteIcon group { path }
  contentMetadata createdAt editedAt author { username } voteCount commentCount newCommentCount
  viewerHasVoted viewerHasBookmarked viewerHasIgnored isOfficial tags lastVisitedAt`;
const COMMENT = `id36 topic { id36 } author { username } textHtml createdAt editedAt voteCount isRemoved
  isDeleted isExemplary isOp viewerIsAuthor viewerHasVoted viewerHasBookmarked`;
const THREAD = `depth isNew isCollapsed isCollapsedIndividually comment { ${COMMENT} }`;
const FLAT_THREAD = `depth isNew isCollapsed isCollapsedIndividually comment { ${COMMENT} parent { id36 } }`;
const nested = (levels: number): string => (levels === 0 ? THREAD : `${THREAD} replies { ${nested(levels - 1)} }`);
const TREE = nested(8);

/**
 * A GraphQL topic in REST's shape (docs/discussion-api.md §4.1), `{base}` in place of the server's URL;
 * compared through id36.
 */
function restTopic(t: any, base: string) {
  return {
    id: t.id36,
    title: t.title,
    text_html: t.textHtml,
    url: t.url,
    comments_url: t.commentsUrl.replace(base, '{base}'),
    source_site_name: t.sourceSiteName,
    source_site_icon: t.sourceSiteIcon,
    group: `~${t.group.path}`,
    content_metadata: t.contentMetadata,
    created_at: t.createdAt,
    edited_at: t.editedAt,
    posted_by_user: t.author?.username ?? null,
    vote_count: t.voteCount,
    comment_count: t.commentCount,
    new_comment_count: t.newCommentCount,
    voted: t.viewerHasVoted,
    bookmarked: t.viewerHasBookmarked,
    ignored: t.viewerHasIgnored,
    official: t.isOfficial,
    tags: t.tags,
    last_visit_time: t.lastVisitedAt,
  };
}

/** A GraphQL comment record in REST's shape (4.5) without the tree-only values (collapsed, is_new, depth). */
function restRecord(c: any): any {
  return {
    id: c.id36,
    topic_id: c.topic.id36,
    author: c.author?.username ?? null,
    rendered_html: c.textHtml,
    created_at: c.createdAt,
    edited_at: c.editedAt,
    votes: c.voteCount,
    is_removed: c.isRemoved,
    is_deleted: c.isDeleted,
    exemplary: c.isExemplary,
    is_op: c.isOp,
    is_me: c.viewerIsAuthor,
    voted: c.viewerHasVoted,
    bookmarked: c.viewerHasBookmarked,
  };
}

/** A GraphQL thread node in REST's tree shape: the record plus its place; `children` unless flat. */
function restComment(t: any, inTree: boolean): any {
  const out: any = {
    ...restRecord(t.comment),
    collapsed: t.isCollapsed,
    collapsed_individual: t.isCollapsedIndividually,
    is_new: t.isNew,
    depth: t.depth,
  };
  if (inTree) out.children = t.replies.map((k: any) => restComment(k, true));
  return out;
}

/** A REST feed comment without the values that exist only at a place in a tree. */
function withoutTreeValues(c: any): any {
  const { collapsed: _c, collapsed_individual: _ci, is_new: _n, depth: _d, ...record } = c;
  return record;
}

const normalizeRestTopic = (t: any, base: string) => ({ ...t, comments_url: t.comments_url.replace(base, '{base}') });

/** Every comment of a REST tree in display order (pre-order), with its parent's id. */
function flatten(tree: any[], parentId: string | null = null, out: any[] = []): any[] {
  for (const c of tree) {
    const { children, ...rest } = c;
    out.push({ ...rest, parent_id: parentId });
    flatten(children, c.id, out);
  }
  return out;
}

interface World {
  s: TestServer;
  users: Record<string, TestUser>;
  topicId: string;
  linkTopicId: string;
}

/**
 * Example 3 of docs/discussion-api.md §8, and a few more topics, written through the services at fixed times.
 * Deterministic: two servers built with it hold the same ids and timestamps.
 */
async function buildWorld(): Promise<World> {
  const s = await startTestServer();
  const f = new Factory(s);
  const ds = f.d;
  f.at('2026-02-01T00:00:00.000Z');
  const users: Record<string, TestUser> = {};
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']) users[name] = await f.user(name);
  await f.group('games.tabletop');
  await f.group('music');
  await f.group('tech');
  const u = (n: string) => users[n]!;
  const a = (n: string) => users[n]!.actor;
  const at = (iso: string) => f.at(iso);

  at('2026-03-01T09:00:00.000Z');
  const topic = await f.topic(u('alice'), {
    group: 'games.tabletop',
    title: 'Which board games work well with two players?',
    markdown: 'Looking for suggestions, ideally games that play well with two.',
    tags: ['ask.recommendations', 'two player'],
  });
  for (const v of ['carol', 'dave', 'erin', 'frank']) await f.voteTopic(u(v), topic);
  await ds.bookmarks.bookmark(a('bob'), 'topic', topic.id36);
  at('2026-03-01T10:00:00.000Z');
  const s2 = await f.comment(u('carol'), topic, { markdown: 'Patchwork is excellent with two.' });
  at('2026-03-01T10:20:00.000Z');
  await ds.comments.edit(a('carol'), s2.id36, 'Patchwork is excellent with two.');
  for (const v of ['bob', 'dave', 'erin', 'frank']) await f.voteComment(u(v), s2);
  await f.label(u('dave'), s2, 'exemplary', 'Great recommendation');
  at('2026-03-01T11:00:00.000Z');
  const t2 = await f.comment(u('dave'), topic, { markdown: 'Monopoly, obviously.' });
  for (const v of ['alice', 'carol', 'erin', 'frank']) await f.voteComment(u(v), t2);
  await f.label(u('erin'), t2, 'joke');
  at('2026-03-01T11:30:00.000Z');
  const u2 = await f.comment(u('erin'), topic, { markdown: 'What about chess?' });
  at('2026-03-01T11:45:00.000Z');
  const v2 = await f.comment(u('alice'), topic, { parent: s2, markdown: 'Thanks, ordering it.' });
  for (const v of ['carol', 'dave']) await f.voteComment(u(v), v2);
  at('2026-03-01T11:50:00.000Z');
  await f.comment(u('bob'), topic, { parent: u2, markdown: 'What was the question?' });
  at('2026-03-01T11:55:00.000Z');
  await ds.comments.delete(a('erin'), u2.id36);
  at('2026-03-01T12:00:00.000Z');
  await f.visit(u('bob'), topic);
  at('2026-03-01T13:00:00.000Z');
  const x2 = await f.comment(u('frank'), topic, { parent: v2, markdown: 'Try the *Jaipur* too.' });
  await f.voteComment(u('carol'), x2);
  // A removed comment (only its author and admins see it) and a noise label.
  const noisy = await f.comment(u('dave'), topic, { markdown: 'First!' });
  await f.label(u('carol'), noisy, 'noise');
  const removed = await f.comment(u('frank'), topic, { parent: t2, markdown: 'Rude remark' });
  await ds.comments.remove(SYSTEM, removed.id36);

  // More topics for the listing and the feeds.
  at('2026-03-02T07:00:00.000Z');
  await f.topic(u('carol'), {
    group: 'tech',
    title: "What's your backup strategy?",
    markdown: 'I use restic to an external drive. What do you use?',
    tags: ['ask.survey', 'backups'],
  });
  at('2026-03-02T08:15:00.000Z');
  const link = await f.topic(u('dave'), {
    group: 'music',
    title: "Live performance of 'Clair de Lune' on a restored Pleyel",
    link: 'https://www.youtube.com/watch?v=abc123xyz',
    tags: ['classical', 'piano'],
  });
  await f.voteTopic(u('alice'), link);
  await f.voteTopic(u('bob'), link);
  for (let i = 0; i < 6; i++) {
    at(`2026-03-03T0${i}:00:00.000Z`);
    const t = await f.topic(u(i % 2 ? 'alice' : 'bob'), {
      group: 'tech',
      title: `Tech question ${i}`,
      markdown: `Question ${i} text`,
      tags: [i % 2 ? 'ask' : 'news'],
    });
    at(`2026-03-03T0${i}:30:00.000Z`);
    await f.comment(u(i % 2 ? 'bob' : 'alice'), t, { markdown: `Answer ${i}` });
  }
  await ds.ignores.ignore(a('bob'), link.id36);
  at('2026-03-04T16:00:00.000Z');
  // Tokens issued now (those issued when the users were created, at the start of February, have expired).
  for (const user of Object.values(users)) user.token = await user.tokenNow();
  return { s, users, topicId: topic.id36, linkTopicId: link.id36 };
}

let A: World;
let B: World;
beforeAll(async () => {
  A = await buildWorld();
  B = await buildWorld();
});
afterAll(async () => {
  await A?.s.close();
  await B?.s.close();
});

async function gqlTopicRead(w: World, id: string, order: string | null, token?: string) {
  const arg = order ? `, order: ${order}` : '';
  // Two operations (each within the cost limit); queries record no visit, so both see the same state.
  const g = await ok(
    w.s,
    `query($id: ID!) { topic(id: $id) { ${TOPIC} threads(first: 500${arg}) { edges { node { ${TREE} } } } } }`,
    { id },
    token,
  );
  const f = await ok(
    w.s,
    `query($id: ID!) { topic(id: $id) { threads(first: 500${arg}) { edges { node { ${FLAT_THREAD} ` +
      `descendants { ${FLAT_THREAD} } } } } } }`,
    { id },
    token,
  );
  const roots = g.topic.threads.edges.map((e: any) => e.node);
  const flat = f.topic.threads.edges.flatMap((e: any) => [e.node, ...e.node.descendants]);
  return { topic: g.topic, comments: roots, commentsFlat: flat };
}

/** Flat thread nodes in REST's flattened shape (parent id beside each). */
const flatRest = (flat: any[]) =>
  flat.map((t: any) => ({ ...restComment(t, false), parent_id: t.comment.parent?.id36 ?? null }));

describe('a topic with its comment tree (GET /topic/{id})', () => {
  it('the two worlds are identical (the premise of the two-server comparisons)', async () => {
    const [ra, rb] = await Promise.all([rest(A.s, `/topic/${A.topicId}`), rest(B.s, `/topic/${B.topicId}`)]);
    expect(normalizeRestTopic(rb.body.topic, B.s.url)).toEqual(normalizeRestTopic(ra.body.topic, A.s.url));
    expect(rb.body.comments).toEqual(ra.body.comments);
  });

  it.each(['votes', 'newest', 'posted', 'relevance'])(
    'anonymous, order %s: same topic, same tree, same flat order',
    async (order) => {
      const r = await rest(A.s, `/topic/${A.topicId}?order=${order}`);
      expect(r.status).toBe(200);
      const g = await gqlTopicRead(A, A.topicId, order.toUpperCase());
      expect(restTopic(g.topic, A.s.url)).toEqual(normalizeRestTopic(r.body.topic, A.s.url));
      expect(g.comments.map((c: any) => restComment(c, true))).toEqual(r.body.comments);
      expect(flatRest(g.commentsFlat)).toEqual(flatten(r.body.comments));
    },
  );

  it('logged in (example 3: previous visit, new comments, collapsing), then an immediate repeat', async () => {
    const bobA = A.users.bob!.token;
    const bobB = B.users.bob!.token;
    for (let round = 0; round < 2; round++) {
      const r = await rest(A.s, `/topic/${A.topicId}`, bobA);
      const g = await gqlTopicRead(B, B.topicId, null, bobB);
      expect(restTopic(g.topic, B.s.url)).toEqual(normalizeRestTopic(r.body.topic, A.s.url));
      expect(g.comments.map((c: any) => restComment(c, true))).toEqual(r.body.comments);
      expect(flatRest(g.commentsFlat)).toEqual(flatten(r.body.comments));
      // REST records the visit on each read; GraphQL queries never do: the client says so with visitTopic.
      await ok(
        B.s,
        'mutation($id: ID!) { visitTopic(id: $id) { id lastVisitedAt newCommentCount } }',
        { id: B.topicId },
        bobB,
      );
      if (round === 0) {
        // The example values of docs/discussion-api.md §8 (so the comparison is not between two empty answers).
        expect(r.body.topic.new_comment_count).toBeGreaterThanOrEqual(1);
        expect(r.body.topic.last_visit_time).toBe('2026-03-01T12:00:00.000Z');
        expect(flatten(r.body.comments).some((c) => c.is_new)).toBe(true);
        expect(flatten(r.body.comments).some((c) => c.collapsed)).toBe(true);
      } else {
        expect(r.body.topic.new_comment_count).toBe(0);
        expect(r.body.topic.last_visit_time).toBe('2026-03-04T16:00:00.000Z');
      }
    }
  });

  it('as the author of a removed comment and as an admin-free other user', async () => {
    for (const name of ['frank', 'erin']) {
      const r = await rest(A.s, `/topic/${A.topicId}?order=posted`, A.users[name]!.token);
      const g = await gqlTopicRead(B, B.topicId, 'POSTED', B.users[name]!.token);
      expect(g.comments.map((c: any) => restComment(c, true))).toEqual(r.body.comments);
    }
  });

  it(`an unknown topic: REST 404, GraphQL null; a malformed id: REST 400, GraphQL BAD_USER_INPUT with the same \
message`, async () => {
    expect((await rest(A.s, '/topic/zzzzz')).status).toBe(404);
    expect((await gql(A.s, '{ topic(id: "zzzzz") { id } }')).body).toEqual({ data: { topic: null } });
    const r = await rest(A.s, '/topic/0abc');
    expect(r.status).toBe(400);
    const g = await gql(A.s, '{ topic(id: "0abc") { id } }');
    expect(g.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(g.body.errors?.[0]?.extensions?.field).toBe('id');
    expect(g.body.errors?.[0]?.message).toContain(r.body[0].message);
  });
});

describe('the topic listing (GET /topics)', () => {
  const cases: [string, string, string][] = [
    ['default order', '', ''],
    ['order=new&limit=3', 'order=new&limit=3', 'order: NEW, first: 3'],
    ['order=votes', 'order=votes', 'order: VOTES'],
    ['order=comments', 'order=comments', 'order: COMMENTS'],
    ['order=all_activity', 'order=all_activity', 'order: ALL_ACTIVITY'],
    ['tag=ask', 'tag=ask', 'tag: "ask"'],
    ['period=30d&tag=ask.survey', 'period=30d&tag=ask.survey', 'period: "30d", tag: "ask.survey"'],
    ['period=1h (nothing)', 'period=1h', 'period: "1h"'],
  ];
  it.each(cases)('%s, anonymous and logged in: same topics, same paging', async (_label, query, args) => {
    for (const token of [undefined, A.users.bob!.token]) {
      const r = await rest(A.s, `/topics${query ? `?${query}` : ''}`, token);
      expect(r.status).toBe(200);
      const g = await ok(
        A.s,
        `{ topics${args ? `(${args})` : ''} { edges { cursor node { ${TOPIC} } } pageInfo { hasNextPage ` +
          `hasPreviousPage startCursor endCursor } } }`,
        {},
        token,
      );
      expect(g.topics.edges.map((e: any) => restTopic(e.node, A.s.url))).toEqual(
        r.body.topics.map((t: any) => normalizeRestTopic(t, A.s.url)),
      );
      expect(g.topics.edges.map((e: any) => e.cursor)).toEqual(r.body.topics.map((t: any) => t.id));
      expect(g.topics.pageInfo.hasNextPage).toBe(r.body.pagination.next_link !== null);
      expect(g.topics.pageInfo.hasPreviousPage).toBe(r.body.pagination.prev_link !== null);
      if (r.body.pagination.next_link)
        expect(new URL(r.body.pagination.next_link).searchParams.get('after')).toBe(g.topics.pageInfo.endCursor);
    }
  });

  it('a walk can switch front doors at every page (cursors are the REST cursors), forwards and backwards', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      if (page % 2 === 0) {
        const r = await rest(A.s, `/topics?order=new&limit=2${after ? `&after=${after}` : ''}`);
        seen.push(...r.body.topics.map((t: any) => t.id));
        after = r.body.pagination.next_link ? new URL(r.body.pagination.next_link).searchParams.get('after') : null;
      } else {
        const g: any = await ok(
          A.s,
          'query($after: String) { topics(order: NEW, first: 2, after: $after) { edges { node { id36 } } ' +
            'pageInfo { hasNextPage endCursor } } }',
          { after },
        );
        seen.push(...g.topics.edges.map((e: any) => e.node.id36));
        after = g.topics.pageInfo.hasNextPage ? g.topics.pageInfo.endCursor : null;
      }
      if (!after) break;
    }
    const all = (await rest(A.s, '/topics?order=new&limit=100')).body.topics.map((t: any) => t.id);
    expect(seen).toEqual(all);
    // Backwards from the last page: GraphQL last/before ↔ REST limit/before.
    const lastTwo = all.slice(-2);
    const g = await ok(
      A.s,
      'query($before: String) { topics(order: NEW, last: 2, before: $before) { edges { node { id36 } } ' +
        'pageInfo { hasPreviousPage startCursor } } }',
      { before: lastTwo[0] },
    );
    const r = await rest(A.s, `/topics?order=new&limit=2&before=${lastTwo[0]}`);
    expect(g.topics.edges.map((e: any) => e.node.id36)).toEqual(r.body.topics.map((t: any) => t.id));
    expect(g.topics.pageInfo.hasPreviousPage).toBe(r.body.pagination.prev_link !== null);
  });

  it('bad arguments: the same messages as REST, on the GraphQL argument names', async () => {
    const r = await rest(A.s, '/topics?period=1w&tag=a..b&after=0x');
    const g = await gql(A.s, '{ topics(period: "1w", tag: "a..b", after: "0x") { edges { cursor } } }');
    expect(g.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const issues = (g.body.errors?.[0]?.extensions?.issues ?? []) as { field: string; message: string }[];
    expect(issues.map((i) => [i.field, i.message])).toEqual(r.body.map((i: any) => [i.field, i.message]));
  });
});

describe("a user's feeds (GET /user/{username}[/topics|/comments])", () => {
  it.each([['anonymous'], ['bob'], ['alice']])(
    'history, topics and comments as %s: same items, same cursors',
    async (who) => {
      const token = who === 'anonymous' ? undefined : A.users[who]!.token;
      for (const target of ['alice', 'BOB']) {
        const rh = await rest(A.s, `/user/${target}?limit=7`, token);
        const rt = await rest(A.s, `/user/${target}/topics?limit=3`, token);
        const rc = await rest(A.s, `/user/${target}/comments?limit=4`, token);
        const g = await ok(
          A.s,
          `query($u: String!) { user(username: $u) { username
           history(first: 7) {
             edges { cursor node { __typename ... on Topic { ${TOPIC} } ... on Comment { ${COMMENT} } } }
             pageInfo { hasNextPage endCursor }
           }
           topics(first: 3) { edges { cursor node { ${TOPIC} } } pageInfo { hasNextPage endCursor } }
           comments(first: 4) { edges { cursor node { ${COMMENT} } } pageInfo { hasNextPage endCursor } } } }`,
          { u: target },
          token,
        );
        expect(g.user.username).toBe(rh.body.user.username);
        expect(
          g.user.history.edges.map((e: any) =>
            e.node.__typename === 'Topic' ? restTopic(e.node, A.s.url) : restRecord(e.node),
          ),
        ).toEqual(
          rh.body.history.map((i: any) => ('title' in i ? normalizeRestTopic(i, A.s.url) : withoutTreeValues(i))),
        );
        expect(g.user.history.edges.map((e: any) => e.cursor)).toEqual(
          rh.body.history.map((i: any) => ('title' in i ? `t-${i.id}` : `c-${i.id}`)),
        );
        if (rh.body.pagination.next_link)
          expect(new URL(rh.body.pagination.next_link).searchParams.get('after')).toBe(
            g.user.history.pageInfo.endCursor,
          );
        expect(g.user.history.pageInfo.hasNextPage).toBe(rh.body.pagination.next_link !== null);
        expect(g.user.topics.edges.map((e: any) => restTopic(e.node, A.s.url))).toEqual(
          rt.body.topics.map((t: any) => normalizeRestTopic(t, A.s.url)),
        );
        expect(g.user.topics.pageInfo.hasNextPage).toBe(rt.body.pagination.next_link !== null);
        expect(g.user.comments.edges.map((e: any) => restRecord(e.node))).toEqual(
          rc.body.comments.map(withoutTreeValues),
        );
        expect(g.user.comments.pageInfo.hasNextPage).toBe(rc.body.pagination.next_link !== null);
      }
    },
  );

  it('a mixed-feed cursor from REST continues the walk in GraphQL', async () => {
    const r = await rest(A.s, '/user/alice?limit=2');
    const after = new URL(r.body.pagination.next_link).searchParams.get('after');
    expect(after).toMatch(/^[tc]-/);
    const g = await ok(
      A.s,
      'query($a: String) { user(username: "alice") { history(first: 2, after: $a) { edges { cursor } } } }',
      { a: after },
    );
    const r2 = await rest(A.s, `/user/alice?limit=2&after=${after}`);
    expect(g.user.history.edges.map((e: any) => e.cursor)).toEqual(
      r2.body.history.map((i: any) => ('title' in i ? `t-${i.id}` : `c-${i.id}`)),
    );
  });

  it(`a banned user: REST 403, GraphQL FORBIDDEN (HTTP 200: data is present) with the same message; unknown \
user: REST 404, GraphQL null`, async () => {
    await A.s.agora.services.discussion.users.ban(SYSTEM, 'frank');
    try {
      const r = await rest(A.s, '/user/frank');
      expect(r.status).toBe(403);
      const g = await gql(A.s, '{ user(username: "frank") { username history { edges { cursor } } } }');
      expect(g.status).toBe(200);
      expect(g.body.data).toEqual({ user: null });
      expect(g.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(g.body.errors?.[0]?.message).toBe(r.body[0].message);
    } finally {
      await A.s.agora.services.discussion.users.unban(SYSTEM, 'frank');
    }
    expect((await rest(A.s, '/user/nobody')).status).toBe(404);
    expect((await gql(A.s, '{ user(username: "nobody") { username } }')).body).toEqual({ data: { user: null } });
  });
});

describe('PUBLIC_URL', () => {
  it('commentsUrl starts with PUBLIC_URL on both front doors', async () => {
    const p = await startTestServer({ PUBLIC_URL: 'https://example.org' });
    try {
      const f = new Factory(p);
      await f.topic(await f.user('paula'), { group: 'tech', title: 'Public URL' });
      const r = await rest(p, '/topics');
      const g = await ok(p, '{ topics { edges { node { commentsUrl } } } }');
      expect(r.body.topics[0].comments_url).toMatch(/^https:\/\/example\.org\//);
      expect(g.topics.edges[0].node.commentsUrl).toBe(r.body.topics[0].comments_url);
    } finally {
      await p.close();
    }
  });
});

describe('tokens are shared by both front doors', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await new Factory(s).user('tess');
  });
  afterAll(async () => s?.close());

  it('a REST login token works on GraphQL, and a GraphQL login token works on REST', async () => {
    const res = await fetch(`${s.url}/api/beta/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'TESS', password: 'correct horse battery' }),
    });
    const restToken = ((await res.json()) as { token: string }).token;
    expect((await ok(s, '{ viewer { username } }', {}, restToken)).viewer.username).toBe('tess');

    const g = await ok(
      s,
      'mutation { login(username: "tess", password: "correct horse battery") { token user { username } } }',
    );
    const who = await fetch(`${s.url}/api/beta/whoami`, { headers: { authorization: `Bearer ${g.login.token}` } });
    expect(await who.json()).toEqual({ msg: 'tess' });
  });

  it('logoutEverywhere through GraphQL revokes tokens on REST too', async () => {
    const { login } = await ok(s, 'mutation { login(username: "tess", password: "correct horse battery") { token } }');
    expect(await ok(s, 'mutation { logoutEverywhere }', {}, login.token)).toEqual({ logoutEverywhere: true });
    const who = await fetch(`${s.url}/api/beta/whoami`, { headers: { authorization: `Bearer ${login.token}` } });
    expect(who.status).toBe(401);
  });

  it('logins through both front doors count against the same rate limit', async () => {
    const t = await startTestServer({ LOGIN_RATE_LIMIT: '3' });
    try {
      await new Factory(t).user('rita');
      const restLogin = () =>
        fetch(`${t.url}/api/beta/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'rita', password: 'wrong password' }),
        });
      expect((await restLogin()).status).toBe(401);
      expect((await restLogin()).status).toBe(401);
      expect((await gql(t, 'mutation { login(username: "rita", password: "wrong password") { token } }')).status).toBe(
        401,
      );
      const limited = await gql(t, 'mutation { login(username: "rita", password: "correct horse battery") { token } }');
      expect(limited.status).toBe(429);
      expect(limited.body.errors?.[0]?.extensions?.code).toBe('TOO_MANY_REQUESTS');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await restLogin()).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});
