/**
 * Sliding-window rate limits shared by every front door and instance (counters in MongoDB): login
 * (docs/discussion-api.md §3.2), registration and uploads. One rule for all of them: a request is
 * refused when one of its counters already holds `limit` attempts within the window; a refused
 * request is not counted, so `Retry-After` is exact and a client that waits it out gets through.
 */
import type { RateLimitRepository } from './rate-limit.repository';

/** What a limit allows; `limit` 0 disables it. */
export interface RateRule {
  limit: number;
  windowSeconds: number;
}

/** Namespaces of the counter keys, one per limit. */
export type RateScope = 'login' | 'register' | 'upload';

export class RateLimiter {
  constructor(private readonly repo: RateLimitRepository) {}

  /**
   * Counts one attempt at `now` against each of `keys` (within `scope`), or, when one of them
   * already holds `rule.limit` attempts within the window, counts nothing and returns the whole
   * seconds (≥ 1) until the attempt whose expiry brings every counter back under the limit leaves
   * the window. Returns null when counted (or the rule is off).
   */
  async attempt(scope: RateScope, keys: readonly string[], rule: RateRule, now: Date): Promise<number | null> {
    const { limit, windowSeconds } = rule;
    if (limit <= 0 || keys.length === 0) return null;
    const windowMs = windowSeconds * 1000;
    const scoped = keys.map((k) => `${scope}:${k}`);
    const recent = await this.repo.recent(scoped, new Date(now.getTime() - windowMs));
    let retryAfterMs = 0;
    let exhausted = false;
    for (const times of recent.values()) {
      if (times.length >= limit) {
        exhausted = true;
        // The attempt whose expiry brings this counter back under the limit (the oldest, normally).
        const freeing = times[times.length - limit]!;
        retryAfterMs = Math.max(retryAfterMs, freeing.getTime() + windowMs - now.getTime());
      }
    }
    if (exhausted) return Math.max(1, Math.ceil(retryAfterMs / 1000));
    await this.repo.record(scoped, now, new Date(now.getTime() + windowMs));
    return null;
  }

  /** Forgets attempts whose window ended before `now`. */
  purge(now: Date): Promise<number> {
    return this.repo.purge(now);
  }
}
