/**
 * The Files-* compatibility layer (docs/files-api.md). Routes read request bodies
 * themselves (streamed uploads), so the plugin replaces every body parser with one that reads
 * nothing, and answers every error and unknown method of its paths in the §3 format.
 */
import type { Server } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { RestOptions } from '../options';
import { FILES_PAGE_HEADERS } from '../refusals';
import { FilesRouteContext, stashContentType } from './context';
import { handleFilesError, sendError } from './errors';
import { installExpectContinue } from './expect-continue';
import { readRoutes } from './read.routes';
import { resumableRoutes } from './resumable.routes';
import { uploadRoutes } from './upload.routes';

const METHODS: HTTPMethods[] = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/** §1: each path, the methods it allows; OPTIONS lists them, anything else is 404 `Not found`. */
const PATHS: { url: string; allow: HTTPMethods[]; tus?: true }[] = [
  { url: '/upload', allow: ['OPTIONS', 'POST', 'PUT'] },
  { url: '/upload/', allow: ['OPTIONS', 'POST', 'PUT'] },
  { url: '/upload/:name', allow: ['OPTIONS', 'PUT'] },
  // §4.9: tus answers OPTIONS itself (resumable.routes.ts); PUT still uploads a file named `resumable`.
  { url: '/upload/resumable', allow: ['OPTIONS', 'POST', 'PUT'], tus: true },
  { url: '/upload/resumable/:token', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH'], tus: true },
  { url: '/:filename', allow: ['DELETE', 'GET', 'HEAD', 'OPTIONS'] },
  { url: '/selif/:filename', allow: ['GET', 'HEAD', 'OPTIONS'] },
];

export const filesRoutes: FastifyPluginAsync<RestOptions> = async (app, { config, services }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.addHook('onRequest', async (request, reply) => {
    stashContentType(request);
    // §2.4; raw file responses replace the CSP with their own.
    reply.headers(FILES_PAGE_HEADERS);
  });
  app.setErrorHandler(handleFilesError);
  if (!app.initialConfig.http2) installExpectContinue(app.server as Server);

  const ctx: FilesRouteContext = { config, services };
  uploadRoutes(app, ctx);
  resumableRoutes(app, ctx);
  readRoutes(app, ctx);

  const notFound = (request: FastifyRequest, reply: FastifyReply) => sendError(request, reply, 404, 'Not found');
  // §2.4: every response of /{filename} varies with Accept (information or file, error format).
  const vary = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'Accept');
  };
  for (const { url, allow, tus } of PATHS) {
    const allowHeader = allow.join(', ');
    const onRequest = url === '/:filename' ? vary : undefined;
    if (!tus)
      app.route({
        method: 'OPTIONS',
        url,
        onRequest,
        handler: (_request, reply) => reply.code(200).header('allow', allowHeader).send(),
      });
    app.route({
      method: METHODS.filter((m) => !allow.includes(m)),
      url,
      exposeHeadRoute: false,
      onRequest,
      handler: notFound,
    });
  }
};
