/** Comment label activity and the relevance key (docs/discussion-api.md §6.2, §6.3). */
import type { CommentLabel } from '../views';

export type LabelWeights = Record<CommentLabel, number>;

export const NO_LABELS: Readonly<LabelWeights> = Object.freeze({
  exemplary: 0,
  noise: 0,
  offtopic: 0,
  joke: 0,
  malice: 0,
});

/** Whether `label` is active on a comment with these weight sums and votes. */
export function isLabelActive(label: CommentLabel, weights: Partial<LabelWeights> | undefined, votes: number): boolean {
  const w = weights?.[label] ?? 0;
  if (label === 'exemplary') return w >= 0.5;
  if (w < 1.0) return false;
  if (label === 'noise' && votes >= 5 * w) return false;
  return true;
}

/**
 * Whether a comment counts towards its topic's last interesting activity: neither deleted nor
 * removed, and no active noise, offtopic or malice label.
 */
export function isInteresting(c: {
  deleted: boolean;
  removed: boolean;
  labelWeights?: Partial<LabelWeights>;
  votes: number;
}): boolean {
  if (c.deleted || c.removed) return false;
  return !(['noise', 'offtopic', 'malice'] as const).some((l) => isLabelActive(l, c.labelWeights, c.votes));
}

/** Relevance key (primary, secondary), both compared descending; the first matching case wins. */
export function relevanceKey(c: {
  removed: boolean;
  labelWeights?: Partial<LabelWeights>;
  votes: number;
}): [number, number] {
  const w = c.labelWeights;
  if (c.removed) return [-100, 0];
  if (isLabelActive('noise', w, c.votes)) return [-2, c.votes];
  if (isLabelActive('offtopic', w, c.votes)) return [-1, c.votes];
  if (isLabelActive('joke', w, c.votes)) return [Math.floor(c.votes / 2), 0];
  if (isLabelActive('exemplary', w, c.votes)) return [((w?.exemplary ?? 0) + 1.0) * c.votes, 0];
  return [c.votes, 0];
}
