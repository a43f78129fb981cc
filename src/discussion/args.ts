/**
 * Validation of listing and lookup arguments (docs/discussion-api.md §2.3). Each check appends at most one
 * issue; callers run them in the order of §2.3 (topic_id36, limit, before, after, period, tag,
 * order, then the cross-parameter check) and throw one ValidationError listing every problem.
 * The messages are those of §2.3; GraphQL shows the same wording.
 */
import type { Issue } from '../core/errors';
import { id36ToNumber, isId36, MixedCursor, parseMixedCursor } from './rules/id36';
import { parsePeriod, Period } from './rules/period';
import { reprList, reprString } from './rules/python-repr';
import { parseTagFilter } from './rules/tags';
import { normalizeGroupPath } from './rules/group-path';

export const DEFAULT_LIMIT = 50;
const PATTERN_MESSAGE = 'String does not match expected pattern.';

/** `limit` as a number or as its decimal text; the default when absent. */
export function checkLimit(raw: number | string | undefined, issues: Issue[]): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  let n: bigint;
  if (typeof raw === 'string') {
    if (!/^-?[0-9]+$/.test(raw)) {
      issues.push({ exception: 'ParameterValidationError', message: `Failed to cast value to integer type: ${raw}`, field: 'limit' });
      return DEFAULT_LIMIT;
    }
    n = BigInt(raw);
  } else {
    if (!Number.isInteger(raw)) {
      issues.push({ exception: 'ParameterValidationError', message: `Failed to cast value to integer type: ${raw}`, field: 'limit' });
      return DEFAULT_LIMIT;
    }
    n = BigInt(raw);
  }
  if (n < 1n) {
    issues.push({ exception: 'ValidationError', message: `${n} is less than the minimum of 1`, field: 'limit' });
    return DEFAULT_LIMIT;
  }
  if (n > 100n) {
    issues.push({ exception: 'ValidationError', message: `${n} is greater than the maximum of 100`, field: 'limit' });
    return DEFAULT_LIMIT;
  }
  return Number(n);
}

/** A bare id36 (path id or cursor). Returns undefined when absent or invalid; `{id: null}` names nothing. */
export function checkId36(field: string, raw: string | undefined, issues: Issue[]): { id: number | null } | undefined {
  if (raw === undefined) return undefined;
  if (!isId36(raw)) {
    issues.push({ exception: 'ValidationError', message: PATTERN_MESSAGE, field });
    return undefined;
  }
  return { id: id36ToNumber(raw) };
}

/** A mixed-feed cursor `t-<id36>` / `c-<id36>`. */
export function checkMixedCursor(field: string, raw: string | undefined, issues: Issue[]): MixedCursor | undefined {
  if (raw === undefined) return undefined;
  const c = parseMixedCursor(raw);
  if (!c) issues.push({ exception: 'ValidationError', message: PATTERN_MESSAGE, field });
  return c;
}

export function checkPeriod(raw: string | undefined, issues: Issue[]): Period {
  if (raw === undefined) return { kind: 'all' };
  const p = parsePeriod(raw);
  if (!p) {
    issues.push({ exception: 'ValidationError', message: 'Invalid time period', field: 'period' });
    return { kind: 'all' };
  }
  return p;
}

/** The tag's match key, or undefined (absent or invalid). */
export function checkTag(raw: string | undefined, issues: Issue[]): string | undefined {
  if (raw === undefined) return undefined;
  const r = parseTagFilter(raw);
  if (r.ok) return r.key;
  const message = r.error === 'chars' ? 'Only letters, numbers, and spaces allowed.' : 'Invalid path';
  issues.push({ exception: 'ValidationError', message, field: 'tag' });
  return undefined;
}

/** A group path (`~Games.Tabletop` → `games.tabletop`), or undefined (absent or invalid). */
export function checkGroup(raw: string | undefined, issues: Issue[]): string | undefined {
  if (raw === undefined) return undefined;
  const path = typeof raw === 'string' ? normalizeGroupPath(raw) : null;
  if (path !== null) return path;
  issues.push({
    exception: 'ValidationError',
    message: 'Invalid group path: lowercase letters, numbers and single underscores, with dots between levels (e.g. games.tabletop)',
    field: 'group',
  });
  return undefined;
}

export function checkOrder<T extends string>(raw: string | undefined, allowed: readonly T[], fallback: T, issues: Issue[]): T {
  if (raw === undefined) return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  issues.push({ exception: 'ValidationError', message: `${reprString(raw)} is not one of ${reprList(allowed)}`, field: 'order' });
  return fallback;
}

/** `before` and `after` together (whatever their values). */
export function checkNotBoth(before: string | undefined, after: string | undefined, issues: Issue[]): void {
  if (before !== undefined && after !== undefined) {
    issues.push({ exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' });
  }
}
