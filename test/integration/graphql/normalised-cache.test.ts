/**
 * Apollo Client 3 with a default InMemoryCache (no keyFields, no possibleTypes, no type policies),
 * as a front end adopts it: a topic tree, a user's comments, a history page, a reply and a vote
 * through one cache. Nothing may be printed (Apollo's data-loss and missing-field warnings go to
 * console.warn/console.error), the cached tree stays whole, and the reply appears in it.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client/core';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let topicId36: string;
const printed: unknown[][] = [];
const spies: jest.SpyInstance[] = [];

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  await f.group('tech');
  const t = await f.topic(alice, { title: 'Trees' });
  topicId36 = t.id36;
  const c1 = await f.comment(bob, t, { markdown: 'first by bob' });
  const c2 = await f.comment(alice, t, { markdown: 'reply by alice', parent: c1 });
  await f.comment(bob, t, { markdown: 'deep reply by bob', parent: c2 });
  await f.comment(alice, t, { markdown: 'second top-level by alice' });
  // Comments with the same numeric id as the topic exist (ids are per collection): Topic 1, Comment 1.
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

function client(user: TestUser): ApolloClient<unknown> {
  return new ApolloClient({
    link: new HttpLink({ uri: `${s.url}/graphql`, fetch, headers: { authorization: `Bearer ${user.token}` } }),
    cache: new InMemoryCache(),
  });
}

const COMMENT = gql`
  fragment CommentFields on Comment {
    id
    id36
    textHtml
    voteCount
    viewerHasVoted
    createdAt
    author {
      id
      username
    }
  }
`;

const TREE = gql`
  query Tree($id: ID!) {
    topic(id: $id) {
      id
      title
      commentCount
      group {
        id
        path
      }
      author {
        id
        username
      }
      threads(first: 10) {
        edges {
          cursor
          node {
            depth
            isNew
            isCollapsed
            comment {
              ...CommentFields
            }
            replies {
              depth
              comment {
                ...CommentFields
              }
              replies {
                depth
                comment {
                  ...CommentFields
                }
                replies {
                  depth
                  comment {
                    ...CommentFields
                  }
                }
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
  ${COMMENT}
`;

const USER_COMMENTS = gql`
  query UserComments($u: String!) {
    user(username: $u) {
      id
      username
      comments(first: 10) {
        edges {
          cursor
          node {
            id
            textHtml
            voteCount
            topic {
              id
              title
            }
            parent {
              id
            }
          }
        }
      }
    }
  }
`;

const HISTORY = gql`
  query History($u: String!) {
    user(username: $u) {
      id
      history(first: 10) {
        edges {
          cursor
          node {
            __typename
            ... on Topic {
              id
              title
              voteCount
            }
            ... on Comment {
              id
              textHtml
              createdAt
            }
          }
        }
      }
    }
  }
`;

/** The thread of the comment `id` anywhere in a cached tree. */
function findThread(threads: any[], id: string): any {
  for (const t of threads) {
    if (t.comment.id === id) return t;
    const inner = findThread(t.replies ?? [], id);
    if (inner) return inner;
  }
  return undefined;
}

