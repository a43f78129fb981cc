import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { resolvers } from './resolvers';

let cached: GraphQLSchema | undefined;

/** The executable schema (built once per process; it holds no per-app state). */
export function buildGraphQLSchema(): GraphQLSchema {
  cached ??= buildSchemaSync({
    resolvers,
    // type-graphql 2 leaves class-validator off unless asked.
    validate: { forbidUnknownValues: false },
  });
  return cached;
}

/** The SDL committed as schema.graphql (sorted, so it diffs cleanly). */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
