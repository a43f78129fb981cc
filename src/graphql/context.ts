/** The per-request GraphQL context: the caller, the services, and this request's DataLoaders. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import type { Actor } from '../core/actor';
import type { Services } from '../services';

export interface GraphQLContext {
  actor: Actor;
  services: Services;
  /** The app's configuration (public URL for links, limits). */
  config: Config;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Per-request DataLoaders and memoized values, created lazily by the resolvers that need them. */
  loaders: Map<string, unknown>;
}

/** A per-request loader, created on first use (never at module scope). */
export function loader<T>(ctx: GraphQLContext, key: string, create: () => T): T {
  let l = ctx.loaders.get(key) as T | undefined;
  if (l === undefined) {
    l = create();
    ctx.loaders.set(key, l);
  }
  return l;
}
