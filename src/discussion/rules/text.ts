/**
 * Title slugs (docs/discussion-api.md §4.2), source-site names (4.3) and word counts (4.4).
 * Word characters are Unicode letters, Unicode numbers and `_`.
 */

const NON_WORD_RUN = /[^\p{L}\p{N}_]+/gu;
const WORD_RUN = /[\p{L}\p{N}_]+/gu;
const MAX_SLUG = 100;

export function slugify(title: string): string {
  const words = title
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(NON_WORD_RUN, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  const encoded = encodeURIComponent(words);
  if (encoded.length <= MAX_SLUG) return encoded;
  // Keep whole characters only: a cut never leaves a partial escape (nor half of a UTF-8 sequence).
  let cut = '';
  for (const ch of words) {
    const enc = encodeURIComponent(ch);
    if (cut.length + enc.length > MAX_SLUG) break;
    cut += enc;
  }
  const underscore = cut.lastIndexOf('_');
  if (underscore > 0) cut = cut.slice(0, underscore);
  return cut;
}

/**
 * Slugs of recently seen titles. Every topic view carries its slug, so a listing computed ~50 of them
 * per request from the same few hundred titles (slugify showed in CPU profiles of bench/load.js).
 * Cleared when full rather than kept in order: a title's slug never changes.
 */
const SLUGS_MAX = 4096;
const slugs = new Map<string, string>();

/** slugify(title), remembered. */
export function slugOf(title: string): string {
  let slug = slugs.get(title);
  if (slug === undefined) {
    slug = slugify(title);
    if (slugs.size >= SLUGS_MAX) slugs.clear();
    slugs.set(title, slug);
  }
  return slug;
}

const SITE_NAMES: Record<string, string> = {
  'youtube.com': 'YouTube',
  'm.youtube.com': 'YouTube',
  'youtu.be': 'YouTube',
  'github.com': 'GitHub',
  'en.wikipedia.org': 'Wikipedia',
  'reddit.com': 'Reddit',
  'old.reddit.com': 'Reddit',
  'vimeo.com': 'Vimeo',
  'arxiv.org': 'arXiv',
  'arstechnica.com': 'Ars Technica',
  'theguardian.com': 'The Guardian',
  'nytimes.com': 'The New York Times',
  'bbc.com': 'BBC',
  'bbc.co.uk': 'BBC',
};

/** The site name of a link (its host without port and one leading `www.`, or a known name). */
export function sourceSiteName(link: string): string | null {
  let host: string;
  try {
    host = new URL(link).hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host.startsWith('www.')) host = host.slice(4);
  if (host === '') return null;
  return SITE_NAMES[host] ?? host;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};

/** The text content of rendered HTML: tags removed, entities decoded. */
export function htmlToText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const cp = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isInteger(cp) && cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

/** Maximal runs of word characters in the text content of `html`. */
export function countWords(html: string): number {
  return htmlToText(html).match(WORD_RUN)?.length ?? 0;
}

/** `1 word`, `9999 words`, `10 000 words` (groups of three separated by U+202F from 10000 up). */
export function formatWordCount(n: number): string {
  let digits = String(n);
  if (n >= 10_000) digits = digits.replace(/\B(?=(\d{3})+$)/g, '\u202f');
  return `${digits} ${n === 1 ? 'word' : 'words'}`;
}

/** `content_metadata` of a text topic with `wordCount` words. */
export function contentMetadata(wordCount: number | null): string[] {
  return wordCount !== null && wordCount > 0 ? [formatWordCount(wordCount)] : [];
}

const MAX_LINK = 2000;

/**
 * A link as stored (`new URL(link).href`): lowercase scheme and host, percent-encoded quotes,
 * spaces and angle brackets, so the stored value is one URL whatever was typed and never carries
 * markup (`http://x.example/"><script>` → `http://x.example/%22%3E%3Cscript%3E`). null when it is
 * not an http(s) URL with a host, or longer than 2000 characters.
 */
export function normalizeLink(link: unknown): string | null {
  const l = typeof link === 'string' ? link.trim() : '';
  if (l.length === 0 || l.length > MAX_LINK) return null;
  try {
    const u = new URL(l);
    const web = u.protocol === 'http:' || u.protocol === 'https:';
    return web && u.hostname !== '' && u.href.length <= MAX_LINK ? u.href : null;
  } catch {
    return null;
  }
}
