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

query Topics($first: Int = 10, $after: String, $order: TopicOrder = ACTIVITY, $tag: String) {
  topics(first: $first, after: $after, order: $order, tag: $tag) {
    edges {
      cursor
      node {
        id
        title
        url
        sourceSiteName
        group { path }
        author { username }
        tags
        voteCount
        commentCount
        createdAt
        voted
        bookmarked
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`,
    variables: '{\n  "first": 10\n}',
  },
  {
    query: `# One topic with its comment tree, replies nested in
# "children" (three levels shown here; the same fragment
# repeats for deeper ones). Logged in, this records your
# visit, like opening the topic page.

query TopicTree($id: ID!) {
  topic(id: $id) {
    id
    title
    textHtml
    author { username }
    group { path }
    commentCount
    comments(order: RELEVANCE) {
      ...CommentFields
      children {
        ...CommentFields
        children {
          ...CommentFields
          children { ...CommentFields }
        }
      }
    }
  }
}

fragment CommentFields on Comment {
  id
  author { username }
  renderedHtml
  votes
  createdAt
  exemplary
  collapsed
  isNew
  depth
}
`,
    variables: '{\n  "id": "1"\n}',
  },
  {
    query: `# The same tree as one flat list in display order:
# each comment carries its depth and parentId, so any
# depth renders from one query.

query TopicFlat($id: ID!) {
  topic(id: $id) {
    title
    commentCount
    commentsFlat(order: RELEVANCE) {
      id
      parentId
      depth
      author { username }
      renderedHtml
      votes
      createdAt
      voted
      bookmarked
    }
  }
}
`,
    variables: '{\n  "id": "1"\n}',
  },
  {
    query: `# A user's history: topics and comments mixed, newest
# first. Fragments on the HistoryItem union select the
# fields of each kind. Cursors are t-<id> / c-<id>.

query UserHistory($username: String!) {
  user(username: $username) {
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
  group { path }
  commentCount
  createdAt
}

fragment CommentItem on Comment {
  id
  renderedHtml
  votes
  createdAt
  topic { id title }
}
`,
    variables: '{\n  "username": "alice"\n}',
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
    user { username isAdmin }
  }
}
`,
    variables: '{\n  "username": "alice",\n  "password": "demo-password"\n}',
  },
  {
    query: `# Post a comment (needs the Authorization header from
# the Login tab). Give parentId to reply to a comment.

mutation PostComment($topicId: ID!, $parentId: ID, $markdown: String!) {
  postComment(topicId: $topicId, parentId: $parentId, markdown: $markdown) {
    id
    parentId
    author { username }
    renderedHtml
    createdAt
    topic { id title commentCount }
  }
}
`,
    variables: '{\n  "topicId": "1",\n  "parentId": null,\n  "markdown": "Hello from **GraphiQL**!"\n}',
  },
];
