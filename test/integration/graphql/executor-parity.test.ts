/**
 * The two executors give the same answers. A document without string literals runs on graphql-jit
 * (src/graphql/jit-executor.ts), one with a string literal anywhere on graphql-js: each document of
 * the corpus is sent as it is (graphql-jit) and again with one more operation that holds a string
 * literal and is never run (graphql-js), and the two answers (status and body) must be identical.
 * The corpus covers variable defaults (the jit path once ignored them: `$n: Int! = 2` omitted was a
 * 400 "Internal server error"), directives on fields, spreads and inline fragments, named fragments,
 * aliases, variables of every input type the schema takes (Int, Boolean, ID, String, enums, lists,
 * input objects), explicit nulls and bad values.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import type { TopicView } from '../../../src/discussion/views';

jest.setTimeout(120_000);

let s: TestServer;
let alice: TestUser;
let topic: TopicView;
let commentId: string;

beforeAll(async () => {
  s = await startTestServer();
  const f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  const bob = await f.user('bob');
  await f.group('tech', 'Technology');
  await f.group('games', 'Games');
  topic = await f.topic(alice, { title: 'First', markdown: 'Some *text*', tags: ['ask.survey'] });
  await f.topic(bob, { group: 'games', title: 'Second', markdown: '' });
  await f.topic(bob, { title: 'Third', markdown: 'more' });
  const c1 = await f.comment(bob, topic, { markdown: 'A comment' });
  await f.comment(alice, topic, { markdown: 'A reply', parent: c1 });
  commentId = c1.id36;
  await f.voteTopic(bob, topic);
});
afterAll(async () => s?.close());

/** Appended to send a document down the graphql-js path; never run (operationName picks Q). */
const FORCE_GRAPHQL_JS = ' query ForceGraphqlJs { topic(id: "0") { id } }';

async function post(query: string, variables: unknown, token?: string) {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables, operationName: 'Q' }),
  });
  return { status: res.status, body: JSON.parse(await res.text()) as { data?: unknown; errors?: unknown[] } };
}

interface Case {
  name: string;
  query: string;
  variables: () => Record<string, unknown>[];
  token?: () => string;
}

const CORPUS: Case[] = [
  {
    name: 'a non-null Int variable with a default, omitted and given',
    query: 'query Q($n: Int! = 2) { topics(first: $n) { nodes { id36 } } }',
    variables: () => [{}, { n: 1 }, { n: null }, { n: 'x' }],
  },
  {
    name: 'a nullable Int variable with a default: omitted, null, given',
    query: 'query Q($n: Int = 1) { topics(first: $n) { nodes { id36 } pageInfo { hasNextPage } } }',
    variables: () => [{}, { n: null }, { n: 3 }],
  },
  {
    name: '@include and @skip with Boolean defaults, on fields, spreads and inline fragments',
    query: `query Q($x: Boolean! = true, $y: Boolean = false) {
      topics(first: 3) { nodes { id36 title @include(if: $x) ...Votes @skip(if: $y)
        ... on Topic @include(if: $y) { commentCount } } } }
      fragment Votes on Topic { voteCount }`,
    variables: () => [{}, { x: false }, { y: true }, { x: false, y: true }, { y: null }],
  },
  {
    name: "the schema's own enum default and enum variables with defaults",
    query: `query Q($o: TopicOrder! = VOTES, $first: Int) {
      byDefault: topics(first: 2) { nodes { id36 } }
      byVariable: topics(order: $o, first: $first) { edges { cursor node { id36 voteCount } } } }`,
    variables: () => [{}, { o: 'NEW' }, { o: 'COMMENTS', first: 1 }, { o: 'NOPE' }, { first: null }],
  },
  {
    name: 'ID and String variables, aliases, named fragments, nulls for unknown ids',
    query: `query Q($id: ID!, $skip: Boolean = false, $order: CommentOrder) {
      topic(id: $id) { ...T tree: threads(order: $order) { nodes { depth
        comment { id36 textHtml @skip(if: $skip) author { username } } descendants { depth comment { id36 } } } } } }
      fragment T on Topic { id36 title n: commentCount tags group { path } author { ...U } }
      fragment U on User { username }`,
    variables: () => [
      { id: topic.id36 },
      { id: topic.id36, skip: true, order: 'NEWEST' },
      { id: topic.id },
      { id: 'zzzzzz' },
      { id: 12 },
      { id: null },
    ],
  },
  {
    name: 'a list variable with a default, node and nodes',
    query: `query Q($ids: [ID!]! = [], $one: ID! = 1) {
      nodes(ids: $ids) { __typename id ... on Topic { id36 } ... on Comment { id36 } }
      node(id: $one) { id } }`,
    variables: () => [{}, { ids: [topic.id, commentId, 'nope'] }, { ids: topic.id }, { ids: [null] }],
  },
  {
    name: 'a user and their history, String and Int variables',
    query: `query Q($u: String!, $f: Int = 1) { user(username: $u) { username
      history(first: $f) { edges { cursor node { __typename ... on Topic { id36 } ... on Comment { id36 } } } } } }`,
    variables: () => [{ u: 'alice' }, { u: 'ALICE', f: 5 }, { u: 'nobody' }, {}],
  },
  {
    name: 'a String variable that is null and an unknown group',
    query: 'query Q($g: String, $tag: String = null) { topics(group: $g, tag: $tag, first: 5) { nodes { id36 } } }',
    variables: () => [{}, { g: null }, { g: 'games' }, { g: 'nowhere' }, { g: '!!' }, { tag: 'ask' }],
  },
  {
    name: 'the viewer, logged in',
    query: 'query Q($x: Boolean! = true) { viewer { username settings @include(if: $x) { defaultCommentOrder } } }',
    variables: () => [{}, { x: false }],
    token: () => alice.token,
  },
  {
    name: 'an input object variable with an enum inside (an idempotent mutation)',
    query: `mutation Q($input: UpdateSettingsInput!) { updateSettings(input: $input) {
      settings { defaultCommentOrder historyVisibility collapseOldComments } } }`,
    variables: () => [
      { input: { defaultCommentOrder: 'NEWEST' } },
      { input: { historyVisibility: 'EVERYONE', collapseOldComments: null } },
      { input: { defaultCommentOrder: 'NOPE' } },
      { input: {} },
      {},
    ],
    token: () => alice.token,
  },
];

describe('graphql-jit and graphql-js answer the same', () => {
  it.each(CORPUS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    for (const variables of c.variables()) {
      const token = c.token?.();
      const jit = await post(c.query, variables, token);
      const js = await post(c.query + FORCE_GRAPHQL_JS, variables, token);
      expect({ variables, ...jit }).toEqual({ variables, ...js });
      // Never a server fault on either path.
      expect(JSON.stringify(jit.body)).not.toMatch(/INTERNAL_SERVER_ERROR/);
    }
  });

  it('a default is applied on the jit path (the answer is not an error)', async () => {
    const a = await post('query Q($n: Int! = 2) { topics(first: $n) { nodes { id36 } } }', {});
    expect(a.status).toBe(200);
    expect((a.body.data as { topics: { nodes: unknown[] } }).topics.nodes).toHaveLength(2);
  });
});
