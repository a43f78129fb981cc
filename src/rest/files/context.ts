/** What every Files-* route handler (docs/files-api.md) shares: settings, services, and per-request helpers. */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import type { WriteCredentials } from '../../files/file-writes.service';
import type { Services } from '../../services';
import { basicPassword, filesHeader, nonEmpty } from './http';

export interface FilesRouteContext {
  config: Config;
  services: Services;
}

/**
 * The request's Content-Type, taken away from Fastify in onRequest (these routes read their bodies
 * themselves, and an odd Content-Type on a PUT must not be refused).
 */
const contentTypes = new WeakMap<object, string>();

export function stashContentType(request: FastifyRequest): void {
  const ct = request.headers['content-type'];
  if (ct !== undefined) {
    contentTypes.set(request.raw, ct);
    delete request.headers['content-type'];
  }
}

export function contentTypeOf(request: FastifyRequest): string | undefined {
  return contentTypes.get(request.raw);
}

/** The media type (lowercase, without parameters) of the request body. */
export function mediaTypeOf(request: FastifyRequest): string {
  return (contentTypeOf(request) ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * What the request shows to write (docs/files-api.md §10): an API key from Files-Api-Key (or Linx-)
 * or the Basic-auth password, and a logged-in user's `Authorization: Bearer` token. The rule that
 * judges them is the files domain's (FileWritesService.authorize), the same as GraphQL's.
 */
export function credentialsOf(ctx: FilesRouteContext, request: FastifyRequest): WriteCredentials {
  const settings = ctx.services.files.settings;
  const authorization = request.headers.authorization;
  const bearer = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  return {
    apiKey:
      nonEmpty(filesHeader(request.headers, 'api-key', settings.acceptLinxHeaders)) ?? basicPassword(authorization),
    loggedIn: async () => {
      if (bearer === undefined) return false;
      const actor = await ctx.services.discussion.auth.actorForToken(bearer).catch(() => undefined);
      return actor?.kind === 'user';
    },
  };
}
