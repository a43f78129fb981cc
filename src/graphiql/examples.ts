/** The operations GraphiQL opens with, one tab each. Each area adds its examples here. */
export interface ExampleTab {
  query: string;
  variables?: string;
  headers?: string;
}

export const exampleTabs: ExampleTab[] = [
  {
    query: `# Welcome to Agora's GraphQL API.
# Each tab holds an example: press the play button
# (or Ctrl-Enter) to run it. To act as a user, run
# the Login tab and paste its token into the
# Authorization header in the Headers pane below.

query ServerInfo {
  serverInfo {
    version
    database
  }
}
`,
  },
  {
    query: `# The topic listing (REST GET /api/beta/topics), newest
# activity first. For the next page, set "after" to
# pageInfo.endCursor. Try order: NEW, VOTES or COMMENTS,
# tag: "ask", period: "2d" or group: "tech".
# "id" is the global id (any object, by node(id:));
# "id36" is the REST id.

query Topics($first: Int = 10, $after: String, $order: TopicOrder = ACTIVITY, $tag: String) {
  topics(first: $first, after: $after, order: $order, tag: $tag) {
    edges {
      cursor
      node {
        id
        id36
        title
        url
        sourceSiteName
        group { id path }
        author { id username }
        tags
        voteCount
        commentCount
        createdAt
        viewerHasVoted
        viewerHasBookmarked
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`,
    variables: '{\n  "first": 10\n}',
  },
  {
    query: `# One topic with its threads: top-level comments by
# page, each with its replies nested (three levels
# shown; the same selection repeats for deeper ones).
# A thread node holds the place (depth, collapsed, new
# since your last visit); "comment" is the record.
# Reading records no visit: run visitTopic for that.

query TopicTree($id: ID!) {
  topic(id: $id) {
    id
    title
    textHtml
    author { id username }
    group { id path }
    commentCount
    threads(first: 20, order: RELEVANCE) {
      edges {
        node {
          ...Place
          replies {
            ...Place
            replies {
              ...Place
              replies { ...Place }
            }
          }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}

fragment Place on CommentThread {
  depth
  isCollapsed
  isNew
  comment {
    id
    author { id username }
    textHtml
    voteCount
    createdAt
    isExemplary
  }
}
`,
    variables: '{\n  "id": "1"\n}',
  },
  {
    query: `# The same threads flat, in display order: each
# thread's "descendants" are all its replies at any
# depth, each with its depth, so any depth renders
# from one query.

query TopicFlat($id: ID!) {
  topic(id: $id) {
    title
    commentCount
    threads(first: 50) {
      edges {
        node {
          depth
          comment { id author { id username } textHtml voteCount }
          descendants {
            depth
            comment {
              id
              parent { id }
              author { id username }
              textHtml
              voteCount
              createdAt
              viewerHasVoted
            }
          }
        }
      }
    }
  }
}
`,
    variables: '{\n  "id": "1"\n}',
  },
  {
    query: `# A user's history: topics and comments mixed, newest
# first. Fragments on the HistoryItem union select the
# fields of each kind. Cursors are t-<id36> / c-<id36>.

query UserHistory($username: String!) {
  user(username: $username) {
    id
    username
    joinedAt
    history(first: 20) {
      edges {
        cursor
        node {
          __typename
          ...TopicItem
          ...CommentItem
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}

fragment TopicItem on Topic {
  id
  title
  group { id path }
  commentCount
  createdAt
}

fragment CommentItem on Comment {
  id
  textHtml
  voteCount
  createdAt
  topic { id title }
}
`,
    variables: '{\n  "username": "alice"\n}',
  },
  {
    query: `# Any object again from its global id (Relay's
# Global Object Identification): paste an "id" from
# another tab.

query Node($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on Topic { title commentCount }
    ... on Comment { textHtml voteCount topic { id title } }
    ... on User { username joinedAt }
    ... on Group { path description }
  }
}
`,
    variables: '{\n  "id": "VG9waWM6MQ=="\n}',
  },
  {
    query: `# Log in (the demo accounts: alice, bob, carol, dave
# with password demo-password; admin with password
# demo-admin-password). Copy the token into the Headers
# pane below:  { "Authorization": "Bearer <token>" }
# The same token works on the REST API.

mutation Login($username: String!, $password: String!) {
  login(username: $username, password: $password) {
    token
    expiresAt
    user { id username isAdmin }
  }
}
`,
    variables: '{\n  "username": "alice",\n  "password": "demo-password"\n}',
  },
  {
    query: `# Post a comment (needs the Authorization header from
# the Login tab). Give parentId (a comment's id or id36)
# to reply. The answer is the new thread node: insert it
# under its parent's thread in your cache.

mutation PostComment($topicId: ID!, $parentId: ID, $markdown: String!) {
  postComment(topicId: $topicId, parentId: $parentId, markdown: $markdown) {
    depth
    comment {
      id
      parent { id }
      author { id username }
      textHtml
      createdAt
      topic { id title commentCount }
    }
  }
}
`,
    variables: '{\n  "topicId": "1",\n  "parentId": null,\n  "markdown": "Hello from **GraphiQL**!"\n}',
  },
];
