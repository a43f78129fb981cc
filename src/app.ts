/**
 * buildApp: one Fastify instance serving GraphQL, GraphiQL, both REST layers, health and metrics.
 * Front doors are mounted here; they hold no business rules.
 */
import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, LogController } from 'fastify';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { Config } from './config';
import { classifyError, retryAfterOf } from './core/errors';
import { proxyTrust } from './core/proxy-trust';
import { keepFirstHeaderValues } from './core/repeated-headers';
import type { Database } from './db/connection';
import type { Metrics } from './metrics';
import type { Services } from './services';
import { createApollo } from './graphql/apollo';
import type { GraphQLContext } from './graphql/context';
import { asGraphQLError, refusalOf } from './graphql/errors';
import { graphqlMultipart } from './graphql/uploads';
import { graphiqlRoutes } from './graphiql/routes';
import { betaRoutes } from './rest/beta';
import { sendBetaError } from './rest/beta/errors';
import { sendError as sendFilesError } from './rest/files/errors';
import { filesRoutes } from './rest/files';
import { FILES_PAGE_HEADERS, frontDoorOf, pathOfTarget, rawRefusal, refusalFor, refusedRequest } from './rest/refusals';

export interface AppDeps {
  config: Config;
  db: Database;
  metrics: Metrics;
  services: Services;
  /** Set once start-up work (demo seed, first sweeps) is complete: /readyz waits for it. */
  startup: { readonly done: boolean };
  logger?: FastifyServerOptions['logger'];
}

