/**
 * The two executors give the same answers. A document without string literals runs on graphql-jit
 * (src/graphql/jit-executor.ts), one with a string literal anywhere on graphql-js: each document of
 * the corpus is sent as it is (graphql-jit) and again with one more operation that holds a string
 * literal and is never run (graphql-js), and the two answers (status and body) must be identical.
 * The corpus covers variable defaults (the jit path once ignored them: `$n: Int! = 2` omitted was a
 * 400 "Internal server error"), directives on fields, spreads and inline fragments, named fragments,
 * aliases, variables of every input type the schema takes (Int, Boolean, ID, String, enums, lists,
 * input objects), explicit nulls and bad values.
 *
 * The server compiles every document at once (GRAPHQL_JIT_COMPILE_AFTER=0), so no answer of the
 * first path comes from graphql-js. graphql-jit hands on the values of built-in scalars unserialized
 * (jit-executor.ts, selectsEnumField): generated documents select every String, ID, Int, Float and
 * Boolean field a query can reach, so a resolver that gives such a field a value in another form
 * than graphql-js would serialize it to (a number for a String, say) fails here.
 */
import {
  getNamedType,
  GraphQLField,
  GraphQLNamedType,
  GraphQLSchema,
  isAbstractType,
  isEnumType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { buildGraphQLSchema } from '../../../src/graphql/schema';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import type { TopicView } from '../../../src/discussion/views';

jest.setTimeout(120_000);

let s: TestServer;
let alice: TestUser;
let topic: TopicView;
let commentId: string;
let filename: string;

beforeAll(async () => {
  // Generated whole-schema documents (below) need more than the default token and alias limits.
  s = await startTestServer({
    GRAPHQL_JIT_COMPILE_AFTER: '0',
    GRAPHQL_MAX_ALIASES: '2000',
    GRAPHQL_MAX_TOKENS: '100000',
    GRAPHQL_MAX_SELECTIONS: '20000',
  });
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
  await f.voteComment(alice, c1);
  await f.label(alice, c1, 'exemplary', 'Well put');
  await f.visit(alice, topic);
  filename = ((await f.upload('notes.txt', 'some notes')) as { filename: string }).filename;
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

/** Variables for the required arguments of generated selections, by argument name and type. */
const REQUIRED: Record<string, { variable: string; type: string }> = {
  id: { variable: 'id', type: 'ID!' },
  ids: { variable: 'ids', type: '[ID!]!' },
  username: { variable: 'u', type: 'String!' },
  path: { variable: 'g', type: 'String!' },
  filename: { variable: 'f', type: 'String!' },
};
/** How many object levels below a root field a generated selection goes. */
const GENERATED_DEPTH = 6;

/**
 * A selection of every field of `type` that needs no argument beyond REQUIRED's, objects expanded
 * while `depth` lasts and never into a type already on the path; enum leaves are left out (they keep
 * their serialization, see selectsEnumField). Adds each built-in scalar leaf to `covered`, each
 * variable used to `used`.
 */
function selectionOf(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  path: Set<string>,
  depth: number,
  covered: Set<string>,
  used: Set<string>,
  /** Prefixes the response names (the fields of each possible type of an abstract one, which may clash). */
  alias = '',
): string {
  if (isAbstractType(type)) {
    const parts = schema
      .getPossibleTypes(type)
      .filter((t) => !path.has(t.name))
      .map((t) => {
        const inner = selectionOf(schema, t, new Set([...path, t.name]), depth, covered, used, `${t.name}_`);
        return inner ? `... on ${t.name} { ${inner} }` : '';
      });
    return ['__typename', ...parts.filter(Boolean)].join(' ');
  }
  if (!isObjectType(type)) return '';
  return (Object.values(type.getFields()) as GraphQLField<unknown, unknown>[])
    .map((field) => fieldSelection(schema, type.name, field, path, depth, covered, used, alias))
    .filter(Boolean)
    .join(' ');
}

/** `field` of `typeName` as selectionOf selects it ('' when left out), its sub-selection included. */
function fieldSelection(
  schema: GraphQLSchema,
  typeName: string,
  field: GraphQLField<unknown, unknown>,
  path: Set<string>,
  depth: number,
  covered: Set<string>,
  used: Set<string>,
  alias: string,
): string {
  const required = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
  if (required.some((a) => REQUIRED[a.name]?.type !== String(a.type))) return '';
  // Pages of two keep the estimated cost of a whole-schema selection within the limit.
  const given = required.map((a) => `${a.name}: $${REQUIRED[a.name]!.variable}`);
  if (field.args.some((a) => a.name === 'first' && String(a.type) === 'Int')) given.push('first: 2');
  const args = given.length ? `(${given.join(', ')})` : '';
  const named = getNamedType(field.type);
  const as = alias ? `${alias}${field.name}: ` : '';
  let part = '';
  if (isLeafType(named)) {
    if (isEnumType(named)) return '';
    part = `${as}${field.name}${args}`;
    if (isSpecifiedScalarType(named)) covered.add(`${typeName}.${field.name}`);
  } else if (depth > 0 && !path.has(named.name)) {
    const inner = selectionOf(schema, named, new Set([...path, named.name]), depth - 1, covered, used);
    if (inner) part = `${as}${field.name}${args} { ${inner} }`;
  }
  if (part) for (const a of required) used.add(a.name);
  return part;
}

/** One generated document per root query field, with the variables it declares. */
function generatedDocuments(schema: GraphQLSchema): { field: string; query: string; covered: Set<string> }[] {
  const query = schema.getQueryType()!;
  return Object.values(query.getFields()).flatMap((field) => {
    const covered = new Set<string>();
    const used = new Set<string>();
    const inner = fieldSelection(schema, 'Query', field, new Set(['Query']), GENERATED_DEPTH, covered, used, '');
    if (!inner) return [];
    const decls = [...used].map((a) => `$${REQUIRED[a]!.variable}: ${REQUIRED[a]!.type}`).join(', ');
    return [{ field: field.name, query: `query Q${decls ? `(${decls})` : ''} { ${inner} }`, covered }];
  });
}

/**
 * Every built-in scalar field (its arguments fillable) of every object type a query can reach, found
 * by walking the schema from Query without a depth limit: what the generated documents must cover.
 */
function reachableScalarFields(schema: GraphQLSchema): Set<string> {
  const fields = new Set<string>();
  const seen = new Set<string>(['Query']);
  const queue: GraphQLNamedType[] = [schema.getQueryType()!];
  const fillable = (f: GraphQLField<unknown, unknown>) =>
    f.args.every(
      (a) => !isNonNullType(a.type) || a.defaultValue !== undefined || REQUIRED[a.name]?.type === String(a.type),
    );
  while (queue.length > 0) {
    const type = queue.shift()!;
    const next: GraphQLNamedType[] = isAbstractType(type) ? [...schema.getPossibleTypes(type)] : [];
    if (isObjectType(type))
      for (const f of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
        if (!fillable(f)) continue;
        const named = getNamedType(f.type);
        if (isSpecifiedScalarType(named)) fields.add(`${type.name}.${f.name}`);
        else if (!isLeafType(named)) next.push(named);
      }
    for (const t of next) {
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      queue.push(t);
    }
  }
  return fields;
}

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

  it('every built-in scalar field a query reaches: the same answer, with data, on both paths', async () => {
    const schema = buildGraphQLSchema();
    const docs = generatedDocuments(schema);
    // Global ids: node(id:) takes only those (topic(id:) takes both).
    const ids = await post('query Q($t: ID!) { topic(id: $t) { id threads { nodes { comment { id } } } } }', {
      t: topic.id36,
    });
    const t = (ids.body.data as { topic: { id: string; threads: { nodes: { comment: { id: string } }[] } } }).topic;
    const variables = { id: t.id, ids: [t.id, t.threads.nodes[0]!.comment.id], u: 'alice', g: 'tech', f: filename };
    const covered = new Set<string>();
    for (const doc of docs) {
      const jit = await post(doc.query, variables, alice.token);
      const js = await post(doc.query + FORCE_GRAPHQL_JS, variables, alice.token);
      expect({ field: doc.field, ...jit }).toEqual({ field: doc.field, ...js });
      // A refusal (limits, validation) would be the same on both paths and prove nothing.
      const outcome = { field: doc.field, status: jit.status, errors: jit.body.errors };
      expect(outcome).toEqual({ field: doc.field, status: 200, errors: undefined });
      const data = jit.body.data as Record<string, unknown>;
      expect({ field: doc.field, present: data[doc.field] !== null }).toEqual({ field: doc.field, present: true });
      for (const f of doc.covered) covered.add(f);
    }
    // The documents reach the types that matter, and cover each of their scalar fields.
    for (const t of ['Topic', 'Comment', 'User', 'Group', 'CommentThread', 'FileInfo', 'PageInfo', 'ServerInfo'])
      expect([...covered].some((f) => f.startsWith(`${t}.`))).toBe(true);
    expect(covered).toEqual(reachableScalarFields(schema));
  });

  it('a default is applied on the jit path (the answer is not an error)', async () => {
    const a = await post('query Q($n: Int! = 2) { topics(first: $n) { nodes { id36 } } }', {});
    expect(a.status).toBe(200);
    expect((a.body.data as { topics: { nodes: unknown[] } }).topics.nodes).toHaveLength(2);
  });
});
