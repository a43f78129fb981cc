/**
 * The /api/beta compatibility layer (docs/discussion-api.md): seven
 * routes, the error array of §2 on every failure, 404/405 for everything else under the prefix,
 * and `application/json; charset=utf-8` on every response.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { classifyError } from '../../core/errors';
import type { RestOptions } from '../options';
import { pathOfTarget } from '../refusals';
import { authRoutes } from './auth.routes';
import { betaErrorFor, JSON_CONTENT_TYPE, sendBetaError } from './errors';
import { openApiDocument } from './openapi';
import { topicRoutes } from './topics.routes';
import { userRoutes } from './users.routes';

/** Known paths (relative to the prefix) and the methods each answers. */
const KNOWN_PATHS: { pattern: RegExp; allow: string }[] = [
  { pattern: /^\/login$/, allow: 'POST' },
  { pattern: /^\/whoami$/, allow: 'GET, HEAD' },
  { pattern: /^\/topics$/, allow: 'GET, HEAD' },
  { pattern: /^\/topic\/[^/]+$/, allow: 'GET, HEAD' },
  { pattern: /^\/user\/[^/]+$/, allow: 'GET, HEAD' },
  { pattern: /^\/user\/[^/]+\/topics$/, allow: 'GET, HEAD' },
  { pattern: /^\/user\/[^/]+\/comments$/, allow: 'GET, HEAD' },
  { pattern: /^\/openapi\.json$/, allow: 'GET, HEAD' },
];

const PREFIX = '/api/beta';

/** 404 for an unknown path, 405 with `Allow` for a known path with another method (1.1). */
function notFound(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = pathOfTarget(req.url).slice(PREFIX.length);
  const known = KNOWN_PATHS.find((k) => k.pattern.test(path));
  if (known && !known.allow.split(', ').includes(req.method)) {
    return sendBetaError(reply, 405, [{ message: 'Method not allowed' }], { allow: known.allow });
  }
  return sendBetaError(reply, 404, [{ message: 'Not found' }]);
}

export const betaRoutes: FastifyPluginAsync<RestOptions> = async (app: FastifyInstance, opts: RestOptions) => {
  // Bodies are only read by /login, as raw text it parses itself (2.4); nothing else parses JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-type', JSON_CONTENT_TYPE);
    return payload;
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    // Routing comes first (2.2): a request no route matched that Fastify failed before answering
    // it (QUERY without a Content-Type, an unreadable Content-Type) gets its 404 or 405.
    if (req.is404) return notFound(req, reply);
    const known = classifyError(err);
    if (known) {
      const { status, items, headers } = betaErrorFor(known);
      return sendBetaError(reply, status, items, headers);
    }
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendBetaError(reply, 413, [{ message: 'Request body is too large' }]);
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return sendBetaError(reply, err.statusCode, [{ message: 'Bad request' }]);
    }
    req.log.error({ err }, 'unexpected error in /api/beta');
    return sendBetaError(reply, 500, [{ message: 'Internal server error' }]);
  });

  app.setNotFoundHandler(notFound);

  // Only config and services: the options this plugin got also carry its prefix.
  const routeOpts: RestOptions = { config: opts.config, services: opts.services };
  await app.register(authRoutes, routeOpts);
  await app.register(topicRoutes, routeOpts);
  await app.register(userRoutes, routeOpts);
  app.get('/openapi.json', async () => openApiDocument);
};
