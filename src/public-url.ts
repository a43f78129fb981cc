import type { FastifyRequest } from 'fastify';

/**
 * `{base}` of every absolute URL Agora writes — file URLs (docs/files-api.md §2.3), topic and comment
 * links (docs/discussion-api.md §1.4), in REST and GraphQL alike — so no layer can compute it its own way:
 *
 * 1. `PUBLIC_URL` when configured (any trailing `/` removed);
 * 2. otherwise the request's scheme and host. Fastify, built with `TRUST_PROXY`, honours
 *    `X-Forwarded-Proto` / `X-Forwarded-Host` only when the connection comes from a trusted proxy
 *    (by address or hop count), taking the entry that proxy appended; from anyone else they are ignored,
 *    so a client cannot put its own host into the links others are given.
 */
export function publicBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${request.protocol}://${request.host || 'localhost'}`;
}
