/**
 * The GraphQL multipart request spec on busboy, for `/graphql`: a content-type parser that leaves
 * the stream alone, a preHandler that reads `operations` and `map` (in that order) and puts Upload
 * values into the variables, and an onSend hook that drains every file no resolver consumed before
 * the response goes out (so the connection stays usable). Limits answer 413, order and shape
 * errors 400, a client that goes away mid-upload 499.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import busboy from 'busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lingerAfterAnswer } from '../../core/lingering-close';
import { ClientClosedRequestError, PayloadTooLargeError, ValidationError } from '../../core/errors';
import { applyMap, MapError } from './map';
import type { Upload } from './upload';

export interface MultipartLimits {
  /** Largest file, bytes. */
  maxFileSize: number;
  /** Most files in one request. */
  maxFiles: number;
  /** Largest `operations` / `map` field, bytes. */
  maxFieldSize: number;
}

class RequestError extends Error {
  constructor(
    readonly status: 400 | 413 | 499,
    message: string,
  ) {
    super(message);
  }
}

const CODES = { 400: 'BAD_REQUEST', 413: 'PAYLOAD_TOO_LARGE', 499: 'CLIENT_CLOSED_REQUEST' } as const;

/** One multipart request in progress. */
class MultipartState {
  /** Files handed to uploads: the busboy stream and the stream the resolver reads. */
  readonly delivered: {
    source: NodeJS.ReadableStream & { resume(): unknown; unpipe(d?: NodeJS.WritableStream): unknown };
    target: PassThrough;
  }[] = [];
  uploads = new Map<string, Upload>();
  /** File fields whose part arrived (a second part with the same name is ignored). */
  readonly received = new Set<string>();
  /** Temporary copies of files that fill several places; removed when the response is over. */
  readonly spools: string[] = [];
  responding = false;
  limitHit = false;
  aborted = false;
  ended = false;
  readonly done: Promise<void>;
  private markDone!: () => void;

  constructor(readonly bb: busboy.Busboy) {
    this.done = new Promise((resolve) => (this.markDone = resolve));
  }

  end(): void {
    this.ended = true;
    this.markDone();
  }

  /** Lets every file no resolver is reading flow to nowhere, so the request can end. */
  drain(): void {
    for (const { source, target } of this.delivered) {
      source.unpipe(target);
      source.resume();
      if (!target.readableEnded) target.destroy();
    }
  }

  removeSpools(): void {
    for (const file of this.spools.splice(0)) fs.rm(file, { force: true }, () => {});
  }

  /** Fails every upload not yet delivered, and every delivered stream still open. */
  failAll(err: Error): void {
    for (const upload of this.uploads.values()) if (!upload.file) upload.reject(err);
    for (const { target } of this.delivered) if (!target.readableEnded) target.destroy(err);
  }
}

const states = new WeakMap<object, MultipartState>();

function isMultipart(request: FastifyRequest): boolean {
  return /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');
}

/** Apollo's CSRF prevention needs one of these on a multipart request; without it, Apollo refuses. */
function hasPreflightHeader(request: FastifyRequest): boolean {
  return Boolean(request.headers['apollo-require-preflight'] || request.headers['x-apollo-operation-name']);
}

