/** Each query of the contract, through real HTTP: viewer, topics, topic, user and its feeds, groups. */
import { startTestServer, TestServer } from '../../helpers/server';
import { SYSTEM } from '../../../src/discussion/services';
import type { TopicView, CommentView } from '../../../src/discussion/views';
import { Factory, TestUser } from '../../helpers/factories';
import { fails, gql, ok } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let text: TopicView;
let link: TopicView;
let c1: CommentView;
let c2: CommentView;
let c3: CommentView;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('Alice');
  bob = await f.user('bob');
  admin = await f.user('root', { admin: true });
  await f.group('tech', 'Technology');
  await f.group('games.tabletop', 'Board games');
  text = await f.topic(alice, {
    title: "What's your favourite editor?",
    markdown: 'Tell me *yours* please',
    tags: ['ask.survey', 'Hello_World'],
  });
  link = await f.topic(bob, {
    group: 'games.tabletop',
    title: 'Rules',
    markdown: '',
    link: 'https://www.example.com:8443/x',
    tags: [],
  });
  c1 = await f.comment(bob, text, { markdown: 'First comment' });
  c2 = await f.comment(alice, text, { markdown: 'A reply', parent: c1 });
  c3 = await f.comment(bob, text, { markdown: 'A deeper reply', parent: c2 });
});
afterAll(async () => s?.close());

describe('viewer', () => {
  it('is null for an anonymous request', async () => {
    expect(await ok(s, '{ viewer { username } }')).toEqual({ viewer: null });
  });

  it("is the token's user, with their settings", async () => {
    const d = await ok(
      s,
      '{ viewer { username isAdmin joinedAt settings { historyVisibility collapseOldComments defaultCommentOrder } } }',
      {},
      alice.token,
    );
    expect(d.viewer).toEqual({
      username: 'Alice',
      isAdmin: false,
      joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      settings: { historyVisibility: 'EVERYONE', collapseOldComments: true, defaultCommentOrder: 'RELEVANCE' },
    });
  });
});

describe('groups and group', () => {
  it('lists every group with its description', async () => {
    const d = await ok(s, '{ groups { path description createdAt } }');
    expect(d.groups.map((g: any) => [g.path, g.description])).toEqual(
      expect.arrayContaining([
        ['tech', 'Technology'],
        ['games.tabletop', 'Board games'],
      ]),
    );
  });

  it('finds a group by path, with or without ~, and answers null for an unknown one', async () => {
    expect((await ok(s, '{ group(path: "~games.tabletop") { path description } }')).group).toEqual({
      path: 'games.tabletop',
      description: 'Board games',
    });
    expect((await ok(s, '{ group(path: "tech") { path } }')).group).toEqual({ path: 'tech' });
    expect((await ok(s, '{ group(path: "nope") { path } }')).group).toBeNull();
  });
});

