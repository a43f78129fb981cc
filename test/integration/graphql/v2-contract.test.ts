/**
 * The GraphQL v2 properties a client relies on, over real HTTP: global ids and node round trips,
 * ids of either kind in arguments, HTTP status with partial data (under both response types),
 * error bodies without `extensions.http`, defaults that mean what introspection says, and
 * multipart uploads per the spec (one file in several places, a list, a failure among several).
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import { fails, gql, ok } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let topicId36: string;
let commentId36: string;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  await f.group('tech');
  const t = await f.topic(alice, { title: 'Ids', markdown: 'Some *text* here' });
  topicId36 = t.id36;
  commentId36 = (await f.comment(bob, t, { markdown: 'first' })).id36;
  await f.comment(alice, t, { markdown: 'second' });
});
afterAll(async () => s?.close());

describe('Global Object Identification', () => {
  it('Topic 1 and Comment 1 have different ids; node(id:) gives each object back with the same fields', async () => {
    const d = await ok(
      s,
      `query($t: ID!) { topic(id: $t) { id id36 title author { id username } group { id path }
      threads { nodes { comment { id id36 textHtml } } } } }`,
      { t: topicId36 },
    );
    const topic = d.topic;
    const comment = topic.threads.nodes[0].comment;
    expect(topic.id36).toBe(comment.id36); // both "1": ids are per collection
    expect(topic.id).not.toBe(comment.id);
    const ids = [topic.id, comment.id, topic.author.id, topic.group.id];
    expect(new Set(ids).size).toBe(4);
    const back = await ok(
      s,
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
      ... on Topic { id36 title } ... on Comment { id36 textHtml } ... on User { username } ... on Group { path } } }`,
      { ids: [...ids, 'bm90IGFuIGlk', 'VG9waWM6enp6eno='] },
    );
    expect(back.nodes).toEqual([
      { __typename: 'Topic', id: topic.id, id36: topic.id36, title: 'Ids' },
      { __typename: 'Comment', id: comment.id, id36: comment.id36, textHtml: comment.textHtml },
      { __typename: 'User', id: topic.author.id, username: 'alice' },
      { __typename: 'Group', id: topic.group.id, path: 'tech' },
      null,
      null,
    ]);
    for (const id of ids)
      expect((await ok(s, 'query($id: ID!) { node(id: $id) { id } }', { id })).node).toEqual({ id });
  });

  it('a topic reached through a comment shows its author the same Markdown as topic(id:)', async () => {
    const q =
      `query($t: ID!) { topic(id: $t) { markdown } user(username: "bob") { comments { nodes { ` +
      `topic { markdown } } } } }`;
    const d = await ok(s, q, { t: topicId36 }, alice.token);
    expect(d.topic.markdown).toBe('Some *text* here');
    expect(d.user.comments.nodes.map((c: any) => c.topic.markdown)).toEqual(['Some *text* here']);
  });

  it(`arguments naming a topic or a comment take the global id or the id36; an id of another type is \
BAD_USER_INPUT`, async () => {
    const d = await ok(s, `query($t: ID!) { topic(id: $t) { id threads { nodes { comment { id } } } } }`, {
      t: topicId36,
    });
    const byGlobal = await ok(s, 'query($t: ID!) { topic(id: $t) { id36 } }', { t: d.topic.id });
    expect(byGlobal.topic.id36).toBe(topicId36);
    const voted = await ok(
      s,
      'mutation($c: ID!) { voteComment(id: $c) { id voteCount } }',
      { c: d.topic.threads.nodes[0].comment.id },
      alice.token,
    );
    expect(voted.voteComment).toEqual({ id: d.topic.threads.nodes[0].comment.id, voteCount: 1 });
    const wrong = await fails(s, 'mutation($c: ID!) { voteComment(id: $c) { id } }', { c: d.topic.id }, alice.token);
    expect(wrong.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const reply = await ok(
      s,
      'mutation($t: ID!, $p: ID!) { postComment(topicId: $t, parentId: $p, markdown: "by ids") { depth } }',
      { t: d.topic.id, p: commentId36 },
      alice.token,
    );
    expect(reply.postComment.depth).toBe(1);
  });
});

describe('HTTP status per GraphQL over HTTP', () => {
  const partial = '{ serverInfo { version } user(username: "bob") { username history { edges { cursor } } } }';

  it.each(['application/json', 'application/graphql-response+json'])(
    'partial data is 200 under %s, with the error code and no extensions.http',
    async (accept) => {
      const shy = await f.user(`shy${accept.length}`);
      await s.agora.services.discussion.users.updateSettings(shy.actor, { historyVisibility: 'logged_in' });
      const r = await gql(s, partial.replace('"bob"', `"${shy.user.username}"`), {}, undefined, { accept });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain(accept);
      expect(r.body.data).toEqual({ serverInfo: { version: expect.any(String) }, user: null });
      expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
      expect(r.body.errors?.[0]?.extensions).not.toHaveProperty('http');
    },
  );

  it('401/403 only when the whole operation is refused (nothing applied); never extensions.http', async () => {
    const anon = await gql(s, 'mutation { voteTopic(id: "1") { id } }');
    expect([anon.status, anon.body.data]).toEqual([401, null]);
    const admin = await gql(s, 'mutation { createGroup(path: "x") { path } }', {}, bob.token);
    expect([admin.status, admin.body.data]).toEqual([403, null]);
    const mixed = await gql(
      s,
      'mutation { a: bookmarkTopic(id: "1") { id36 } b: createGroup(path: "y") { path } }',
      {},
      bob.token,
    );
    // The bookmark was applied: its result stays, the refusal is an error at `b`, the status 200.
    expect([mixed.status, mixed.body.data]).toEqual([200, { a: { id36: '1' }, b: null }]);
    expect(mixed.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['b'], 'FORBIDDEN']]);
    for (const r of [anon, admin, mixed])
      for (const e of r.body.errors ?? []) expect(e.extensions).not.toHaveProperty('http');
    const query = await gql(s, '{ groups { path } viewer { username } topic(id: "zz") { id } }', {}, 'not-a-token');
    expect(query.status).toBe(401); // a bad token refuses the whole request
  });
});

describe('a plain GET (as the README shows it)', () => {
  it('runs a query with the preflight header; refuses it without (CSRF prevention) and refuses mutations', async () => {
    const query =
      'query($id: ID!) { topic(id: $id) { title threads(first: 10) { nodes { depth comment { textHtml } } } } }';
    const variables = JSON.stringify({ id: topicId36 });
    const url = `${s.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variables)}`;
    const res = await fetch(url, { headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.topic.title).toBe('Ids');
    expect((await fetch(url)).status).toBe(400);
    const mutation = `${s.url}/graphql?query=${encodeURIComponent('mutation { logoutEverywhere }')}`;
    expect((await fetch(mutation, { headers: { 'apollo-require-preflight': 'true' } })).status).toBe(405);
  });
});

describe('defaults mean what introspection says', () => {
  it(`omitting an argument with a default is the same as passing the default; a viewer-dependent one is \
nullable without default`, async () => {
    const intro = await ok(
      s,
      `{ __type(name: "Topic") { fields { name args { name defaultValue type { kind name } } } } }`,
    );
    const threads = intro.__type.fields.find((f: any) => f.name === 'threads');
    expect(threads.args.find((a: any) => a.name === 'order')).toEqual({
      name: 'order',
      defaultValue: null,
      type: { kind: 'ENUM', name: 'CommentOrder' },
    });
    const omitted = await ok(s, '{ topics { nodes { id36 } } }');
    const given = await ok(s, '{ topics(order: ACTIVITY, period: "all") { nodes { id36 } } }');
    expect(omitted).toEqual(given);
    const bookmarked = await ok(
      s,
      `mutation { bookmarkTopic(id: "${topicId36}") { viewerHasBookmarked } }`,
      {},
      bob.token,
    );
    const explicit = await ok(
      s,
      `mutation { bookmarkTopic(id: "${topicId36}", bookmark: true) { viewerHasBookmarked } }`,
      {},
      bob.token,
    );
    expect(bookmarked).toEqual(explicit);
    expect(
      (await gql(s, `mutation { bookmarkTopic(id: "${topicId36}", bookmark: null) { id } }`, {}, bob.token)).status,
    ).toBe(400);
  });
});

describe('multipart uploads', () => {
  async function multipart(
    operations: unknown,
    map: Record<string, string[]>,
    files: Record<string, [string, string]>,
  ) {
    const form = new FormData();
    form.append('operations', JSON.stringify(operations));
    form.append('map', JSON.stringify(map));
    for (const [name, [filename, content]] of Object.entries(files)) form.append(name, new Blob([content]), filename);
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      body: form,
      headers: { 'apollo-require-preflight': 'true' },
    });
    return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
  }

  it('one file filling two variables is stored twice, both delete keys answered', async () => {
    const query =
      'mutation($a: Upload!, $b: Upload!) { a: uploadFile(file: $a, filename: "one.txt") { filename ' +
      'deleteKey sha256sum file { id } } b: uploadFile(file: $b, filename: "two.txt") { filename ' +
      'deleteKey sha256sum file { id } } }';
    const r = await multipart(
      { query, variables: { a: null, b: null } },
      { '0': ['variables.a', 'variables.b'] },
      { '0': ['same.txt', 'the same bytes'] },
    );
    expect([r.status, r.body.errors]).toEqual([200, undefined]);
    expect(r.body.data.a.sha256sum).toBe(r.body.data.b.sha256sum);
    expect(r.body.data.a.deleteKey).toHaveLength(30);
    expect(r.body.data.b.deleteKey).toHaveLength(30);
    expect(r.body.data.a.file.id).not.toBe(r.body.data.b.file.id);
    const node = await ok(s, 'query($id: ID!) { node(id: $id) { ... on FileInfo { filename size } } }', {
      id: r.body.data.a.file.id,
    });
    expect(node.node).toEqual({ filename: r.body.data.a.filename, size: 14 });
  });

  it(`uploadFiles([Upload!]!): a file that fails is null with an error at its index; the others are stored \
with their delete keys`, async () => {
    const query = 'mutation($files: [Upload!]!) { uploadFiles(files: $files) { filename deleteKey } }';
    const r = await multipart(
      { query, variables: { files: [null, null, null] } },
      { '0': ['variables.files.0'], '1': ['variables.files.1'], '2': ['variables.files.2'] },
      { '0': ['a.txt', 'first'], '1': ['empty.txt', ''], '2': ['c.txt', 'third'] },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.uploadFiles[0]).toMatchObject({ filename: 'a.txt', deleteKey: expect.any(String) });
    expect(r.body.data.uploadFiles[1]).toBeNull();
    expect(r.body.data.uploadFiles[2]).toMatchObject({ filename: 'c.txt', deleteKey: expect.any(String) });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]).toMatchObject({ path: ['uploadFiles', 1], extensions: { code: 'BAD_USER_INPUT' } });
    expect(r.body.errors![0].extensions).not.toHaveProperty('http');
  });

  it(`two uploadFile aliases of which one fails: the other is stored and its delete key answered, with \
200`, async () => {
    const query =
      'mutation($a: Upload!, $b: Upload!) { a: uploadFile(file: $a) { filename deleteKey } b: ' +
      'uploadFile(file: $b) { filename deleteKey } }';
    const r = await multipart(
      { query, variables: { a: null, b: null } },
      { '0': ['variables.a'], '1': ['variables.b'] },
      { '0': ['kept.txt', 'kept bytes'], '1': ['empty.txt', ''] },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.a).toEqual({ filename: 'kept.txt', deleteKey: expect.any(String) });
    expect(r.body.data.b).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]).toMatchObject({ path: ['b'], extensions: { code: 'BAD_USER_INPUT' } });
    const stored = await fetch(`${s.url}/selif/kept.txt`);
    expect([stored.status, await stored.text()]).toEqual([200, 'kept bytes']);
    const del = await fetch(`${s.url}/kept.txt`, {
      method: 'DELETE',
      headers: { 'linx-delete-key': r.body.data.a.deleteKey },
    });
    expect(del.status).toBe(200);
  });

  it("an operation whose only upload fails produced nothing: data null and the error's status", async () => {
    const query = 'mutation($a: Upload!) { uploadFile(file: $a) { filename } }';
    const r = await multipart({ query, variables: { a: null } }, { '0': ['variables.a'] }, { '0': ['empty.txt', ''] });
    expect(r.status).toBe(400);
    expect(r.body.data).toBeNull();
    expect(r.body.errors![0]).toMatchObject({ path: ['uploadFile'], extensions: { code: 'BAD_USER_INPUT' } });
  });
});
