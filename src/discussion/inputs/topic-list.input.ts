/** The topic listing (docs/discussion-api.md §5): paging, filters and order, validated in the spec's order. */
import { TOPIC_ORDERS } from '../views';
import { BOTH_CURSORS_MESSAGE } from './page.input';
import { GroupPath, Id36, NotBoth, OneOf, PageSize, Period, TagFilter } from './rules';

export const INVALID_GROUP_FILTER =
  'Invalid group path: lowercase letters, numbers and single underscores, ' +
  'with dots between levels (e.g. games.tabletop)';

export class TopicListInput {
  @PageSize() limit?: number;
  @Id36() before?: string;
  @Id36() after?: string;
  /** `all` or `<n>h` / `<n>d` (5.2). */
  @Period() period?: string;
  /** A label path, spaces allowed (5.3). */
  @TagFilter() tag?: string;
  /**
   * A group path, with or without `~`, any case: only topics of that group and of its subgroups
   * (`games` also lists `games.tabletop`, as a tag lists its sub-tags). An unknown group gives an
   * empty page. Not a REST parameter (5.1).
   */
  @GroupPath(INVALID_GROUP_FILTER, { optional: true }) group?: string;
  /** One of TOPIC_ORDERS (default activity); typed as sent, narrowed by validation. */
  @OneOf(TOPIC_ORDERS, (v) => `${JSON.stringify(v)} is not one of ${TOPIC_ORDERS.join(', ')}`) order?: string;
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}
