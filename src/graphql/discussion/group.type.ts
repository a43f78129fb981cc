import { Field, ObjectType } from 'type-graphql';

/** A group; `description` and `createdAt` are resolved in group.resolver.ts from one listing per request. */
@ObjectType('Group', { simpleResolvers: true, description: 'A group topics are posted in, such as `~tech` or `~games.tabletop`.' })
export class Group {
  @Field(() => String, { description: 'The group\'s path without the `~`: `tech`, `games.tabletop` (REST `group` is `~` + path).' })
  path!: string;
}
