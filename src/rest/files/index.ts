/** The Files-* compatibility layer (files-api.md + files-behaviour.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { RestOptions } from '../options';

export const filesRoutes: FastifyPluginAsync<RestOptions> = async () => {};
