/**
 * A streaming application/x-www-form-urlencoded decoder for POST pastes (docs/files-api.md §4.2
 * step 3): the `content` value streams on as it is decoded; other fields are collected (≤ 64 KiB).
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { ClientClosedRequestError, ValidationError } from '../../core/errors';
import { fileTooLarge } from '../../files/receive';

/** Largest form field other than the file (§3: over 64 KiB → 400). */
export const FIELD_LIMIT = 64 * 1024;
export const MAX_FIELDS = 1000;
export const MAX_KEY = 1024;

export function badRequest(): ValidationError {
  return new ValidationError('Bad request', 'BAD_REQUEST');
}

export function clientClosed(): ClientClosedRequestError {
  return new ClientClosedRequestError('Client closed request', 'CLIENT_CLOSED');
}

export interface DecoderEvents {
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
