/**
 * Keyset pagination (docs/discussion-api.md §5.6): filters and sorts for "after X" / "before X" on a
 * (key, _id) order, both descending (used by the repositories), and the page flags computed from
 * `limit + 1` rows (used by the services).
 */
import type { PageInfo } from './views';

export type Direction = 'first' | 'after' | 'before';

export interface Anchor {
  value: number | Date;
  id: number;
}

/** The filter selecting rows after/before the anchor in `field` desc, `_id` desc order. */
export function keysetFilter(field: string, direction: Direction, anchor: Anchor | undefined): Record<string, unknown> {
  if (direction === 'first' || !anchor) return {};
  const op = direction === 'after' ? '$lt' : '$gt';
  return { $or: [{ [field]: { [op]: anchor.value } }, { [field]: anchor.value, _id: { [op]: anchor.id } }] };
}

/** A position in a user's history: an item's kind, creation time and id. */
export interface FeedAnchor {
  kind: 'topic' | 'comment';
  at: Date;
  id: number;
}

/**
 * The createdAt/_id condition selecting the `kind` rows after/before `anchor` in a user's feeds
 * (createdAt desc; at equal times comments before topics; then id desc). For an anchor of the same
 * kind it is the plain keyset filter.
 */
export function feedFilter(
  kind: 'topic' | 'comment',
  direction: Direction,
  anchor: FeedAnchor | undefined,
): Record<string, unknown> {
  if (direction === 'first' || !anchor) return {};
  if (kind === anchor.kind) return keysetFilter('createdAt', direction, { value: anchor.at, id: anchor.id });
  // Different kinds at equal times: comments sort before topics.
  const afterInclusive = kind === 'topic'; // topics at the same time come after a comment
  if (direction === 'after') return { createdAt: { [afterInclusive ? '$lte' : '$lt']: anchor.at } };
  return { createdAt: { [afterInclusive ? '$gt' : '$gte']: anchor.at } };
}

/** Sort for the query: display order forwards, reversed when reading backwards. */
export function keysetSort(field: string, direction: Direction): Record<string, 1 | -1> {
  const d = direction === 'before' ? 1 : -1;
  return field === '_id' ? { _id: d } : { [field]: d, _id: d };
}

/**
 * The page from up to `limit + 1` rows read in query order, in display order, with its flags:
 * next exists (first/after: a further row; before: whenever non-empty), previous exists
 * (after: whenever non-empty; before: a further row; first: never).
 */
export function pageFromRows<T>(
  rows: T[],
  limit: number,
  direction: Direction,
  cursorOf: (item: T) => string,
): { items: T[]; pageInfo: PageInfo } {
  const more = rows.length > limit;
  const items = rows.slice(0, limit);
  if (direction === 'before') items.reverse();
  const empty = items.length === 0;
  const hasNext = !empty && (direction === 'before' ? true : more);
  const hasPrev = !empty && (direction === 'after' ? true : direction === 'before' ? more : false);
  return {
    items,
    pageInfo: {
      hasNext,
      hasPrev,
      firstCursor: empty ? null : cursorOf(items[0]!),
      lastCursor: empty ? null : cursorOf(items[items.length - 1]!),
    },
  };
}

export const EMPTY_PAGE_INFO: PageInfo = Object.freeze({
  hasNext: false,
  hasPrev: false,
  firstCursor: null,
  lastCursor: null,
});
