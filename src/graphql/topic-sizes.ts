/**
 * The topic sizes the cost estimate uses (cost.ts): the stored comment count of each topic an
 * operation names by id, read in one batch before it runs, and the largest comment count of any
 * topic for the topics it reaches otherwise.
 */
import { ANONYMOUS } from '../core/actor';
import type { DiscussionServices } from '../discussion';
import { id36ToNumber, isId36 } from '../discussion/rules/id36';
import type { TopicView } from '../discussion/views';
import type { TopicSizes } from './cost';
import { fromGlobalId } from './node/global-id';

/**
 * How long the largest comment count is reused: one indexed read (the `comments` listing order)
 * every few seconds at most; a topic growing meanwhile is counted at its new size once this passes.
 */
export const LARGEST_TTL_MS = 5_000;

const largestOf = new WeakMap<DiscussionServices, { at: number; value: Promise<number> }>();

/** The most comments of any listed topic, read at most once per LARGEST_TTL_MS per server. */
export function largestTopic(discussion: DiscussionServices, now = Date.now()): Promise<number> {
  const known = largestOf.get(discussion);
  if (known && now - known.at < LARGEST_TTL_MS) return known.value;
  const value = discussion.topics
    .list(ANONYMOUS, { limit: 1, order: 'comments', period: 'all' })
    .then((page) => page.items[0]?.commentCount ?? 0);
  largestOf.set(discussion, { at: now, value });
  // A failed read is not kept: the next operation reads again.
  value.catch(() => {
    if (largestOf.get(discussion)?.value === value) largestOf.delete(discussion);
  });
  return value;
}

/** The numeric topic id an argument names (a topic's global id or its id36), else null. */
function topicIdOf(value: string): number | null {
  const g = fromGlobalId(value);
  if (g) return g.type === 'Topic' && isId36(g.key) ? id36ToNumber(g.key) : null;
  return isId36(value) ? id36ToNumber(value) : null;
}

/**
 * The sizes of the topics named by `ids` (argument values, as topicIdsOf gives them), loaded by
 * `load` in one batch (a request's DataLoader, so execution reads them once): 0 for a topic the
 * viewer cannot see (it resolves to null).
 */
export async function topicSizes(
  discussion: DiscussionServices,
  ids: readonly string[],
  load: (ids: number[]) => Promise<readonly (TopicView | null | Error)[]>,
): Promise<TopicSizes> {
  const named = ids.map((raw) => [raw, topicIdOf(raw)] as const).filter((e): e is [string, number] => e[1] !== null);
  const [largest, views] = await Promise.all([
    largestTopic(discussion),
    named.length > 0 ? load(named.map(([, id]) => id)) : Promise.resolve([]),
  ]);
  const byId = new Map<string, number>();
  named.forEach(([raw], i) => {
    const v = views[i];
    // An error is left out: the topic then counts as the largest.
    if (v === null) byId.set(raw, 0);
    else if (v && !(v instanceof Error)) byId.set(raw, v.commentCount);
  });
  return { byId, largest: Math.max(largest, ...byId.values()) };
}
