/** Conditional requests (docs/files-api.md §8.2) and byte ranges (§8.3) for raw files, as pure functions. */

export interface Validators {
  /** `"<sha256>"` */
  etag: string;
  /** Last-Modified in whole Unix seconds. */
  lastModifiedSec: number;
}

export interface ConditionalHeaders {
  ifMatch?: string;
  ifUnmodifiedSince?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

/** Entity tags of an If-Match / If-None-Match list; `*` as the string '*'. */
export function parseETagList(header: string): string[] {
  const tags: string[] = [];
  let i = 0;
  while (i < header.length) {
    while (i < header.length && (header[i] === ' ' || header[i] === '\t' || header[i] === ',')) i++;
    if (i >= header.length) break;
    if (header[i] === '*') {
      tags.push('*');
      i++;
      continue;
    }
    let weak = false;
    if (header.startsWith('W/', i)) {
      weak = true;
      i += 2;
    }
    if (header[i] !== '"') {
      // Not an entity tag: skip to the next comma.
      while (i < header.length && header[i] !== ',') i++;
      continue;
    }
    const end = header.indexOf('"', i + 1);
    if (end < 0) break;
    tags.push(`${weak ? 'W/' : ''}${header.slice(i, end + 1)}`);
    i = end + 1;
  }
  return tags;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const M = MONTHS.join('|');
/** IMF-fixdate, obsolete RFC 850 and asctime (RFC 9110 §5.6.7); day names are not checked. */
const IMF_FIXDATE = new RegExp(`^[A-Za-z]{3}, (\\d{2}) (${M}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const RFC850_DATE = new RegExp(`^[A-Za-z]{6,9}, (\\d{2})-(${M})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const ASCTIME_DATE = new RegExp(`^[A-Za-z]{3} (${M}) ([ \\d]\\d) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`);

/**
 * Seconds of a valid HTTP-date, undefined otherwise. Strict: Date.parse would also take `1`, `2024`
 * or `May 5` as dates (and read asctime in local time), turning junk into a 412 or a 304.
 */
export function parseHttpDate(v: string | undefined): number | undefined {
  if (!v) return undefined;
  let m: RegExpExecArray | null;
  let parts: [number, number, number, number, number, number];
  if ((m = IMF_FIXDATE.exec(v)))
    parts = [Number(m[3]), MONTHS.indexOf(m[2]!), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])];
  else if ((m = RFC850_DATE.exec(v))) {
    // Two-digit years: 70–99 → 19xx, 00–69 → 20xx (dates before 1970 predate any file).
    const yy = Number(m[3]);
    parts = [
      yy >= 70 ? 1900 + yy : 2000 + yy,
      MONTHS.indexOf(m[2]!),
      Number(m[1]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6]),
    ];
  } else if ((m = ASCTIME_DATE.exec(v)))
    parts = [Number(m[6]), MONTHS.indexOf(m[1]!), Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5])];
  else return undefined;
  const [year, month, day, hour, minute, second] = parts;
  if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  return Math.floor(Date.UTC(year, month, day, hour, minute, second) / 1000);
}

export type ConditionalOutcome = 'proceed' | 'precondition-failed' | 'not-modified';

/** §8.2, in order: If-Match, If-Unmodified-Since (→ 412), If-None-Match, If-Modified-Since (→ 304). */
export function evaluateConditionals(h: ConditionalHeaders, v: Validators): ConditionalOutcome {
  if (h.ifMatch !== undefined) {
    const tags = parseETagList(h.ifMatch);
    if (!tags.some((t) => t === '*' || t === v.etag)) return 'precondition-failed';
  } else {
    const since = parseHttpDate(h.ifUnmodifiedSince);
    if (since !== undefined && since < v.lastModifiedSec) return 'precondition-failed';
  }
  if (h.ifNoneMatch !== undefined) {
    const weak = (t: string) => (t.startsWith('W/') ? t.slice(2) : t);
    if (parseETagList(h.ifNoneMatch).some((t) => t === '*' || weak(t) === weak(v.etag))) return 'not-modified';
  } else {
    const since = parseHttpDate(h.ifModifiedSince);
    if (since !== undefined && v.lastModifiedSec <= since) return 'not-modified';
  }
  return 'proceed';
}

export type RangeOutcome =
  { kind: 'full' } | { kind: 'unsatisfiable' } | { kind: 'partial'; start: number; end: number };

/**
 * §8.3: a single well-formed `bytes=` range is honoured; a well-formed unsatisfiable one is
 * refused; anything else (several ranges, other units, bad syntax) means the whole file.
 */
export function parseRange(header: string | undefined, size: number): RangeOutcome {
  if (header === undefined) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: 'full' };
  const [, a, b] = m;
  if (a === '' && b === '') return { kind: 'full' };
  if (a === '') {
    const n = Number(b);
    if (n === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (b !== '' && Number(b) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  return { kind: 'partial', start, end };
}

/** If-Range: the range applies only when it names the current ETag (strong) or Last-Modified exactly. */
export function ifRangeAllows(ifRange: string | undefined, v: Validators): boolean {
  if (ifRange === undefined) return true;
  const t = ifRange.trim();
  if (t.startsWith('"') || t.startsWith('W/')) return t === v.etag;
  const sec = parseHttpDate(t);
  return sec !== undefined && sec === v.lastModifiedSec;
}
