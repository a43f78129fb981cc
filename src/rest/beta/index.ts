/** The /api/beta compatibility layer (discussion-api-beta.md + discussion-behaviour.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { RestOptions } from '../options';

export const betaRoutes: FastifyPluginAsync<RestOptions> = async () => {};