function parse(request: FastifyRequest, limits: MultipartLimits): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        // busboy flags a file as over the limit once it *reaches* fileSize: allow exactly maxFileSize.
        limits: {
          fieldSize: limits.maxFieldSize,
          fields: 2,
          fileSize: limits.maxFileSize + 1,
          files: limits.maxFiles,
          parts: limits.maxFiles + 2,
        },
      });
    } catch {
      reject(new RequestError(400, 'Invalid multipart request: missing or malformed boundary'));
      return;
    }
    const state = new MultipartState(bb);
    states.set(request.raw, state);
    let operations: unknown;
    let mapped = false;
    let settled = false;

    /** Before `map` was read: refuse the request. After: fail the uploads it concerns. */
    const fail = (err: RequestError) => {
      if (!settled) {
        settled = true;
        request.raw.unpipe(bb);
        state.aborted = err.status === 499;
        reject(err);
        return;
      }
      if (err.status === 413) state.limitHit = true;
      const domain =
        err.status === 413
          ? new PayloadTooLargeError(err.message, 'UPLOAD_LIMIT')
          : err.status === 499
            ? new ClientClosedRequestError(err.message, 'CLIENT_CLOSED')
            : new ValidationError(err.message, 'BAD_MULTIPART');
      state.failAll(domain);
    };

    bb.on('field', (name, value, info) => {
      if (mapped) return;
      if (info.valueTruncated)
        return fail(
          new RequestError(
            413,
            `The '${name}' multipart field value exceeds the ${limits.maxFieldSize} byte size limit.`,
          ),
        );
      if (name === 'operations' && operations === undefined) {
        try {
          operations = JSON.parse(value);
        } catch {
          return fail(new RequestError(400, "Invalid JSON in the 'operations' multipart field."));
        }
        if (operations === null || typeof operations !== 'object')
          return fail(new RequestError(400, "Invalid type for the 'operations' multipart field."));
        return;
      }
      if (name === 'map' && operations !== undefined) {
        let map: unknown;
        try {
          map = JSON.parse(value);
        } catch {
          return fail(new RequestError(400, "Invalid JSON in the 'map' multipart field."));
        }
        try {
          state.uploads = applyMap(operations, map, limits.maxFiles);
        } catch (err) {
          if (err instanceof MapError) return fail(new RequestError(err.status, err.message));
          throw err;
        }
        mapped = true;
        settled = true;
        resolve(operations);
        return;
      }
      fail(
        new RequestError(
          400,
          operations === undefined
            ? "Misordered multipart fields: expected 'operations' first."
            : "Misordered multipart fields: expected 'map' second.",
        ),
      );
    });

    bb.on('file', (name, stream, info) => {
      // A malformed body also errors the part in progress; the busboy 'error' handler answers it.
      stream.on('error', () => {});
      const upload = state.uploads.get(name);
      if (!mapped || !upload || state.received.has(name) || state.responding) {
        stream.resume();
        if (!mapped)
          fail(new RequestError(400, "Misordered multipart fields: files must follow 'operations' and 'map'."));
        return;
      }
      state.received.add(name);
      if (upload.uses > 1) return spool(state, stream, upload, info, limits);
      const target = new PassThrough();
      // The error may come before a resolver reads the stream; the reader still sees it (errored state).
      target.on('error', () => {});
      stream.on('limit', () => {
        state.limitHit = true;
        stream.unpipe(target);
        stream.resume();
        target.destroy(
          new PayloadTooLargeError(
            `File truncated as it exceeds the ${limits.maxFileSize} byte size limit.`,
            'FILE_TOO_LARGE',
          ),
        );
      });
      stream.on('error', (err: Error) => target.destroy(err));
      stream.pipe(target);
      state.delivered.push({ source: stream, target });
      let opened = false;
      upload.resolve({
        filename: info.filename ?? '',
        mimetype: info.mimeType,
        encoding: info.encoding,
        createReadStream() {
          // One variable used by two fields: the bytes stream once. The client's mistake, said as one.
          if (opened)
            throw new ValidationError(
              'This upload is already read by another field: map the file to one variable per field',
              'UPLOAD_ALREADY_READ',
            );
          opened = true;
          return target;
        },
      });
    });

    bb.on('filesLimit', () => fail(new RequestError(413, `${limits.maxFiles} max file uploads exceeded.`)));
    bb.on('partsLimit', () => fail(new RequestError(413, `${limits.maxFiles + 2} max multipart parts exceeded.`)));
    bb.on('error', () => fail(new RequestError(400, 'Invalid multipart request: malformed body.')));
    bb.on('close', () => {
      if (!mapped) fail(new RequestError(400, "Missing multipart field: expected 'operations' and 'map'."));
      // A part still being spooled (several places) settles itself when its copy is written.
      else
        for (const [name, upload] of state.uploads)
          if (!upload.file && !state.received.has(name))
            upload.reject(new ValidationError('File missing in the request.', 'UPLOAD_MISSING'));
      state.end();
    });
    request.raw.on('close', () => {
      if (request.raw.complete || state.ended) return;
      fail(new RequestError(499, 'The client closed the request before the upload completed.'));
      state.end();
    });
    request.raw.pipe(bb);
  });
}

