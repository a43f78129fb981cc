import { EnvReader } from './reader';

export interface GraphQLConfig {
  introspection: boolean;
  /** Accept JSON arrays of operations in one request. */
  batching: boolean;
  maxDepth: number;
  /** Upper bound of the estimated cost of one operation (connection sizes multiply). */
  maxCost: number;
}

export function readGraphQLConfig(r: EnvReader): GraphQLConfig {
  return {
    introspection: r.bool('GRAPHQL_INTROSPECTION', true),
    batching: r.bool('GRAPHQL_BATCHING', false),
    maxDepth: r.int('GRAPHQL_MAX_DEPTH', 15, 2, 1000),
    maxCost: r.int('GRAPHQL_MAX_COST', 20_000, 10, 100_000_000),
  };
}
