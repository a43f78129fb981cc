/** The Apollo Server of one app: schema, limits, error masking, CSRF prevention, APQ. */
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import { DocumentNode, getOperationAST, GraphQLError } from 'graphql';
import type { GraphQLConfig } from '../config';
import type { GraphQLContext } from './context';
import { asGraphQLError, httpStatusPlugin, makeFormatError } from './errors';
import { checkCost, depthLimitRule, documentLimitsRule } from './limits';
import { topicIdsOf, TopicSizes } from './cost';
import { topicSizes } from './topic-sizes';
import { topicsById } from './discussion/loaders';
import { buildGraphQLSchema } from './schema';
import { jitGateway } from './jit-executor';

/**
 * Bytes a parsed document keeps per character of its text (AST nodes, their locations and the token
 * list those reference): bench/abuse.js's distinct-documents attack is what this bounds. Apollo's own
 * document store measures a document by its JSON, a fraction of that.
 */
const DOCUMENT_BYTES_PER_CHAR = 96;

/** Apollo's parsed-document store, bounded by the bytes the documents keep (GRAPHQL_DOCUMENT_CACHE_MB). */
export function documentStore(maxBytes: number) {
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: maxBytes,
    sizeCalculation: (document, key) =>
      Math.max(1, 2 * key.length + DOCUMENT_BYTES_PER_CHAR * (document.loc?.end ?? 1)),
  });
  return {
    async get(key: string) {
      return documents.get(key);
    },
    async set(key: string, document: DocumentNode) {
      documents.set(key, document);
    },
    async delete(key: string) {
      documents.delete(key);
    },
  };
}

/** Variable sets whose cost is remembered per document (the estimate is a pure function of them and the sizes). */
const COSTS_PER_DOCUMENT = 32;
/** Longer variables (a comment's text, say) are not remembered: they seldom come twice. */
const COST_KEY_MAX = 512;

/** The key of a remembered cost, or undefined for variables too long (or too deep) to remember. */
function costKey(operationName: string | undefined, variables: unknown, sizes: TopicSizes): string | undefined {
  try {
    const key = JSON.stringify([operationName ?? null, variables ?? null, sizes.largest, [...sizes.byId]]);
    return key.length <= COST_KEY_MAX ? key : undefined;
  } catch {
    // Nested deeper than JSON.stringify goes: graphql-js refuses such variables anyway.
    return undefined;
  }
}

function costLimitPlugin(maxCost: number, maxSelections: number): ApolloServerPlugin<GraphQLContext> {
  /**
   * Costs already estimated, by document and then operation name and variables. Apollo hands the same
   * DocumentNode to every request with the same query text (its parsed-document cache), and a front
   * end sends few distinct queries: the estimate showed in CPU profiles of bench/load.js.
   * Only costs within the limit are kept (a refusal is estimated again: it is cheap next to an attack).
   */
  const costs = new WeakMap<DocumentNode, Map<string, number>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, contextValue }) {
          const operationName = request.operationName ?? undefined;
          // No operation by that name (or several without one): execution refuses it (400). The
          // estimator would crash on it (an anonymous operation has no name to compare).
          if (!getOperationAST(document, operationName)) return;
          // The sizes of the topics it names, through the loader execution then reads them from.
          // A failed read (the database away) is answered as execution would answer it: 503.
          const sizes = await topicSizes(
            contextValue.services.discussion,
            topicIdsOf(document, operationName, request.variables ?? {}),
            (ids) => topicsById(contextValue).loadMany(ids),
          ).catch((err: unknown) => {
            throw asGraphQLError(err);
          });
          // The same document and variables cost anew when the sizes changed.
          const key = costKey(operationName, request.variables, sizes);
          let known = costs.get(document);
          if (key !== undefined && known?.has(key)) return;
          const checked = checkCost(
            schema,
            document,
            operationName,
            request.variables,
            { maxCost, maxSelections },
            sizes,
          );
          if (checked === undefined) return;
          if (checked instanceof GraphQLError) throw checked;
          if (!known) costs.set(document, (known = new Map()));
          if (key !== undefined) {
            if (known.size >= COSTS_PER_DOCUMENT) known.delete(known.keys().next().value!);
            known.set(key, checked);
          }
        },
      };
    },
  };
}

/**
 * A subscription sent over HTTP is refused as the WebSocket refuses a query (src/live/server.ts):
 * executed here it would run its event resolver with no event.
 */
function subscriptionsOverWebSocketPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== 'subscription') return;
          throw new GraphQLError('Subscriptions run over WebSocket at /graphql (graphql-transport-ws), not over HTTP', {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}

/**
 * `Cache-Control: no-store` on every response, as Apollo's cache-control plugin answered for this
 * schema (no type or field declares a cache hint). That plugin is disabled: it wraps every field
 * resolver to collect hints, about a third of the execution time of a 5,000-comment tree.
 */
function noStorePlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (!response.http.headers.has('cache-control')) response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}

/** Refuses a batch of more than `maxBatch` operations (each one is parsed, validated and run). */
function batchLimitPlugin(maxBatch: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ contextValue }) {
      const body = contextValue.request.body;
      if (!Array.isArray(body) || body.length <= maxBatch) return;
      return {
        async didResolveOperation() {
          throw new GraphQLError(`Too many operations in one batch: ${body.length} exceeds the limit of ${maxBatch}`, {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}

export async function createApollo(app: FastifyInstance, config: GraphQLConfig): Promise<ApolloServer<GraphQLContext>> {
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: jitGateway(buildGraphQLSchema(), {
      compileAfter: config.jitCompileAfter,
      cacheBytes: config.jitCacheBytes,
    }),
    documentStore: documentStore(config.documentCacheBytes),
    introspection: config.introspection,
    allowBatchedHttpRequests: config.batching,
    csrfPrevention: true,
    // The size limits come first among the custom rules: they stop validation of a refused document.
    validationRules: [documentLimitsRule(config), depthLimitRule(config.maxDepth)],
    // The parser stops at this many tokens: a document's size is bounded before anything walks it.
    parseOptions: { maxTokens: config.maxTokens },
    formatError: makeFormatError(app.log),
    includeStacktraceInErrorResponses: false,
    // The process entry owns signal handling; Apollo would otherwise re-raise SIGINT/SIGTERM itself.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      noStorePlugin(),
      batchLimitPlugin(config.maxBatch),
      subscriptionsOverWebSocketPlugin(),
      costLimitPlugin(config.maxCost, config.maxSelections),
      httpStatusPlugin<GraphQLContext>(),
    ],
  });
  await apollo.start();
  // A batch over the limit is refused before any of its operations is parsed (JSON bodies; the
  // plugin above covers multipart batches, whose operations are read later by the route).
  app.addHook('preHandler', async (request, reply) => {
    if (
      request.routeOptions.url !== '/graphql' ||
      !Array.isArray(request.body) ||
      request.body.length <= config.maxBatch
    )
      return;
    const message = `Too many operations in one batch: ${request.body.length} exceeds the limit of ${config.maxBatch}`;
    return reply
      .code(400)
      .type('application/json; charset=utf-8')
      .send({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
  });
  // Fastify's close drains HTTP connections itself (Apollo's drain plugin would call close() from
  // inside close and deadlock); Apollo only needs stopping afterwards.
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
  return apollo;
}
