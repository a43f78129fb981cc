import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../node/node.type';

/** A group; `description` and `createdAt` are resolved in group.resolver.ts from one listing per request. */
@ObjectType('Group', {
  implements: Node,
  simpleResolvers: true,
  description: 'A group topics are posted in, such as `~tech` or `~games.tabletop`.',
})
export class Group {
  /** Resolved in group.resolver.ts from the path. */
  @Field(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the group again.',
  })
  id!: string;

  @Field(() => String, {
    description: "The group's path without the `~`: `tech`, `games.tabletop` (REST `group` is `~` + path).",
  })
  path!: string;
}
