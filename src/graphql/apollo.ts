/** The Apollo Server of one app: schema, limits, error masking, CSRF prevention, APQ. */
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance } from 'fastify';
import { GraphQLError } from 'graphql';
import type { GraphQLConfig } from '../config';
import type { GraphQLContext } from './context';
import { httpStatusPlugin, makeFormatError } from './errors';
import { depthLimitRule, operationCost } from './limits';
import { buildGraphQLSchema } from './schema';

function costLimitPlugin(maxCost: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          let cost: number;
          try {
            cost = operationCost(schema, document, request.operationName ?? undefined, request.variables);
          } catch (err) {
            // Variables that do not coerce: graphql-js refuses them before anything runs (HTTP 400,
            // BAD_USER_INPUT), so there is no cost to bound; anything else is a real failure.
            if (err instanceof GraphQLError) return;
            throw err;
          }
          if (cost > maxCost) {
            throw new GraphQLError(`Query is too expensive: estimated cost ${cost} exceeds the limit of ${maxCost}`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 }, cost, maxCost },
            });
          }
        },
      };
    },
  };
}

export async function createApollo(app: FastifyInstance, config: GraphQLConfig): Promise<ApolloServer<GraphQLContext>> {
  const apollo = new ApolloServer<GraphQLContext>({
    schema: buildGraphQLSchema(),
    introspection: config.introspection,
    allowBatchedHttpRequests: config.batching,
    csrfPrevention: true,
    validationRules: [depthLimitRule(config.maxDepth)],
    formatError: makeFormatError(app.log),
    includeStacktraceInErrorResponses: false,
    // The process entry owns signal handling; Apollo would otherwise re-raise SIGINT/SIGTERM itself.
    stopOnTerminationSignals: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), costLimitPlugin(config.maxCost), httpStatusPlugin<GraphQLContext>()],
  });
  await apollo.start();
  // Fastify's close drains HTTP connections itself (Apollo's drain plugin would call close() from
  // inside close and deadlock); Apollo only needs stopping afterwards.
  app.addHook('onClose', async () => {
    await apollo.stop();
  });
  return apollo;
}
