/**
 * The topic sizes the cost estimate uses (cost.ts): the stored comment count of each topic an
 * operation names by id, and the largest comment count of any topic for the topics it reaches
 * otherwise. Both are remembered for SIZE_TTL_MS: a topic's count as any GraphQL read of the topic
 * saw it (primeTopic), so asking for a topic costs no read more than executing it (the topic is
 * read again by the execution, with its tree); a count unknown or older is read in one batch
 * before the operation runs. A topic that grew meanwhile is counted at its new size within that time.
 */
import { LRUCache } from 'lru-cache';
import { ANONYMOUS } from '../core/actor';
import type { DiscussionServices } from '../discussion';
import { id36ToNumber, isId36 } from '../discussion/rules/id36';
import type { TopicView } from '../discussion/views';
import type { TopicSizes } from './cost';
import { fromGlobalId } from './node/global-id';

/**
 * How long a comment count is reused: the largest one costs one indexed read (the `comments`
 * listing order) every few seconds at most; a topic growing meanwhile is counted at its new size
 * once this passes.
 */
export const LARGEST_TTL_MS = 5_000;
const SIZE_TTL_MS = LARGEST_TTL_MS;

/** Topics' comment counts by topic id, as recently read; a byte budget of its own (a number each). */
const COUNTS_BYTES = 1024 * 1024;
const countsOf = new WeakMap<DiscussionServices, LRUCache<number, number>>();

function counts(discussion: DiscussionServices): LRUCache<number, number> {
  let known = countsOf.get(discussion);
  if (!known) {
    known = new LRUCache<number, number>({ maxSize: COUNTS_BYTES, sizeCalculation: () => 64, ttl: SIZE_TTL_MS });
    countsOf.set(discussion, known);
  }
  return known;
}

/** Remembers a topic's comment count as a read just saw it (for the next operations' estimates). */
export function rememberTopicSize(discussion: DiscussionServices, topicId: number, commentCount: number): void {
  counts(discussion).set(topicId, commentCount);
}

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
  const known = counts(discussion);
  const byId = new Map<string, number>();
  const unknown: [string, number][] = [];
  for (const raw of ids) {
    const id = topicIdOf(raw);
    if (id === null) continue;
    const count = known.get(id);
    // A remembered count stands even for a viewer who cannot see the topic: an upper bound still.
    if (count !== undefined) byId.set(raw, count);
    else unknown.push([raw, id]);
  }
  const [largest, views] = await Promise.all([
    largestTopic(discussion),
    unknown.length > 0 ? load(unknown.map(([, id]) => id)) : Promise.resolve([]),
  ]);
  unknown.forEach(([raw, id], i) => {
    const v = views[i];
    // An error is left out: the topic then counts as the largest.
    if (v === null) byId.set(raw, 0);
    else if (v && !(v instanceof Error)) {
      byId.set(raw, v.commentCount);
      known.set(id, v.commentCount);
    }
  });
  return { byId, largest: Math.max(largest, ...byId.values()) };
}
