import 'reflect-metadata';
import { GraphQLSchema, GraphQLUnionType, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { historyItemType } from './discussion/history.type';
import { resolvers } from './resolvers';
import { noPubSub } from './subscriptions/resolver';

let cached: GraphQLSchema | undefined;

/** The executable schema (built once per process; it holds no per-app state). */
export function buildGraphQLSchema(): GraphQLSchema {
  if (cached) return cached;
  cached = buildSchemaSync({
    resolvers,
    // type-graphql 2 leaves class-validator off unless asked.
    validate: { forbidUnknownValues: false },
    pubSub: noPubSub,
  });
  // type-graphql wraps a union's resolveType in an async function; graphql-jit (jit-executor.ts)
  // needs it synchronous, which ours is.
  (cached.getType('HistoryItem') as GraphQLUnionType).resolveType = historyItemType;
  return cached;
}

/** The SDL committed as schema.graphql (sorted, so it diffs cleanly). */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
