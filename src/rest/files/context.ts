/** What every Files-* route handler (docs/files-api.md) shares: settings, services, and per-request helpers. */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import { UnauthenticatedError } from '../../core/errors';
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

/** §10: with FILES_REQUIRE_API_KEY, a valid key from Files-Api-Key (or Linx-) or the Basic password. */
export async function requireApiKey(ctx: FilesRouteContext, request: FastifyRequest): Promise<void> {
  const settings = ctx.services.files.settings;
  if (!settings.requireApiKey) return;
  const key = nonEmpty(filesHeader(request.headers, 'api-key', settings.acceptLinxHeaders)) ?? basicPassword(request.headers.authorization);
  if (!(await ctx.services.files.apiKeys.isValid(key))) throw new UnauthenticatedError('Unauthorized', 'API_KEY_REQUIRED');
}
