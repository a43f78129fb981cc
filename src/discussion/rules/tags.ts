/**
 * Topic tags (docs/discussion-api.md §4.1, §5.3): labels of lowercase letters, digits and spaces joined by
 * '.'; `_` and space are the same character (stored and shown with spaces, matched with `_`).
 */

const FILTER_CHARS = /^[A-Za-z0-9_. ]+$/;
const LABEL_PATH = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;

export type TagFilterResult = { ok: true; key: string } | { ok: false; error: 'chars' | 'path' };

/** Validates a `tag=` value and returns its match key (`hello_world`, `ask.survey`). */
export function parseTagFilter(value: string): TagFilterResult {
  if (!FILTER_CHARS.test(value)) return { ok: false, error: 'chars' };
  const key = value.toLowerCase().replace(/ /g, '_');
  if (!LABEL_PATH.test(key)) return { ok: false, error: 'path' };
  return { ok: true, key };
}

const MAX_TAG_LENGTH = 100;
const MAX_TAGS = 20;

/**
 * Normalizes one tag as written by a user: lowercase, `_` → space, spaces trimmed and collapsed
 * around each label. Returns null when it is not a valid tag.
 */
export function normalizeTag(raw: string): string | null {
  const labels = raw
    .toLowerCase()
    .replace(/_/g, ' ')
    .split('.')
    .map((l) => l.trim().replace(/ +/g, ' '));
  if (labels.some((l) => !/^[a-z0-9]+( [a-z0-9]+)*$/.test(l))) return null;
  const tag = labels.join('.');
  return tag.length <= MAX_TAG_LENGTH ? tag : null;
}

/** Normalizes a list of tags keeping entry order and dropping duplicates; lists the invalid ones. */
export function normalizeTags(raw: readonly string[]): { tags: string[]; invalid: string[]; tooMany: boolean } {
  const tags: string[] = [];
  const invalid: string[] = [];
  for (const r of raw) {
    if (r.trim() === '') continue;
    const t = normalizeTag(r);
    if (t === null) invalid.push(r);
    else if (!tags.includes(t)) tags.push(t);
  }
  return { tags, invalid, tooMany: tags.length > MAX_TAGS };
}

/**
 * Every contiguous run of whole labels of every tag, in match-key form: `meta.ask.survey` →
 * meta, ask, survey, meta.ask, ask.survey, meta.ask.survey. A `tag=` filter matches a topic
 * exactly when its key is among these (one indexed array, no regex scans).
 */
export function tagMatchKeys(tags: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const tag of tags) {
    const labels = tag.replace(/ /g, '_').split('.');
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j <= labels.length; j++) keys.add(labels.slice(i, j).join('.'));
    }
  }
  return [...keys];
}
