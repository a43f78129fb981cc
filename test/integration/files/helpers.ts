/**
 * HTTP helpers for the Files-* integration tests: raw requests with full control over headers, and
 * reads of what a server stored. Stored files are made by test/helpers/factories (Factory.upload).
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import { startTestServer, TestServer } from '../../helpers/server';

export const BACKENDS = ['disk', 'gridfs'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = Record<string, string>>(): T;
}

export interface ReqOptions {
  headers?: Record<string, string | string[]>;
  body?: string | Buffer | Readable;
  /** Per-request agent (default: a fresh connection each time). */
  agent?: http.Agent | false;
}

/** A response read to its end. */
export function readResponse(res: http.IncomingMessage): Promise<Res> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const body = Buffer.concat(chunks);
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        body,
        text: body.toString('utf8'),
        json: () => JSON.parse(body.toString('utf8')),
      });
    });
    res.on('error', reject);
  });
}

/** One request over node:http (no headers added beyond Host and, for bodies, Content-Length). */
export function request(base: string, method: string, path: string, opts: ReqOptions = {}): Promise<Res> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[] | number> = { ...(opts.headers ?? {}) };
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
      if (
        !Object.keys(headers).some(
          (h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding',
        )
      ) {
        headers['content-length'] = Buffer.byteLength(opts.body);
      }
    }
    const req = http.request(
      {
        method,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        headers,
        agent: opts.agent ?? false,
      },
      (res) => readResponse(res).then(resolve, reject),
    );
    req.on('error', reject);
    const b = opts.body;
    if (b === undefined) req.end();
    else if (typeof b === 'string' || Buffer.isBuffer(b)) req.end(b);
    else b.pipe(req);
  });
}

export const JSON_ACCEPT = { accept: 'application/json' };
export const TEST_CONTENT = 'This is my test content';
export const TEST_SHA = '966152d20a77e739716a625373ee15af16e8f4aec631a329a27da41c204b0171';

/** A client bound to one server. */
export function client(s: TestServer) {
  return {
    get: (path: string, headers: Record<string, string | string[]> = {}) => request(s.url, 'GET', path, { headers }),
    head: (path: string, headers: Record<string, string | string[]> = {}) => request(s.url, 'HEAD', path, { headers }),
    put: (path: string, body: string | Buffer | Readable, headers: Record<string, string | string[]> = {}) =>
      request(s.url, 'PUT', path, { headers, body }),
    post: (path: string, body: string | Buffer | Readable, headers: Record<string, string | string[]> = {}) =>
      request(s.url, 'POST', path, { headers, body }),
    del: (path: string, headers: Record<string, string | string[]> = {}) => request(s.url, 'DELETE', path, { headers }),
    req: (method: string, path: string, opts: ReqOptions = {}) => request(s.url, method, path, opts),
  };
}

/** Starts a server on one backend. */
export function startFor(backend: Backend, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ FILES_STORAGE: backend, ...env });
}

/** The metadata documents of a server's database. */
export async function metadata(s: TestServer): Promise<Record<string, unknown>[]> {
  return s.agora.db.conn.collection('files').find({}).toArray();
}

/** How many live byte objects the store holds (committed, not released), and temporary ones. */
export async function storeCounts(s: TestServer): Promise<{ objects: number; temporary: number }> {
  if (s.config.files.storage === 'gridfs') {
    const db = s.agora.db.conn;
    // Released objects wait out the grace period before removal; they are not live.
    const objects =
      (await db.collection('filedata.files').countDocuments()) -
      (await db.collection('filedata.released').countDocuments());
    const chunkIds = await db.collection('filedata.chunks').distinct('files_id');
    const fileIds = new Set(
      (
        await db
          .collection('filedata.files')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => String(d._id)),
    );
    const pending = await db.collection('filedata.pending').countDocuments();
    return { objects, temporary: pending + chunkIds.filter((id) => !fileIds.has(String(id))).length };
  }
  const fs = await import('node:fs');
  const path = await import('node:path');
  const root = path.join(s.config.dataDir, 'files');
  const tmp = fs.existsSync(path.join(root, 'tmp')) ? fs.readdirSync(path.join(root, 'tmp')).length : 0;
  let objects = 0;
  const objDir = path.join(root, 'objects');
  if (fs.existsSync(objDir))
    for (const d of fs.readdirSync(objDir)) objects += fs.readdirSync(path.join(objDir, d)).length;
  return { objects, temporary: tmp };
}

/** Waits until `check` passes (polling), for effects that finish after the response. */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() - start > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
