/** Paging of every listing (docs/discussion-api.md §5.1, 7.2): a size and at most one cursor. */
import { Id36, MixedCursor, NotBoth, PageSize } from './rules';

export const BOTH_CURSORS_MESSAGE = "Can't specify both after and before.";

/** A page of a user's topics or comments: bare id36 cursors. */
export class PageInput {
  /** Items per page, 1–100 (default 50). */
  @PageSize() limit?: number;
  /** id36 of the item the page ends before / starts after. */
  @Id36() before?: string;
  @Id36() after?: string;
  /** Checked last: `before` and `after` together, whatever their values. */
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}

/** A page of a user's mixed history: `t-<id36>` / `c-<id36>` cursors. */
export class HistoryPageInput {
  @PageSize() limit?: number;
  @MixedCursor() before?: string;
  @MixedCursor() after?: string;
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}
