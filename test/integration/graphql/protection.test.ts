/**
 * Protection of /graphql: depth and cost limits that still let every GraphiQL example run, CSRF
 * prevention, automatic persisted queries, batching off unless configured, introspection switch.
 */
import crypto from 'node:crypto';
import { startTestServer, TestServer } from '../../helpers/server';
import { exampleTabs } from '../../../src/graphiql/examples';
import { gql } from './helpers';

// Seeding the demo data takes more than Jest's default 5 s hook timeout on a loaded machine.
jest.setTimeout(60_000);

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

describe('with the default configuration and the demo data', () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startTestServer({ DEMO_SEED: 'true' });
    const r = await gql(s, 'mutation { login(username: "alice", password: "demo-password") { token } }');
    token = r.body.data.login.token;
  });
  afterAll(async () => s?.close());

  it(`opens GraphiQL with the issue's examples: listing, nested and flat tree, history with union fragments, \
login, posting a comment`, () => {
    const names = exampleTabs.map((t) => /(query|mutation)\s+(\w+)/.exec(t.query.replace(/^#.*$/gm, ''))?.[2]);
    expect(names).toEqual(
      expect.arrayContaining(['Topics', 'TopicTree', 'TopicFlat', 'UserHistory', 'Login', 'PostComment']),
    );
    const history = exampleTabs.find((t) => /query UserHistory/.test(t.query))!.query;
    expect(history).toMatch(/on Topic/);
    expect(history).toMatch(/on Comment/);
    expect(exampleTabs.find((t) => /query TopicTree/.test(t.query))!.query).toMatch(/replies/);
  });

  it.each(exampleTabs.map((t, i) => [i, t] as const))(
    'example tab %i runs within the depth and cost limits and returns data',
    async (_i, tab) => {
      const variables = tab.variables ? JSON.parse(tab.variables) : {};
      const r = await gql(s, tab.query, variables, /mutation PostComment/.test(tab.query) ? token : undefined);
      expect(r.body.errors).toBeUndefined();
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body.data)).not.toMatch(/^\{\}$/);
    },
  );

  it('the tree example returns the seeded thread (nested three levels, and flat with depths)', async () => {
    const tree = exampleTabs.find((t) => /query TopicTree/.test(t.query))!;
    const r = await gql(s, tree.query, JSON.parse(tree.variables!));
    const threads = r.body.data.topic.threads.edges.map((e: any) => e.node);
    expect(threads.length).toBeGreaterThan(0);
    expect(threads.some((t: any) => t.replies.some((r: any) => r.depth === 1 && r.replies.length > 0))).toBe(true);
  });

  it('refuses an operation above the cost limit (connection sizes multiply), before running it', async () => {
    const q =
      `{ topics(first: 100) { edges { node { author { topics(first: 100) { nodes { author { comments(first: 100) ` +
      `{ nodes { id } } } } } } } } } }`;
    const r = await gql(s, q);
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.message).toMatch(/too expensive/);
    expect(r.body.data).toBeUndefined();
  });

  it('counts the page size: the same selection passes with first: 2 but not with first: 100', async () => {
    const sel =
      'edges { node { author { topics(first: 100) { nodes { author { comments(first: 100) { nodes { id ' +
      'textHtml } } } } } } } }';
    expect((await gql(s, `{ topics(first: 2) { ${sel} } }`)).status).toBe(200);
    expect((await gql(s, `{ topics(first: 100) { ${sel} } }`)).status).toBe(400);
  });

  it('estimates the same document with other variables anew (costs are remembered per variables)', async () => {
    const q =
      'query Page($n: Int) { topics(first: $n) { edges { node { author { topics(first: 100) { nodes { author { ' +
      'comments(first: 100) { nodes { id textHtml } } } } } } } } } }';
    // Alternating, so a cost remembered for the wrong variables would pass or refuse the next one.
    for (let i = 0; i < 3; i++) {
      expect((await gql(s, q, { n: 2 })).status).toBe(200);
      const refused = await gql(s, q, { n: 100 });
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]?.message).toMatch(/too expensive/);
    }
  });

  it('refuses an operation deeper than the depth limit', async () => {
    const q = `{ topic(id: "1") { threads { nodes { ${'replies { '.repeat(20)}depth${' }'.repeat(20)} } } } }`;
    const r = await gql(s, q);
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.message).toMatch(/too deep/);
  });

  describe('CSRF prevention', () => {
    it('refuses a GET without a preflight header', async () => {
      const res = await fetch(`${s.url}/graphql?query=${encodeURIComponent('{ groups { path } }')}`, {
        headers: { accept: 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/CSRF/i);
    });

    it('refuses a POST with a form content type', async () => {
      const res = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ query: '{ groups { path } }' }),
      });
      expect(res.status).toBe(400);
    });

    it('accepts a GET with Apollo-Require-Preflight', async () => {
      const res = await fetch(`${s.url}/graphql?query=${encodeURIComponent('{ groups { path } }')}`, {
        headers: { 'apollo-require-preflight': 'true', accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).data.groups.length).toBeGreaterThan(0);
    });
  });

  describe('automatic persisted queries', () => {
    const query = '{ topics(first: 1) { edges { node { id } } } }';
    const ext = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };

    it('asks for the query when the hash is unknown, then answers by hash alone (POST and GET)', async () => {
      const post = (body: unknown) =>
        fetch(`${s.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const miss = await post({ extensions: ext });
      expect(miss.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      const register = await post({ query, extensions: ext });
      expect(register.body.data.topics.edges).toHaveLength(1);
      const hit = await post({ extensions: ext });
      expect(hit.body.data).toEqual(register.body.data);
      const get = await fetch(`${s.url}/graphql?extensions=${encodeURIComponent(JSON.stringify(ext))}`, {
        headers: { 'apollo-require-preflight': 'true', accept: 'application/json' },
      });
      expect(get.status).toBe(200);
      expect(((await get.json()) as any).data).toEqual(register.body.data);
    });

    it('refuses a query whose hash does not match', async () => {
      const r = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query,
          extensions: { persistedQuery: { version: 1, sha256Hash: sha256('something else') } },
        }),
      });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        errors: [{ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST' } }],
      });
    });

    it('refuses a persisted-query version it does not know, saying so', async () => {
      const r = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(query) } } }),
      });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        errors: [{ message: 'Unsupported persisted query version', extensions: { code: 'BAD_REQUEST' } }],
      });
    });
  });

  it('refuses a subscription sent over HTTP (subscriptions run over WebSocket)', async () => {
    for (const t of [undefined, token]) {
      const r = await gql(s, 'subscription { newTopics { cursor } }', {}, t);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        errors: [
          {
            message: 'Subscriptions run over WebSocket at /graphql (graphql-transport-ws), not over HTTP',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
    }
    // Another operation of the same document still runs.
    const q = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'subscription S { newTopics { cursor } } query Q { __typename }',
        operationName: 'Q',
      }),
    });
    expect(await q.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses batched requests by default', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ groups { path } }' }, { query: '{ viewer { username } }' }]),
    });
    expect(res.status).toBe(400);
  });

  it('answers introspection by default', async () => {
    const r = await gql(s, '{ __schema { queryType { name } } }');
    expect(r.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('configured: GRAPHQL_BATCHING=true, GRAPHQL_INTROSPECTION=false', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ GRAPHQL_BATCHING: 'true', GRAPHQL_INTROSPECTION: 'false' });
  });
  afterAll(async () => s?.close());

  it('answers a batch with one result per operation', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ groups { path } }' }, { query: '{ viewer { username } }' }]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ data: { groups: [] } }, { data: { viewer: null } }]);
  });

  it('refuses introspection', async () => {
    const r = await gql(s, '{ __schema { queryType { name } } }');
    expect(r.body.errors?.[0]?.message).toMatch(/introspection/i);
  });
});
