/**
 * Resumable uploads (docs/files-api.md §4.9): tus 1.0.0 with the creation, creation-with-upload,
 * termination, expiration and checksum (sha256) extensions at POST /upload/resumable; the upload
 * URLs are /upload/resumable/<token>. Thin: the files domain (ResumableService) holds the rules and
 * commits the finished file through the code path of PUT /upload.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, classifyError, ValidationError } from '../../core/errors';
import { responseEnded } from '../../core/files-headers';
import type { ResumableOptions, ResumableState, UploadResult } from '../../files';
import { prefersJson } from './accept';
import { watchBodyPace } from '../../core/body-pace';
import { credentialsOf, FilesRouteContext, mediaTypeOf } from './context';
import { handleFilesError, JSON_TYPE, sendError, TEXT_TYPE } from './errors';
import { continueReading } from './expect-continue';
import { baseUrl, filesHeader, isServerPath, isTruthy, nonEmpty } from './http';
import { presentUpload } from './presenter';

const TUS_VERSION = '1.0.0';
const EXTENSIONS = 'creation,creation-with-upload,termination,expiration,checksum';
const OFFSET_TYPE = 'application/offset+octet-stream';

/** The tus statuses of the domain's refusals (§4.9). */
const TUS_ERRORS: Record<string, [number, string]> = {
  UPLOAD_OFFSET_MISMATCH: [409, 'Upload-Offset does not match the stored offset'],
  UPLOAD_LOCKED: [423, 'Upload locked by another request'],
  UPLOAD_EXPIRED: [410, 'Upload expired'],
  UPLOAD_NOT_FOUND: [404, 'Not found'],
  UPLOAD_INCOMPLETE: [409, 'Upload not complete'],
  CHECKSUM_MISMATCH: [460, 'Checksum mismatch'],
  UNSUPPORTED_VERSION: [412, 'Precondition failed'],
  BAD_CONTENT_TYPE: [415, 'Unsupported media type'],
};

function tusError(reason: string): ValidationError {
  return new ValidationError(TUS_ERRORS[reason]![1], reason);
}

function handleTusError(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const known = classifyError(err);
  const mapped = known instanceof AppError && known.reason ? TUS_ERRORS[known.reason] : undefined;
  if (!mapped || reply.raw.headersSent) return handleFilesError(err, request, reply);
  if (mapped[0] === 412) reply.header('tus-version', TUS_VERSION);
  return sendError(request, reply, mapped[0], mapped[1]);
}

/** A non-negative decimal header (Upload-Length, Upload-Offset); undefined when absent, 400 when malformed. */
function count(request: FastifyRequest, name: string): number | undefined {
  const raw = request.headers[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw)) throw new ValidationError('Bad request', 'BAD_REQUEST');
  return Number(raw);
}

/** The tus `filename` of Upload-Metadata (`key base64,key base64`); '' when none. 400 when malformed. */
function metadataFilename(metadata: string): string {
  if (metadata.trim() === '') return '';
  for (const pair of metadata.split(',')) {
    const [key, value, extra] = pair.trim().split(' ');
    if (!key || extra !== undefined || (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)))
      throw new ValidationError('Bad request', 'BAD_REQUEST');
    if (key === 'filename') return Buffer.from(value ?? '', 'base64').toString('utf8');
  }
  return '';
}

/** Upload-Checksum: `sha256 <base64>` only (Tus-Checksum-Algorithm). */
function checksumOf(request: FastifyRequest): Buffer | undefined {
  const raw = request.headers['upload-checksum'];
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? /^\s*(\S+)\s+([A-Za-z0-9+/]+={0,2})\s*$/.exec(raw) : null;
  if (!m || m[1]!.toLowerCase() !== 'sha256') throw new ValidationError('Bad request', 'BAD_REQUEST');
  const digest = Buffer.from(m[2]!, 'base64');
  if (digest.length !== 32) throw new ValidationError('Bad request', 'BAD_REQUEST');
  return digest;
}

function stateHeaders(reply: FastifyReply, state: ResumableState): void {
  reply.header('upload-offset', String(state.offset));
  if (!state.finished) reply.header('upload-expires', state.expiresAt.toUTCString());
}

