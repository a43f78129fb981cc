import { createUnionType } from 'type-graphql';
import { Comment } from './comment.type';
import { Topic } from './topic.type';

/** A history item's type: the node's `kind` tells which (set when mapping, so no guessing by shape). */
export function historyItemType(value: unknown): 'Topic' | 'Comment' {
  return (value as { kind: string }).kind === 'topic' ? 'Topic' : 'Comment';
}

export const HistoryItem = createUnionType({
  name: 'HistoryItem',
  description:
    "An item of a user's history: a Topic or a Comment (select fields with `... on Topic` / `... on Comment`).",
  types: () => [Topic, Comment] as const,
  resolveType: historyItemType,
});