it('keeps the cached tree whole across a user feed, a history page, a reply and a vote, printing nothing', async () => {
  const c = client(bob);
  const tree = (await c.query({ query: TREE, variables: { id: topicId36 } })).data as any;
  const roots = tree.topic.threads.edges.map((e: any) => e.node);
  expect(roots.map((t: any) => t.comment.textHtml)).toEqual([
    '<p>first by bob</p>',
    '<p>second top-level by alice</p>',
  ]);
  const deep = roots[0].replies[0].replies[0];
  expect(deep.depth).toBe(2);

  // The same comments through other paths: merged into the same records, nothing lost.
  await c.query({ query: USER_COMMENTS, variables: { u: 'bob' } });
  await c.query({ query: USER_COMMENTS, variables: { u: 'alice' } });
  const history = (await c.query({ query: HISTORY, variables: { u: 'alice' } })).data as any;
  expect(history.user.history.edges.map((e: any) => e.node.__typename).sort()).toEqual(['Comment', 'Comment', 'Topic']);

  const cachedTree = c.readQuery({ query: TREE, variables: { id: topicId36 } }) as any;
  expect(cachedTree).toEqual(tree);

  // A reply to the deepest comment: the answer is its thread node, inserted under its parent.
  const posted = await c.mutate({
    mutation: gql`
      mutation Reply($topic: ID!, $parent: ID!, $text: String!) {
        postComment(topicId: $topic, parentId: $parent, markdown: $text) {
          depth
          isNew
          isCollapsed
          comment {
            ...CommentFields
            parent {
              id
            }
            topic {
              id
              commentCount
            }
          }
          replies {
            depth
            comment {
              ...CommentFields
            }
            replies {
              depth
              comment {
                ...CommentFields
              }
            }
          }
        }
      }
      ${COMMENT}
    `,
    variables: { topic: tree.topic.id, parent: deep.comment.id, text: 'a reply from the client' },
    update(cache, { data }) {
      const thread = (data as any).postComment;
      cache.updateQuery({ query: TREE, variables: { id: topicId36 } }, (old: any) => {
        const copy = structuredClone(old);
        const parent = findThread(
          copy.topic.threads.edges.map((e: any) => e.node),
          thread.comment.parent.id,
        );
        parent.replies = [
          ...(parent.replies ?? []),
          { __typename: 'CommentThread', depth: thread.depth, comment: thread.comment },
        ];
        return copy;
      });
    },
  });
  const reply = (posted.data as any).postComment;
  expect(reply.depth).toBe(3);
  expect(reply.comment.topic.commentCount).toBe(5);

  // A vote on alice's reply (bob may not vote on his own): the normalised record changes in the tree too.
  const aliceReply = roots[0].replies[0].comment;
  const voted = await c.mutate({
    mutation: gql`
      mutation Vote($id: ID!) {
        voteComment(id: $id) {
          id
          voteCount
          viewerHasVoted
        }
      }
    `,
    variables: { id: aliceReply.id },
  });
  expect((voted.data as any).voteComment).toMatchObject({ voteCount: 1, viewerHasVoted: true });

  const after = c.readQuery({ query: TREE, variables: { id: topicId36 } }) as any;
  const afterRoots = after.topic.threads.edges.map((e: any) => e.node);
  expect(afterRoots[0].replies[0].comment).toMatchObject({ id: aliceReply.id, voteCount: 1, viewerHasVoted: true });
  expect(afterRoots[0].replies[0].replies[0].replies[0]).toMatchObject({
    depth: 3,
    comment: { id: reply.comment.id, textHtml: '<p>a reply from the client</p>' },
  });
  expect(after.topic.commentCount).toBe(5);

  // What the server answers now equals what the cache holds.
  const fresh = (await client(bob).query({ query: TREE, variables: { id: topicId36 } })).data as any;
  expect(after).toEqual(fresh);
  expect(printed).toEqual([]);
});

it(`keys every object by its id alone: Topic 1 and Comment 1 are different records, authors and groups are \
normalised`, async () => {
  const c = client(alice);
  await c.query({ query: TREE, variables: { id: topicId36 } });
  const cache = c.cache.extract() as Record<string, { __typename?: string }>;
  const keys = Object.keys(cache).filter((k) => k !== 'ROOT_QUERY');
  expect(keys.some((k) => k.startsWith('Topic:'))).toBe(true);
  expect(keys.some((k) => k.startsWith('Comment:'))).toBe(true);
  expect(keys.some((k) => k.startsWith('User:'))).toBe(true);
  expect(keys.some((k) => k.startsWith('Group:'))).toBe(true);
  const ids = keys.map((k) => k.slice(k.indexOf(':') + 1));
  expect(new Set(ids).size).toBe(ids.length);
  expect(printed).toEqual([]);
});
