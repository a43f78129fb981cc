/** docs/files-api.md §5: MIME detection from the sniff window, SHA-256 and size test vectors. */
import { Readable } from 'node:stream';
import { detectMime, SNIFF_WINDOW } from '../../../src/files/mime';
import { streamInto } from '../../../src/files/receive';
import type { TempObject } from '../../../src/storage';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const pad = (head: Buffer, to = 600) => Buffer.concat([head, Buffer.alloc(Math.max(0, to - head.length), 0x00)]);

describe('§5 signatures', () => {
  const tar = Buffer.alloc(600, 0);
  tar.write('ustar', 257, 'latin1');
  const rows: [string, Buffer, string, string][] = [
    ['PNG', pad(b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png', 'png'],
    ['JPEG', pad(b([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg', 'jpg'],
    ['GIF87a', pad(b('GIF87a')), 'image/gif', 'gif'],
    ['GIF89a', pad(b('GIF89a')), 'image/gif', 'gif'],
    ['WEBP', pad(b('RIFF', [1, 2, 3, 4], 'WEBP')), 'image/webp', 'webp'],
    ['WAVE', pad(b('RIFF', [1, 2, 3, 4], 'WAVE')), 'audio/wav', 'wav'],
    ['AVI', pad(b('RIFF', [1, 2, 3, 4], 'AVI ')), 'video/x-msvideo', 'avi'],
    ['ICO', pad(b([0x00, 0x00, 0x01, 0x00])), 'image/x-icon', 'ico'],
    ['TIFF II', pad(b([0x49, 0x49, 0x2a, 0x00])), 'image/tiff', 'tiff'],
    ['TIFF MM', pad(b([0x4d, 0x4d, 0x00, 0x2a])), 'image/tiff', 'tiff'],
    ['PDF', b('%PDF-1.7\n'), 'application/pdf', 'pdf'],
    ['ZIP', pad(b([0x50, 0x4b, 0x03, 0x04])), 'application/zip', 'zip'],
    ['GZIP', pad(b([0x1f, 0x8b, 0x08])), 'application/gzip', 'gz'],
    ['BZIP2', pad(b('BZh9', [0x31, 0x41, 0x59])), 'application/x-bzip2', 'bz2'],
    ['XZ', pad(b([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])), 'application/x-xz', 'xz'],
    ['7Z', pad(b([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])), 'application/x-7z-compressed', '7z'],
    ['ZSTD', pad(b([0x28, 0xb5, 0x2f, 0xfd])), 'application/zstd', 'zst'],
    ['TAR', tar, 'application/x-tar', 'tar'],
    ['MP3', pad(b('ID3', [4, 0, 0])), 'audio/mpeg', 'mp3'],
    ['OGG', pad(b('OggS', [0])), 'audio/ogg', 'ogg'],
    ['FLAC', pad(b('fLaC', [0])), 'audio/flac', 'flac'],
    ['MP4', pad(b([0, 0, 0, 0x20], 'ftypisom')), 'video/mp4', 'mp4'],
    ['WEBM', pad(b([0x1a, 0x45, 0xdf, 0xa3])), 'video/webm', 'webm'],
    ['WASM', pad(b([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), 'application/wasm', 'wasm'],
    ['SQLite', pad(b('SQLite format 3', [0])), 'application/vnd.sqlite3', 'sqlite'],
    ['ELF', pad(b([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1])), 'application/x-elf', 'file'],
  ];
  it.each(rows)('%s → %s (.%s)', (_name, bytes, mimetype, ext) => {
    expect(detectMime(bytes)).toEqual({ mimetype, ext });
  });

  it('RIFF with another form type is not a RIFF type', () => {
    expect(detectMime(pad(b('RIFF', [1, 2, 3, 4], 'XXXX'))).mimetype).toBe('application/octet-stream');
  });
});

describe('§5 byte-order marks', () => {
  it('EF BB BF → text/plain; charset=utf-8', () =>
    expect(detectMime(b([0xef, 0xbb, 0xbf], 'hi')).mimetype).toBe('text/plain; charset=utf-8'));
  it('FF FE 68 00 69 00 → text/plain; charset=utf-16le', () =>
    expect(detectMime(b([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]))).toEqual({
      mimetype: 'text/plain; charset=utf-16le',
      ext: 'txt',
    }));
  it('FE FF → text/plain; charset=utf-16be', () =>
    expect(detectMime(b([0xfe, 0xff, 0x00, 0x68])).mimetype).toBe('text/plain; charset=utf-16be'));
  it('a BOM comes before the markup rules', () =>
    expect(detectMime(b([0xef, 0xbb, 0xbf], '<svg>')).mimetype).toBe('text/plain; charset=utf-8'));
});

describe('§5 text rules', () => {
  const text = (s: string) => detectMime(Buffer.from(s, 'utf8'));
  it('plain text, JSON and source are text/plain', () => {
    expect(text('This is my test content')).toEqual({ mimetype: 'text/plain; charset=utf-8', ext: 'txt' });
    expect(text('{"a": 1}\n').mimetype).toBe('text/plain; charset=utf-8');
    expect(text('#!/bin/sh\necho hi\n').mimetype).toBe('text/plain; charset=utf-8');
    expect(text('héllo wörld ✓').mimetype).toBe('text/plain; charset=utf-8');
  });
  it('svg: <svg…, or <?xml… containing <svg, after white space, any case', () => {
    expect(text('<svg xmlns="http://www.w3.org/2000/svg"/>')).toEqual({ mimetype: 'image/svg+xml', ext: 'svg' });
    expect(text('  \n\t<SVG>').mimetype).toBe('image/svg+xml');
    expect(text('<?xml version="1.0"?>\n<svg/>').mimetype).toBe('image/svg+xml');
  });
  it('html: <!doctype html or <html', () => {
    expect(text('<!DOCTYPE html><p>x')).toEqual({ mimetype: 'text/html; charset=utf-8', ext: 'html' });
    expect(text('\r\n<HTML><body>').mimetype).toBe('text/html; charset=utf-8');
    expect(text('<p>not a page</p>').mimetype).toBe('text/plain; charset=utf-8');
  });
  it('xml: <?xml without <svg', () =>
    expect(text('<?xml version="1.0"?><feed/>')).toEqual({ mimetype: 'text/xml; charset=utf-8', ext: 'xml' }));
  it('control bytes 00–08, 0B, 0E–1A, 1C–1F make it binary; 09, 0A, 0C, 0D, 1B do not', () => {
    for (const c of [0x00, 0x08, 0x0b, 0x0e, 0x1a, 0x1c, 0x1f])
      expect(detectMime(b('ab', [c], 'cd'))).toEqual({ mimetype: 'application/octet-stream', ext: 'file' });
    for (const c of [0x09, 0x0a, 0x0c, 0x0d, 0x1b])
      expect(detectMime(b('ab', [c], 'cd')).mimetype).toBe('text/plain; charset=utf-8');
    expect(detectMime(b([0x00, 0x01, 0x02, 0x03])).mimetype).toBe('application/octet-stream');
  });
  it('only the first 512 bytes are looked at', () => {
    expect(detectMime(Buffer.concat([Buffer.alloc(SNIFF_WINDOW, 0x61), Buffer.from([0x00])])).mimetype).toBe(
      'text/plain; charset=utf-8',
    );
    expect(detectMime(Buffer.concat([Buffer.alloc(SNIFF_WINDOW - 1, 0x61), Buffer.from([0x00])])).mimetype).toBe(
      'application/octet-stream',
    );
  });
});

/** A temporary object that keeps what it is given in memory. */
function memoryTemp(): TempObject & { bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return {
    id: 'mem',
    async write(c) {
      chunks.push(Buffer.from(c));
    },
    async commit() {},
    async settle() {},
    async abort() {},
    bytes: () => Buffer.concat(chunks),
  };
}

describe('§5 test vectors through the one-pass stream', () => {
  const run = async (parts: Buffer[], max = 1 << 30) => {
    const temp = memoryTemp();
    const digest = await streamInto(Readable.from(parts), temp, max);
    return { ...digest, mime: detectMime(digest.window), stored: temp.bytes() };
  };

  it('"This is my test content" → sha256 966152…, text/plain; charset=utf-8, size 23', async () => {
    const r = await run([Buffer.from('This is my '), Buffer.from('test content')]);
    expect(r.sha256).toBe('966152d20a77e739716a625373ee15af16e8f4aec631a329a27da41c204b0171');
    expect(r.mime.mimetype).toBe('text/plain; charset=utf-8');
    expect(r.size).toBe(23);
    expect(r.stored.toString()).toBe('This is my test content');
  });

  it('"hello world" → b94d27…, 11', async () => {
    const r = await run([Buffer.from('hello world')]);
    expect(r.sha256).toBe('b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
    expect(r.size).toBe(11);
  });

  it('FF FE 68 00 69 00 → text/plain; charset=utf-16le', async () => {
    expect((await run([Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00])])).mime.mimetype).toBe(
      'text/plain; charset=utf-16le',
    );
  });

  it('the sniff window spans chunks and stops at 512 bytes', async () => {
    const parts = Array.from({ length: 10 }, (_, i) => Buffer.alloc(100, 0x61 + i));
    const r = await run(parts);
    expect(r.window.length).toBe(SNIFF_WINDOW);
    expect(r.window).toEqual(Buffer.concat(parts).subarray(0, SNIFF_WINDOW));
    expect(r.size).toBe(1000);
  });

  it('exactly the limit is accepted; one byte more is 413 File too large', async () => {
    await expect(run([Buffer.alloc(10)], 10)).resolves.toMatchObject({ size: 10 });
    await expect(run([Buffer.alloc(6), Buffer.alloc(5)], 10)).rejects.toMatchObject({
      status: 413,
      message: 'File too large',
    });
  });
});
