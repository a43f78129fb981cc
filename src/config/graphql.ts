import { EnvReader } from './reader';

export interface GraphQLConfig {
  introspection: boolean;
  /** Accept JSON arrays of operations in one request. */
  batching: boolean;
  /** Most operations in one batched request. */
  maxBatch: number;
  maxDepth: number;
  /** Upper bound of the estimated cost of one operation (connection sizes multiply). */
  maxCost: number;
  /** Most lexical tokens in one document (the parser stops beyond it). */
  maxTokens: number;
  /**
   * Most selections (fields, fragment spreads, inline fragments) in a document and in one operation with its fragments
   * expanded.
   */
  maxSelections: number;
  /** Most aliased fields in one document. */
  maxAliases: number;
  /** Most directives in one document. */
  maxDirectives: number;
  /** Byte budget (estimated) of the parsed documents Apollo keeps (by query text). */
  documentCacheBytes: number;
  /** Runs of a document on graphql-js before graphql-jit compiles it (src/graphql/jit-executor.ts). */
  jitCompileAfter: number;
  /** Byte budget (estimated) of the operations graphql-jit keeps compiled. */
  jitCacheBytes: number;
  /** Byte budget (estimated) of the subscription documents the WebSocket keeps parsed and validated. */
  liveDocumentCacheBytes: number;
}

export function readGraphQLConfig(r: EnvReader): GraphQLConfig {
  return {
    introspection: r.bool('GRAPHQL_INTROSPECTION', true),
    batching: r.bool('GRAPHQL_BATCHING', false),
    maxBatch: r.int('GRAPHQL_MAX_BATCH', 10, 1, 1000),
    maxDepth: r.int('GRAPHQL_MAX_DEPTH', 15, 2, 1000),
    maxCost: r.int('GRAPHQL_MAX_COST', 200_000, 10, 100_000_000),
    maxTokens: r.int('GRAPHQL_MAX_TOKENS', 10_000, 100, 1_000_000),
    maxSelections: r.int('GRAPHQL_MAX_SELECTIONS', 2_000, 10, 1_000_000),
    maxAliases: r.int('GRAPHQL_MAX_ALIASES', 100, 0, 1_000_000),
    maxDirectives: r.int('GRAPHQL_MAX_DIRECTIVES', 50, 0, 1_000_000),
    documentCacheBytes: r.int('GRAPHQL_DOCUMENT_CACHE_MB', 32, 1, 100_000) * 1024 * 1024,
    jitCompileAfter: r.int('GRAPHQL_JIT_COMPILE_AFTER', 2, 0, 1_000_000),
    jitCacheBytes: r.int('GRAPHQL_JIT_CACHE_MB', 48, 1, 100_000) * 1024 * 1024,
    liveDocumentCacheBytes: r.int('LIVE_DOCUMENT_CACHE_MB', 16, 1, 100_000) * 1024 * 1024,
  };
}
