/**
 * Sliding-window rate limits shared by every front door and instance (counters in MongoDB): login
 * (discussion-behaviour §3.2), registration, users' writes, failed key checks and uploads. One rule
 * for all of them: a request is refused when one of its counters already holds `limit` attempts
 * within the window; a refused request is not counted, so `Retry-After` is exact and a client that
 * waits it out gets through.
 *
 * An attempt takes its place in each counter before it is evaluated (a slot of the counter, taken
 * by one atomic write: rate-limit.repository.ts), and is refused when a counter has no free place
 * left. Concurrent attempts therefore cannot all see room and all pass: of N at once, at most the
 * limit are counted and evaluated, the rest refused. Reading first and recording after, as this
 * did before, let 298 of 300 concurrent login guesses through a limit of 20.
 */
import crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PreviousHolder, RateLimitRepository } from './rate-limit.repository';

/** What a limit allows; `limit` 0 disables it. */
export interface RateRule {
  limit: number;
  windowSeconds: number;
}

/** Namespaces of the counter keys, one per limit. */
export type RateScope = 'login' | 'register' | 'upload' | 'keycheck' | 'topic' | 'comment' | 'vote' | 'label';

/** A counted attempt; release() uncounts it (an attempt that, once evaluated, should not count). */
export interface RateReservation {
  release(): Promise<void>;
}

/** Either the attempt was counted, or the whole seconds (≥ 1) to wait before another can be. */
export type RateDecision = { retryAfter: null; reservation: RateReservation } | { retryAfter: number };

/**
 * Rounds of "read the counter, take a free slot" one attempt makes when concurrent attempts keep
 * taking the slot it chose; beyond them it is refused as if the counter were full (only a burst at
 * one key gets there, and a burst is what the limit is for).
 */
const MAX_ROUNDS = 6;

interface Taken {
  key: string;
  slot: number;
  previous: PreviousHolder;
}

const NOTHING: RateReservation = { release: async () => {} };

/**
 * How long this process remembers that a counter was full, answering further attempts at it
 * without asking the database: a flood that already met its limit then costs no round trip per
 * request (bench/kdf-flood.js). Short, because another holder may give a slot back meanwhile
 * (a right file key, an attempt refused at its second counter): a refusal is at most this late.
 */
const FULL_MEMO_MS = 1000;

/** A counter found full: from when, until when this process trusts that, and when a slot frees up. */
interface FullMemo {
  seen: number;
  trustUntil: number;
  freeAt: number;
}

export class RateLimiter {
  /** Counters recently found full (FULL_MEMO_MS), by key; a few MiB at most. */
  private readonly full = new LRUCache<string, FullMemo>({
    maxSize: 4 * 1024 * 1024,
    sizeCalculation: (_memo, key) => 64 + key.length * 2,
  });

  constructor(private readonly repo: RateLimitRepository) {}

  /**
   * Counts one attempt at `now` against each of `keys` (within `scope`), or, when one of them
   * already holds `rule.limit` attempts within the window, counts nothing and returns the whole
   * seconds (≥ 1) until the attempt whose expiry brings every counter back under the limit leaves
   * the window. Returns null when counted (or the rule is off).
   */
  async attempt(scope: RateScope, keys: readonly string[], rule: RateRule, now: Date): Promise<number | null> {
    return (await this.reserve(scope, keys, rule, now)).retryAfter;
  }

  /** As attempt(), and a counted attempt can be given back (release) once evaluated. */
  async reserve(scope: RateScope, keys: readonly string[], rule: RateRule, now: Date): Promise<RateDecision> {
    const { limit, windowSeconds } = rule;
    if (limit <= 0 || keys.length === 0) return { retryAfter: null, reservation: NOTHING };
    const expiresAt = new Date(now.getTime() + windowSeconds * 1000);
    const holder = crypto.randomBytes(9).toString('base64url');
    const scoped = keys.map((k) => `${scope}:${k}`);
    const remembered = this.rememberedWait(scoped, now.getTime());
    if (remembered !== null) return { retryAfter: seconds(remembered, windowSeconds) };
    const taken: Taken[] = [];
    for (let i = 0; i < scoped.length; i++) {
      const key = scoped[i]!;
      const got = await this.take(key, limit, now, expiresAt, holder);
      if (typeof got === 'number') {
        await this.giveBack(taken, holder);
        // Retry-After covers every exhausted counter, so that waiting it out is enough.
        let retryAfterMs = got;
        for (const other of scoped.slice(i + 1))
          retryAfterMs = Math.max(retryAfterMs, await this.wait(other, limit, now));
        return { retryAfter: seconds(retryAfterMs, windowSeconds) };
      }
      taken.push(got);
    }
    let released = false;
    return {
      retryAfter: null,
      reservation: {
        release: async () => {
          if (released) return;
          released = true;
          await this.giveBack(taken, holder);
        },
      },
    };
  }

