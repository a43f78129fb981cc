/**
 * Relay documents compiled by relay-compiler against schema.graphql in relay.test.ts (never run
 * by jest directly). Relay's naming rules: operations `AgoraRelay…Query`, fragments `AgoraRelay_…`.
 */
/* global graphql */

graphql`
  fragment AgoraRelay_topic on Topic @refetchable(queryName: "AgoraRelayTopicRefetchQuery") {
    id
    id36
    title
    voteCount
    commentCount
    createdAt
    author {
      ...AgoraRelay_user
    }
    group {
      id
      path
    }
  }
`;

graphql`
  fragment AgoraRelay_comment on Comment @refetchable(queryName: "AgoraRelayCommentRefetchQuery") {
    id
    id36
    textHtml
    voteCount
    isDeleted
    createdAt
    author {
      ...AgoraRelay_user
    }
  }
`;

graphql`
  fragment AgoraRelay_user on User @refetchable(queryName: "AgoraRelayUserRefetchQuery") {
    id
    username
    joinedAt
  }
`;

graphql`
  query AgoraRelayTreeQuery($id: ID!) {
    topic(id: $id) {
      ...AgoraRelay_topic
      threads(first: 50) {
        edges {
          cursor
          node {
            depth
            isNew
            comment {
              ...AgoraRelay_comment
            }
            descendants {
              depth
              comment {
                ...AgoraRelay_comment
                parent {
                  id
                }
              }
            }
          }
        }
      }
    }
  }
`;

graphql`
  query AgoraRelayUserQuery($username: String!) {
    user(username: $username) {
      ...AgoraRelay_user
      comments(first: 50) {
        edges {
          node {
            ...AgoraRelay_comment
            topic {
              ...AgoraRelay_topic
            }
          }
        }
      }
      history(first: 50) {
        edges {
          node {
            ...AgoraRelay_topic @alias(as: "topic")
            ...AgoraRelay_comment @alias(as: "comment")
          }
        }
      }
    }
  }
`;

graphql`
  query AgoraRelayListingQuery {
    topics(first: 50) {
      edges {
        node {
          id
          ...AgoraRelay_topic
        }
      }
    }
  }
`;