/**
 * A file that fills several places of the operation: written to a temporary file as it arrives,
 * then offered to each place (one read stream per call). The resolvers may run one after the other
 * (mutations do), so one stream split between them would stall on the first reader's back-pressure.
 */
function spool(
  state: MultipartState,
  stream: NodeJS.ReadableStream & { resume(): unknown; unpipe(d?: NodeJS.WritableStream): unknown },
  upload: Upload,
  info: busboy.FileInfo,
  limits: MultipartLimits,
): void {
  const file = path.join(os.tmpdir(), `agora-upload-${crypto.randomUUID()}`);
  state.spools.push(file);
  const out = fs.createWriteStream(file, { mode: 0o600 });
  let failed: Error | undefined;
  stream.on('limit', () => {
    state.limitHit = true;
    failed = new PayloadTooLargeError(
      `File truncated as it exceeds the ${limits.maxFileSize} byte size limit.`,
      'FILE_TOO_LARGE',
    );
    stream.unpipe(out);
    stream.resume();
    out.end();
  });
  stream.on('error', (err: Error) => {
    failed ??= err;
    out.end();
  });
  out.on('error', (err) => upload.reject(err));
  out.on('close', () => {
    if (failed) return upload.reject(failed);
    upload.resolve({
      filename: info.filename ?? '',
      mimetype: info.mimeType,
      encoding: info.encoding,
      createReadStream: () => fs.createReadStream(file),
    });
  });
  stream.pipe(out);
}

export interface GraphQLMultipart {
  preHandler(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown>;
}

/**
 * Registers the multipart/form-data parser on `app` (it reads nothing) and returns the hooks for
 * the `/graphql` route.
 */
export function graphqlMultipart(app: FastifyInstance, limits: MultipartLimits): GraphQLMultipart {
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
  return {
    async preHandler(request, reply) {
      if (request.method !== 'POST' || !isMultipart(request) || !hasPreflightHeader(request)) return;
      try {
        request.body = await parse(request, limits);
        // The temporary copies outlive every resolver: removed once the response is over.
        reply.raw.once('close', () => states.get(request.raw)?.removeSpools());
      } catch (err) {
        if (!(err instanceof RequestError)) throw err;
        // The request was refused as a whole: nothing is left to drain for onSend.
        states.delete(request.raw);
        if (err.status === 499) {
          request.raw.destroy();
          return reply.code(499).send();
        }
        if (!request.raw.complete) {
          reply.header('connection', 'close');
          // The client is still sending the body: read and drop what it sends after the answer, so
          // the answer reaches it instead of a reset (as the files door does). Not for 413: a body
          // over a limit is not read a byte further.
          if (err.status !== 413) lingerAfterAnswer(request.raw);
        }
        const body = { errors: [{ message: err.message, extensions: { code: CODES[err.status] } }] };
        return reply.code(err.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
      }
    },
    async onSend(request, reply, payload) {
      const state = states.get(request.raw);
      if (!state || state.responding) return payload;
      state.responding = true;
      if (state.aborted || state.ended) return payload;
      if (state.limitHit || reply.statusCode === 413 || reply.statusCode === 429 || reply.statusCode === 408) {
        // Do not read the rest of an oversized, refused (rate-limited) or too slow upload: answer and close.
        request.raw.unpipe(state.bb);
        reply.header('connection', 'close');
        return payload;
      }
      state.drain();
      await state.done;
      return payload;
    },
  };
}