describe('topics', () => {
  it('lists topics with their fields (REST values: slug URL, site name, word count, tags)', async () => {
    const d = await ok(
      s,
      '{ topics(order: NEW) { edges { cursor node { id36 title url sourceSiteName sourceSiteIcon ' +
        'textHtml contentMetadata commentsUrl tags group { path } author { username } commentCount } } } }',
    );
    const byId = Object.fromEntries(d.topics.edges.map((e: any) => [e.node.id36, e.node]));
    expect(byId[text.id36]).toMatchObject({
      url: null,
      sourceSiteName: null,
      sourceSiteIcon: null,
      textHtml: '<p>Tell me <em>yours</em> please</p>',
      contentMetadata: ['4 words'],
      commentsUrl: `${s.url}/~tech/${text.id36}/whats_your_favourite_editor`,
      tags: ['ask.survey', 'hello world'],
      group: { path: 'tech' },
      author: { username: 'Alice' },
      commentCount: 3,
    });
    expect(byId[link.id36]).toMatchObject({
      url: 'https://www.example.com:8443/x',
      sourceSiteName: 'example.com',
      textHtml: null,
      contentMetadata: [],
    });
  });

  it('pages with first/after and last/before; cursors are id36', async () => {
    const first = await ok(
      s,
      '{ topics(order: NEW, first: 1) { edges { cursor } pageInfo { hasNextPage hasPreviousPage ' +
        'startCursor endCursor } } }',
    );
    expect(first.topics.edges).toEqual([{ cursor: link.id36 }]);
    expect(first.topics.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: link.id36,
      endCursor: link.id36,
    });
    const next = await ok(
      s,
      `{ topics(order: NEW, first: 1, after: "${link.id36}") { edges { cursor } pageInfo { hasNextPage ` +
        `hasPreviousPage } } }`,
    );
    expect(next.topics.edges).toEqual([{ cursor: text.id36 }]);
    expect(next.topics.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
    const back = await ok(s, `{ topics(order: NEW, last: 1, before: "${text.id36}") { edges { cursor } } }`);
    expect(back.topics.edges).toEqual([{ cursor: link.id36 }]);
  });

  it('filters by tag and period', async () => {
    const tag = await ok(s, '{ topics(tag: "hello world") { edges { node { id36 } } } }');
    expect(tag.topics.edges.map((e: any) => e.node.id36)).toEqual([text.id36]);
    const none = await ok(s, '{ topics(tag: "ask.editor") { edges { node { id } } } }');
    expect(none.topics.edges).toEqual([]);
    const period = await ok(s, '{ topics(period: "1h") { edges { node { id } } } }');
    expect(period.topics.edges).toHaveLength(2);
  });

  it("filters by group (with or without ~); a walk with first: 1 reaches exactly the group's topics", async () => {
    const d = await ok(s, '{ topics(group: "~games.tabletop") { edges { node { id36 group { path } } } } }');
    expect(d.topics.edges.map((e: any) => e.node.id36)).toEqual([link.id36]);
    expect(
      (await ok(s, '{ topics(group: "tech", order: NEW) { edges { node { id36 } } } }')).topics.edges.map(
        (e: any) => e.node.id36,
      ),
    ).toEqual([text.id36]);
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p: any = await ok(
        s,
        'query($a: String) { topics(group: "tech", order: NEW, first: 1, after: $a) { edges { node { ' +
          'id36 } } pageInfo { hasNextPage endCursor } } }',
        { a: after },
      );
      seen.push(...p.topics.edges.map((e: any) => e.node.id36));
      if (!p.topics.pageInfo.hasNextPage) break;
      after = p.topics.pageInfo.endCursor;
    }
    expect(seen).toEqual([text.id36]);
  });

  it.each([
    ['first: 0', 'first', /less than the minimum of 1/],
    ['first: 101', 'first', /greater than the maximum of 100/],
    ['last: 5', 'last', /before/],
    ['first: 2, last: 2, before: "1"', 'last', /not both/],
    ['after: "1", before: "2"', 'before', /Can't specify both after and before/],
    ['after: "t-1"', 'after', /does not match expected pattern/],
    ['period: "1w"', 'period', /Invalid time period/],
    ['tag: "a..b"', 'tag', /Invalid path/],
  ])('refuses %s with BAD_USER_INPUT naming the argument', async (args, field, message) => {
    const e = await fails(s, `{ topics(${args}) { edges { cursor } } }`);
    expect(e.extensions?.code).toBe('BAD_USER_INPUT');
    expect(e.extensions?.field).toBe(field);
    expect(e.message).toMatch(message);
  });

  it('leaves out topics the viewer ignores, and shows viewer-specific values only when logged in', async () => {
    await f.d.ignores.ignore(bob.actor, text.id36);
    try {
      const mine = await ok(
        s,
        '{ topics { edges { node { id36 viewerHasVoted viewerHasBookmarked viewerHasIgnored } } } }',
        {},
        bob.token,
      );
      expect(mine.topics.edges.map((e: any) => e.node)).toEqual([
        { id36: link.id36, viewerHasVoted: false, viewerHasBookmarked: false, viewerHasIgnored: false },
      ]);
      const anon = await ok(
        s,
        '{ topics { edges { node { viewerHasVoted viewerHasBookmarked viewerHasIgnored newCommentCount ' +
          'lastVisitedAt } } } }',
      );
      for (const e of anon.topics.edges)
        expect(e.node).toEqual({
          viewerHasVoted: null,
          viewerHasBookmarked: null,
          viewerHasIgnored: null,
          newCommentCount: null,
          lastVisitedAt: null,
        });
    } finally {
      await f.d.ignores.unignore(bob.actor, text.id36);
    }
  });
});

