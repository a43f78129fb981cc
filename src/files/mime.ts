/**
 * MIME detection from the sniff window (docs/files-api.md §5): byte-order marks, a fixed
 * signature table, a text check, then application/octet-stream. Never looks at the name.
 */

/** Bytes of the upload examined for the MIME type. */
export const SNIFF_WINDOW = 512;

export interface Detected {
  mimetype: string;
  /** Extension used when the requested name has none (§4.5 step 5). */
  ext: string;
}

type Matcher = (window: Buffer) => Detected | null;

const bytesOf = (b: number[] | string): Buffer => (typeof b === 'string' ? Buffer.from(b, 'latin1') : Buffer.from(b));

function at(window: Buffer, offset: number, bytes: Buffer): boolean {
  return (
    window.length >= offset + bytes.length &&
    window.compare(bytes, 0, bytes.length, offset, offset + bytes.length) === 0
  );
}

/** Matches `bytes` at `offset`. */
const sig = (offset: number, bytes: number[] | string, mimetype: string, ext: string): Matcher => {
  const b = bytesOf(bytes);
  return (w) => (at(w, offset, b) ? { mimetype, ext } : null);
};

/** `RIFF` at 0 and one of the listed form types at 8. */
const riff = (kinds: [string, string, string][]): Matcher => {
  const head = bytesOf('RIFF');
  const list = kinds.map(([k, mimetype, ext]) => [bytesOf(k), { mimetype, ext }] as const);
  return (w) => {
    if (!at(w, 0, head)) return null;
    for (const [k, d] of list) if (at(w, 8, k)) return d;
    return null;
  };
};

/** The signature table of §5 step 2, in order; the first match wins. */
const SIGNATURES: Matcher[] = [
  sig(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png', 'png'),
  sig(0, [0xff, 0xd8, 0xff], 'image/jpeg', 'jpg'),
  sig(0, 'GIF87a', 'image/gif', 'gif'),
  sig(0, 'GIF89a', 'image/gif', 'gif'),
  riff([
    ['WEBP', 'image/webp', 'webp'],
    ['WAVE', 'audio/wav', 'wav'],
    ['AVI ', 'video/x-msvideo', 'avi'],
  ]),
  sig(0, [0x00, 0x00, 0x01, 0x00], 'image/x-icon', 'ico'),
  sig(0, [0x49, 0x49, 0x2a, 0x00], 'image/tiff', 'tiff'),
  sig(0, [0x4d, 0x4d, 0x00, 0x2a], 'image/tiff', 'tiff'),
  sig(0, '%PDF-', 'application/pdf', 'pdf'),
  sig(0, [0x50, 0x4b, 0x03, 0x04], 'application/zip', 'zip'),
  sig(0, [0x1f, 0x8b], 'application/gzip', 'gz'),
  sig(0, 'BZh', 'application/x-bzip2', 'bz2'),
  sig(0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'application/x-xz', 'xz'),
  sig(0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 'application/x-7z-compressed', '7z'),
  sig(0, [0x28, 0xb5, 0x2f, 0xfd], 'application/zstd', 'zst'),
  sig(257, 'ustar', 'application/x-tar', 'tar'),
  sig(0, 'ID3', 'audio/mpeg', 'mp3'),
  sig(0, 'OggS', 'audio/ogg', 'ogg'),
  sig(0, 'fLaC', 'audio/flac', 'flac'),
  sig(4, 'ftyp', 'video/mp4', 'mp4'),
  sig(0, [0x1a, 0x45, 0xdf, 0xa3], 'video/webm', 'webm'),
  sig(0, [0x00, 0x61, 0x73, 0x6d], 'application/wasm', 'wasm'),
  sig(0, 'SQLite format 3\u0000', 'application/vnd.sqlite3', 'sqlite'),
  // ELF has no usual extension: a name without one gets `file`.
  sig(0, [0x7f, 0x45, 0x4c, 0x46], 'application/x-elf', 'file'),
];

const BOMS: [Buffer, Detected][] = [
  [bytesOf([0xef, 0xbb, 0xbf]), { mimetype: 'text/plain; charset=utf-8', ext: 'txt' }],
  [bytesOf([0xff, 0xfe]), { mimetype: 'text/plain; charset=utf-16le', ext: 'txt' }],
  [bytesOf([0xfe, 0xff]), { mimetype: 'text/plain; charset=utf-16be', ext: 'txt' }],
];

/** Bytes that never occur in text: 00–08, 0B, 0E–1A, 1C–1F. */
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

function isWhite(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d;
}

export const TEXT_PLAIN: Detected = { mimetype: 'text/plain; charset=utf-8', ext: 'txt' };
export const OCTET_STREAM: Detected = { mimetype: 'application/octet-stream', ext: 'file' };

/** The type of a file from its first bytes (at most SNIFF_WINDOW are looked at). */
export function detectMime(input: Buffer): Detected {
  const window = input.length > SNIFF_WINDOW ? input.subarray(0, SNIFF_WINDOW) : input;
  for (const [bom, d] of BOMS) if (at(window, 0, bom)) return d;
  for (const match of SIGNATURES) {
    const d = match(window);
    if (d) return d;
  }

  for (const b of window) if (isBinaryByte(b)) return OCTET_STREAM;

  let start = 0;
  while (start < window.length && isWhite(window[start]!)) start++;
  const head = window.subarray(start).toString('latin1').toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg')))
    return { mimetype: 'image/svg+xml', ext: 'svg' };
  if (head.startsWith('<!doctype html') || head.startsWith('<html'))
    return { mimetype: 'text/html; charset=utf-8', ext: 'html' };
  if (head.startsWith('<?xml')) return { mimetype: 'text/xml; charset=utf-8', ext: 'xml' };
  return TEXT_PLAIN;
}
