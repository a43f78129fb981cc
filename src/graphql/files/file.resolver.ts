/** File sharing through GraphQL: upload (multipart request spec), information, delete. */
import { GraphQLError } from 'graphql';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { classifyError, NotFoundError, TooManyRequestsError } from '../../core/errors';
import type { UploadResult } from '../../files';
import { filesHeader, isServerPath, nonEmpty, responseEnded } from '../../core/files-headers';
import type { WriteCredentials } from '../../files';
import { publicBaseUrl } from '../../public-url';
import type { GraphQLContext } from '../context';
import { domainExtensions } from '../errors';
import { toGlobalId } from '../node/global-id';
import { GraphQLUpload, Upload } from '../uploads';
import { watchBodyPace } from '../../core/body-pace';
import { FileFacts, FileInfo, ResumableUpload, UploadedFile } from './file.types';
import { GraphQLSafeInt } from 'graphql-scalars';

/**
 * Domain errors become GraphQL errors carrying their HTTP status (413 for a too large upload, …).
 * TOO_MANY_REQUESTS stays the domain error: the status plugin (errors.ts) sets 429 and Retry-After.
 */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const known = classifyError(err);
    if (known instanceof TooManyRequestsError) throw known;
    if (known) throw new GraphQLError(known.message, { extensions: domainExtensions(known) });
    throw err;
  }
}

/**
 * What this request shows to write: the Files-Api-Key (or Linx-Api-Key) header, and whether the
 * viewer is logged in; the files domain judges them (FileWritesService.authorize), as for REST.
 */
function credentialsOf(ctx: GraphQLContext): WriteCredentials {
  const key = filesHeader(ctx.request.headers, 'api-key', ctx.services.files.settings.acceptLinxHeaders);
  return { apiKey: nonEmpty(key), loggedIn: ctx.actor.kind === 'user' };
}

function info<T extends FileFacts>(
  target: T,
  base: string,
  f: { filename: string; expiry: number; size: number; mimetype: string; sha256: string },
): T {
  target.url = `${base}/${f.filename}`;
  target.directUrl = `${base}/selif/${f.filename}`;
  target.filename = f.filename;
  target.expiresAt = f.expiry === 0 ? null : new Date(f.expiry * 1000);
  target.size = f.size;
  target.mimetype = f.mimetype;
  target.sha256sum = f.sha256;
  return target;
}

function presentUploaded(base: string, r: UploadResult): UploadedFile {
  const out = info(new UploadedFile(), base, r);
  out.deleteKey = r.deleteKey;
  out.file = presentInfo(base, r);
  return out;
}

function presentInfo(
  base: string,
  f: { filename: string; expiry: number; size: number; mimetype: string; sha256: string },
): FileInfo {
  const out = info(new FileInfo(), base, f);
  out.id = toGlobalId('FileInfo', f.filename);
  return out;
}

/**
 * A stored file as `file(filename:)` shows it (access key from the Files-Access-Key header); null when none or not
 * allowed.
 */
export async function fileNode(ctx: GraphQLContext, filename: string): Promise<FileInfo | null> {
  const { files, settings } = ctx.services.files;
  const found = await files.findLive(filename);
  if (!found) return null;
  try {
    await files.checkAccess(
      found,
      nonEmpty(filesHeader(ctx.request.headers, 'access-key', settings.acceptLinxHeaders)),
      ctx.request.ip,
    );
  } catch (err) {
    // A refused check (too many wrong keys) is the client's to wait out, not an absent file.
    if (classifyError(err) && !(err instanceof TooManyRequestsError)) return null;
    throw err;
  }
  return presentInfo(publicBaseUrl(ctx.request, settings.publicUrl), found);
}

interface UploadOptions {
  filename: string | null;
  randomize: boolean | null;
  deleteKey: string | null;
  expiresIn: number | null;
  accessKey: string | null;
}

/** One upload, as `PUT /upload` stores it. */
async function store(ctx: GraphQLContext, file: Upload, o: UploadOptions): Promise<UploadedFile> {
  return mapped(async () => {
    // Admitted before the file's bytes are read; the slot is freed when the response is over.
    const result = await ctx.services.files.writes.upload({
      credentials: credentialsOf(ctx),
      clientAddress: ctx.request.ip,
      until: responseEnded(ctx.reply.raw),
      read: async () => {
        const upload = await file.promise;
        // The body must keep its pace (body-pace.ts), as on PUT /upload: a stalled or crawling
        // request is ended with 408 and its slot freed (the multipart onSend hook closes it).
        const pace = watchBodyPace(ctx.request.raw, ctx.services.files.settings);
        let received;
        try {
          received = await ctx.services.files.uploads.receive(upload.createReadStream(), pace.signal);
        } finally {
          pace.stop();
        }
        const options = {
          requestedName: o.filename ?? upload.filename.slice(upload.filename.lastIndexOf('/') + 1),
          randomize: o.randomize === true,
          deleteKey: nonEmpty(o.deleteKey ?? undefined),
          accessKey: nonEmpty(o.accessKey ?? undefined),
          expiry: o.expiresIn === null ? undefined : String(o.expiresIn),
          isServerPath: (name: string) => isServerPath(ctx.request, name),
        };
        return { received, options };
      },
    });
    return presentUploaded(publicBaseUrl(ctx.request, ctx.services.files.settings.publicUrl), result);
  });
}

