/** GraphiQL's subscription tab (kept apart from the HTTP examples: it runs over WebSocket). */
import type { ExampleTab } from './examples';

export const liveExampleTabs: ExampleTab[] = [
  {
    query: `# Live updates: run this, then post a comment in
# topic 1 (the PostComment tab, or another browser
# window): it appears here as it happens. Subscriptions
# run over WebSocket on /graphql; with a token in the
# Headers pane, viewerHasVoted/isNew are yours. Pass a message's
# cursor as "after" to resume where you left off.
# Other subscriptions: newTopics(group: "tech"), myReplies.

subscription TopicActivity($topicId: ID!, $after: String) {
  topicActivity(topicId: $topicId, after: $after) {
    cursor
    kind
    commentId
    parentId
    depth
    comment { id36 textHtml voteCount viewerHasVoted author { username } }
    thread { depth isNew }
    topic { title voteCount commentCount }
  }
}
`,
    variables: '{\n  "topicId": "1"\n}',
  },
];