  /** The milliseconds to wait when one of `keys` was found full within FULL_MEMO_MS, else null. */
  private rememberedWait(keys: readonly string[], now: number): number | null {
    let wait: number | null = null;
    for (const key of keys) {
      const memo = this.full.get(key);
      // A clock that went back (tests set it) is not trusted either.
      if (memo && memo.seen <= now && now < memo.trustUntil && now < memo.freeAt)
        wait = Math.max(wait ?? 0, memo.freeAt - now);
    }
    return wait;
  }

  /** Takes a free slot of `key` (Taken), or returns the milliseconds until one frees up. */
  private async take(key: string, limit: number, now: Date, expiresAt: Date, holder: string): Promise<Taken | number> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const slots = await this.repo.slots(key, limit);
      const busy = slots.filter((s) => s.expiresAt.getTime() > now.getTime());
      if (busy.length >= limit) {
        const wait = untilFree(busy, limit, now);
        const t = now.getTime();
        this.full.set(key, { seen: t, trustUntil: t + FULL_MEMO_MS, freeAt: t + wait });
        return wait;
      }
      const slot = randomFreeSlot(new Set(busy.map((s) => s.slot)), limit);
      const previous = await this.repo.take(key, slot, now, expiresAt, holder);
      if (previous !== undefined) return { key, slot, previous };
    }
    return Math.max(1000, await this.wait(key, limit, now));
  }

  /** Milliseconds until `key` has a free slot (0 when it has one now). */
  private async wait(key: string, limit: number, now: Date): Promise<number> {
    const busy = (await this.repo.slots(key, limit)).filter((s) => s.expiresAt.getTime() > now.getTime());
    return busy.length >= limit ? untilFree(busy, limit, now) : 0;
  }

  private async giveBack(taken: readonly Taken[], holder: string): Promise<void> {
    for (const t of taken) {
      await this.repo.giveBack(t.key, t.slot, holder, t.previous);
      this.full.delete(t.key);
    }
  }

  /** Forgets attempts whose window ended before `now`. */
  purge(now: Date): Promise<number> {
    return this.repo.purge(now);
  }
}

/**
 * A random slot below `limit` not in `held` (which holds fewer than `limit`), so that concurrent
 * attempts mostly choose different ones. Drawn directly while most slots are free (a large limit
 * is then never enumerated), chosen from the list of free ones otherwise.
 */
function randomFreeSlot(held: ReadonlySet<number>, limit: number): number {
  const pick = (n: number) => Math.floor(Math.random() * n);
  if (held.size * 2 < limit) {
    for (;;) {
      const s = pick(limit);
      if (!held.has(s)) return s;
    }
  }
  const free: number[] = [];
  for (let s = 0; s < limit; s++) if (!held.has(s)) free.push(s);
  return free[pick(free.length)]!;
}

/**
 * Retry-After in whole seconds (≥ 1) for a wait of `ms`, never more than the window: an attempt that
 * read the clock after this one but took its slot first may expire a few milliseconds after
 * `now + window`.
 */
function seconds(ms: number, windowSeconds: number): number {
  return Math.min(windowSeconds, Math.max(1, Math.ceil(ms / 1000)));
}

/** Milliseconds until the oldest of a full counter's attempts leaves the window. */
function untilFree(busy: readonly { expiresAt: Date }[], limit: number, now: Date): number {
  const expiries = busy.map((s) => s.expiresAt.getTime()).sort((a, b) => a - b);
  return expiries[expiries.length - limit]! - now.getTime();
}