const RESUMABLE_PATH = '/upload/resumable/';

/** A resumable upload as GraphQL shows it; `file` once finished (fileNode's access rules). */
async function presentResumable(ctx: GraphQLContext, token: string): Promise<ResumableUpload> {
  const { resumable, settings } = ctx.services.files;
  const base = publicBaseUrl(ctx.request, settings.publicUrl);
  const state = await resumable.status(token);
  const out = new ResumableUpload();
  out.uploadUrl = `${base}${RESUMABLE_PATH}${token}`;
  out.offset = state.offset;
  out.length = state.length;
  out.expiresAt = state.finished ? null : state.expiresAt;
  const done = state.finished ? await resumable.result(token) : null;
  out.file = done ? await fileNode(ctx, done.filename) : null;
  return out;
}

/** The token of an upload URL (absolute, or its path); NotFound for anything else. */
function tokenOf(uploadUrl: string): string {
  let pathname: string;
  try {
    pathname = new URL(uploadUrl, 'http://x').pathname;
  } catch {
    throw new NotFoundError('Upload not found', 'UPLOAD_NOT_FOUND');
  }
  const token = pathname.startsWith(RESUMABLE_PATH) ? pathname.slice(RESUMABLE_PATH.length) : '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new NotFoundError('Upload not found', 'UPLOAD_NOT_FOUND');
  return token;
}

const DELETE_KEY =
  'Delete key to set; when the name is taken by a file with this key, that file is overwritten. Generated when absent.';
const EXPIRES_IN =
  'Seconds until the file expires; absent, 0 or above the server maximum → the maximum (never when unlimited).';
const ACCESS_KEY = 'Key required to read the file; absent or empty → readable by anyone.';
const RANDOMIZE = 'Replace the name (not its extension) with 8 random characters.';

