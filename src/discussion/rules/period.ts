/** The `period` grammar of the topic listing (docs/discussion-api.md §5.2). */

const PERIOD_PATTERN = /^(\d+)([hHdD])$/;
const HOUR_MS = 3_600_000;

/** 'all' → no filter; otherwise the span in hours. */
export type Period = { kind: 'all' } | { kind: 'hours'; hours: number };

/** The period named by `value`, or null when the value is not valid. */
export function parsePeriod(value: string): Period | null {
  if (value === 'all') return { kind: 'all' };
  const m = PERIOD_PATTERN.exec(value);
  if (!m) return null;
  // Digits may be arbitrarily many; a Number is precise enough to compare against the epoch.
  const count = Number(m[1]);
  const hours = m[2] === 'd' || m[2] === 'D' ? count * 24 : count;
  if (!(hours >= 1)) return null;
  return { kind: 'hours', hours };
}

/**
 * The exclusive lower bound on created_at for `period` at `now`, or null when nothing is filtered
 * (`all`, or a span reaching before 1970-01-01).
 */
export function periodStart(period: Period, now: Date): Date | null {
  if (period.kind === 'all') return null;
  const start = now.getTime() - period.hours * HOUR_MS;
  if (!Number.isFinite(start) || start < 0) return null;
  return new Date(start);
}
