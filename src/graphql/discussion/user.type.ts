import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type';
import { CommentOrder, HistoryVisibility } from './enums';

@ObjectType('UserSettings', {
  simpleResolvers: true,
  description: "A user's own settings (visible only to that user).",
})
export class UserSettings {
  @Field(() => HistoryVisibility, { description: "Who may read the user's history." })
  historyVisibility!: HistoryVisibility;

  @Field(() => Boolean, { description: 'Collapse comments already seen on a previous visit of a topic.' })
  collapseOldComments!: boolean;

  @Field(() => CommentOrder, { description: 'The comment order the user prefers.' })
  defaultCommentOrder!: CommentOrder;
}

/**
 * A user. Only `username` is always at hand; `joinedAt`, `isAdmin` and the feeds are resolved in
 * user.resolver.ts (batched) when a query asks for them.
 */
@ObjectType('User', {
  implements: Node,
  simpleResolvers: true,
  description: 'A member of the site, as others see them.',
})
export class User {
  /** Resolved in user.resolver.ts from the username (the one key every user reference carries). */
  @Field(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the user again.',
  })
  id!: string;

  @Field(() => String, {
    description:
      'The username, in the letter case chosen at registration (REST `username`, `posted_by_user`, `author`).',
  })
  username!: string;
}