@Resolver()
export class FileResolver {
  @Mutation(() => UploadedFile, {
    nullable: true,
    description:
      'Uploads a file sent with the GraphQL multipart request spec (send the header ' +
      '`Apollo-Require-Preflight: true`). Same rules as `PUT /upload`: ' +
      'the name is cleaned, a taken name gets a suffix unless `deleteKey` matches (then the file is ' +
      'overwritten). Null with an error when the file ' +
      'cannot be stored; other fields of the operation (another `uploadFile` alias, say) keep their ' +
      'results and the answer is 200. When nothing in ' +
      "the operation succeeded, `data` is null and the status is the error's: 400 empty file or bad " +
      'name, 401 API key required, 413 over the size limit, 507 INSUFFICIENT_STORAGE when the disk is full, ' +
      '429 TOO_MANY_REQUESTS (with `retryAfter`) when the client address used up its uploads ' +
      '(FILES_UPLOAD_RATE_LIMIT within FILES_UPLOAD_RATE_WINDOW) ' +
      'or the server receives too many uploads at once (FILES_MAX_CONCURRENT_UPLOADS). One file part may ' +
      "fill several variables (the spec's map).",
  })
  uploadFile(
    @Arg('file', () => GraphQLUpload, { description: 'The file (a multipart part mapped to this variable).' })
    file: Upload,
    @Arg('filename', () => String, {
      nullable: true,
      description: 'Requested name; defaults to the filename the part was sent with.',
    })
    filename: string | null,
    @Arg('randomize', () => Boolean, { nullable: true, description: RANDOMIZE }) randomize: boolean | null,
    @Arg('deleteKey', () => String, { nullable: true, description: DELETE_KEY }) deleteKey: string | null,
    @Arg('expiresIn', () => Int, { nullable: true, description: EXPIRES_IN }) expiresIn: number | null,
    @Arg('accessKey', () => String, { nullable: true, description: ACCESS_KEY }) accessKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<UploadedFile | null> {
    return store(ctx, file, { filename, randomize, deleteKey, expiresIn, accessKey });
  }

  @Mutation(() => ResumableUpload, {
    nullable: true,
    description:
      'Creates a resumable upload (tus, docs/files-api.md §4.9) of `length` bytes for the viewer (or the ' +
      'Files-Api-Key sent) and answers its upload URL, for a tus client (Uppy, tus-js-client) to send the ' +
      'bytes. Same options and rules as `uploadFile`; errors: 401 API key required, 413 over the size limit, ' +
      '400 empty, 429 TOO_MANY_REQUESTS.',
  })
  createResumableUpload(
    @Arg('length', () => GraphQLSafeInt, { description: 'The size of the file in bytes.' }) length: number,
    @Arg('filename', () => String, { nullable: true, description: 'Requested name.' }) filename: string | null,
    @Arg('randomize', () => Boolean, { nullable: true, description: RANDOMIZE }) randomize: boolean | null,
    @Arg('deleteKey', () => String, { nullable: true, description: DELETE_KEY }) deleteKey: string | null,
    @Arg('expiresIn', () => Int, { nullable: true, description: EXPIRES_IN }) expiresIn: number | null,
    @Arg('accessKey', () => String, { nullable: true, description: ACCESS_KEY }) accessKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ResumableUpload> {
    return mapped(async () => {
      const { token } = await ctx.services.files.resumable.create({
        credentials: credentialsOf(ctx),
        clientAddress: ctx.request.ip,
        length,
        metadata: '',
        options: {
          requestedName: filename ?? '',
          randomize: randomize === true,
          deleteKey: nonEmpty(deleteKey ?? undefined),
          accessKey: nonEmpty(accessKey ?? undefined),
          expiry: expiresIn === null ? undefined : String(expiresIn),
        },
      });
      return presentResumable(ctx, token);
    });
  }

  @Query(() => ResumableUpload, {
    nullable: true,
    description:
      'A resumable upload by its upload URL: bytes stored so far, and the stored file once finished. Null ' +
      'when there is no such upload (never created, terminated, or expired).',
  })
  async resumableUpload(
    @Arg('uploadUrl', () => String, {
      description: 'The URL `createResumableUpload` or `POST /upload/resumable` gave.',
    })
    uploadUrl: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ResumableUpload | null> {
    try {
      return await presentResumable(ctx, tokenOf(uploadUrl));
    } catch (err) {
      if (classifyError(err) instanceof NotFoundError) return null;
      throw err;
    }
  }

  @Mutation(() => [UploadedFile], {
    nullable: 'itemsAndList',
    description:
      'Uploads several files (a list variable, each element a multipart part), one after the other, each ' +
      "named by its part's filename; " +
      'the same rules and errors as `uploadFile`. A file that fails is null in the list with an error at ' +
      'its index; the others are stored and answered.',
  })
  async uploadFiles(
    @Arg('files', () => [GraphQLUpload], {
      description: 'The files (multipart parts mapped to `variables.files.0`, `variables.files.1`, …).',
    })
    files: Upload[],
    @Arg('randomize', () => Boolean, { nullable: true, description: RANDOMIZE }) randomize: boolean | null,
    @Arg('deleteKey', () => String, { nullable: true, description: DELETE_KEY }) deleteKey: string | null,
    @Arg('expiresIn', () => Int, { nullable: true, description: EXPIRES_IN }) expiresIn: number | null,
    @Arg('accessKey', () => String, { nullable: true, description: ACCESS_KEY }) accessKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<(UploadedFile | Error)[]> {
    const out: (UploadedFile | Error)[] = [];
    // In order: the parts arrive in order, and each upload reads its part to the end.
    for (const file of files) {
      out.push(
        await store(ctx, file, { filename: null, randomize, deleteKey, expiresIn, accessKey }).catch((err: unknown) =>
          err instanceof Error ? err : new Error(String(err)),
        ),
      );
    }
    // An error in place of an item is reported at its index, the item null (graphql-js and graphql-jit alike).
    return out;
  }

  @Query(() => FileInfo, {
    nullable: true,
    description:
      'Information about a stored file; null when there is none (or it expired). A protected file needs ' +
      'its access key.',
  })
  file(
    @Arg('filename', () => String, { description: 'The stored filename.' }) filename: string,
    @Arg('accessKey', () => String, {
      nullable: true,
      description: 'The access key of a protected file (else the Files-Access-Key header is used).',
    })
    accessKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<FileInfo | null> {
    return mapped(async () => {
      const { files, settings } = ctx.services.files;
      const found = await files.findLive(filename);
      if (!found) return null;
      await files.checkAccess(
        found,
        nonEmpty(accessKey ?? undefined) ??
          nonEmpty(filesHeader(ctx.request.headers, 'access-key', settings.acceptLinxHeaders)),
        ctx.request.ip,
      );
      return presentInfo(publicBaseUrl(ctx.request, settings.publicUrl), found);
    });
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description:
      'Deletes a file with its delete key: true when deleted, false when there is no such file. A wrong ' +
      'key is an UNAUTHENTICATED error.',
  })
  deleteFile(
    @Arg('filename', () => String, { description: 'The stored filename.' }) filename: string,
    @Arg('deleteKey', () => String, { description: 'The delete key returned by the upload.' }) deleteKey: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    return mapped(async () => {
      await ctx.services.files.writes.authorize(credentialsOf(ctx));
      try {
        await ctx.services.files.files.delete(filename, nonEmpty(deleteKey), ctx.request.ip);
        return true;
      } catch (err) {
        if (err instanceof NotFoundError) return false;
        throw err;
      }
    });
  }
}
