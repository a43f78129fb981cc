/**
 * Keyset pagination (docs/discussion-api.md §5.6): filters and sorts for "after X" / "before X" on a
 * (key, _id) order, both descending, and the page flags computed from `limit + 1` rows.
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
export function pageFromRows<T>(rows: T[], limit: number, direction: Direction, cursorOf: (item: T) => string): { items: T[]; pageInfo: PageInfo } {
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

export const EMPTY_PAGE_INFO: PageInfo = Object.freeze({ hasNext: false, hasPrev: false, firstCursor: null, lastCursor: null });
