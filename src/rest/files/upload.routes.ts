/** Uploads (docs/files-api.md §4): PUT with a raw body, POST with a multipart form or a url-encoded paste. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../core/errors';
import type { UploadOptions, UploadResult } from '../../files';
import { prefersJson } from './accept';
import { responseEnded } from '../../core/files-headers';
import { credentialsOf, FilesRouteContext, mediaTypeOf, contentTypeOf } from './context';
import { JSON_TYPE, TEXT_TYPE } from './errors';
import { badRequest, FormUpload, readMultipart, readUrlEncoded } from './forms';
import { continueReading } from './expect-continue';
import { watchBodyPace } from '../../core/body-pace';
import { baseUrl, filesHeader, isServerPath, isTruthy, nonEmpty, passesOriginCheck } from './http';
import { presentUpload } from './presenter';

function emptyFile(): ValidationError {
  return new ValidationError('Empty file', 'EMPTY_FILE');
}

export function uploadRoutes(app: FastifyInstance, ctx: FilesRouteContext): void {
  const { uploads, writes } = ctx.services.files;
  const settings = ctx.services.files.settings;
  const linx = settings.acceptLinxHeaders;

  /** Options every upload takes from headers (§2.1). */
  const headerOptions = (request: FastifyRequest, requestedName: string): UploadOptions => ({
    requestedName,
    randomize: isTruthy(filesHeader(request.headers, 'randomize', linx)),
    deleteKey: nonEmpty(filesHeader(request.headers, 'delete-key', linx)),
    accessKey: nonEmpty(filesHeader(request.headers, 'access-key', linx)),
    expiry: filesHeader(request.headers, 'expiry', linx),
    isServerPath: (name) => isServerPath(request, name),
  });

  const respond = (request: FastifyRequest, reply: FastifyReply, result: UploadResult, method: 'PUT' | 'POST') => {
    const base = baseUrl(request, ctx.config);
    if (prefersJson(request.headers.accept)) return reply.code(200).type(JSON_TYPE).send(presentUpload(base, result));
    if (method === 'PUT') return reply.code(200).type(TEXT_TYPE).send(`${base}/${result.filename}\n`);
    return reply.code(303).header('location', `/${result.filename}`).send();
  };

  const put = async (request: FastifyRequest<{ Params: { name?: string } }>, reply: FastifyReply) => {
    const declared = request.headers['content-length'];
    // The files domain decides in the order of §4.3 (key, declared size, admission before a byte of
    // the body is read); a refusal before the body drains up to 1 MiB, else closes (errors.ts).
    const result = await writes.upload({
      credentials: credentialsOf(ctx, request),
      clientAddress: request.ip,
      declaredSize: declared === undefined ? undefined : Number(declared),
      until: responseEnded(reply.raw),
      read: async () => {
        continueReading(request, reply);
        const pace = watchBodyPace(request.raw, settings);
        try {
          const received = await uploads.receive(request.raw, pace.signal);
          return { received, options: headerOptions(request, request.params.name ?? '') };
        } finally {
          pace.stop();
        }
      },
    });
    return respond(request, reply, result, 'PUT');
  };

  const post = async (request: FastifyRequest, reply: FastifyReply) => {
    const media = mediaTypeOf(request);
    const result = await writes.upload({
      credentials: credentialsOf(ctx, request),
      clientAddress: request.ip,
      beforeAdmission: () => {
        if (!passesOriginCheck(request.headers, baseUrl(request, ctx.config), linx)) throw badRequest();
        // Any body but a form has no fields, hence no content.
        if (media !== 'multipart/form-data' && media !== 'application/x-www-form-urlencoded') throw emptyFile();
      },
      until: responseEnded(reply.raw),
      read: async () => {
        continueReading(request, reply);
        let form: FormUpload;
        let requestedName: string;
        const pace = watchBodyPace(request.raw, settings);
        try {
          if (media === 'multipart/form-data') {
            form = await readMultipart(request, contentTypeOf(request)!, uploads, settings.maxSize, pace.signal);
            requestedName = form.fileName;
          } else {
            form = await readUrlEncoded(request, uploads, settings.maxSize, pace.signal);
            requestedName = `${form.fields.get('filename') ?? ''}.${form.fields.get('extension') || 'txt'}`;
          }
        } finally {
          pace.stop();
        }
        if (!form.received) throw emptyFile();
        const fromHeaders = headerOptions(request, requestedName);
        const options: UploadOptions = {
          ...fromHeaders,
          expiry: nonEmpty(form.fields.get('expires')) ?? fromHeaders.expiry,
          accessKey: nonEmpty(form.fields.get('access_key')) ?? fromHeaders.accessKey,
          randomize: isTruthy(form.fields.get('randomize')) || fromHeaders.randomize,
        };
        return { received: form.received, options };
      },
    });
    return respond(request, reply, result, 'POST');
  };

  for (const url of ['/upload', '/upload/']) {
    app.route({ method: 'PUT', url, handler: put });
    app.route({ method: 'POST', url, handler: post });
  }
  app.route({ method: 'PUT', url: '/upload/:name', handler: put });
  // POST /upload/resumable is tus (resumable.routes.ts); PUT keeps uploading a file of that name.
  app.route<{ Params: { name?: string } }>({
    method: 'PUT',
    url: '/upload/resumable',
    handler: (request, reply) => {
      request.params = { name: 'resumable' };
      return put(request, reply);
    },
  });
}
