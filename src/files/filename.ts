/**
 * The filename algorithm of docs/files-api.md §4.5 and the collision rule of §4.6, as pure
 * functions: cleaning a requested name, random names, reserved names and the next free name.
 */
import crypto from 'node:crypto';

/** Longest final name accepted (§4.5 step 8). */
export const MAX_FILENAME_LENGTH = 255;

/**
 * Names answered with 400 `Prohibited filename` (§4.5 step 7). The first segments of the server's
 * other routes are listed too; since every final name contains a `.`, only a route whose first
 * segment has a dot can ever collide, which the front doors check against the live router.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'favicon.ico',
  'index.htm',
  'index.html',
  'index.php',
  'robots.txt',
  'crossdomain.xml',
  'api',
  'graphql',
  'graphiql',
  'upload',
  'selif',
  'healthz',
  'readyz',
  'metrics',
  'static',
]);

export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(name.toLowerCase());
}

/** Whether a string could be a stored name at all: stored names only hold [a-z0-9.-] and a dot. */
export function isPossibleStoredName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_FILENAME_LENGTH && /^[a-z0-9.-]+$/.test(name) && name.includes('.');
}

export interface NameParts {
  /** Cleaned name without extension; empty when nothing usable was left. */
  bare: string;
  /** Cleaned extension without its leading dot; empty when none. */
  ext: string;
}

const COMPRESSED_EXTS = new Set(['.gz', '.bz2', '.xz']);

/** Steps 1–3 of §4.5: trims, lowercases, splits off the extension and deletes disallowed characters. */
export function splitRequestedName(requested: string): NameParts {
  const r = requested.trim().toLowerCase();
  let bare = r;
  let ext = '';
  const dot = r.lastIndexOf('.');
  if (dot >= 0 && !r.includes('/', dot)) {
    ext = r.slice(dot);
    bare = r.slice(0, dot);
  }
  if (COMPRESSED_EXTS.has(ext) && bare.endsWith('.tar')) {
    ext = `.tar${ext}`;
    bare = bare.slice(0, -4);
  }
  return {
    bare: trimChars(bare.replace(/[^a-z0-9-]/g, ''), '-'),
    ext: trimChars(ext.replace(/[^a-z0-9.-]/g, ''), '.-'),
  };
}

/**
 * `s` without leading and trailing characters from `chars`. A loop, not `/^-+|-+$/`: that regex
 * backtracks quadratically on a long run of `-` inside a name (64 KiB of them stalled the process
 * for seconds).
 */
function trimChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** `length` characters drawn uniformly from `alphabet` (at most 256 symbols) with a CSPRNG. */
export function randomString(length: number, alphabet: string): string {
  // Rejection sampling: bytes ≥ the largest multiple of the alphabet size would bias the draw.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const b of crypto.randomBytes(length * 2)) {
      if (b < limit) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 8 characters of [a-z0-9] (§4.5 step 4). */
export function randomBare(): string {
  return randomString(8, LOWER_ALNUM);
}

/**
 * The collision rule of §4.6: a trailing digit d becomes d + 1 (so `9` → `10`), otherwise `1` is
 * appended.
 */
export function nextBare(bare: string): string {
  const last = bare.charCodeAt(bare.length - 1);
  if (last >= 48 && last <= 57) return bare.slice(0, -1) + String(last - 48 + 1);
  return `${bare}1`;
}

export function joinName(bare: string, ext: string): string {
  return `${bare}.${ext}`;
}

export interface ComputedName {
  /** The final name before collisions (§4.5 steps 1–6). */
  name: string;
  /** Its bare part; '' when random. */
  bare: string;
  ext: string;
  /** Whether `bare` was drawn at random (randomize requested or nothing usable left). */
  random: boolean;
}

/**
 * §4.5 steps 1–7: the name an upload gets before collisions. `detectedExt` is the extension of the
 * detected MIME type (§5); `reserved` says whether a name is taken by the server (a reserved random
 * name is redrawn; a reserved requested name is the caller's 400).
 */
export function computeName(
  requested: string,
  randomize: boolean,
  detectedExt: string,
  reserved: (name: string) => boolean = isReservedName,
): ComputedName {
  const parts = splitRequestedName(requested);
  const random = randomize || parts.bare === '';
  const ext = parts.ext || detectedExt;
  if (!random) return { name: joinName(parts.bare, ext), bare: parts.bare, ext, random };
  // Bounded: a `reserved` that refuses every name must not hang the process.
  for (let attempt = 0; attempt < 1000; attempt++) {
    const name = joinName(randomBare(), ext);
    if (!reserved(name)) return { name, bare: '', ext, random };
  }
  throw new Error(`no random name with extension ${JSON.stringify(ext.slice(0, 40))} is free of reserved names`);
}
