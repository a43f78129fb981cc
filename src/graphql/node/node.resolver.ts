/** Query.node and Query.nodes: any object again from its global id (Relay's refetch entry point). */
import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { ValidationError } from '../../core/errors';
import { id36ToNumber, isId36, toId36 } from '../../discussion/rules/id36';
import type { GraphQLContext } from '../context';
import { commentsAsShownById, groupsByPath, primeTopic, topicsById, usersByName } from '../discussion/loaders';
import { commentNode, groupNode, topicNode, userNode } from '../discussion/nodes';
import { fileNode } from '../files/file.resolver';
import { fromGlobalId } from './global-id';
import { Node } from './node.type';

/** The numeric id of a canonical (lowercase) id36 key; null for any other spelling. */
function numericKey(key: string): number | null {
  if (!isId36(key)) return null;
  const n = id36ToNumber(key);
  return n !== null && n >= 1 && toId36(n) === key ? n : null;
}

/** The object a global id names, as the viewer may see it anywhere else; null when none. */
async function resolveNode(ctx: GraphQLContext, id: string): Promise<object | null> {
  const g = fromGlobalId(id);
  if (!g) return null;
  switch (g.type) {
    case 'Topic': {
      const n = numericKey(g.key);
      const t = n === null ? null : await topicsById(ctx).load(n);
      if (!t) return null;
      primeTopic(ctx, t);
      return topicNode(ctx, t);
    }
    case 'Comment': {
      const n = numericKey(g.key);
      // As its topic's tree shows it, or as its author's history does when the topic is hidden
      // (then its `topic` is null): the service decides where the viewer sees it.
      const c = n === null ? null : await commentsAsShownById(ctx).load(n);
      return c ? commentNode(c) : null;
    }
    case 'User': {
      const u = await usersByName(ctx).load(g.key);
      return u && u.username.toLowerCase() === g.key ? userNode(u) : null;
    }
    case 'Group': {
      const v = (await groupsByPath(ctx)).get(g.key);
      return v ? groupNode(v) : null;
    }
    case 'FileInfo':
      return fileNode(ctx, g.key);
  }
}

@Resolver()
export class NodeResolver {
  @Query(() => Node, {
    nullable: true,
    description:
      'The object with this global id (any type implementing `Node`), with the same fields as wherever ' +
      'else it appears; ' +
      'null when there is none, the viewer may not see it, or the id is not one this server issued.',
  })
  node(
    @Arg('id', () => ID, { description: 'A global id (an `id` field of any Node).' }) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<object | null> {
    return resolveNode(ctx, id);
  }

  @Query(() => [Node], {
    nullable: 'items',
    description:
      'The objects with these global ids, in the same order; null in place of each `node(id:)` would ' +
      'answer null for (at most 100 ids).',
  })
  nodes(
    @Arg('ids', () => [ID], { description: 'Global ids (at most 100).' }) ids: string[],
    @Ctx() ctx: GraphQLContext,
  ): Promise<(object | null)[]> {
    if (ids.length > 100) {
      throw new ValidationError([{ field: 'ids', message: `${ids.length} ids exceed the maximum of 100` }]);
    }
    return Promise.all(ids.map((id) => resolveNode(ctx, id)));
  }
}
