/**
 * urql with graphcache, configured as the README says (`keys: { CommentThread: () => null,
 * UserSettings: () => null }` and the schema's introspection, without which graphcache writes every
 * fragment of the `HistoryItem` union into each item and warns): a listing, a topic tree, a user's
 * history, the viewer's settings, a vote and a partly refused mutation through one cache. graphcache
 * prints its warnings (missing keys, missing fields) to the console: nothing may be printed.
 */
import { Client, fetchExchange, gql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let topicId36: string;
let deletedTopicId36: string;
const printed: unknown[][] = [];
const spies: jest.SpyInstance[] = [];

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  const t = await f.topic(alice, { title: 'Trees' });
  topicId36 = t.id36;
  const c1 = await f.comment(bob, t, { markdown: 'first by bob' });
  await f.comment(alice, t, { markdown: 'reply by alice', parent: c1 });
  const gone = await f.topic(alice, { title: 'Soon gone' });
  deletedTopicId36 = gone.id36;
  await f.comment(bob, gone, { markdown: 'on a topic that will be deleted' });
  await f.d.topics.delete(alice.actor, gone.id36);
  for (const method of ['warn', 'error', 'log', 'info', 'debug'] as const) {
    spies.push(
      jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push([method, ...args])),
    );
  }
});
afterAll(async () => {
  for (const spy of spies) spy.mockRestore();
  await s?.close();
});

/** The schema's introspection, as the README shows: graphcache matches fragments on unions with it. */
async function introspection(): Promise<IntrospectionQuery> {
  const r = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  return ((await r.json()) as { data: IntrospectionQuery }).data;
}

async function client(user: TestUser): Promise<Client> {
  const schema = await introspection();
  return new Client({
    url: `${s.url}/graphql`,
    // urql sends queries as GET: Apollo's CSRF prevention needs a preflight header then (README).
    fetchOptions: { headers: { authorization: `Bearer ${user.token}`, 'apollo-require-preflight': 'true' } },
    exchanges: [
      cacheExchange({
        keys: { CommentThread: () => null, UserSettings: () => null },
        schema,
      }),
      fetchExchange,
    ],
  });
}

const TREE = gql`
  query Tree($id: ID!) {
    topic(id: $id) {
      id
      title
      voteCount
      viewerHasVoted
      commentCount
      threads(first: 10) {
        nodes {
          depth
          isNew
          comment {
            id
            textHtml
            author {
              id
              username
            }
          }
          descendants {
            depth
            comment {
              id
              textHtml
            }
          }
        }
      }
    }
  }
`;

const HISTORY = gql`
  query History($name: String!) {
    user(username: $name) {
      id
      username
      history(first: 10) {
        edges {
          cursor
          node {
            ... on Topic {
              id
              title
            }
            ... on Comment {
              id
              textHtml
              topic {
                id
                title
              }
            }
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

it('reads a listing, a tree, a history (with a comment on a deleted topic) and settings; nothing printed', async () => {
  const c = await client(bob);
  const list = await c
    .query(
      gql`
        {
          topics(first: 5) {
            nodes {
              id
              title
              author {
                id
                username
              }
            }
          }
        }
      `,
      {},
    )
    .toPromise();
  expect(list.error).toBeUndefined();
  expect(list.data.topics.nodes.map((t: { title: string }) => t.title)).toContain('Trees');

  const tree = await c.query(TREE, { id: topicId36 }).toPromise();
  expect(tree.error).toBeUndefined();
  expect(tree.data.topic.threads.nodes[0].comment.textHtml).toBe('<p>first by bob</p>');
  expect(tree.data.topic.threads.nodes[0].descendants[0].comment.textHtml).toBe('<p>reply by alice</p>');

  const history = await c.query(HISTORY, { name: 'bob' }).toPromise();
  expect(history.error).toBeUndefined();
  const items = history.data.user.history.edges.map((e: { node: { textHtml: string; topic: unknown } }) => e.node);
  expect(items).toHaveLength(2);
  const onDeleted = items.find((i: { textHtml: string }) => i.textHtml === '<p>on a topic that will be deleted</p>');
  expect(onDeleted.topic).toBeNull();

  const settings = await c
    .query(
      gql`
        {
          viewer {
            id
            username
            settings {
              historyVisibility
              collapseOldComments
            }
          }
        }
      `,
      {},
    )
    .toPromise();
  expect(settings.error).toBeUndefined();
  expect(settings.data.viewer.settings).toEqual(expect.objectContaining({ collapseOldComments: true }));
  expect(deletedTopicId36).toBeDefined();
  expect(printed).toEqual([]);
});

it('a vote updates the cached topic; a partly refused mutation keeps its applied field', async () => {
  const c = await client(bob);
  await c.query(TREE, { id: topicId36 }).toPromise();
  const voted = await c
    .mutation(
      gql`
        mutation ($id: ID!) {
          a: voteTopic(id: $id) {
            id
            voteCount
            viewerHasVoted
          }
          b: lockTopic(id: $id) {
            id
            isLocked
          }
        }
      `,
      { id: topicId36 },
    )
    .toPromise();
  expect(voted.data.a).toMatchObject({ voteCount: 1, viewerHasVoted: true });
  expect(voted.data.b).toBeNull();
  expect(voted.error?.graphQLErrors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  const cached = await c.query(TREE, { id: topicId36 }, { requestPolicy: 'cache-only' }).toPromise();
  expect(cached.data.topic).toMatchObject({ voteCount: 1, viewerHasVoted: true });
  expect(printed).toEqual([]);
});
