/** Base-36 ids (docs/discussion-api.md §1.2) and the cursors built on them (5.1, 7.2). */

const ID36_PATTERN = /^[1-9a-zA-Z][0-9a-zA-Z]*$/;
const MIXED_CURSOR_PATTERN = /^([tc])-([1-9a-zA-Z][0-9a-zA-Z]*)$/;

/** 1 → '1', 36 → '10', 1295 → 'zz'. */
export function toId36(id: number): string {
  if (!Number.isSafeInteger(id) || id < 1) throw new RangeError(`not a positive integer id: ${id}`);
  return id.toString(36);
}

export function isId36(value: string): boolean {
  return ID36_PATTERN.test(value);
}

/**
 * The numeric id of a syntactically valid id36 (case-insensitive), or null when it is so large that
 * it cannot name a stored item (it then simply matches nothing). Call only after isId36.
 */
export function id36ToNumber(value: string): number | null {
  // 11 base-36 digits already exceed 2^53; beyond that no id can exist.
  if (value.length > 11) return null;
  const n = parseInt(value, 36);
  return Number.isSafeInteger(n) ? n : null;
}

/** Parses an id given as id36 text or as a number; undefined when malformed, null when it names nothing. */
export function parsePostRef(ref: string | number): number | null | undefined {
  if (typeof ref === 'number') return Number.isSafeInteger(ref) && ref >= 1 ? ref : undefined;
  return isId36(ref) ? id36ToNumber(ref) : undefined;
}

export type FeedKind = 'topic' | 'comment';

/** A position in a user's mixed history: `t-1a` or `c-2v`. */
export interface MixedCursor {
  kind: FeedKind;
  /** null: valid syntax but beyond any stored id. */
  id: number | null;
}

export function parseMixedCursor(value: string): MixedCursor | undefined {
  const m = MIXED_CURSOR_PATTERN.exec(value);
  if (!m) return undefined;
  return { kind: m[1] === 't' ? 'topic' : 'comment', id: id36ToNumber(m[2]!) };
}

export function formatMixedCursor(kind: FeedKind, id: number): string {
  return `${kind === 'topic' ? 't' : 'c'}-${toId36(id)}`;
}
