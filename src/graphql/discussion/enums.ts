/** The GraphQL enums of the discussion domain; their values are the REST parameter strings. */
import { registerEnumType } from 'type-graphql';

export enum TopicOrder {
  ACTIVITY = 'activity',
  VOTES = 'votes',
  COMMENTS = 'comments',
  NEW = 'new',
  ALL_ACTIVITY = 'all_activity',
}
registerEnumType(TopicOrder, {
  name: 'TopicOrder',
  description: 'How the topic listing is sorted (REST `order`); always descending, ties by topic id descending.',
  valuesConfig: {
    ACTIVITY: {
      description:
        'Latest interesting activity: posting time or the newest comment that is not deleted, removed or ' +
        'labelled noise/offtopic/malice.',
    },
    VOTES: { description: 'Number of votes.' },
    COMMENTS: { description: 'Number of visible comments.' },
    NEW: { description: 'Posting time.' },
    ALL_ACTIVITY: {
      description: 'Latest activity of any kind: posting, any comment posted, edited, deleted, removed or restored.',
    },
  },
});

export enum CommentOrder {
  VOTES = 'votes',
  NEWEST = 'newest',
  POSTED = 'posted',
  RELEVANCE = 'relevance',
}
registerEnumType(CommentOrder, {
  name: 'CommentOrder',
  description: 'How the siblings of a comment tree are sorted (REST `order`); ties keep posting order.',
  valuesConfig: {
    VOTES: { description: 'Most votes first.' },
    NEWEST: { description: 'Newest first.' },
    POSTED: { description: 'Oldest first.' },
    RELEVANCE: {
      description:
        'Votes weighed by labels: exemplary raises, joke halves, noise and offtopic sink, removed comments last.',
    },
  },
});

export enum CommentLabel {
  EXEMPLARY = 'exemplary',
  NOISE = 'noise',
  OFFTOPIC = 'offtopic',
  JOKE = 'joke',
  MALICE = 'malice',
}
registerEnumType(CommentLabel, {
  name: 'CommentLabel',
  description: 'A label a user can put on a comment that is not their own, at most once each.',
  valuesConfig: {
    EXEMPLARY: { description: 'An exceptionally good comment; needs a reason.' },
    NOISE: { description: 'Adds nothing to the discussion; collapses the comment.' },
    OFFTOPIC: { description: 'Not about the topic.' },
    JOKE: { description: 'A joke: halves its relevance.' },
    MALICE: { description: "Malicious; seen by admins, affects only the topic's activity time." },
  },
});

export enum HistoryVisibility {
  EVERYONE = 'everyone',
  LOGGED_IN = 'logged_in',
}
registerEnumType(HistoryVisibility, {
  name: 'HistoryVisibility',
  description: "Who may read a user's history.",
  valuesConfig: {
    EVERYONE: { description: 'Anyone, anonymous visitors included.' },
    LOGGED_IN: { description: 'Only logged-in users.' },
  },
});
