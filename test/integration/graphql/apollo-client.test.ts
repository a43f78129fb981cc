/**
 * A real Apollo Client (3.x, as most front ends use) against /graphql: normalized cache, Relay
 * pagination with fetchMore, union fragments, auth header, mutations updating the cache,
 * automatic persisted queries (GET for hashed queries), and error handling.
 */
import crypto from 'node:crypto';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, NormalizedCacheObject } from '@apollo/client/core';
import { relayStylePagination } from '@apollo/client/utilities';
import { setContext } from '@apollo/client/link/context';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, PASSWORD, TestUser } from '../../helpers/factories';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  await f.group('tech');
  for (let i = 0; i < 7; i++) {
    const t = await f.topic(i % 2 ? alice : bob, { title: `Topic ${i}` });
    await f.comment(i % 2 ? bob : alice, t, { markdown: `Comment on ${i}` });
  }
});
afterAll(async () => s?.close());

function client(
  opts: { token?: () => string | undefined; persisted?: boolean } = {},
): ApolloClient<NormalizedCacheObject> {
  const http = new HttpLink({ uri: `${s.url}/graphql`, fetch, headers: { 'apollo-require-preflight': 'true' } });
  const auth = setContext((_op, { headers }) => {
    const token = opts.token?.();
    return { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } };
  });
  const links: ApolloLink[] = [auth];
  if (opts.persisted) {
    links.push(
      createPersistedQueryLink({
        sha256: (q: string) => crypto.createHash('sha256').update(q).digest('hex'),
        useGETForHashedQueries: true,
      }),
    );
  }
  links.push(http);
  return new ApolloClient({
    link: ApolloLink.from(links),
    cache: new InMemoryCache({
      possibleTypes: { HistoryItem: ['Topic', 'Comment'] },
      typePolicies: { Query: { fields: { topics: relayStylePagination(['order', 'period', 'tag', 'group']) } } },
    }),
  });
}

const TOPICS = gql`
  query Topics($first: Int, $after: String) {
    topics(first: $first, after: $after, order: NEW) {
      edges {
        cursor
        node {
          id
          title
          viewerHasVoted
          voteCount
          author {
            username
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

it('walks the listing with fetchMore and relayStylePagination, merging pages in the cache', async () => {
  const c = client();
  const obs = c.watchQuery({ query: TOPICS, variables: { first: 3 } });
  const first = await obs.result();
  expect(first.data.topics.edges).toHaveLength(3);
  for (let i = 0; i < 10 && obs.getCurrentResult().data.topics.pageInfo.hasNextPage; i++) {
    await obs.fetchMore({ variables: { after: obs.getCurrentResult().data.topics.pageInfo.endCursor } });
  }
  const merged = obs.getCurrentResult().data;
  expect(merged.topics.pageInfo.hasNextPage).toBe(false);
  expect(merged.topics.edges.map((e: any) => e.node.title)).toEqual([
    'Topic 6',
    'Topic 5',
    'Topic 4',
    'Topic 3',
    'Topic 2',
    'Topic 1',
    'Topic 0',
  ]);
});

it('logs in, sends the token, and a vote updates the normalized Topic in the cache', async () => {
  let token: string | undefined;
  const c = client({ token: () => token });
  const login = await c.mutate({
    mutation: gql`
      mutation Login($u: String!, $p: String!) {
        login(username: $u, password: $p) {
          token
          user {
            username
          }
        }
      }
    `,
    variables: { u: 'bob', p: PASSWORD },
  });
  token = login.data.login.token;
  const viewer = await c.query({
    query: gql`
      {
        viewer {
          username
        }
      }
    `,
    fetchPolicy: 'network-only',
  });
  expect(viewer.data.viewer.username).toBe('bob');

  const list = await c.query({ query: TOPICS, variables: { first: 10 } });
  const target = list.data.topics.edges.find((e: any) => e.node.author.username === 'alice').node;
  expect(target.viewerHasVoted).toBe(false);
  await c.mutate({
    mutation: gql`
      mutation Vote($id: ID!) {
        voteTopic(id: $id) {
          id
          viewerHasVoted
          voteCount
        }
      }
    `,
    variables: { id: target.id },
  });
  const cached = c.readQuery({ query: TOPICS, variables: { first: 10 } }) as any;
  expect(cached.topics.edges.find((e: any) => e.node.id === target.id).node).toMatchObject({
    viewerHasVoted: true,
    voteCount: 1,
  });
});

it('reads a history with fragments on the HistoryItem union', async () => {
  const c = client();
  const r = await c.query({
    query: gql`
      query History($u: String!) {
        user(username: $u) {
          username
          history(first: 20) {
            edges {
              cursor
              node {
                ...TopicItem
                ...CommentItem
              }
            }
          }
        }
      }
      fragment TopicItem on Topic {
        id
        title
      }
      fragment CommentItem on Comment {
        id
        textHtml
        topic {
          id
          title
        }
      }
    `,
    variables: { u: 'alice' },
  });
  const nodes = r.data.user.history.edges.map((e: any) => e.node);
  expect(nodes.filter((n: any) => n.__typename === 'Topic').length).toBe(3);
  expect(nodes.filter((n: any) => n.__typename === 'Comment').length).toBe(4);
  for (const n of nodes) {
    if (n.__typename === 'Topic') expect(n.title).toMatch(/^Topic /);
    else expect(n.topic.title).toMatch(/^Topic /);
  }
});

it('reads a topic tree (nested and flat) through automatic persisted queries sent as GET', async () => {
  const c = client({ persisted: true });
  const q = gql`
    query Tree($id: ID!) {
      topic(id: $id) {
        id
        threads {
          nodes {
            comment {
              id
            }
            replies {
              comment {
                id
              }
            }
            descendants {
              depth
              comment {
                id
                parent {
                  id
                }
              }
            }
          }
        }
      }
    }
  `;
  const r1 = await c.query({ query: q, variables: { id: '1' }, fetchPolicy: 'network-only' });
  const r2 = await c.query({ query: q, variables: { id: '1' }, fetchPolicy: 'network-only' });
  expect(r1.data.topic.threads.nodes).toHaveLength(1);
  expect(r2.data).toEqual(r1.data);
});

it(`surfaces errors: a field error with errorPolicy all, and a 403 as a network error with the GraphQL \
body`, async () => {
  const c = client({ token: () => alice.token });
  const partial = await c.query({
    query: gql`
      {
        groups {
          path
        }
        topic(id: "not valid!") {
          id
        }
      }
    `,
    errorPolicy: 'all',
  });
  expect(partial.data.groups).toEqual([{ __typename: 'Group', path: 'tech' }]);
  expect(partial.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

  await expect(
    c.mutate({
      mutation: gql`
        mutation {
          createGroup(path: "art") {
            path
          }
        }
      `,
    }),
  ).rejects.toMatchObject({
    networkError: { statusCode: 403, result: { errors: [{ extensions: { code: 'FORBIDDEN' } }] } },
  });
  void bob;
});
