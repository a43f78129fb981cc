/**
 * Reads and deletes (docs/files-api.md): information (§7) and raw files (§8) with access keys (§9),
 * and DELETE (§6).
 * `/{filename}` answers information when JSON is preferred, otherwise the file itself.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../../core/errors';
import type { StoredFile } from '../../files';
import { fileNotFound } from '../../files/file.service';
import { ObjectGoneError, ObjectReader } from '../../storage';
import { prefersJson } from './accept';
import { evaluateConditionals, ifRangeAllows, parseRange, Validators } from './conditional';
import { credentialsOf, FilesRouteContext, mediaTypeOf } from './context';
import { JSON_TYPE, sendError, TEXT_TYPE } from './errors';
import { readSmallUrlEncoded } from './forms';
import { baseUrl, filesHeader, nonEmpty, parseCookies } from './http';
import { presentInfo } from './presenter';

/** §8.1: raw files may be viewed, never run script in the site's origin. */
export const RAW_CSP =
  "default-src 'none'; img-src 'self'; object-src 'self'; media-src 'self'; style-src 'self' " +
  "'unsafe-inline'; frame-ancestors 'self'; sandbox";

const COOKIE = 'Files-Access-Key';
const COOKIE_EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT';

type Source = 'cookie' | 'header' | 'body' | 'query';
type Params = { filename: string };
type Req = FastifyRequest<{ Params: Params; Querystring: Record<string, string | string[] | undefined> }>;

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function readRoutes(app: FastifyInstance, ctx: FilesRouteContext): void {
  const { files } = ctx.services.files;
  const settings = ctx.services.files.settings;
  const linx = settings.acceptLinxHeaders;

  /** The access key of a request, looked up once (the body can be read only once). */
  const accessKeys = new WeakMap<object, Promise<{ key?: string; source?: Source }>>();
  const accessKeyOf = (request: Req): Promise<{ key?: string; source?: Source }> => {
    let found = accessKeys.get(request.raw);
    if (!found) {
      found = findAccessKey(request);
      accessKeys.set(request.raw, found);
    }
    return found;
  };

  /** §9: the first non-empty of cookie, header, url-encoded body field, query parameter. */
  const findAccessKey = async (request: Req): Promise<{ key?: string; source?: Source }> => {
    const cookies = parseCookies(request.headers.cookie);
    const cookie = cookies.has(COOKIE) || !linx ? cookies.get(COOKIE) : cookies.get('Linx-Access-Key');
    if (cookie) return { key: cookie, source: 'cookie' };
    const header = nonEmpty(filesHeader(request.headers, 'access-key', linx));
    if (header) return { key: header, source: 'header' };
    if (mediaTypeOf(request) === 'application/x-www-form-urlencoded') {
      const field = nonEmpty((await readSmallUrlEncoded(request))?.get('access_key'));
      if (field) return { key: field, source: 'body' };
    }
    const query = nonEmpty(first(request.query.access_key));
    if (query) return { key: query, source: 'query' };
    return {};
  };

  const cookieHeaders = (name: string, value: string, extra: string): string[] =>
    [`/${name}`, `/selif/${name}`].map((p) => `${COOKIE}=${value}; Path=${p}${extra}`);

  /**
   * The live file, its access key checked. On a wrong cookie the 401 clears it; a key from the
   * header, body or query read through `/{filename}` is remembered in a cookie.
   */
  const authorize = async (
    request: Req,
    reply: FastifyReply,
    setCookie: boolean,
    willOpen = false,
  ): Promise<StoredFile | undefined> => {
    const name = request.params.filename;
    const file = await files.findLive(name, { willOpen });
    if (!file) throw fileNotFound();
    if (file.accessKeyHash === null) return file;
    const { key, source } = await accessKeyOf(request);
    try {
      await files.checkAccess(file, key, request.ip);
    } catch (err) {
      if (err instanceof UnauthenticatedError && source === 'cookie') {
        reply.header('set-cookie', cookieHeaders(name, '', `; Expires=${COOKIE_EPOCH}; HttpOnly`));
      }
      throw err;
    }
    if (setCookie && source !== 'cookie') {
      const maxAge = settings.accessCookieExpiry > 0 ? `; Max-Age=${settings.accessCookieExpiry}` : '';
      reply.header('set-cookie', cookieHeaders(name, encodeURIComponent(key!), `${maxAge}; HttpOnly`));
    }
    return file;
  };

  const cacheControl = (file: StoredFile) => (file.accessKeyHash === null ? 'public, no-cache' : 'private, no-cache');

  const info = async (request: Req, reply: FastifyReply) => {
    const file = (await authorize(request, reply, true))!;
    reply.header('cache-control', cacheControl(file));
    return reply
      .code(200)
      .type(JSON_TYPE)
      .send(presentInfo(baseUrl(request, ctx.config), file));
  };

  const raw = async (request: Req, reply: FastifyReply, setCookie: boolean) => {
    const h = request.headers;
    // A concurrent overwrite may remove the bytes between lookup and open: look again.
    // A plain GET always opens the bytes, which checks a cached entry against the disk (see findLive);
    // HEAD and conditional or range requests may answer without opening them.
    const conditional = h['if-match'] || h['if-none-match'] || h['if-modified-since'] || h['if-unmodified-since'];
    const willOpen = request.method === 'GET' && !h.range && !conditional;
    for (let attempt = 0; ; attempt++) {
      const file = (await authorize(request, reply, setCookie, willOpen))!;
      const v: Validators = {
        etag: `"${file.sha256}"`,
        lastModifiedSec: Math.floor(new Date(file.committedAt).getTime() / 1000),
      };
      const outcome = evaluateConditionals(
        {
          ifMatch: first(h['if-match']),
          ifUnmodifiedSince: first(h['if-unmodified-since']),
          ifNoneMatch: first(h['if-none-match']),
          ifModifiedSince: first(h['if-modified-since']),
        },
        v,
      );
      if (outcome === 'precondition-failed') return sendError(request, reply, 412, 'Precondition failed');
      let range = parseRange(first(h.range), file.size);
      if (range.kind !== 'full' && !ifRangeAllows(first(h['if-range']), v)) range = { kind: 'full' };
      if (range.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${file.size}`);
        return sendError(request, reply, 416, 'Range not satisfiable');
      }
      reply.header('etag', v.etag);
      reply.header('last-modified', new Date(v.lastModifiedSec * 1000).toUTCString());
      reply.header('cache-control', cacheControl(file));
      reply.header('content-security-policy', RAW_CSP);
      if (outcome === 'not-modified') return reply.code(304).send();

      const start = range.kind === 'partial' ? range.start : 0;
      const end = range.kind === 'partial' ? range.end : file.size - 1;
      let body: Readable | Buffer | undefined;
      if (request.method !== 'HEAD') {
        try {
          body = await files.openContent(file, range.kind === 'partial' ? { start, end } : undefined);
        } catch (err) {
          if (err instanceof ObjectGoneError && attempt < 5) continue;
          throw err;
        }
      }
      reply.header('content-type', file.mimetype);
      reply.header('accept-ranges', 'bytes');
      reply.header('content-length', String(end - start + 1));
      if (range.kind === 'partial') reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`);
      else reply.code(200);
      if (body instanceof ObjectReader) return sendObject(request, reply, body);
      return reply.send(body);
    }
  };

  const vary = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'Accept');
  };

  /**
   * A disk object written straight to the response (ObjectReader.sendTo: reused buffers, one read
   * ahead) instead of piped through Fastify's stream path. The reply is taken over after every
   * header was set, so the response carries exactly what reply.send would have sent (these routes
   * have no onSend hooks); onResponse hooks still run when the response finishes.
   */
  const sendObject = (request: Req, reply: FastifyReply, body: ObjectReader) => {
    const res = reply.raw;
    reply.hijack();
    res.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
    body.sendTo(res).then(
      () => res.end(),
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE')
          request.log.warn({ err }, 'download failed after its headers were sent');
        res.destroy();
      },
    );
    return reply;
  };

  app.route<{ Params: Params }>({
    method: ['GET', 'HEAD'],
    url: '/:filename',
    exposeHeadRoute: false,
    onRequest: vary,
    handler: (request, reply) =>
      prefersJson(request.headers.accept) ? info(request as Req, reply) : raw(request as Req, reply, true),
  });

  app.route<{ Params: Params }>({
    method: ['GET', 'HEAD'],
    url: '/selif/:filename',
    exposeHeadRoute: false,
    handler: (request, reply) => raw(request as Req, reply, false),
  });

  app.route<{ Params: Params }>({
    method: 'DELETE',
    url: '/:filename',
    onRequest: vary,
    handler: async (request, reply) => {
      await ctx.services.files.writes.authorize(credentialsOf(ctx, request));
      const key = nonEmpty(filesHeader(request.headers, 'delete-key', linx));
      await files.delete(request.params.filename, key, request.ip);
      return reply.code(200).type(TEXT_TYPE).send('DELETED');
    },
  });
}
