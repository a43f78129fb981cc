/**
 * POST upload bodies (docs/files-api.md §4.2): multipart/form-data through busboy, and
 * application/x-www-form-urlencoded pastes through a streaming decoder. In both, the file (the
 * `file` part or the `content` field) streams straight into the upload service; other fields are
 * small (≤ 64 KiB) and collected.
 */
import { finished, Readable } from 'node:stream';
import busboy from 'busboy';
import type { FastifyRequest } from 'fastify';
import type { ReceivedUpload } from '../../files';
import type { UploadService } from '../../files/upload.service';
import { fileTooLarge } from '../../files/receive';
import { badRequest, clientClosed, FIELD_LIMIT, MAX_FIELDS, MAX_KEY, UrlEncodedDecoder } from './urlencoded';

export { badRequest, FIELD_LIMIT, UrlEncodedDecoder } from './urlencoded';

/** Multipart framing and ignored parts beyond the file may add this much to a body. */
const MULTIPART_OVERHEAD = 16 * 1024 * 1024;

export interface FormUpload {
  /** The received file; undefined when the form had none. */
  received?: ReceivedUpload;
  /** Requested name from the file part's `filename`, everything up to the last `/` removed. */
  fileName: string;
  /** Fields by name (first occurrence), UTF-8. */
  fields: Map<string, string>;
}

/**
 * Shared bookkeeping of one form: the first failure wins, a file received after a failure is
 * discarded, and the result waits for the file to be completely received.
 */
class FormRun {
  readonly form: FormUpload = { fileName: '', fields: new Map() };
  private receiving: Promise<void> | undefined;
  private fileSource: Readable | undefined;
  private done = false;

  constructor(
    private readonly request: FastifyRequest,
    private readonly uploads: UploadService,
    private readonly resolve: (f: FormUpload) => void,
    private readonly reject: (e: unknown) => void,
    private readonly detach: () => void,
    signal?: AbortSignal,
  ) {
    finished(request.raw, { writable: false }, (err) => {
      if (err) this.fail(clientClosed());
    });
    // The body is too slow (body-pace.ts): fail with its 408.
    signal?.addEventListener('abort', () => this.fail(signal.reason), { once: true });
  }

  get hasFile(): boolean {
    return this.receiving !== undefined;
  }

  receive(source: Readable): void {
    // fail() may destroy the source with an error before the upload service attached its own
    // listener (it first creates the temporary object): without one, that 'error' event is
    // unhandled and ends the process. The service still sees the error through finished().
    source.on('error', () => {});
    // After a failure nothing more is received: the answer may already be on its way.
    if (this.done) return void source.resume();
    this.fileSource = source;
    this.receiving = this.uploads.receive(source).then(
      // Bytes received after a failure are removed before that failure is answered (fail()
      // waits for this promise).
      (r) => {
        if (this.done) return r.discard();
        this.form.received = r;
      },
      (err) => this.fail(err),
    );
  }

  field(name: string, value: string): void {
    if (!this.form.fields.has(name)) this.form.fields.set(name, value);
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.detach();
    this.request.raw.pause();
    // Ends a receive in flight; it removes its temporary bytes before the error is answered.
    if (this.fileSource && !this.fileSource.readableEnded) this.fileSource.destroy(clientClosed());
    const settled = (this.receiving ?? Promise.resolve()).then(() => this.form.received?.discard());
    void settled.finally(() => this.reject(err));
  }

  async finish(): Promise<void> {
    await this.receiving;
    if (this.done) return;
    this.done = true;
    this.resolve(this.form);
  }
}

/** Reads a multipart/form-data upload (§4.2 step 2); fails with `signal`'s reason when it aborts. */
export function readMultipart(
  request: FastifyRequest,
  contentType: string,
  uploads: UploadService,
  maxSize: number,
  signal?: AbortSignal,
): Promise<FormUpload> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // Paths are stripped here by the rule of §4.2 step 2 (only up to the last '/').
        preservePath: true,
        defParamCharset: 'utf8',
        // Field values come back as latin1 so their exact bytes can be recovered.
        defCharset: 'latin1',
        limits: { fieldSize: FIELD_LIMIT, fieldNameSize: MAX_KEY, fields: MAX_FIELDS, parts: MAX_FIELDS + 10 },
      });
    } catch {
      reject(badRequest());
      return;
    }
    const run = new FormRun(request, uploads, resolve, reject, () => request.raw.unpipe(bb), signal);
    bb.on('file', (name, stream, info) => {
      // A malformed body also errors the part in progress; the busboy 'error' handler answers it.
      stream.on('error', () => {});
      if (name === 'file' && !run.hasFile) {
        const fn = info.filename ?? '';
        run.form.fileName = fn.slice(fn.lastIndexOf('/') + 1);
        run.receive(stream);
      } else stream.resume();
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) return run.fail(badRequest());
      const bytes = Buffer.from(value, 'latin1');
      // A `file` part without a filename parameter is still the upload, with no requested name.
      if (name === 'file' && !run.hasFile) run.receive(Readable.from([bytes], { objectMode: false }));
      else run.field(name, bytes.toString('utf8'));
    });
    bb.on('partsLimit', () => run.fail(badRequest()));
    bb.on('fieldsLimit', () => run.fail(badRequest()));
    bb.on('error', () => run.fail(badRequest()));
    bb.on('close', () => void run.finish());
    let bodyBytes = 0;
    request.raw.on('data', (c: Buffer) => {
      bodyBytes += c.length;
      if (bodyBytes > maxSize + MULTIPART_OVERHEAD) run.fail(fileTooLarge());
    });
    request.raw.pipe(bb);
  });
}

/** Reads an application/x-www-form-urlencoded paste (§4.2 step 3): `content` streams, the rest is collected. */
export function readUrlEncoded(
  request: FastifyRequest,
  uploads: UploadService,
  maxSize: number,
  signal?: AbortSignal,
): Promise<FormUpload> {
  return new Promise((resolve, reject) => {
    let decoder: UrlEncodedDecoder;
    const run = new FormRun(
      request,
      uploads,
      resolve,
      reject,
      () => {
        request.raw.unpipe(decoder);
        decoder.destroy();
      },
      signal,
    );
    decoder = new UrlEncodedDecoder(maxSize, {
      onContent: (stream) => run.receive(stream),
      onField: (name, value) => run.field(name, value),
    });
    decoder.on('error', (err) => run.fail(err));
    decoder.on('finish', () => void run.finish());
    request.raw.pipe(decoder);
  });
}

/** Reads a small url-encoded body (a GET carrying `access_key`, §9); undefined when over the limit. */
export async function readSmallUrlEncoded(request: FastifyRequest): Promise<Map<string, string> | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of request.raw as AsyncIterable<Buffer>) {
    total += c.length;
    if (total > FIELD_LIMIT * 2) return undefined;
    chunks.push(c);
  }
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) if (!out.has(k)) out.set(k, v);
  return out;
}
