/**
 * The cost estimate is true: on a 5,000-comment topic (the size of bench/seed.js's largest) it
 * bounds the fields a whole-tree read resolves within 2×, admits that read, and refuses the same
 * tree asked for many times (issue 40: 49 aliases answered 24 MiB after 13 s).
 */
import { parse } from 'graphql';
import { Factory } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';
import { estimateCost } from '../../../src/graphql/cost';
import { buildGraphQLSchema } from '../../../src/graphql/schema';
import { largestTopic } from '../../../src/graphql/topic-sizes';
import type { TopicView } from '../../../src/discussion';

let s: TestServer;
let f: Factory;
let big: TopicView;
beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s);
  const alice = await f.user('alice');
  big = await f.topic(alice, { title: 'Big' });
  const started = Date.now();
  await f.bulkComments(alice, big, 5000);
  console.log(`seeded 5,000 comments in ${Date.now() - started} ms`);
}, 120_000);
afterAll(async () => s?.close());

// The whole tree as REST gives it (bench/api.js's `topic` scenario).
const TOPIC = `id id36 title textHtml url commentsUrl sourceSiteName sourceSiteIcon group { path }
  contentMetadata createdAt editedAt author { username } voteCount commentCount newCommentCount
  viewerHasVoted viewerHasBookmarked viewerHasIgnored isOfficial tags lastVisitedAt`;
const COMMENT = `id id36 author { username } textHtml createdAt editedAt voteCount isRemoved isDeleted
  isExemplary isOp viewerIsAuthor viewerHasVoted viewerHasBookmarked`;
const THREAD = `depth isCollapsed isCollapsedIndividually isNew comment { ${COMMENT} }`;
const WHOLE_TREE =
  `query Topic($id: ID!) { topic(id: $id) { ${TOPIC} threads(first: 1000) { edges { cursor node { ` +
  `${THREAD} descendants { ${THREAD} } } } } } }`;

async function post(query: string, variables: Record<string, unknown> = {}) {
  const started = Date.now();
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), bytes: text.length, ms: Date.now() - started };
}

/** Fields resolved to give `value`: one per key of every object in it. */
function fieldsIn(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + fieldsIn(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.values(value).reduce((n: number, v) => n + 1 + fieldsIn(v), 0);
}

it('a whole-tree read of a 5,000-comment topic passes, estimated within 2× of the fields it resolves', async () => {
  const a = await post(WHOLE_TREE, { id: big.id36 });
  expect(a.status).toBe(200);
  expect(a.body.errors).toBeUndefined();
  const edges = a.body.data.topic.threads.edges as { node: { descendants: unknown[] } }[];
  const comments = edges.reduce((n, e) => n + 1 + e.node.descendants.length, 0);
  expect(comments).toBe(5000);
  const actual = fieldsIn(a.body.data);
  const sizes = { byId: new Map([[big.id36, big.commentCount + 5000]]), largest: await largestTopic(f.d) };
  const estimate = estimateCost(buildGraphQLSchema(), parse(WHOLE_TREE), 'Topic', { id: big.id36 }, sizes);
  console.log(
    `whole tree: estimate ${estimate}, fields resolved ${actual} (${(estimate / actual).toFixed(2)}×), ` +
      `${a.bytes} bytes, ${a.ms} ms`,
  );
  expect(estimate).toBeGreaterThanOrEqual(actual);
  expect(estimate).toBeLessThanOrEqual(2 * actual);
  expect(estimate).toBeLessThanOrEqual(s.agora.config.graphql.maxCost);
});

it("the issue's 49 aliases of the tree are refused before anything runs", async () => {
  const aliases = Array.from(
    { length: 49 },
    (_, i) =>
      `a${i}: topic(id: "${big.id36}") { threads(first: 1000) { nodes { descendants { comment { textHtml } } } } }`,
  );
  const a = await post(`{ ${aliases.join(' ')} }`);
  expect(a.status).toBe(400);
  expect(a.body.errors[0].message).toMatch(/^Query is too expensive: estimated cost \d+ exceeds the limit of \d+$/);
  expect(a.body.errors[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  expect(a.body.errors[0].extensions.cost).toBeGreaterThan(49 * 5000);
});
