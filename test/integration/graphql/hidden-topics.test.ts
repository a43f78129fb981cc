/**
 * Comments whose topic the viewer may not see (deleted, or removed and the viewer neither its author
 * nor an admin): a user's history lists them as REST does, with `topic` null, and `node(id:)` and
 * `parent` answer the same record; one hidden topic never takes a history page down.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import { gql, rest } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let admin: TestUser;
const ids: Record<'deleted' | 'removed' | 'visible' | 'reply', string> = {} as never;
const topics: Record<'deleted' | 'removed' | 'visible', string> = {} as never;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  carol = await f.user('carol');
  admin = await f.user('root', { admin: true });
  for (const k of ['deleted', 'removed', 'visible'] as const) {
    const t = await f.topic(alice, { title: `The ${k} one` });
    topics[k] = t.id36;
    ids[k] = (await f.comment(bob, t, { markdown: `on the ${k} topic` })).id36;
  }
  // A reply on the deleted topic: its parent is bob's comment there.
  ids.reply = (await f.comment(carol, topics.deleted, { parent: ids.deleted })).id36;
  await f.d.topics.delete(alice.actor, topics.deleted);
  await f.d.topics.remove(admin.actor, topics.removed);
});
afterAll(async () => s?.close());

const HISTORY = `query($u: String!) { user(username: $u) {
  history(first: 10) { nodes { __typename ... on Comment { id id36 textHtml topic { id id36 } } } }
  comments(first: 10) { nodes { id id36 topic { id36 } } } } }`;

type Viewer = 'anonymous' | 'alice' | 'bob' | 'carol' | 'admin';
const tokenOf = (v: Viewer) => ({ anonymous: undefined, alice, bob, carol, admin })[v]?.token;
/** Who sees the removed topic: its author and admins. Nobody sees the deleted one. */
const seesRemoved = (v: Viewer) => v === 'alice' || v === 'admin';

describe.each<Viewer>(['anonymous', 'alice', 'bob', 'carol', 'admin'])('as %s', (viewer) => {
  it("lists every comment of bob's history, as REST does, with topic null where the topic is hidden", async () => {
    const r = await gql(s, HISTORY, { u: 'bob' }, tokenOf(viewer));
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    const nodes = r.body.data.user.history.nodes as { id36: string; topic: { id36: string } | null }[];
    const restIds = (await rest(s, '/user/bob', tokenOf(viewer))).body.history.map((i: { id: string }) => i.id);
    expect(nodes.map((n) => n.id36)).toEqual(restIds);
    expect(nodes.map((n) => n.id36)).toEqual([ids.visible, ids.removed, ids.deleted]);
    const topicOf = Object.fromEntries(nodes.map((n) => [n.id36, n.topic?.id36 ?? null]));
    expect(topicOf).toEqual({
      [ids.visible]: topics.visible,
      [ids.removed]: seesRemoved(viewer) ? topics.removed : null,
      [ids.deleted]: null,
    });
    const comments = r.body.data.user.comments.nodes as { id36: string; topic: { id36: string } | null }[];
    expect(comments.map((c) => [c.id36, c.topic?.id36 ?? null])).toEqual(nodes.map((n) => [n.id36, topicOf[n.id36]]));
  });

  it('node(id:) answers each history comment with the same fields and the same topic', async () => {
    const r = await gql(s, HISTORY, { u: 'bob' }, tokenOf(viewer));
    for (const item of r.body.data.user.history.nodes) {
      const n = await gql(
        s,
        'query($id: ID!) { node(id: $id) { __typename ... on Comment { id id36 textHtml topic { id id36 } } } }',
        { id: item.id },
        tokenOf(viewer),
      );
      expect(n.body).toEqual({ data: { node: item } });
      // The topic's own node agrees with the comment's `topic`.
      if (!item.topic) continue;
      const t = await gql(s, 'query($id: ID!) { node(id: $id) { id } }', { id: item.topic.id }, tokenOf(viewer));
      expect(t.body.data.node).toEqual({ id: item.topic.id });
    }
  });
});

describe('hidden topics, other paths', () => {
  it('node(id:) of a hidden topic is null, and a reply there names its parent as node(id:) does', async () => {
    const topicNode = await gql(s, `{ topic(id: "${topics.deleted}") { id } }`, {}, carol.token);
    expect(topicNode.body).toEqual({ data: { topic: null } });
    const reply = await gql(
      s,
      `{ user(username: "carol") { comments(first: 5) { nodes { id36 topic { id } parent { id id36 textHtml } } } } }`,
      {},
      carol.token,
    );
    expect(reply.body.errors).toBeUndefined();
    const node = reply.body.data.user.comments.nodes[0];
    expect(node).toMatchObject({ id36: ids.reply, topic: null, parent: { id36: ids.deleted } });
    const parent = await gql(
      s,
      'query($id: ID!) { node(id: $id) { ... on Comment { id id36 textHtml } } }',
      { id: node.parent.id },
      carol.token,
    );
    expect(parent.body.data.node).toEqual(node.parent);
  });

  it('a history closed to the viewer hides its comments on hidden topics from node(id:) too', async () => {
    const dave = await f.user('dave');
    const t = await f.topic(alice);
    const c = await f.comment(dave, t);
    await f.d.topics.delete(alice.actor, t.id36);
    const id = Buffer.from(`Comment:${c.id36}`).toString('base64');
    const q = 'query($id: ID!) { node(id: $id) { id ... on Comment { topic { id } } } }';
    expect((await gql(s, q, { id })).body).toEqual({ data: { node: { id, topic: null } } });
    await f.d.users.ban(admin.actor, 'dave');
    expect((await gql(s, q, { id })).body).toEqual({ data: { node: null } });
    expect((await gql(s, q, { id }, admin.token)).body).toEqual({ data: { node: null } });
  });

  it('a mutation answering a comment on a hidden topic keeps its result (topic null)', async () => {
    const r = await gql(
      s,
      `mutation { editComment(id: "${ids.deleted}", markdown: "edited") { id36 textHtml topic { id } } }`,
      {},
      bob.token,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: { editComment: { id36: ids.deleted, textHtml: '<p>edited</p>', topic: null } },
    });
  });
});