/** Prefers HTML over JSON: a browser navigating to /graphql. */
function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('text/html');
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db, metrics, services, startup } = deps;
  /** The server's own routes (`/healthz`, `/graphiql`, …) are matched before the files API's `/{filename}`. */
  const isServerPath = (path: string): boolean => {
    // None is that long; the router reports a parameter over maxParamLength as a match without it.
    if (path.length > 256) return false;
    const route = app.findRoute({ method: 'GET', url: path });
    return route !== null && (route.params as Record<string, unknown>).filename === undefined;
  };
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    trustProxy: proxyTrust(config),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Request header size is bounded by Node's default (16 KiB): larger headers get 431.
    // Node enforces the header/request timeouts on a timer; check every second, not every 30 s.
    http: {
      connectionsCheckingInterval: 1000,
      headersTimeout: Math.min(config.headersTimeoutMs, config.requestTimeoutMs),
      // An HTTP/1.1 request without Host is refused below, in its front door's format; Node's own
      // refusal is an empty 400.
      requireHostHeader: false,
    },
    // One debug line per request from onResponse instead of Fastify's two info lines.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    // Requests Node cannot parse (headers over 16 KiB: 431, malformed: 400, too slow: 408), in the
    // format of the front door the path belongs to (rest/refusals.ts). Fastify's default sends a
    // body even to HEAD and none of the usual headers.
    clientErrorHandler: (err, socket) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const [status, reason] =
        code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout']
          : code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'Request Header Fields Too Large']
            : [400, 'Bad Request'];
      const received = (err as unknown as { rawPacket?: Buffer }).rawPacket;
      // The response of a request whose body was being read (Node's own handler looks here too).
      const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
      // Once its head is sent, a refusal cannot follow it on the same socket.
      if (socket.writable && !inFlight?.headersSent)
        socket.write(rawRefusal(status, reason, refusedRequest(received, inFlight?.req), isServerPath));
      socket.destroy();
    },
    forceCloseConnections: 'idle',
    genReqId: () => crypto.randomUUID(),
    // Fastify refuses some URLs before routing (an undecodable %-escape, a path parameter over
    // maxParamLength). Such a path names nothing any front door serves: answer its 404 in that
    // front door's own format instead of Fastify's, which would echo the URL back.
    frameworkErrors: (err, req, untypedReply) => {
      const reply = untypedReply as unknown as FastifyReply;
      // Sent before any onRequest hook runs: set the headers every response carries here too.
      reply.header('x-content-type-options', 'nosniff');
      const code = (err as { code?: string }).code;
      const pathOnly = pathOfTarget(req.raw.url ?? '/');
      if (code !== 'FST_ERR_BAD_URL' && code !== 'FST_ERR_MAX_PARAM_LENGTH') {
        const status = (err as { statusCode?: number }).statusCode ?? 400;
        const refusal = refusalFor(pathOnly, status >= 400 && status < 500 ? status : 400, req.headers.accept);
        return reply
          .status(status >= 400 && status < 500 ? status : 400)
          .headers(refusal.headers)
          .send(refusal.body);
      }
      // An undecodable URL is a bad request (docs/discussion-api.md §2.5); a parameter over
      // maxParamLength (only with Node's header limit raised) names no topic or user.
      const door = frontDoorOf(pathOnly);
      if (door === 'beta') {
        if (code === 'FST_ERR_BAD_URL') return sendBetaError(reply, 400, [{ message: 'Bad request' }]);
        return sendBetaError(reply, 404, [{ message: 'Not found' }]);
      }
      if (door === 'graphql') {
        const refusal = refusalFor(pathOnly, 400, undefined);
        return reply.status(400).headers(refusal.headers).send(refusal.body);
      }
      if (door === 'files') {
        reply.headers(FILES_PAGE_HEADERS);
        // /{name} and /selif/{name}: no file has a name that does not decode.
        if (/^\/(selif\/)?[^/]*$/.test(pathOnly))
          return sendFilesError(req, reply.header('vary', 'Accept'), 404, 'File not found');
        // PUT /upload/{name} with a name the router refuses: the upload's own answers (docs/files-api.md §3).
        if (/^\/upload\/[^/]*$/.test(pathOnly) && req.method === 'PUT') {
          const message = code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'Filename too long' : 'Bad request';
          return sendFilesError(req, reply, 400, message);
        }
        // Another method there, or deeper under /upload or /selif: no route of the files API matches.
        return sendFilesError(req, reply, 404, 'Not found');
      }
      return reply.status(404).send({ error: 'Not found' });
    },
    // As long as a request line can be (Node's 16 KiB of headers): no parameter is refused for its
    // length alone. A decoded name of 1,100 characters may still give a short filename (files
    // behaviour 4.5 limits the final name), and a topic id that long is `Topic not found`.
    routerOptions: { maxParamLength: 16 * 1024 },
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    keepFirstHeaderValues(req.raw);
    // RFC 9112 3.2: an HTTP/1.1 request without Host is a bad request.
    if (req.headers.host === undefined && req.raw.httpVersion === '1.1') {
      const refusal = refusalFor(pathOfTarget(req.raw.url ?? '/'), 400, req.headers.accept, isServerPath);
      return reply.code(400).headers(refusal.headers).send(refusal.body);
    }
  });
  // An `Expect` other than 100-continue: Node would answer a bare 417 (no body, none of the
  // headers above). Ignore the expectation instead, as RFC 9110 allows: the request is answered
  // by its front door as usual.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res));
  // A client that goes away before the response never reaches onResponse: count it as 499.
  app.addHook('onRequestAbort', async (req) => {
    metrics.httpRequests.inc({ route: req.routeOptions.url ?? '<unmatched>', method: req.method, status: '499' });
  });
  app.addHook('onResponse', async (req, reply) => {
    const labels = {
      route: req.routeOptions.url ?? '<unmatched>',
      method: req.method,
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    req.log.debug(
      { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  /**
   * No route matched. A method no route of the files API declares (TRACE, PROPFIND, …) on one of
   * its paths: that API's `Not found` (docs/files-api.md §1), in its format; on /graphql, 405 in GraphQL's format.
   */
  const notFound = (req: FastifyRequest, reply: FastifyReply) => {
    const pathOnly = pathOfTarget(req.raw.url ?? '/');
    const door = frontDoorOf(pathOnly);
    if (door === 'files') return sendFilesError(req, reply.headers(FILES_PAGE_HEADERS), 404, 'Not found');
    if (door === 'graphql') {
      const refusal = refusalFor(pathOnly, 405, undefined);
      return reply.status(405).header('allow', 'GET, POST, OPTIONS').headers(refusal.headers).send(refusal.body);
    }
    return reply.status(404).send({ error: 'Not found' });
  };

  // The default error format outside the two REST layers (which set their own): {"error": message}.
  app.setErrorHandler((err, req, reply) => {
    // Fastify failed a request no route matched before answering it (QUERY without a Content-Type,
    // an unreadable Content-Type): routing comes first, so it gets the answer of no route.
    if (req.is404) return notFound(req, reply);
    const known = classifyError(err);
    if (known) {
      const retryAfter = retryAfterOf(known);
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      return reply.status(known.status).send({ error: known.message });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) return reply.status(status).send({ error: (err as Error).message });
    req.log.error({ err }, 'unexpected error');
    return reply.status(500).send({ error: 'Internal server error' });
  });
  app.setNotFoundHandler(notFound);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    // A newcomer must not see a half-written demo dataset (or a load balancer send traffic early).
    if (!startup.done) {
      return reply
        .status(503)
        .send({ status: 'starting', reason: 'start-up work (demo data, first sweeps) is not finished' });
    }
    if (await db.ping(2000)) return { status: 'ready', database: services.runtime.databaseKind };
    return reply.status(503).send({ status: 'unavailable', reason: db.unavailableReason(2000) });
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  await app.register(graphiqlRoutes);

  const apollo = await createApollo(app, config.graphql);
  const handler = fastifyApolloHandler<GraphQLContext>(apollo, {
    context: async (request, reply) => {
      try {
        const actor = await services.discussion.auth.actorFor(request.headers.authorization);
        return { actor, services, config, request, reply, loaders: new Map() };
      } catch (err) {
        throw asGraphQLError(err);
      }
    },
  });
  // GraphQL multipart request spec (file uploads): parsed with busboy, limits per FILES_MAX_SIZE.
  const uploads = graphqlMultipart(app, {
    maxFileSize: config.files.maxSize,
    maxFiles: 10,
    maxFieldSize: config.bodyLimit,
  });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // Refusals before Apollo sees the request (unparsable JSON, a body too large, an unsupported
    // content type) in GraphQL's error format, like every other answer of this route.
    errorHandler: (err, request, reply) => {
      const { status, body } = refusalOf(err, request.log);
      return reply.status(status).type('application/json; charset=utf-8').send(body);
    },
    preHandler: uploads.preHandler,
    onSend: uploads.onSend,
    handler: async (request, reply) => {
      if (request.method === 'GET' && wantsHtml(request.headers.accept)) {
        const q = request.url.indexOf('?');
        return reply.redirect(q >= 0 ? `/graphiql${request.url.slice(q)}` : '/graphiql', 302);
      }
      // Apollo's integration parses the request URL against the Host header: a malformed Host
      // would throw inside it (a 500).
      if (!URL.canParse(request.url, `${request.protocol}://${request.hostname}/`)) {
        return reply
          .code(400)
          .type('application/json; charset=utf-8')
          .send({ errors: [{ message: 'Invalid Host header', extensions: { code: 'BAD_REQUEST' } }] });
      }
      return (handler as unknown as (this: FastifyInstance, rq: typeof request, rp: typeof reply) => unknown).call(
        app,
        request,
        reply,
      );
    },
  });

  // Methods the Files-* `/{filename}` route would otherwise take for `/graphql` (others, such as
  // QUERY, reach notFound): 405 in GraphQL's format.
  app.route({ url: '/graphql', method: ['DELETE', 'PATCH', 'PUT'], handler: (req, reply) => notFound(req, reply) });

  await app.register(betaRoutes, { prefix: '/api/beta', config, services });
  await app.register(filesRoutes, { config, services });
  return app;
}
