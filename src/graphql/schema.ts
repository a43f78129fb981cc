import 'reflect-metadata';
import { GraphQLInterfaceType, GraphQLSchema, GraphQLUnionType, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { ValidationError } from '../core/errors';
import { issuesOf } from '../discussion/inputs/validate';
import { orderArgumentsAsDeclared } from './argument-order';
import { historyItemType } from './discussion/history.type';
import { nodeType } from './node/node.type';
import { resolvers } from './resolvers';
import { noPubSub } from './subscriptions/resolver';

let cached: GraphQLSchema | undefined;

/** The executable schema (built once per process; it holds no per-app state). */
export function buildGraphQLSchema(): GraphQLSchema {
  if (cached) return cached;
  const built = buildSchemaSync({
    resolvers,
    // Argument and input classes go through the domain's one validation helper: a broken rule is
    // the domain's ValidationError (BAD_USER_INPUT with field names), like every other bad input.
    validateFn: (value) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const issues = issuesOf(value);
        if (issues.length > 0) throw new ValidationError(issues);
      }
    },
    pubSub: noPubSub,
  });
  cached = orderArgumentsAsDeclared(built);
  // type-graphql wraps an abstract type's resolveType in an async function; graphql-jit
  // (jit-executor.ts) needs it synchronous, which ours are.
  (cached.getType('HistoryItem') as GraphQLUnionType).resolveType = historyItemType;
  (cached.getType('Node') as GraphQLInterfaceType).resolveType = nodeType;
  return cached;
}

/** The SDL committed as schema.graphql (sorted, so it diffs cleanly). */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