describe('topic', () => {
  it('answers null for an unknown topic and BAD_USER_INPUT for a malformed id', async () => {
    expect((await ok(s, '{ topic(id: "zzzz") { id } }')).topic).toBeNull();
    const e = await fails(s, '{ topic(id: "not valid!") { id } }');
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
  });

  it('gives the threads nested and flat, with depth and parent', async () => {
    const d = await ok(
      s,
      `{ topic(id: "${text.id36}") { threads(order: POSTED) { edges { cursor node {
         depth comment { id36 }
         replies { depth comment { id36 parent { id36 } } replies { depth comment { id36 } } }
         descendants { depth comment { id36 parent { id36 } } } } } } } }`,
    );
    const root = d.topic.threads.edges[0];
    expect(d.topic.threads.edges).toHaveLength(1);
    expect(root.cursor).toBe(c1.id36);
    expect(root.node.depth).toBe(0);
    expect(root.node.comment).toEqual({ id36: c1.id36 });
    expect(root.node.replies).toEqual([
      {
        depth: 1,
        comment: { id36: c2.id36, parent: { id36: c1.id36 } },
        replies: [{ depth: 2, comment: { id36: c3.id36 } }],
      },
    ]);
    expect(root.node.descendants).toEqual([
      { depth: 1, comment: { id36: c2.id36, parent: { id36: c1.id36 } } },
      { depth: 2, comment: { id36: c3.id36, parent: { id36: c2.id36 } } },
    ]);
  });

  it(`pages top-level threads (each with all its replies) with first/after and last/before; cursors are \
id36`, async () => {
    const t = await f.topic(alice, { title: 'Many threads' });
    const tops: CommentView[] = [];
    for (let i = 0; i < 5; i++) tops.push(await f.comment(bob, t, { markdown: `top ${i}` }));
    await f.comment(alice, t, { markdown: 'reply to top 2', parent: tops[2] });
    const page = (args: string) =>
      ok(
        s,
        `{ topic(id: "${t.id36}") { threads(order: POSTED, ${args}) {
          edges { cursor node { descendants { comment { id36 } } } }
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`,
      );
    const p1 = await page('first: 2');
    expect(p1.topic.threads.edges.map((e: any) => e.cursor)).toEqual([tops[0]!.id36, tops[1]!.id36]);
    expect(p1.topic.threads.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: tops[0]!.id36,
      endCursor: tops[1]!.id36,
    });
    const p2 = await page(`first: 2, after: "${tops[1]!.id36}"`);
    expect(p2.topic.threads.edges.map((e: any) => e.cursor)).toEqual([tops[2]!.id36, tops[3]!.id36]);
    expect(p2.topic.threads.edges[0].node.descendants).toHaveLength(1);
    expect(p2.topic.threads.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const back = await page(`last: 2, before: "${tops[4]!.id36}"`);
    expect(back.topic.threads.edges.map((e: any) => e.cursor)).toEqual([tops[2]!.id36, tops[3]!.id36]);
    const e = await fails(s, `{ topic(id: "${t.id36}") { threads(after: "zzzz") { edges { cursor } } } }`);
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    expect(
      (await fails(s, `{ topic(id: "${t.id36}") { threads(first: 1001) { edges { cursor } } } }`)).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
  });

  it('each comment reaches its topic and its parent', async () => {
    const d = await ok(
      s,
      `{ topic(id: "${text.id36}") { threads { nodes { comment { ...C } descendants { comment { ...C } } ` +
        `} } } } fragment C on Comment { topic { id36 title } parent { id36 } isOp }`,
    );
    const flat = d.topic.threads.nodes.flatMap((t: any) => [t, ...t.descendants]).map((t: any) => t.comment);
    expect(flat.map((c: any) => [c.topic.id36, c.parent?.id36 ?? null, c.isOp])).toEqual([
      [text.id36, null, false],
      [text.id36, c1.id36, true],
      [text.id36, c2.id36, false],
    ]);
  });

  it('records no visit when read (queries have no side effects); visitTopic records it', async () => {
    const q = (fields: string) =>
      ok(s, `{ topic(id: "${text.id36}") { lastVisitedAt newCommentCount ${fields} } }`, {}, admin.token);
    expect((await q('title')).topic.lastVisitedAt).toBeNull();
    const read = await q('threads { nodes { isNew } }');
    expect(read.topic.lastVisitedAt).toBeNull();
    expect((await q('title')).topic.lastVisitedAt).toBeNull();
    const visited = await ok(
      s,
      'mutation($id: ID!) { visitTopic(id: $id) { id36 lastVisitedAt newCommentCount } }',
      { id: text.id36 },
      admin.token,
    );
    expect(visited.visitTopic.lastVisitedAt).not.toBeNull();
    expect(visited.visitTopic.newCommentCount).toBe(0);
    await f.comment(bob, text, { markdown: 'Something new' });
    const again = await ok(
      s,
      `{ topic(id: "${text.id36}") { newCommentCount threads { nodes { isNew descendants { isNew } } } } }`,
      {},
      admin.token,
    );
    expect(again.topic.newCommentCount).toBe(1);
    expect(
      again.topic.threads.nodes.flatMap((t: any) => [t, ...t.descendants]).filter((t: any) => t.isNew),
    ).toHaveLength(1);
    expect((await fails(s, `mutation { visitTopic(id: "${text.id36}") { id } }`)).extensions?.code).toBe(
      'UNAUTHENTICATED',
    );
  });

  it(`uses the viewer's preferred comment order when none (or null) is given, as REST, the given one \
otherwise`, async () => {
    const viewer = await f.user('orderly');
    await f.d.users.updateSettings(viewer.actor, { defaultCommentOrder: 'newest' });
    const t = await f.topic(alice, { title: 'Order test' });
    const first = await f.comment(bob, t, { markdown: 'older' });
    const second = await f.comment(bob, t, { markdown: 'newer' });
    await f.voteComment(alice, first);
    const ids = (c: any) => c.nodes.map((n: any) => n.comment.id36);
    const d = await ok(
      s,
      `{ topic(id: "${t.id36}") { threads { nodes { comment { id36 } } } byVotes: threads(order: VOTES) ` +
        `{ nodes { comment { id36 } } } nulled: threads(order: null) { nodes { comment { id36 } } } } }`,
      {},
      viewer.token,
    );
    expect(ids(d.topic.threads)).toEqual([second.id36, first.id36]);
    expect(ids(d.topic.nulled)).toEqual([second.id36, first.id36]);
    expect(ids(d.topic.byVotes)).toEqual([first.id36, second.id36]);
    const anon = await ok(s, `{ topic(id: "${t.id36}") { threads { nodes { comment { id36 } } } } }`);
    expect(ids(anon.topic.threads)).toEqual([first.id36, second.id36]);
  });

  it('hides a removed topic from others, shows it to its author and admins', async () => {
    const t = await f.topic(alice, { title: 'To be removed' });
    await f.d.topics.remove(SYSTEM, t.id36);
    const q = `{ topic(id: "${t.id36}") { id36 isRemoved } }`;
    expect((await ok(s, q)).topic).toBeNull();
    expect((await ok(s, q, {}, bob.token)).topic).toBeNull();
    expect((await ok(s, q, {}, alice.token)).topic).toEqual({ id36: t.id36, isRemoved: true });
    expect((await ok(s, q, {}, admin.token)).topic).toEqual({ id36: t.id36, isRemoved: true });
  });

  it('shows markdown only to the author and admins (null for everyone else)', async () => {
    const q = `{ topic(id: "${text.id36}") { markdown threads { nodes { comment { markdown } } } } }`;
    expect((await ok(s, q)).topic.markdown).toBeNull();
    expect((await ok(s, q, {}, bob.token)).topic.markdown).toBeNull();
  });

  it('gives the author and admins the Markdown source', async () => {
    const q = `{ topic(id: "${text.id36}") { markdown } }`;
    expect((await ok(s, q, {}, alice.token)).topic.markdown).toBe('Tell me *yours* please');
    expect((await ok(s, q, {}, admin.token)).topic.markdown).toBe('Tell me *yours* please');
    // A link topic shows no text, so no source either (like textHtml).
    expect((await ok(s, `{ topic(id: "${link.id36}") { markdown } }`, {}, bob.token)).topic.markdown).toBeNull();
    // The same rule in the listing.
    const listed = await ok(s, '{ topics(order: NEW) { edges { node { id36 markdown } } } }', {}, alice.token);
    expect(listed.topics.edges.find((e: any) => e.node.id36 === text.id36).node.markdown).toBe(
      'Tell me *yours* please',
    );
    const byBob = await ok(s, '{ topics(order: NEW) { edges { node { id markdown } } } }', {}, bob.token);
    expect(byBob.topics.edges.every((e: any) => e.node.markdown === null)).toBe(true);
  });

  it("gives each comment's Markdown to its author and admins, in the tree, the flat list and the feeds", async () => {
    const t = await f.topic(alice, { title: 'Markdown in trees' });
    const a1 = await f.comment(alice, t, { markdown: 'Alice *writes*' });
    const b1 = await f.comment(bob, t, { markdown: 'Bob **replies**', parent: a1 });
    const gone = await f.comment(bob, t, { markdown: 'Soon deleted', parent: b1 });
    await f.comment(alice, t, { markdown: 'Keeps the placeholder', parent: gone });
    await f.d.comments.delete(bob.actor, gone.id36);
    const removed = await f.comment(bob, t, { markdown: 'Removed text' });
    await f.d.comments.remove(SYSTEM, removed.id36);

    const flat =
      `{ topic(id: "${t.id36}") { threads { nodes { comment { id36 markdown } descendants { ` +
      `comment { id36 markdown } } } } } }`;
    const flatten = (threads: any) =>
      threads.nodes.flatMap((n: any) => [n, ...n.descendants]).map((n: any) => n.comment);
    const md = async (token?: string) =>
      Object.fromEntries(flatten((await ok(s, flat, {}, token)).topic.threads).map((c: any) => [c.id36, c.markdown]));
    expect(Object.values(await md()).every((m) => m === null)).toBe(true);
    expect(await md(bob.token)).toMatchObject({
      [a1.id36]: null,
      [b1.id36]: 'Bob **replies**',
      [gone.id36]: null,
      [removed.id36]: 'Removed text',
    });
    expect(await md(alice.token)).toMatchObject({
      [a1.id36]: 'Alice *writes*',
      [b1.id36]: null,
      [gone.id36]: null,
      [removed.id36]: null,
    });
    expect(await md(admin.token)).toMatchObject({
      [a1.id36]: 'Alice *writes*',
      [b1.id36]: 'Bob **replies**',
      [gone.id36]: null,
      [removed.id36]: 'Removed text',
    });

    // Nested tree (through a fragment), and a tree asked twice with and without markdown.
    const nested = await ok(
      s,
      `query { topic(id: "${t.id36}") {
         threads { nodes { comment { id36 ...C } replies { comment { id36 ...C } } } }
         plain: threads(first: 5) { nodes { comment { id36 } } } } }
       fragment C on Comment { markdown }`,
      {},
      bob.token,
    );
    expect(nested.topic.threads.nodes.find((t: any) => t.comment.id36 === a1.id36).replies[0].comment).toEqual({
      id36: b1.id36,
      markdown: 'Bob **replies**',
    });
    // Trees reached from the listing (read lazily) too.
    const lazy = await ok(
      s,
      `{ topics(order: NEW, first: 1) { edges { node { id36 threads { nodes { comment { id36 markdown } ` +
        `descendants { comment { id36 markdown } } } } } } } }`,
      {},
      bob.token,
    );
    expect(lazy.topics.edges[0].node.id36).toBe(t.id36);
    expect(flatten(lazy.topics.edges[0].node.threads).find((c: any) => c.id36 === b1.id36).markdown).toBe(
      'Bob **replies**',
    );

    // Feeds: the author's own history and an admin's view of it; others see null.
    const feed = `{ user(username: "bob") { comments(first: 50) { edges { node { id36 markdown } } } } }`;
    const feedMd = async (token?: string) =>
      Object.fromEntries(
        (await ok(s, feed, {}, token)).user.comments.edges.map((e: any) => [e.node.id36, e.node.markdown]),
      );
    expect((await feedMd(bob.token))[b1.id36]).toBe('Bob **replies**');
    expect((await feedMd(admin.token))[b1.id36]).toBe('Bob **replies**');
    expect((await feedMd(alice.token))[b1.id36]).toBeNull();
    expect((await feedMd())[b1.id36]).toBeNull();

    // Mutations answer with the new source.
    const edited = await ok(
      s,
      `mutation { editComment(id: "${b1.id36}", markdown: "Bob *edited*") { markdown } }`,
      {},
      bob.token,
    );
    expect(edited.editComment.markdown).toBe('Bob *edited*');
    const posted = await ok(
      s,
      `mutation { postComment(topicId: "${t.id36}", markdown: "Fresh") { comment { markdown } } }`,
      {},
      bob.token,
    );
    expect(posted.postComment.comment.markdown).toBe('Fresh');
  });
});

describe('user and its feeds', () => {
  it('finds a user case-insensitively; null when unknown', async () => {
    expect((await ok(s, '{ user(username: "ALICE") { username isAdmin } }')).user).toEqual({
      username: 'Alice',
      isAdmin: false,
    });
    expect((await ok(s, '{ user(username: "zed") { username } }')).user).toBeNull();
    expect((await ok(s, '{ user(username: "root") { isAdmin } }')).user).toEqual({ isAdmin: true });
  });

  it('shows settings only to the user themself', async () => {
    expect(
      (await ok(s, '{ user(username: "bob") { settings { collapseOldComments } } }', {}, alice.token)).user.settings,
    ).toBeNull();
    expect(
      (await ok(s, '{ user(username: "bob") { settings { collapseOldComments } } }', {}, bob.token)).user.settings,
    ).toEqual({ collapseOldComments: true });
  });

  it('history mixes topics and comments newest first, with t-/c- cursors and union fragments', async () => {
    const d = await ok(
      s,
      `{ user(username: "bob") { history(first: 3) { edges { cursor node { __typename ... on Topic { ` +
        `title } ... on Comment { textHtml topic { id36 } } } } pageInfo { hasNextPage endCursor } } } }`,
    );
    const edges = d.user.history.edges;
    expect(edges.length).toBe(3);
    for (const e of edges) {
      expect(e.cursor).toMatch(e.node.__typename === 'Topic' ? /^t-/ : /^c-/);
      if (e.node.__typename === 'Comment') expect(e.node.topic.id36).toMatch(/^[0-9a-z]+$/);
    }
    expect(d.user.history.pageInfo.endCursor).toBe(edges[2].cursor);
  });

  it('topics and comments feeds use bare id36 cursors', async () => {
    const d = await ok(
      s,
      '{ user(username: "bob") { topics { edges { cursor node { id36 } } } comments(first: 2) { edges { ' +
        'cursor node { id36 parent { id36 } } } pageInfo { hasNextPage } } } }',
    );
    expect(d.user.topics.edges.every((e: any) => e.cursor === e.node.id36)).toBe(true);
    expect(d.user.comments.edges).toHaveLength(2);
    expect(d.user.comments.pageInfo.hasNextPage).toBe(true);
  });

  it('refuses a bare id36 as a history cursor and a prefixed one on the other feeds', async () => {
    expect(
      (await fails(s, '{ user(username: "bob") { history(after: "1") { edges { cursor } } } }')).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    expect(
      (await fails(s, '{ user(username: "bob") { topics(after: "t-1") { edges { cursor } } } }')).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  });

  it(`FORBIDDEN for a history shown only to logged-in users, when anonymous (HTTP 200: the rest of the data is \
kept)`, async () => {
    const shy = await f.user('shy');
    await f.d.users.updateSettings(shy.actor, { historyVisibility: 'logged_in' });
    const r = await gql(
      s,
      '{ serverInfo { version } user(username: "shy") { username history { edges { cursor } } } }',
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ serverInfo: { version: expect.any(String) }, user: null });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(r.body.errors?.[0]?.message).toBe("This user's history is only visible to logged-in users");
    expect(
      (await ok(s, '{ user(username: "shy") { username history { edges { cursor } } } }', {}, bob.token)).user.username,
    ).toBe('shy');
  });
});
