/** Query.groups, Query.group and the Group facts beyond its path. */
import { Arg, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { GroupView } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { toGlobalId } from '../node/global-id';
import { orNull } from './or-null';
import { Group } from './group.type';
import { groupsByPath } from './loaders';
import { GroupNode, groupNode } from './nodes';
import { discussion } from './request-scope';
import { DateTimeScalar } from './scalars';

async function viewOf(ctx: GraphQLContext, g: GroupNode): Promise<GroupView | null> {
  return g.view ?? (await groupsByPath(ctx)).get(g.path) ?? null;
}

@Resolver(() => Group)
export class GroupResolver {
  @Query(() => [Group], { description: 'Every group.' })
  async groups(@Ctx() ctx: GraphQLContext): Promise<GroupNode[]> {
    return [...(await groupsByPath(ctx)).values()].map(groupNode);
  }

  @Query(() => Group, { nullable: true, description: 'A group by path; null when there is none.' })
  async group(
    @Arg('path', () => String, { description: "The group's path, with or without the `~`: `tech`, `~games.tabletop`." })
    path: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<GroupNode | null> {
    const g = await orNull(discussion(ctx).groups.get(path.replace(/^~/, '')));
    return g ? groupNode(g) : null;
  }

  @FieldResolver(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the group again.',
  })
  id(@Root() g: GroupNode): string {
    return toGlobalId('Group', g.path);
  }

  @FieldResolver(() => String, { description: 'What the group is about.' })
  async description(@Root() g: GroupNode, @Ctx() ctx: GraphQLContext): Promise<string> {
    return (await viewOf(ctx, g))?.description ?? '';
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true, description: 'When the group was created.' })
  async createdAt(@Root() g: GroupNode, @Ctx() ctx: GraphQLContext): Promise<Date | null> {
    return (await viewOf(ctx, g))?.createdAt ?? null;
  }
}
