/**
 * POST upload bodies (files-behaviour.md §4.2): multipart/form-data through busboy, and
 * application/x-www-form-urlencoded pastes through a streaming decoder. In both, the file (the
 * `file` part or the `content` field) streams straight into the upload service; other fields are
 * small (≤ 64 KiB) and collected.
 */
import { finished, PassThrough, Readable, Writable } from 'node:stream';
import busboy from 'busboy';
import type { FastifyRequest } from 'fastify';
import { ClientClosedRequestError, ValidationError } from '../../core/errors';
import type { ReceivedUpload } from '../../files';
import type { UploadService } from '../../files/upload.service';
import { fileTooLarge } from '../../files/receive';

/** Largest form field other than the file (§3: over 64 KiB → 400). */
export const FIELD_LIMIT = 64 * 1024;
const MAX_FIELDS = 1000;
const MAX_KEY = 1024;
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

export function badRequest(): ValidationError {
  return new ValidationError('Bad request', 'BAD_REQUEST');
}

function clientClosed(): ClientClosedRequestError {
  return new ClientClosedRequestError('Client closed request', 'CLIENT_CLOSED');
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
  ) {
    finished(request.raw, { writable: false }, (err) => {
      if (err) this.fail(clientClosed());
    });
  }

  get hasFile(): boolean {
    return this.receiving !== undefined;
  }

  receive(source: Readable): void {
    this.fileSource = source;
    this.receiving = this.uploads.receive(source).then(
      (r) => {
        if (this.done) void r.discard();
        else this.form.received = r;
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

/** Reads a multipart/form-data upload (§4.2 step 2). */
export function readMultipart(request: FastifyRequest, contentType: string, uploads: UploadService, maxSize: number): Promise<FormUpload> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // Paths are stripped here by the spec's rule (only up to the last '/').
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
    const run = new FormRun(request, uploads, resolve, reject, () => request.raw.unpipe(bb));
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
export function readUrlEncoded(request: FastifyRequest, uploads: UploadService, maxSize: number): Promise<FormUpload> {
  return new Promise((resolve, reject) => {
    let decoder: UrlEncodedDecoder;
    const run = new FormRun(request, uploads, resolve, reject, () => {
      request.raw.unpipe(decoder);
      decoder.destroy();
    });
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

interface DecoderEvents {
  /** The first `content` field starts: its decoded bytes follow on `stream`. */
  onContent(stream: Readable): void;
  onField(name: string, value: string): void;
}

const PLUS = 0x2b;
const PERCENT = 0x25;
const AMP = 0x26;
const EQ = 0x3d;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return -1;
}

/**
 * A streaming application/x-www-form-urlencoded decoder: `+` is a space, `%XX` a byte (a broken
 * escape stays literal), pairs split on `&`, name and value on the first `=`. Percent escapes may
 * straddle chunks. The `content` value is passed on as it is decoded, with backpressure.
 */
export class UrlEncodedDecoder extends Writable {
  private inKey = true;
  private key: Buffer[] = [];
  private keyLength = 0;
  private value: Buffer[] = [];
  private valueLength = 0;
  /** Where the current value goes. */
  private target: 'collect' | 'content' | 'skip' = 'collect';
  private content: PassThrough | undefined;
  private contentSeen = false;
  private skipped = 0;
  private fields = 0;
  /** A pending escape: '%' seen (1) or '%' and one hex digit (2). */
  private escape = 0;
  private escapeFirst = 0;

  constructor(
    private readonly maxContent: number,
    private readonly events: DecoderEvents,
  ) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    try {
      const out = Buffer.allocUnsafe(chunk.length + 2);
      let n = 0;
      const flushOut = (): Buffer | undefined => {
        if (n === 0) return undefined;
        const piece = Buffer.from(out.subarray(0, n));
        n = 0;
        return piece;
      };
      const pending: Buffer[] = [];
      const emitBytes = () => {
        const piece = flushOut();
        if (piece) this.append(piece, pending);
      };
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (this.escape > 0) {
          const h = hexValue(b);
          if (h >= 0 && this.escape === 1) {
            this.escapeFirst = b;
            this.escape = 2;
            continue;
          }
          if (h >= 0 && this.escape === 2) {
            out[n++] = (hexValue(this.escapeFirst) << 4) | h;
            this.escape = 0;
            continue;
          }
          // Broken escape: keep it literally, then look at this byte afresh.
          out[n++] = PERCENT;
          if (this.escape === 2) out[n++] = this.escapeFirst;
          this.escape = 0;
        }
        if (b === PERCENT) this.escape = 1;
        else if (b === AMP) {
          emitBytes();
          this.endPair(pending);
        } else if (b === EQ && this.inKey) {
          emitBytes();
          this.startValue(pending);
        } else out[n++] = b === PLUS ? 0x20 : b;
      }
      emitBytes();
      this.deliver(pending, cb);
    } catch (err) {
      cb(err as Error);
    }
  }

  override _final(cb: (err?: Error | null) => void): void {
    try {
      const pending: Buffer[] = [];
      if (this.escape > 0) {
        const lit = this.escape === 2 ? Buffer.from([PERCENT, this.escapeFirst]) : Buffer.from([PERCENT]);
        this.escape = 0;
        this.append(lit, pending);
      }
      this.endPair(pending);
      this.deliver(pending, cb);
    } catch (err) {
      cb(err as Error);
    }
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.content && !this.content.writableEnded) this.content.destroy(err ?? clientClosed());
    cb(err);
  }

  /** Decoded bytes of the current key or value. */
  private append(piece: Buffer, pending: Buffer[]): void {
    if (this.inKey) {
      this.keyLength += piece.length;
      if (this.keyLength > MAX_KEY) throw badRequest();
      this.key.push(piece);
      return;
    }
    if (this.target === 'content') {
      pending.push(piece);
      return;
    }
    if (this.target === 'skip') {
      this.skipped += piece.length;
      if (this.skipped > this.maxContent) throw fileTooLarge();
      return;
    }
    this.valueLength += piece.length;
    if (this.valueLength > FIELD_LIMIT) throw badRequest();
    this.value.push(piece);
  }

  private startValue(pending: Buffer[]): void {
    const name = Buffer.concat(this.key).toString('utf8');
    this.inKey = false;
    if (name === 'content') {
      if (this.contentSeen) this.target = 'skip';
      else {
        this.contentSeen = true;
        this.target = 'content';
        this.content = new PassThrough({ highWaterMark: 64 * 1024 });
        this.events.onContent(this.content);
      }
    } else this.target = 'collect';
    void pending;
  }

  private endPair(pending: Buffer[]): void {
    if (this.inKey && this.keyLength === 0) return; // `&&` or a trailing `&`
    if (++this.fields > MAX_FIELDS) throw badRequest();
    const name = Buffer.concat(this.key).toString('utf8');
    if (this.inKey) {
      // A name without '=' has an empty value.
      if (name !== 'content') this.events.onField(name, '');
    } else if (this.target === 'collect') this.events.onField(name, Buffer.concat(this.value).toString('utf8'));
    else if (this.target === 'content') pending.push(END);
    this.inKey = true;
    this.key = [];
    this.keyLength = 0;
    this.value = [];
    this.valueLength = 0;
    this.skipped = 0;
    this.target = 'collect';
  }

  /** Writes decoded content to its stream, waiting for it to drain before taking more input. */
  private deliver(pending: Buffer[], cb: (err?: Error | null) => void): void {
    const stream = this.content;
    if (!stream || pending.length === 0) return cb();
    let ok = true;
    for (const piece of pending) {
      if (piece === END) stream.end();
      else ok = stream.write(piece) && ok;
    }
    if (ok || stream.writableEnded || stream.destroyed) return cb();
    const onDrain = () => {
      stream.off('close', onDrain);
      cb();
    };
    stream.once('drain', onDrain);
    stream.once('close', onDrain);
  }
}

/** Marks the end of the content value inside a batch of pending pieces. */
const END = Buffer.alloc(0);