export function resumableRoutes(app: FastifyInstance, ctx: FilesRouteContext): void {
  const { resumable } = ctx.services.files;
  const settings = ctx.services.files.settings;
  const linx = settings.acceptLinxHeaders;
  const uploadUrl = (request: FastifyRequest, token: string) =>
    `${baseUrl(request, ctx.config)}/upload/resumable/${token}`;

  const tusOptions = (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(204)
      .header('tus-resumable', TUS_VERSION)
      .header('tus-version', TUS_VERSION)
      .header('tus-extension', EXTENSIONS)
      .header('tus-max-size', String(settings.maxSize))
      .header('tus-checksum-algorithm', 'sha256')
      .send();

  // Every tus response but OPTIONS names the protocol; requests must speak its version.
  const speaksTus = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('tus-resumable', TUS_VERSION);
    if (request.headers['tus-resumable'] !== TUS_VERSION) throw tusError('UNSUPPORTED_VERSION');
  };

  /** Appends the request body; the door's part: Expect, the body's pace, the server's own paths. */
  const append = async (request: FastifyRequest, reply: FastifyReply, token: string, offset: number) => {
    const declared = request.headers['content-length'];
    continueReading(request, reply);
    const pace = watchBodyPace(request.raw, settings);
    try {
      return await resumable.append({
        token,
        offset,
        declaredSize: declared === undefined ? undefined : Number(declared),
        clientAddress: request.ip,
        until: responseEnded(reply.raw),
        body: request.raw,
        signal: pace.signal,
        checksum: checksumOf(request),
        isServerPath: (name) => isServerPath(request, name),
      });
    } finally {
      pace.stop();
    }
  };

  const hasBody = (request: FastifyRequest) =>
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

  const create = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers['upload-defer-length'] !== undefined) throw new ValidationError('Bad request', 'BAD_REQUEST');
    const length = count(request, 'upload-length');
    if (length === undefined) throw new ValidationError('Bad request', 'BAD_REQUEST');
    const metadata = typeof request.headers['upload-metadata'] === 'string' ? request.headers['upload-metadata'] : '';
    const withBody = hasBody(request);
    if (withBody && mediaTypeOf(request) !== OFFSET_TYPE) throw tusError('BAD_CONTENT_TYPE');
    const options: ResumableOptions = {
      requestedName: metadataFilename(metadata),
      randomize: isTruthy(filesHeader(request.headers, 'randomize', linx)),
      deleteKey: nonEmpty(filesHeader(request.headers, 'delete-key', linx)),
      accessKey: nonEmpty(filesHeader(request.headers, 'access-key', linx)),
      expiry: filesHeader(request.headers, 'expiry', linx),
    };
    const { token, state } = await resumable.create({
      credentials: credentialsOf(ctx, request),
      clientAddress: request.ip,
      length,
      metadata,
      options,
    });
    reply.header('location', uploadUrl(request, token)).header('upload-expires', state.expiresAt.toUTCString());
    if (withBody) stateHeaders(reply, (await append(request, reply, token, 0)).state);
    return reply.code(201).send();
  };

  const head = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    const state = await resumable.status(request.params.token);
    stateHeaders(reply, state);
    reply.header('upload-length', String(state.length)).header('cache-control', 'no-store');
    if (state.metadata) reply.header('upload-metadata', state.metadata);
    return reply.code(200).send();
  };

  const patch = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    if (mediaTypeOf(request) !== OFFSET_TYPE) throw tusError('BAD_CONTENT_TYPE');
    const offset = count(request, 'upload-offset');
    if (offset === undefined) throw new ValidationError('Bad request', 'BAD_REQUEST');
    const { state } = await append(request, reply, request.params.token, offset);
    stateHeaders(reply, state);
    return reply.code(204).send();
  };

  const terminate = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    await resumable.terminate(request.params.token);
    return reply.code(204).send();
  };

  /** The finished upload answers as the PUT /upload of the same bytes would have (§4.8). */
  const result = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    reply.header('tus-resumable', TUS_VERSION).header('cache-control', 'no-store');
    const done: UploadResult | null = await resumable.result(request.params.token);
    if (!done) throw tusError('UPLOAD_INCOMPLETE');
    const base = baseUrl(request, ctx.config);
    if (prefersJson(request.headers.accept)) return reply.code(200).type(JSON_TYPE).send(presentUpload(base, done));
    return reply.code(200).type(TEXT_TYPE).send(`${base}/${done.filename}\n`);
  };

  const tus = { onRequest: speaksTus, errorHandler: handleTusError };
  for (const url of ['/upload/resumable', '/upload/resumable/:token']) {
    app.route({ method: 'OPTIONS', url, handler: tusOptions });
  }
  app.route({ method: 'POST', url: '/upload/resumable', ...tus, handler: create });
  app.route({ method: 'HEAD', url: '/upload/resumable/:token', ...tus, handler: head });
  app.route({ method: 'PATCH', url: '/upload/resumable/:token', ...tus, handler: patch });
  app.route({ method: 'DELETE', url: '/upload/resumable/:token', ...tus, handler: terminate });
  app.route({
    method: 'GET',
    url: '/upload/resumable/:token',
    exposeHeadRoute: false,
    errorHandler: handleTusError,
    handler: result,
  });
}
